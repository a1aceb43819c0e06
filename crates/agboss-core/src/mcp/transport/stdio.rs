//! Starting a stdio server: our own child process (in its own process group, so that `npx`'s
//! grandchildren go with it), its stdout checked line by line before rmcp reads it, and the
//! tail of its stderr kept for error messages. What the client writes passes through too, so
//! that an answer to a request the client never sent is seen for what it is.

use agboss_rules::vars::MODEL_PROVIDER_KEYS;
use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop, ProcessGroup};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// How many bytes of a server's stderr are kept.
const STDERR_TAIL: usize = 4096;

use super::cut_answer::MESSAGE_CAP;

/// What a server said on the side: the tail of its stderr, and the first thing on its stdout
/// that was not MCP.
#[derive(Debug)]
pub(crate) struct Diagnostics {
    stderr: Mutex<VecDeque<u8>>,
    violation: Mutex<Option<String>>,
    /// The highest request id the client sent (rmcp numbers its requests from 0); -1 before
    /// the first.
    highest_sent: AtomicI64,
    /// The requests sent and not answered yet: their ids, and whether each is a tool call.
    in_flight: Mutex<Vec<(i64, bool)>>,
}

impl Default for Diagnostics {
    fn default() -> Diagnostics {
        Diagnostics {
            stderr: Mutex::default(),
            violation: Mutex::default(),
            highest_sent: AtomicI64::new(-1),
            in_flight: Mutex::default(),
        }
    }
}

/// What the checks read of a JSON-RPC message; the rest is skipped unread.
#[derive(serde::Deserialize)]
struct Peek {
    id: Option<serde_json::Value>,
    method: Option<String>,
    result: Option<serde::de::IgnoredAny>,
    error: Option<serde::de::IgnoredAny>,
}

impl Peek {
    fn of(text: &str) -> Option<Peek> {
        serde_json::from_str(text).ok()
    }

    /// The id of a request (a method and an id).
    fn request_id(&self) -> Option<i64> {
        self.method.as_ref()?;
        self.id.as_ref()?.as_i64()
    }

    /// The id of a response (an id, a result or an error, no method), unless it is null.
    fn response_id(&self) -> Option<&serde_json::Value> {
        let answers = self.result.is_some() || self.error.is_some();
        (self.method.is_none() && answers)
            .then_some(self.id.as_ref())
            .flatten()
            .filter(|id| !id.is_null())
    }
}

impl Diagnostics {
    /// The last lines of stderr, trimmed, or `None` when it said nothing.
    pub(crate) fn stderr_tail(&self) -> Option<String> {
        let bytes: Vec<u8> = lock(&self.stderr).iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_owned())
    }

    /// The first non-MCP output on stdout, if there was some.
    pub(crate) fn violation(&self) -> Option<String> {
        lock(&self.violation).clone()
    }

    fn record_violation(&self, what: String) {
        lock(&self.violation).get_or_insert(what);
    }

    fn sent(&self, id: i64, tool_call: bool) {
        self.highest_sent.fetch_max(id, Ordering::SeqCst);
        lock(&self.in_flight).push((id, tool_call));
    }

    fn answered(&self, id: &serde_json::Value) {
        if let Some(id) = id.as_i64() {
            lock(&self.in_flight).retain(|(sent, _)| *sent != id);
        }
    }

    /// The tool call an answer cut before its id is for: the one call in flight, when only
    /// one request is.
    fn only_call_in_flight(&self) -> Option<i64> {
        match lock(&self.in_flight).as_slice() {
            [(id, true)] => Some(*id),
            _ => None,
        }
    }

    fn is_call_in_flight(&self, id: &serde_json::Value) -> bool {
        id.as_i64()
            .is_some_and(|id| lock(&self.in_flight).contains(&(id, true)))
    }

    fn push_stderr(&self, bytes: &[u8]) {
        let mut tail = lock(&self.stderr);
        tail.extend(bytes);
        let excess = tail.len().saturating_sub(STDERR_TAIL);
        tail.drain(..excess);
    }
}

/// A started child: the pipe rmcp reads (checked stdout), its stdin, the process.
pub(crate) struct Started {
    pub(crate) read: DuplexStream,
    pub(crate) write: DuplexStream,
    pub(crate) child: Box<dyn ChildWrapper>,
    pub(crate) diagnostics: Arc<Diagnostics>,
}

