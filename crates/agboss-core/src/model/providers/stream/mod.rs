//! Streamed answers: each API's server-sent events folded, as they come, into the body the API
//! would have answered without streaming, which the dialect's own parser then reads. So a
//! streamed call returns exactly what [`chat`](crate::model::ChatModel::chat) would for the same
//! answer (text, tool calls with their ids and arguments, usage, finish reason), by the same
//! rules; along the way the pieces go to the call's [`DeltaSink`].
//!
//! A stream that ends before its end event (OpenAI's `data: [DONE]`, Anthropic's
//! `message_stop`, a Gemini chunk with a `finishReason`) broke off: the attempt fails and is
//! retried as a 5xx is ([`Failed::Cut`]), so a tool call cut in the middle of its arguments never
//! runs. An `error` event is judged as the status it stands for ([`Failed::Said`]). When an
//! attempt that sent deltas fails and another follows, [`ChatDelta::Restart`] goes first.

#[cfg(feature = "anthropic")]
pub(super) mod anthropic;
mod events;
#[cfg(feature = "gemini")]
pub(super) mod gemini;
#[cfg(feature = "openai")]
pub(super) mod openai;

use serde_json::{Map, Value};

use self::events::{Broken, EVENT_CAP, Events};
use super::http::{Client, Failed, Reading, read_json};
use super::wire::sketch;
use crate::model::{ChatDelta, DeltaSink, ModelError};

/// How an API streams an answer.
pub(super) struct Streaming {
    /// The path of a streamed request for a model (Gemini's differs from its plain one).
    pub(super) path: fn(model: &str) -> String,
    /// Adds what a streamed request's body has besides the plain one's (`"stream": true`).
    pub(super) body: fn(&mut Map<String, Value>),
    /// A fresh fold, for one attempt.
    pub(super) fold: fn() -> Box<dyn Fold>,
}

impl std::fmt::Debug for Streaming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Streaming").finish_non_exhaustive()
    }
}

/// One attempt's events folded into the body of a whole answer.
pub(super) trait Fold: Send {
    /// Takes one event (`name` its `event` field, empty when it has none), sending what it
    /// adds to the answer to `deltas`. [`Step::End`] when it was the stream's last event.
    fn take(&mut self, name: &str, data: &str, deltas: &mut Deltas<'_>) -> Result<Step, Fault>;

    /// Whether the events so far make a whole answer when the body ends there (Gemini's
    /// stream has no end event of its own); the other APIs end with an event.
    fn whole_at_close(&self) -> bool {
        false
    }

    /// What the stream ends with, for the error of one that stopped before: "`data: [DONE]`".
    fn end(&self) -> &'static str;

    /// The body the API would have answered without streaming.
    fn into_body(self: Box<Self>) -> Value;
}

/// Whether the stream goes on after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// More is to come.
    More,
    /// That was the last event.
    #[cfg_attr(
        not(any(feature = "openai", feature = "anthropic")),
        allow(dead_code, reason = "Gemini's stream has no end event")
    )]
    End,
}

/// Why an event could not be taken.
#[derive(Debug)]
pub(super) enum Fault {
    /// The event is not the API's format: what is wrong.
    Malformed(String),
    /// The event says the answer failed: the status it stands for, and its JSON (the same as
    /// the API's error body).
    Said(u16, Vec<u8>),
}

/// The event's data as JSON.
pub(super) fn data_json(data: &str) -> Result<Value, Fault> {
    serde_json::from_str(data).map_err(|e| {
        Fault::Malformed(format!(
            "an event's data is not JSON ({e}): {}",
            sketch(&Value::String(data.to_owned()))
        ))
    })
}

/// The call's sink, and whether this attempt sent it anything yet.
pub(super) struct Deltas<'a> {
    sink: DeltaSink<'a>,
    sent: bool,
}

impl Deltas<'_> {
    /// Sends `text`, unless it is empty.
    pub(super) fn text(&mut self, text: &str) {
        if !text.is_empty() {
            self.send(ChatDelta::Text(text));
        }
    }

    /// Sends that a tool call began.
    pub(super) fn tool_call(&mut self, id: &str, name: &str) {
        self.send(ChatDelta::ToolCall { id, name });
    }

    fn send(&mut self, delta: ChatDelta<'_>) {
        (self.sink)(delta);
        self.sent = true;
    }
}

