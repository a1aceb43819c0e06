//! A response's body read as server-sent events (`base::sse`, as the HTML standard reads them),
//! none longer than a cap: the bytes since the last event's end are counted as they come, and
//! past the cap the reading stops with [`Broken::TooLong`] before any more is buffered.

use crate::base::http::error_chain;
use crate::base::sse::{SseEvent, SseParser};

/// The longest event read (its lines and their line breaks): 16 MB. A model's answer comes in
/// events of a few hundred bytes; Gemini sends each function call whole in one.
pub(crate) const EVENT_CAP: usize = 16 * 1024 * 1024;

/// Why the events of a body stopped before the body's end.
#[derive(Debug)]
pub(super) enum Broken {
    /// The connection broke: what the HTTP client said.
    Transport(String),
    /// An event went on past the cap.
    TooLong,
}

/// The events of one response's body.
pub(super) struct Events {
    /// `None` once the body ended or broke.
    response: Option<reqwest::Response>,
    cap: usize,
    scanner: Scanner,
    parser: SseParser,
}

impl Events {
    /// The events of `response`'s body, none longer than `cap` bytes.
    pub(super) fn new(response: reqwest::Response, cap: usize) -> Events {
        Events {
            response: Some(response),
            cap,
            scanner: Scanner::default(),
            parser: SseParser::default(),
        }
    }

    /// The next whole event; `None` at the body's end (an event the body ended in the middle
    /// of is dropped).
    pub(super) async fn next(&mut self) -> Option<Result<SseEvent, Broken>> {
        loop {
            if let Some(event) = self.parser.next_event() {
                return Some(Ok(event));
            }
            let response = self.response.as_mut()?;
            let broken = match response.chunk().await {
                Ok(None) => None,
                Ok(Some(chunk)) => match self.scanner.take(&chunk, self.cap) {
                    Ok(()) => {
                        self.parser.feed(&chunk);
                        continue;
                    }
                    Err(TooLong) => Some(Broken::TooLong),
                },
                Err(e) => Some(Broken::Transport(error_chain(&e))),
            };
            self.response = None;
            return broken.map(Err);
        }
    }
}

/// An event went on past the cap.
#[derive(Debug)]
struct TooLong;

/// Where events end in a stream of bytes: at an empty line, lines ending in `\r\n`, `\n` or
/// `\r` as the format allows.
#[derive(Debug)]
struct Scanner {
    /// Bytes of the event being read.
    length: usize,
    /// The last byte ended a line, so a line break now is an empty line.
    line_start: bool,
    /// The last byte was `\r`, so a `\n` now belongs to it.
    after_cr: bool,
}

impl Default for Scanner {
    fn default() -> Scanner {
        Scanner {
            length: 0,
            line_start: true,
            after_cr: false,
        }
    }
}

impl Scanner {
    /// Counts `chunk`'s bytes; an error when the event being read goes past `cap`.
    fn take(&mut self, chunk: &[u8], cap: usize) -> Result<(), TooLong> {
        for &byte in chunk {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    if self.line_start {
                        self.length = 0;
                    } else {
                        self.length += 1;
                        self.line_start = true;
                    }
                    self.after_cr = byte == b'\r';
                }
                _ => {
                    self.length += 1;
                    self.line_start = false;
                    self.after_cr = false;
                }
            }
            if self.length > cap {
                return Err(TooLong);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The longest event of `body`, as the scanner counts it (a cap of that passes, one less
    /// fails).
    fn longest(body: &[u8]) -> usize {
        (0..=body.len())
            .find(|cap| Scanner::default().take(body, *cap).is_ok())
            .unwrap_or(usize::MAX)
    }

    #[test]
    fn an_event_ends_at_an_empty_line_however_lines_end() {
        assert_eq!(longest(b"data: a\n\ndata: bb\n\n"), 9);
        assert_eq!(longest(b"data: a\r\n\r\ndata: bb\r\n\r\n"), 9);
        assert_eq!(longest(b"data: a\r\rdata: bb\r\r"), 9);
        // Two lines of one event count together.
        assert_eq!(longest(b"event: x\ndata: bb\n\n"), 18);
    }

    #[test]
    fn a_line_break_split_across_chunks_still_counts_once() {
        let mut scanner = Scanner::default();
        scanner.take(b"data: a\r", 100).unwrap();
        scanner.take(b"\n\r", 100).unwrap();
        scanner.take(b"\ndata: b", 100).unwrap();
        assert_eq!(scanner.length, 7);
    }
}