/// Spawns `command args` with the variables `env` set on top of the process's environment,
/// less the model providers' keys ([`MODEL_PROVIDER_KEYS`]) that `env` does not set: a server
/// never inherits the model provider's key.
pub(crate) fn spawn(
    command: &str,
    args: &[String],
    env: &[(String, String)],
) -> std::io::Result<Started> {
    let mut wrap = CommandWrap::with_new(command, |c| {
        for key in MODEL_PROVIDER_KEYS {
            c.env_remove(key);
        }
        c.args(args)
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
    });
    wrap.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let mut child = wrap.spawn()?;
    let missing = |what| std::io::Error::other(format!("the child's {what} is not piped"));
    let stdout = child.stdout().take().ok_or_else(|| missing("stdout"))?;
    let stderr = child.stderr().take().ok_or_else(|| missing("stderr"))?;
    let stdin = child.stdin().take().ok_or_else(|| missing("stdin"))?;
    let diagnostics = Arc::new(Diagnostics::default());
    let (read, forward) = tokio::io::duplex(64 * 1024);
    // The child leads its process group: the group's id is its pid.
    let group = child.id().map(|id| id as i32);
    tokio::spawn(check_stdout(stdout, forward, diagnostics.clone(), group));
    let (write, from_client) = tokio::io::duplex(64 * 1024);
    tokio::spawn(forward_stdin(from_client, stdin, diagnostics.clone()));
    tokio::spawn(keep_stderr(stderr, diagnostics.clone()));
    Ok(Started {
        read,
        write,
        child,
        diagnostics,
    })
}

/// Forwards stdout to rmcp a line at a time while each line is JSON; the first line that is not
/// (invalid UTF-8, a log line) is recorded and ends the stream, so calls fail saying why
/// instead of waiting for an answer that will not come.
async fn check_stdout(
    stdout: tokio::process::ChildStdout,
    mut forward: DuplexStream,
    diagnostics: Arc<Diagnostics>,
    group: Option<i32>,
) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::with_capacity(4096);
    let mut number = 0u64;
    loop {
        line.clear();
        match read_line_capped(&mut reader, &mut line, MESSAGE_CAP).await {
            Ok(LineRead::End) | Err(_) => break,
            Ok(LineRead::Whole) => {}
            Ok(LineRead::OverCap) => {
                cut_message(&line, number + 1, &mut forward, &diagnostics).await;
                // The server is in the middle of a message the client will not read: it is
                // stopped, and the next call starts it again.
                if let Some(group) = group {
                    let _ = nix::sys::signal::killpg(
                        nix::unistd::Pid::from_raw(group),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
                break;
            }
        }
        number += 1;
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // Each line is read once: what breaks the protocol, and which request it answers.
        let (problem, answered) = match std::str::from_utf8(body) {
            Err(e) => (
                Some(format!(
                    "line {number} of its stdout is not UTF-8 (byte {} of the line: {:#04x}); {STRICT}",
                    e.valid_up_to() + 1,
                    body[e.valid_up_to()]
                )),
                None,
            ),
            Ok(text) => match Peek::of(text) {
                Some(peek) => {
                    let answered = peek.response_id().cloned();
                    let problem = answered.as_ref().and_then(|id| {
                        let sent = diagnostics.highest_sent.load(Ordering::SeqCst);
                        let known = id.as_i64().is_some_and(|id| (0..=sent).contains(&id));
                        (!known).then(|| {
                            format!(
                                "line {number} of its stdout answers request id {id}, which the client never sent; a server answers only the requests it is sent"
                            )
                        })
                    });
                    (problem, answered)
                }
                None if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() => (
                    Some(format!(
                        "line {number} of its stdout is not JSON-RPC: {:?}; {STRICT}",
                        shorten(text)
                    )),
                    None,
                ),
                None => (None, None),
            },
        };
        if let Some(problem) = problem {
            diagnostics.record_violation(problem);
            break;
        }
        if let Some(id) = answered {
            diagnostics.answered(&id);
        }
        if forward.write_all(&line).await.is_err() {
            break;
        }
    }
    let _ = forward.shutdown().await;
}

/// How reading one line ended.
enum LineRead {
    /// The stream ended with nothing read.
    End,
    /// A whole line (with its line break, unless the stream ended first).
    Whole,
    /// The line is longer than the cap: its first `cap` bytes were read, the rest was not.
    OverCap,
}

/// Reads one line into `line`, at most `cap` bytes of it before its line break.
async fn read_line_capped<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<LineRead> {
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match line.is_empty() {
                true => LineRead::End,
                false => LineRead::Whole,
            });
        }
        let room = cap - line.len();
        let (take, ended) = match available.iter().position(|b| *b == b'\n') {
            Some(at) if at <= room => (at + 1, true),
            _ if available.len() > room => {
                line.extend_from_slice(&available[..room]);
                reader.consume(room);
                return Ok(LineRead::OverCap);
            }
            _ => (available.len(), false),
        };
        line.extend_from_slice(&available[..take]);
        reader.consume(take);
        if ended {
            return Ok(LineRead::Whole);
        }
    }
}

