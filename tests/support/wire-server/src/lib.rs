//! A local HTTP/1 server that stands in for a model provider's API in tests.
//!
//! It listens on `127.0.0.1` on a port of its own, answers each request with the next of a
//! queue of [`Canned`] responses (status, headers and body bytes, taken as they are: a body cut
//! off in the middle of its JSON goes out cut off), and records every request it gets as a
//! [`Recorded`] (method, path, headers, body) for the test to check what the client sent.
//!
//! ```no_run
//! # async fn example() {
//! use wire_server::{Canned, WireServer};
//!
//! let server = WireServer::start([
//!     Canned::json(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "7"),
//!     Canned::json(200, r#"{"choices":[]}"#),
//! ])
//! .await;
//! let base_url = server.base_url(); // http://127.0.0.1:<port>
//! // ... point a client at base_url ...
//! server.wait_for_requests(2).await;
//! assert_eq!(server.requests()[1].path, "/chat/completions");
//! # }
//! ```
//!
//! A streamed answer is a body of server-sent events ([`Canned::events`], the fixtures
//! `tests/fixtures/<provider>/stream_*.sse` from [`stream_fixture`]); after its bytes the
//! connection can stall ([`Canned::then_stall`]) or break ([`Canned::then_break`]) instead of
//! ending, as a stream cut by the network does.
//!
//! When the queue runs out, the server answers `418` with a JSON error saying so, so that a
//! test that sends more requests than it planned fails with a clear message. It stops when the
//! [`WireServer`] is dropped. It must run inside a tokio runtime with I/O enabled.
//!
//! The server is strict: before it answers a request to a model API's path
//! (`…/chat/completions`, `…/messages`, `…:generateContent`, `…:streamGenerateContent`), it checks the body as the
//! strictest servers of that format do ([`strict`]: the OpenAI API and llama-cpp-python's
//! server, Anthropic's and Gemini's APIs): every message's role and fields, `content` a string
//! where one is due (never `null`), each tool call answered by exactly one result. A body that
//! fails is answered with that server's error ([`Flavour`]) and takes no canned response, so a
//! client that regresses fails its test.
//!
//! A server can also play what a particular server was found to do beyond its format's rules
//! ([`Quirk`]): `WireServer::start_with(Flavour::LlamaCppPython,
//! &[Quirk::FailsRequiredToolChoice], responses)` fails every `tool_choice: "required"` as
//! llama-cpp-python 0.3.36 serving Gemma 3 does.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use http_body_util::BodyExt;
use hyper::body::{Bytes, Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::task::{JoinHandle, JoinSet};

mod quirk;
pub mod reasoning;
pub mod strict;

pub use quirk::Quirk;

/// The fixture `tests/fixtures/<provider>/<name>.json`: an answer in `provider`'s documented
/// wire format (`openai`, `anthropic`, `gemini`).
///
/// # Panics
///
/// If the file cannot be read: a test cannot run without its fixture.
pub fn fixture(provider: &str, name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(provider)
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("wire-server: cannot read {}: {e}", path.display()))
}

/// The stream fixture `tests/fixtures/<provider>/<name>.sse`: a streamed answer (server-sent
/// events) in `provider`'s documented wire format.
///
/// # Panics
///
/// If the file cannot be read: a test cannot run without its fixture.
pub fn stream_fixture(provider: &str, name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(provider)
        .join(format!("{name}.sse"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("wire-server: cannot read {}: {e}", path.display()))
}

/// A response the server gives, in its turn.
#[derive(Clone, Debug)]
pub struct Canned {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    hang: bool,
    after: After,
}

/// What the connection does once a body's bytes are sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    /// The body ends there (its length sent up front).
    End,
    /// The body never ends: the connection stays open, silent.
    Stall,
    /// The connection breaks before the body's end.
    Break,
}

impl Canned {
    /// `status` with `body` as `application/json`. The body is sent as given, valid JSON or not.
    pub fn json(status: u16, body: impl Into<String>) -> Canned {
        Canned::bytes(status, body.into().into_bytes()).header("content-type", "application/json")
    }

