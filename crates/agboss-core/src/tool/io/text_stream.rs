//! Results read while they are made: a [`TextStream`] is the output of a tool whose result may
//! be far longer than its bound (a log, a file, a child process's output, a paged API). The
//! contract reads it up to the bound and drops it there, which stops the producer: the call
//! holds the bound plus one chunk, whatever the producer had to say.

use std::borrow::Cow;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::mpsc;

use super::lossy::text_from_bytes;
use crate::tool::rules::bound::{BoundedText, bound_stopped, bound_text};
use crate::units::ByteSize;

/// The most bytes one read asks a reader for.
const READ_CHUNK: usize = 64 * 1024;

/// How many bytes past the bound are read before the producer is stopped: enough to finish a
/// character the bound falls in (UTF-8 characters are at most 4 bytes) and to know there was
/// more.
const PAST_THE_BOUND: usize = 4;

/// A tool's result as bytes that arrive over time; the model reads them as text (invalid
/// UTF-8 replaced, escape sequences and other controls taken out, as
/// [`text_from_bytes`](super::text_from_bytes) does), bounded like any result.
///
/// Return it as a tool's `Output`. The contract ([`Invoker::invoke`](crate::tool::Invoker::invoke))
/// reads it within the call's timeout and cancellation, stops a few bytes past the bound, and
/// drops it: a reader is closed (a child process's pipe, a file), a [`TextSender`] learns it
/// was stopped. What the model reads then ends with
/// `[result truncated: at least <read> bytes, the first <kept> kept]`: the full size is not
/// known, because it was never made. Its schema is a string; it is not validated (it is text by
/// construction), it is never kept aside as an artifact (its length is not known before it is
/// read), and it cannot be serialized: [`read_bounded`](Self::read_bounded) reads it outside
/// a run.
///
/// ```
/// use agboss_core::tool::TextStream;
/// use agboss_core::units::bytes;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let (sender, stream) = TextStream::channel(4);
/// tokio::spawn(async move {
///     // An endless producer: it ends when the reader stops it.
///     while sender.send("line of log\n").await.is_ok() {}
/// });
/// let read = stream.read_bounded(bytes(30)).await.unwrap();
/// assert!(read.producer_stopped);
/// assert_eq!(
///     read.bounded.text,
///     "line of log\nline of log\nline\n[result truncated: at least 34 bytes, the first 28 kept]"
/// );
/// # });
/// ```
pub struct TextStream {
    source: Source,
}

enum Source {
    Reader(Pin<Box<dyn AsyncRead + Send>>),
    Chunks(mpsc::Receiver<Vec<u8>>),
}

/// The producing end of [`TextStream::channel`].
#[derive(Clone, Debug)]
pub struct TextSender {
    chunks: mpsc::Sender<Vec<u8>>,
}

/// The reader stopped: the result reached its bound, or the call ended (timed out, cancelled).
/// A producer stops when it gets this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the result's reader stopped: it reached its bound or the call ended")]
pub struct Stopped;

/// What [`TextStream::read_bounded`] read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamedText {
    /// The text the model reads, cut and marked when the producer had more.
    pub bounded: BoundedText,
    /// How many bytes were taken from the producer (a few past the bound when it was stopped).
    pub bytes_read: u64,
    /// Whether the producer was stopped before its end.
    pub producer_stopped: bool,
}

impl TextStream {
    /// The bytes `reader` gives until its end; dropping the stream drops `reader` (a child's
    /// stdout closes, so the child gets `SIGPIPE` or an error on its next write).
    pub fn from_reader(reader: impl AsyncRead + Send + 'static) -> TextStream {
        TextStream {
            source: Source::Reader(Box::pin(reader)),
        }
    }

    /// A stream fed by a producer: up to `capacity` chunks wait to be read (at least one). The
    /// stream ends when every [`TextSender`] is dropped.
    pub fn channel(capacity: usize) -> (TextSender, TextStream) {
        let (chunks, receiver) = mpsc::channel(capacity.max(1));
        (
            TextSender { chunks },
            TextStream {
                source: Source::Chunks(receiver),
            },
        )
    }