/// Line `number` of the server's stdout is longer than [`MESSAGE_CAP`] (`prefix` is what was
/// read of it): the tool call it answers gets what its text had so far, and why the server is
/// stopped is recorded. Any other message is only recorded.
async fn cut_message(
    prefix: &[u8],
    number: u64,
    forward: &mut DuplexStream,
    diagnostics: &Diagnostics,
) {
    let answer = super::cut_answer::CutAnswer::read(prefix);
    // A request or notification of the server's answers no call, whatever its id.
    let call = match &answer.id {
        _ if !answer.is_answer() => None,
        Some(id) => diagnostics.is_call_in_flight(id).then(|| id.clone()),
        None => diagnostics
            .only_call_in_flight()
            .map(serde_json::Value::from),
    };
    let cap = crate::units::bytes(MESSAGE_CAP as u64);
    match call {
        Some(id) => {
            diagnostics.record_violation(format!(
                "line {number} of its stdout, its answer to request {id}, was longer than {cap}, the most the client reads of one message: the answer was cut there and the server stopped"
            ));
            let message = answer.into_message(&id, prefix.len() as u64);
            diagnostics.answered(&id);
            let _ = forward.write_all(&message).await;
        }
        None => diagnostics.record_violation(format!(
            "line {number} of its stdout was longer than {cap}, the most the client reads of one message, and is not the answer to a tool call in flight: the server was stopped"
        )),
    }
}

/// What a stdio server's stdout holds, said after a line that breaks it.
const STRICT: &str = "a stdio MCP server must write only protocol messages to stdout";

/// Forwards what the client writes to the server's stdin a line at a time, noting the id of
/// each request; closes stdin when the client closes its side.
async fn forward_stdin(
    from_client: DuplexStream,
    mut stdin: tokio::process::ChildStdin,
    diagnostics: Arc<Diagnostics>,
) {
    let mut reader = BufReader::new(from_client);
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if let Some(peek) = std::str::from_utf8(&line).ok().and_then(Peek::of)
            && let Some(id) = peek.request_id()
        {
            diagnostics.sent(id, peek.method.as_deref() == Some("tools/call"));
        }
        if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
            break;
        }
    }
    let _ = stdin.shutdown().await;
}

async fn keep_stderr(mut stderr: tokio::process::ChildStderr, diagnostics: Arc<Diagnostics>) {
    let mut buffer = [0u8; 1024];
    while let Ok(n) = stderr.read(&mut buffer).await {
        if n == 0 {
            break;
        }
        diagnostics.push_stderr(&buffer[..n]);
    }
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= 80 {
        text.to_owned()
    } else {
        text.chars().take(77).collect::<String>() + "..."
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_last_4_kb_of_stderr_are_kept() {
        let diagnostics = Diagnostics::default();
        assert_eq!(diagnostics.stderr_tail(), None);
        diagnostics.push_stderr(&[b'a'; 3000]);
        diagnostics.push_stderr(&[b'b'; 3000]);
        let tail = diagnostics.stderr_tail().unwrap();
        assert_eq!(tail.len(), STDERR_TAIL);
        assert_eq!(STDERR_TAIL, 4096);
        assert!(tail.starts_with(&"a".repeat(1096)) && tail.ends_with(&"b".repeat(3000)));
        diagnostics.push_stderr(b"  \n");
        assert!(diagnostics.stderr_tail().unwrap().ends_with('b'), "trimmed");
    }

    fn lines(input: &[u8], cap: usize, buffer: usize) -> Vec<(Vec<u8>, &'static str)> {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(async {
                let mut reader = BufReader::with_capacity(buffer, input);
                let mut read = Vec::new();
                loop {
                    let mut line = Vec::new();
                    let how = match read_line_capped(&mut reader, &mut line, cap).await.unwrap() {
                        LineRead::End => return read,
                        LineRead::Whole => "whole",
                        LineRead::OverCap => "over",
                    };
                    read.push((line, how));
                    if how == "over" {
                        return read;
                    }
                }
            })
    }

    #[test]
    fn a_line_is_read_up_to_the_cap_and_no_further() {
        for buffer in [1, 3, 64] {
            assert_eq!(
                lines(b"ab\ncdef\ng", 4, buffer),
                [
                    (b"ab\n".to_vec(), "whole"),
                    (b"cdef\n".to_vec(), "whole"),
                    (b"g".to_vec(), "whole")
                ],
                "a line of the cap's length is whole (buffer {buffer})"
            );
            assert_eq!(
                lines(b"ab\ncdefgh\nij\n", 4, buffer),
                [(b"ab\n".to_vec(), "whole"), (b"cdef".to_vec(), "over")],
                "buffer {buffer}"
            );
        }
    }

    #[test]
    fn the_first_thing_that_is_not_mcp_is_kept() {
        let diagnostics = Diagnostics::default();
        diagnostics.record_violation("line 1 of its stdout is not JSON-RPC".into());
        diagnostics.record_violation("line 2".into());
        assert_eq!(
            diagnostics.violation().as_deref(),
            Some("line 1 of its stdout is not JSON-RPC")
        );
    }
}