    /// `status` with the first `keep` bytes of `body` (fewer if `keep` falls inside a
    /// character), labelled `application/json`: an answer cut off mid-JSON. The
    /// `content-length` is the cut body's, so the HTTP exchange itself is complete.
    pub fn truncated(status: u16, body: &str, keep: usize) -> Canned {
        let mut cut = keep.min(body.len());
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        Canned::json(status, &body[..cut])
    }

    /// `status` with `body` as it is, and no headers yet.
    pub fn bytes(status: u16, body: impl Into<Vec<u8>>) -> Canned {
        Canned {
            status,
            headers: Vec::new(),
            body: body.into(),
            hang: false,
            after: After::End,
        }
    }

    /// `status` with `body` as `text/event-stream`: a streamed answer, sent as it is.
    pub fn events(status: u16, body: impl Into<String>) -> Canned {
        Canned::bytes(status, body.into().into_bytes()).header("content-type", "text/event-stream")
    }

    /// The same response, whose body (sent in chunks, no length given) never ends after its
    /// bytes: a stream that stalls, for timeouts and cancellation in the middle of an answer.
    pub fn then_stall(mut self) -> Canned {
        self.after = After::Stall;
        self
    }

    /// The same response, whose connection breaks after the body's bytes (sent in chunks, no
    /// length given), before the body's end.
    pub fn then_break(mut self) -> Canned {
        self.after = After::Break;
        self
    }

    /// A request that never gets an answer, for timeouts and cancellation. The connection stays
    /// open until the client gives up or the server is dropped.
    pub fn hang() -> Canned {
        Canned {
            hang: true,
            ..Canned::bytes(200, Vec::new())
        }
    }

    /// The same response with one more header.
    pub fn header(mut self, name: &str, value: &str) -> Canned {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

/// A request the server got.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// `POST`, `GET`...
    pub method: String,
    /// The path and query: `/chat/completions`.
    pub path: String,
    /// The whole URL: `http://127.0.0.1:<port>/chat/completions`.
    pub url: String,
    /// The headers in the order they came, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON; `Null` when it was empty or not JSON.
    pub body: Value,
    /// Why the strict check refused the body (`messages.2.content: Input should be a valid
    /// string`); empty when it passed, or when the path is no model API's.
    pub problems: Vec<String>,
}

impl Recorded {
    /// The value of header `name` (any case), if it came.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The server. Dropping it stops it and closes its connections.
#[derive(Debug)]
pub struct WireServer {
    address: SocketAddr,
    shared: Arc<Shared>,
    accept: JoinHandle<()>,
}

/// Which server's error a refused request gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Flavour {
    /// Each API's own: OpenAI's `400` with `invalid_request_error` naming the first problem,
    /// Anthropic's `400` `invalid_request_error`, Gemini's `400` `INVALID_ARGUMENT` listing
    /// every problem.
    #[default]
    Api,
    /// llama-cpp-python's server (0.3.x): FastAPI's validation errors, every one, caught by its
    /// route handler and answered as `500` with `internal_server_error`.
    LlamaCppPython,
}

#[derive(Debug, Default)]
struct Shared {
    base_url: String,
    flavour: Flavour,
    quirks: Vec<Quirk>,
    responses: Mutex<VecDeque<Canned>>,
    requests: Mutex<Vec<Recorded>>,
    arrived: Notify,
}

impl WireServer {
    /// Starts a server on `127.0.0.1` that gives `responses` in order.
    ///
    /// # Panics
    ///
    /// If no port on `127.0.0.1` can be bound: a test cannot run without one.
    pub async fn start(responses: impl IntoIterator<Item = Canned>) -> WireServer {
        WireServer::start_as(Flavour::Api, responses).await
    }

    /// Starts a server on `127.0.0.1` that gives `responses` in order and refuses a bad request
    /// as `flavour`'s server does.
    ///
    /// # Panics
    ///
    /// If no port on `127.0.0.1` can be bound: a test cannot run without one.
    pub async fn start_as(
        flavour: Flavour,
        responses: impl IntoIterator<Item = Canned>,
    ) -> WireServer {
        WireServer::start_with(flavour, &[], responses).await
    }