    /// Reads the text, up to `bound` bytes and a few more, and drops the producer there.
    /// The text is bounded as [`bound_text`](crate::tool::rules::bound_text) bounds a result, with a marker
    /// whose total is `at least <read>` when the producer was stopped.
    ///
    /// # Errors
    ///
    /// The reader's error, with how many bytes had been read.
    pub async fn read_bounded(self, bound: ByteSize) -> std::io::Result<StreamedText> {
        let limit = bound.as_usize().saturating_add(PAST_THE_BOUND);
        let mut bytes: Vec<u8> = Vec::with_capacity(limit.min(READ_CHUNK));
        let producer_stopped = match self.source {
            Source::Reader(mut reader) => loop {
                if bytes.len() >= limit {
                    break true;
                }
                let want = (limit - bytes.len()).min(READ_CHUNK);
                bytes.reserve(want);
                let read = (&mut reader)
                    .take(want as u64)
                    .read_buf(&mut bytes)
                    .await
                    .map_err(|e| read_failed(e, bytes.len()))?;
                if read == 0 {
                    break false;
                }
            },
            Source::Chunks(mut receiver) => loop {
                if bytes.len() >= limit {
                    break true;
                }
                match receiver.recv().await {
                    None => break false,
                    Some(chunk) => {
                        let room = limit - bytes.len();
                        bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
                        if chunk.len() > room {
                            break true;
                        }
                    }
                }
            },
        };
        let bytes_read = bytes.len() as u64;
        if producer_stopped {
            // A character the last bytes only begin is not replaced: the cut drops it anyway.
            bytes.truncate(complete_utf8_prefix(&bytes));
        }
        let text = text_from_bytes(&bytes).text;
        drop(bytes);
        let bounded = match producer_stopped {
            true => bound_stopped(text, bound, bytes_read),
            false => bound_text(text, bound),
        };
        Ok(StreamedText {
            bounded,
            bytes_read,
            producer_stopped,
        })
    }
}

fn read_failed(error: std::io::Error, read: usize) -> std::io::Error {
    std::io::Error::new(
        error.kind(),
        format!("reading the result failed after {read} bytes: {error}"),
    )
}

/// The length of `bytes` without a UTF-8 character its last bytes begin but do not finish.
pub(crate) fn complete_utf8_prefix(bytes: &[u8]) -> usize {
    let tail_start = bytes.len().saturating_sub(3);
    for start in (tail_start..bytes.len()).rev() {
        let lead = bytes[start];
        if lead & 0b1100_0000 == 0b1000_0000 {
            continue;
        }
        let width = match lead {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => 1,
        };
        return match start + width > bytes.len() {
            true => start,
            false => bytes.len(),
        };
    }
    bytes.len()
}

impl TextSender {
    /// Sends `chunk`, waiting while the stream's buffer is full.
    ///
    /// # Errors
    ///
    /// [`Stopped`] once the reader has stopped: the producer should end.
    pub async fn send(&self, chunk: impl Into<Vec<u8>>) -> Result<(), Stopped> {
        self.chunks.send(chunk.into()).await.map_err(|_| Stopped)
    }

    /// Whether the reader has stopped.
    pub fn is_stopped(&self) -> bool {
        self.chunks.is_closed()
    }

    /// Waits until the reader stops (for a producer that should stop work it does between
    /// sends, e.g. in a `tokio::select!`).
    pub async fn stopped(&self) {
        self.chunks.closed().await
    }
}

impl fmt::Debug for TextStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match self.source {
            Source::Reader(_) => "reader",
            Source::Chunks(_) => "channel",
        };
        f.debug_struct("TextStream")
            .field("source", &source)
            .finish()
    }
}

/// A string, to the model.
impl schemars::JsonSchema for TextStream {
    fn schema_name() -> Cow<'static, str> {
        "TextStream".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

/// Refuses: a stream is read by the contract, or by [`TextStream::read_bounded`].
impl serde::Serialize for TextStream {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom(
            "a TextStream is read, not serialized: Invoker::invoke reads it up to the bound, TextStream::read_bounded reads it outside a run",
        ))
    }
}

/// Where a dependency that reads a call's result from elsewhere (an MCP server's answer) says
/// it stopped reading early: the contract then bounds the result with the marker of a stopped
/// producer (`at least <read> bytes`). One per call, from [`Scope::result_cut`](crate::tool::Scope::result_cut).
#[derive(Clone, Debug, Default)]
pub struct ResultCut(Arc<AtomicU64>);

