//! An SSE body read an event at a time, none longer than a cap: the bytes of each whole event
//! pass on unchanged (to the event parser, `base::sse`), and an event that goes on past the cap is
//! replaced by the one a function makes of its start, after which the body is dropped.

use futures_util::Stream;

/// Makes the whole message (one line of JSON, ending in a line break) that stands for an event
/// cut after the given bytes (the event's raw lines so far).
type OnCut = Box<dyn FnOnce(&[u8]) -> Vec<u8> + Send>;

/// The events of a response's SSE body, cut at a cap.
pub(crate) struct CutEvents {
    response: Option<reqwest::Response>,
    cap: usize,
    on_cut: Option<OnCut>,
    /// The event being read: its raw bytes so far.
    event: Vec<u8>,
    scanner: Boundaries,
}

impl CutEvents {
    /// Reads `response`'s events; one longer than `cap` bytes becomes `on_cut`'s message.
    pub(crate) fn new(
        response: reqwest::Response,
        cap: usize,
        on_cut: impl FnOnce(&[u8]) -> Vec<u8> + Send + 'static,
    ) -> Self {
        CutEvents {
            response: Some(response),
            cap,
            on_cut: Some(Box::new(on_cut)),
            event: Vec::new(),
            scanner: Boundaries::default(),
        }
    }

    /// The bytes of whole events, a chunk of the body's at a time.
    pub(crate) fn into_stream(
        self,
    ) -> impl Stream<Item = Result<Vec<u8>, reqwest::Error>> + Send + 'static {
        futures_util::stream::unfold(self, |mut events| async move {
            loop {
                let response = events.response.as_mut()?;
                let chunk = match response.chunk().await {
                    Err(e) => {
                        events.response = None;
                        return Some((Err(e), events));
                    }
                    // The end: what is left is the parser's to judge.
                    Ok(None) => {
                        events.response = None;
                        let rest = std::mem::take(&mut events.event);
                        return (!rest.is_empty()).then(|| (Ok(rest), events));
                    }
                    Ok(Some(chunk)) => chunk,
                };
                let whole = events.take(&chunk);
                if !whole.is_empty() {
                    return Some((Ok(whole), events));
                }
            }
        })
    }

    /// Reads `chunk`: the bytes of the events it ends, and after a cut the cut event's message
    /// (the body is dropped then).
    fn take(&mut self, chunk: &[u8]) -> Vec<u8> {
        let mut whole = Vec::new();
        for &byte in chunk {
            self.event.push(byte);
            if self.scanner.ends_event(byte) {
                whole.append(&mut self.event);
            } else if self.event.len() >= self.cap {
                self.response = None;
                if let Some(on_cut) = self.on_cut.take() {
                    let message = on_cut(&self.event);
                    whole.extend_from_slice(b"data: ");
                    whole.extend_from_slice(&message);
                    whole.push(b'\n');
                }
                self.event = Vec::new();
                break;
            }
        }
        whole
    }
}

/// Finds where events end: an empty line, lines ending in CR, LF or CRLF.
struct Boundaries {
    /// The line being read has no bytes yet.
    line_empty: bool,
    /// The last byte was a CR (an LF after it ends no line).
    after_cr: bool,
}

impl Default for Boundaries {
    fn default() -> Self {
        Boundaries {
            line_empty: true,
            after_cr: false,
        }
    }
}

impl Boundaries {
    /// Whether `byte` ends an event.
    fn ends_event(&mut self, byte: u8) -> bool {
        let after_cr = std::mem::replace(&mut self.after_cr, byte == b'\r');
        match byte {
            b'\n' if after_cr => false,
            b'\r' | b'\n' => std::mem::replace(&mut self.line_empty, true),
            _ => {
                self.line_empty = false;
                false
            }
        }
    }
}

/// The data of an event's raw lines (`data:` lines, one space after the colon dropped, joined
/// by a line break), as far as they go.
pub(crate) fn data_of(event: &[u8]) -> Vec<u8> {
    let mut data: Vec<u8> = Vec::new();
    let lines = event.split(|&b| b == b'\n' || b == b'\r');
    for line in lines.filter(|line| !line.is_empty()) {
        let Some(value) = line.strip_prefix(b"data:") else {
            continue;
        };
        if !data.is_empty() {
            data.push(b'\n');
        }
        data.extend_from_slice(value.strip_prefix(b" ").unwrap_or(value));
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boundaries(body: &[u8]) -> Vec<usize> {
        let mut scanner = Boundaries::default();
        (0..body.len())
            .filter(|&i| scanner.ends_event(body[i]))
            .collect()
    }

    #[test]
    fn an_event_ends_at_an_empty_line_however_lines_end() {
        assert_eq!(boundaries(b"data: a\n\ndata: b\n\n"), [8, 17]);
        assert_eq!(boundaries(b"data: a\r\n\r\ndata: b\r\r"), [9, 19]);
        assert_eq!(boundaries(b"data: a\ndata: b\n"), Vec::<usize>::new());
        // A body may begin with an empty line: it ends no event worth the name, only itself.
        assert_eq!(boundaries(b"\ndata: a\n\n"), [0, 9]);
    }

    #[test]
    fn the_data_of_a_cut_event_is_its_data_lines_so_far() {
        assert_eq!(
            data_of(b"event: message\r\nid: 4\r\ndata: {\"a\":\r\ndata:1}"),
            b"{\"a\":\n1}"
        );
        assert_eq!(data_of(b"data: {\"text\": \"xxx"), b"{\"text\": \"xxx");
        assert_eq!(data_of(b": comment\nretry: 10\n"), b"");
    }
}