    /// Starts a server on `127.0.0.1` that gives `responses` in order, refuses a bad request as
    /// `flavour`'s server does, and behaves as each of `quirks` says.
    ///
    /// # Panics
    ///
    /// If no port on `127.0.0.1` can be bound: a test cannot run without one.
    pub async fn start_with(
        flavour: Flavour,
        quirks: &[Quirk],
        responses: impl IntoIterator<Item = Canned>,
    ) -> WireServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("wire-server: cannot bind a port on 127.0.0.1");
        let address = listener
            .local_addr()
            .expect("wire-server: the bound socket has no address");
        let shared = Arc::new(Shared {
            base_url: format!("http://{address}"),
            flavour,
            quirks: quirks.to_vec(),
            responses: Mutex::new(responses.into_iter().collect()),
            ..Shared::default()
        });
        let accept = tokio::spawn(accept(listener, shared.clone()));
        WireServer {
            address,
            shared,
            accept,
        }
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.shared.requests).clone()
    }

    /// Waits until at least `count` requests have been received.
    pub async fn wait_for_requests(&self, count: usize) {
        loop {
            let arrived = self.shared.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            if lock(&self.shared.requests).len() >= count {
                return;
            }
            arrived.await;
        }
    }

    /// How many canned responses are left.
    pub fn responses_left(&self) -> usize {
        lock(&self.shared.responses).len()
    }
}

impl Drop for WireServer {
    fn drop(&mut self) {
        // Dropping the accept task drops its JoinSet, which aborts every connection.
        self.accept.abort();
    }
}