impl ResultCut {
    /// Says the result was cut after `bytes_read` bytes of it were read.
    pub fn record(&self, bytes_read: u64) {
        self.0.store(bytes_read.max(1), Ordering::SeqCst);
    }

    /// How many bytes were read before the cut, if the result was cut.
    pub fn bytes_read(&self) -> Option<u64> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            read => Some(read),
        }
    }
}

/// Whether `O` is [`TextStream`] (the one output type the contract reads instead of rendering).
pub(crate) fn is_text_stream<O: 'static>() -> bool {
    std::any::TypeId::of::<O>() == std::any::TypeId::of::<TextStream>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::bytes;

    fn run<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn a_short_reader_is_read_whole() {
        let read = run(TextStream::from_reader(&b"hello"[..]).read_bounded(bytes(10))).unwrap();
        assert_eq!(read.bounded.text, "hello");
        assert!(!read.bounded.truncated && !read.producer_stopped);
        assert_eq!(read.bytes_read, 5);
    }

    #[test]
    fn a_reader_longer_than_the_bound_is_stopped_past_it() {
        let text = "ab".repeat(1000);
        let stream = TextStream::from_reader(std::io::Cursor::new(text.into_bytes()));
        let read = run(stream.read_bounded(bytes(100))).unwrap();
        assert!(read.producer_stopped);
        assert_eq!(read.bytes_read, 104);
        assert_eq!(
            read.bounded.text,
            format!(
                "{}\n[result truncated: at least 104 bytes, the first 100 kept]",
                "ab".repeat(50)
            )
        );
    }

    #[test]
    fn a_character_across_the_bound_is_not_replaced() {
        // "é" is 2 bytes: the bound (5) falls inside the third; what is read stops inside
        // the fifth, which must not become U+FFFD.
        let stream = TextStream::from_reader(std::io::Cursor::new("é".repeat(50).into_bytes()));
        let read = run(stream.read_bounded(bytes(5))).unwrap();
        assert_eq!(
            read.bounded.text,
            "éé\n[result truncated: at least 9 bytes, the first 4 kept]"
        );
    }

    #[test]
    fn a_stream_that_ends_at_the_limit_is_whole() {
        let (sender, stream) = TextStream::channel(2);
        let producer = async move {
            sender.send("abc").await.unwrap();
        };
        let read = run(async {
            let (read, ()) = tokio::join!(stream.read_bounded(bytes(3)), producer);
            read
        })
        .unwrap();
        assert_eq!(read.bounded.text, "abc");
        assert!(!read.producer_stopped);
    }

    #[test]
    fn the_sender_learns_it_was_stopped() {
        let (sender, stream) = TextStream::channel(1);
        let read = run(async move {
            let producer = tokio::spawn(async move {
                let mut sent = 0u64;
                while sender.send(vec![b'x'; 1000]).await.is_ok() {
                    sent += 1;
                }
                assert!(sender.is_stopped());
                sent
            });
            let read = stream.read_bounded(bytes(2500)).await.unwrap();
            (read, producer.await.unwrap())
        });
        let (read, sent) = read;
        assert!(read.producer_stopped);
        assert_eq!(read.bytes_read, 2504);
        // Three chunks read, one more waiting in the buffer at most.
        assert!(sent <= 4, "{sent} chunks sent");
    }

    #[test]
    fn hostile_bytes_become_text() {
        let read = run(TextStream::from_reader(&b"\x1b[31mred\xff\0"[..]).read_bounded(bytes(64)))
            .unwrap();
        assert_eq!(read.bounded.text, "red\u{FFFD}");
    }

    #[test]
    fn it_cannot_be_serialized() {
        let error = serde_json::to_string(&TextStream::from_reader(&b""[..])).unwrap_err();
        assert!(error.to_string().contains("read_bounded"), "{error}");
    }

    #[test]
    fn complete_prefix_drops_only_an_unfinished_character() {
        assert_eq!(complete_utf8_prefix(b"ab"), 2);
        assert_eq!(complete_utf8_prefix("aé".as_bytes()), 3);
        assert_eq!(complete_utf8_prefix(&"aé".as_bytes()[..2]), 1);
        assert_eq!(complete_utf8_prefix(&"a€".as_bytes()[..3]), 1);
        assert_eq!(complete_utf8_prefix(b"a\xff"), 2);
    }
}