/// A streamed answer, read.
pub(super) struct Streamed {
    /// The body of the whole answer.
    pub(super) body: Value,
    /// The server answered with the whole body instead of a stream (a compatible server that
    /// ignores `"stream": true`): no delta has been sent yet.
    pub(super) whole: bool,
}

/// Reads each attempt's answer as `streaming`'s events, sending deltas to `sink`.
pub(super) struct StreamReading<'a> {
    streaming: &'static Streaming,
    deltas: Deltas<'a>,
}

impl<'a> StreamReading<'a> {
    pub(super) fn new(streaming: &'static Streaming, sink: DeltaSink<'a>) -> StreamReading<'a> {
        StreamReading {
            streaming,
            deltas: Deltas { sink, sent: false },
        }
    }
}

impl Reading for StreamReading<'_> {
    type Output = Streamed;
    const ACCEPT: &'static str = "text/event-stream";

    async fn read(
        &mut self,
        client: &Client,
        url: &str,
        response: reqwest::Response,
    ) -> Result<Streamed, Failed> {
        if is_json(&response) {
            let body = read_json(client, url, response)
                .await
                .map_err(Failed::Final)?;
            return Ok(Streamed { body, whole: true });
        }
        let malformed = |detail: String| {
            Failed::Final(ModelError::MalformedResponse {
                provider: client.provider().to_owned(),
                detail: client.redact(&detail),
                url: url.to_owned(),
            })
        };
        if let Some(other) = content_type(&response).filter(|t| !labelled(t, "text/event-stream")) {
            return Err(malformed(format!(
                "the answer is `{other}`, not server-sent events; check that base_url points at an API of this kind"
            )));
        }
        let mut fold = (self.streaming.fold)();
        let mut events = Events::new(response, EVENT_CAP);
        let mut count = 0_usize;
        while let Some(event) = events.next().await {
            let event = event.map_err(|broken| match broken {
                Broken::Transport(detail) => {
                    Failed::Cut(format!("the connection broke after {count} events: {detail}"))
                }
                Broken::TooLong => malformed(format!(
                    "an event of the stream is longer than {} MB; check that base_url points at a model API",
                    EVENT_CAP >> 20
                )),
            })?;
            count += 1;
            let name = event.event.as_deref().unwrap_or_default();
            match fold.take(name, &event.data, &mut self.deltas) {
                Ok(Step::More) => {}
                Ok(Step::End) => {
                    return Ok(Streamed {
                        body: fold.into_body(),
                        whole: false,
                    });
                }
                Err(Fault::Malformed(detail)) => return Err(malformed(detail)),
                Err(Fault::Said(status, body)) => return Err(Failed::Said { status, body }),
            }
        }
        if fold.whole_at_close() {
            return Ok(Streamed {
                body: fold.into_body(),
                whole: false,
            });
        }
        Err(Failed::Cut(format!(
            "the stream ended after {count} events, before {}",
            fold.end()
        )))
    }

    fn retrying(&mut self) {
        if self.deltas.sent {
            self.deltas.sent = false;
            (self.deltas.sink)(ChatDelta::Restart);
        }
    }
}

/// Whether `response` is labelled JSON: a whole answer, not a stream.
fn is_json(response: &reqwest::Response) -> bool {
    content_type(response).is_some_and(|t| labelled(t, "application/json"))
}

/// Whether content type `label` is of `kind`, in any case (`Text/Event-Stream; charset=utf-8`).
fn labelled(label: &str, kind: &str) -> bool {
    label
        .get(..kind.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(kind))
}

/// `response`'s content type, as it labels it (none when it says none).
fn content_type(response: &reqwest::Response) -> Option<&str> {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::trim_start)
}

/// The status of an error object that carries one as a number (`{"code": 503}`, Gemini), else
/// 500: an error in the middle of an answer is the server's.
#[cfg(any(feature = "openai", feature = "gemini"))]
pub(super) fn status_of_code(error: &Value) -> u16 {
    error
        .get("code")
        .and_then(Value::as_u64)
        .and_then(|code| u16::try_from(code).ok())
        .filter(|code| (400..600).contains(code))
        .unwrap_or(500)
}
