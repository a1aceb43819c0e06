//! Server-sent events parsed as the HTML standard says a client parses them ("Interpreting an
//! event stream"): lines end in CR LF, LF or CR; a line starting with `:` is a comment; a line
//! without a colon is a field with an empty value; fields other than `event`, `data`, `id` and
//! `retry` are ignored, as is a `retry` that is not all digits and an `id` holding NUL; a blank
//! line dispatches the event, unless it has no data; a stream that ends in the middle of an
//! event drops that event. Bytes that are not UTF-8 are read with replacement characters.
//!
//! The model providers' streams and the MCP client's answers read events with it. (The
//! `sse-stream` crate refuses what the standard ignores: an unknown field, a line without a
//! colon, a second `event` line.)

use std::collections::VecDeque;

#[cfg(feature = "mcp")]
use futures_util::{Stream, StreamExt};

/// One dispatched event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// Its type, when an `event` field named one (the standard's default is `message`).
    pub(crate) event: Option<String>,
    /// Its data lines, joined by line feeds.
    pub(crate) data: String,
    /// Its id, when it had an `id` field.
    pub(crate) id: Option<String>,
    /// The reconnection time it asked for, in milliseconds.
    pub(crate) retry: Option<u64>,
}

/// Reads events from bytes given in chunks of any size.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    /// The line being read.
    line: Vec<u8>,
    /// The last byte was a CR, so an LF now ends nothing more.
    after_cr: bool,
    /// The first line was seen (and a byte order mark before it dropped).
    started: bool,
    /// The event being read.
    event: SseEvent,
    /// Whether a `data` field came, so that the event is dispatched.
    has_data: bool,
    /// Events read and not taken yet.
    ready: VecDeque<SseEvent>,
}

impl SseParser {
    /// Reads `chunk`.
    pub(crate) fn feed(&mut self, chunk: &[u8]) {
        for &byte in chunk {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line_ended(&line);
                    self.line = line;
                    self.line.clear();
                }
                _ => {
                    self.after_cr = false;
                    self.line.push(byte);
                }
            }
        }
    }

    /// The next event read, if one is.
    pub(crate) fn next_event(&mut self) -> Option<SseEvent> {
        self.ready.pop_front()
    }

    fn line_ended(&mut self, line: &[u8]) {
        let mut line = line;
        if !self.started {
            self.started = true;
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        if line.is_empty() {
            let event = std::mem::take(&mut self.event);
            if std::mem::take(&mut self.has_data) {
                self.ready.push_back(event);
            }
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (name, value) = match line.iter().position(|b| *b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        let value = String::from_utf8_lossy(value);
        match name {
            b"event" => self.event.event = Some(value.into_owned()),
            b"data" => {
                if self.has_data {
                    self.event.data.push('\n');
                }
                self.event.data.push_str(&value);
                self.has_data = true;
            }
            b"id" if !value.contains('\0') => self.event.id = Some(value.into_owned()),
            b"retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.event.retry = value.parse().ok();
            }
            _ => {}
        }
    }
}

/// The events of `bytes`, in order, then the error that ended them, if one did.
#[cfg(feature = "mcp")]
pub(crate) fn events<B, C, E>(bytes: B) -> impl Stream<Item = Result<SseEvent, E>> + Send + 'static
where
    B: Stream<Item = Result<C, E>> + Send + 'static,
    C: AsRef<[u8]> + Send + 'static,
    E: Send + 'static,
{
    let bytes = Some(bytes.boxed());
    futures_util::stream::unfold(
        (bytes, SseParser::default()),
        |(mut bytes, mut parser)| async move {
            loop {
                if let Some(event) = parser.next_event() {
                    return Some((Ok(event), (bytes, parser)));
                }
                match bytes.as_mut()?.next().await {
                    Some(Ok(chunk)) => parser.feed(chunk.as_ref()),
                    Some(Err(e)) => return Some((Err(e), (None, parser))),
                    None => return None,
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::default();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk);
            out.extend(std::iter::from_fn(|| parser.next_event()));
        }
        out
    }

    fn data(data: &str) -> SseEvent {
        SseEvent {
            data: data.into(),
            ..SseEvent::default()
        }
    }

    #[test]
    fn fields_the_standard_ignores_are_ignored() {
        let read = events(&[
            b"\xef\xbb\xbf: a comment\nvendor-field: x\nno-colon-here\nretry: soon\nid: a\0b\ndata: one\n\n",
        ]);
        assert_eq!(read, [data("one")]);
    }

    #[test]
    fn lines_end_three_ways_across_chunks_and_data_lines_join() {
        let read = events(&[
            b"event: a\r",
            b"\ndata: x\rdata:y\r\n",
            b"\r\nevent: b\ndata\nid: 7\nretry: 1500\n\n",
        ]);
        assert_eq!(
            read,
            [
                SseEvent {
                    event: Some("a".into()),
                    data: "x\ny".into(),
                    ..SseEvent::default()
                },
                SseEvent {
                    event: Some("b".into()),
                    data: String::new(),
                    id: Some("7".into()),
                    retry: Some(1500),
                },
            ]
        );
    }

    #[test]
    fn an_event_without_data_or_without_its_blank_line_is_not_dispatched() {
        assert_eq!(
            events(&[b"event: ping\n\ndata: cut"]),
            Vec::<SseEvent>::new()
        );
        // The last `event` line names it.
        let read = events(&[b"event: a\nevent: b\ndata: \xff\n\n"]);
        assert_eq!(read[0].event.as_deref(), Some("b"));
        assert_eq!(read[0].data, "\u{fffd}");
    }
}