/// Accepts connections until aborted, each served on a task of `connections`.
async fn accept(listener: TcpListener, shared: Arc<Shared>) {
    let mut connections = JoinSet::new();
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        while connections.try_join_next().is_some() {}
        let shared = shared.clone();
        connections.spawn(async move {
            let service = service_fn(move |request| respond(shared.clone(), request));
            // A client that goes away mid-exchange is no concern of the server's.
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Records `request` and gives the next canned response.
async fn respond(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let (parts, body) = request.into_parts();
    let bytes = body
        .collect()
        .await
        .map(|collected| collected.to_bytes())
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let path = parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.path().to_owned(), |p| p.to_string());
    let problems = match dialect(&path) {
        Some(Dialect::OpenAi) => strict::openai(&body),
        Some(Dialect::Anthropic) => {
            [strict::anthropic(&body), reasoning::anthropic(&body)].concat()
        }
        Some(Dialect::Gemini) => [strict::gemini(&body), reasoning::gemini(&path, &body)].concat(),
        None => Vec::new(),
    };
    let recorded = Recorded {
        method: parts.method.to_string(),
        url: format!("{}{path}", shared.base_url),
        path: path.clone(),
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
        problems: problems
            .iter()
            .map(|p| format!("{}: {}", strict::dotted(&p.loc), p.msg))
            .collect(),
    };
    let quirky = match dialect(&path) {
        Some(Dialect::OpenAi) if problems.is_empty() => shared
            .quirks
            .iter()
            .find_map(|quirk| quirk.answer_chat_completions(&recorded.body)),
        _ => None,
    };
    let next = if let Some(answer) = quirky {
        Some(answer)
    } else if problems.is_empty() {
        lock(&shared.responses).pop_front()
    } else {
        dialect(&path).map(|d| refusal(d, shared.flavour, &problems))
    };
    let canned = next.unwrap_or_else(|| {
        let message = format!(
            "wire-server: no canned response left for {} {}",
            recorded.method, recorded.path
        );
        Canned::json(
            418,
            serde_json::json!({"error": {"message": message}}).to_string(),
        )
    });
    lock(&shared.requests).push(recorded);
    shared.arrived.notify_waiters();
    if canned.hang {
        std::future::pending::<()>().await;
    }
    let mut response = Response::new(Body {
        bytes: Some(Bytes::from(canned.body)).filter(|b| !b.is_empty()),
        after: canned.after,
        flushed: false,
    });
    *response.status_mut() =
        hyper::StatusCode::from_u16(canned.status).unwrap_or(hyper::StatusCode::IM_A_TEAPOT);
    for (name, value) in &canned.headers {
        if let (Ok(name), Ok(value)) = (
            hyper::header::HeaderName::from_bytes(name.as_bytes()),
            hyper::header::HeaderValue::from_str(value),
        ) {
            response.headers_mut().append(name, value);
        }
    }
    Ok(response)
}

/// A canned body: its bytes, then what [`After`] says.
struct Body {
    bytes: Option<Bytes>,
    after: After,
    /// Whether the bytes had time to go out before a break.
    flushed: bool,
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = self.get_mut();
        if let Some(bytes) = this.bytes.take() {
            return Poll::Ready(Some(Ok(Frame::data(bytes))));
        }
        match this.after {
            After::End => Poll::Ready(None),
            // Never woken: the connection waits until the client or the server goes.
            After::Stall => Poll::Pending,
            // Once the bytes went out (hyper writes what it has when the body waits): an
            // error at once would drop them unsent with the connection.
            After::Break if !this.flushed => {
                this.flushed = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            After::Break => Poll::Ready(Some(Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "wire-server: the connection breaks here",
            )))),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.bytes.is_none() && self.after == After::End
    }

    fn size_hint(&self) -> SizeHint {
        match (self.after, &self.bytes) {
            (After::End, bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            _ => SizeHint::default(),
        }
    }
}

/// The model APIs a path can be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    OpenAi,
    Anthropic,
    Gemini,
}

fn dialect(path: &str) -> Option<Dialect> {
    let path = path.split('?').next().unwrap_or_default();
    if path.ends_with("/chat/completions") {
        Some(Dialect::OpenAi)
    } else if path.ends_with("/messages") {
        Some(Dialect::Anthropic)
    } else if path.ends_with(":generateContent") || path.ends_with(":streamGenerateContent") {
        Some(Dialect::Gemini)
    } else {
        None
    }
}

/// The answer `flavour`'s server of `dialect` gives a body with `problems` (at least one).
fn refusal(dialect: Dialect, flavour: Flavour, problems: &[strict::Problem]) -> Canned {
    let first = &problems[0];
    match (dialect, flavour) {
        (Dialect::OpenAi, Flavour::LlamaCppPython) => {
            let mut message = format!(
                "{} validation error{}:\n",
                problems.len(),
                if problems.len() == 1 { "" } else { "s" }
            );
            for problem in problems {
                message.push_str(&format!(
                    "  {{'type': 'value_error', 'loc': {}, 'msg': {}, 'input': None}}\n",
                    strict::python_tuple(&problem.loc),
                    python_str(&problem.msg)
                ));
            }
            let body = serde_json::json!({"error": {
                "message": message, "type": "internal_server_error", "param": null, "code": null,
            }});
            Canned::json(500, body.to_string())
        }
        (Dialect::OpenAi, Flavour::Api) => {
            let param = strict::bracketed(&first.loc);
            let body = serde_json::json!({"error": {
                "message": format!("Invalid '{param}': {}", first.msg),
                "type": "invalid_request_error", "param": param, "code": null,
            }});
            Canned::json(400, body.to_string())
        }
        (Dialect::Anthropic, _) => {
            let body = serde_json::json!({"type": "error", "error": {
                "type": "invalid_request_error",
                "message": format!("{}: {}", strict::dotted(&first.loc), first.msg),
            }});
            Canned::json(400, body.to_string())
        }
        (Dialect::Gemini, _) => {
            let message: String = problems
                .iter()
                .map(|p| {
                    format!(
                        "* GenerateContentRequest.{}: {}\n",
                        strict::bracketed(&p.loc),
                        p.msg
                    )
                })
                .collect();
            let body = serde_json::json!({"error": {
                "code": 400, "message": message, "status": "INVALID_ARGUMENT",
            }});
            Canned::json(400, body.to_string())
        }
    }
}

/// `text` as Python's `repr` writes a string: in single quotes, or double quotes when it holds
/// a single quote and no double one.
fn python_str(text: &str) -> String {
    if text.contains('\'') && !text.contains('"') {
        format!("\"{text}\"")
    } else {
        format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// The data behind `mutex`: nothing holding these locks can leave them half-written.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
