//! The HTTP client under a streamable-HTTP session: a tool call's answer is read up to
//! [`MESSAGE_CAP`], as over stdio, and one that goes on past it is cut there and read as far
//! as it came (its text, with `_meta` saying how much was read), instead of failing the call.
//!
//! Only `tools/call` requests are posted here; every other request, `GET` streams and session
//! ends go to rmcp's own client unchanged. The answer is a JSON body or an event of an SSE
//! body: the body is read a chunk at a time and never held past the cap, and a cut body is
//! dropped, which closes the connection and so stops the server's writing. The statuses are
//! read as rmcp's client reads them (`401`/`403` challenges for the OAuth layers above, `404`
//! for an expired session, `429` and `5xx` as status errors, JSON-RPC errors in error bodies).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use reqwest::StatusCode;
use reqwest::header::{
    ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue, RETRY_AFTER, WWW_AUTHENTICATE,
};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, InsufficientScopeError, SseError, StreamableHttpClient,
    StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use serde_json::Value;
use sse_stream::Sse;

use super::cut_answer::{CutAnswer, MESSAGE_CAP};
use super::sse_cut::{CutEvents, data_of};

type HttpError = StreamableHttpError<reqwest::Error>;

/// rmcp's HTTP client, but for a tool call's answer, which is cut at [`MESSAGE_CAP`].
#[derive(Clone, Debug)]
pub(crate) struct CuttingClient(pub(crate) reqwest::Client);

impl CuttingClient {
    /// Posts tool call `message` (request `id`) and reads its answer up to the cap.
    async fn post_call(
        &self,
        uri: Arc<str>,
        (message, id): (ClientJsonRpcMessage, Value),
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let mut request = self
            .0
            .post(uri.as_ref())
            .header(ACCEPT, "text/event-stream, application/json");
        if let Some(token) = auth_header {
            request = request.bearer_auth(token);
        }
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        if let Some(session) = &session_id {
            request = request.header("mcp-session-id", session.as_ref());
        }
        let response = request
            .json(&message)
            .send()
            .await
            .map_err(StreamableHttpError::Client)?;
        let status = response.status();
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .map(str::to_owned)
        };
        let challenge = header(WWW_AUTHENTICATE);
        match (status, challenge) {
            (StatusCode::UNAUTHORIZED, Some(challenge)) => {
                return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                    challenge,
                )));
            }
            (StatusCode::FORBIDDEN, Some(challenge)) => {
                let scope = scope_of(&challenge);
                return Err(StreamableHttpError::InsufficientScope(
                    InsufficientScopeError::new(challenge, scope),
                ));
            }
            (StatusCode::ACCEPTED | StatusCode::NO_CONTENT, _) => {
                return Ok(StreamableHttpPostResponse::Accepted);
            }
            (StatusCode::NOT_FOUND, _) if session_id.is_some() => {
                return Err(StreamableHttpError::SessionExpired);
            }
            _ => {}
        }
        let content_type = header(CONTENT_TYPE).unwrap_or_default();
        let session = header(HeaderName::from_static("mcp-session-id"));
        let is = |media: &str| {
            content_type
                .split(';')
                .next()
                .is_some_and(|essence| essence.trim().eq_ignore_ascii_case(media))
        };
        let (is_json, is_sse) = (is("application/json"), is("text/event-stream"));
        if !status.is_success() {
            let retry_after = header(RETRY_AFTER);
            // A JSON-RPC error is read whole (up to the cap); any other body only as far as
            // an error message shows of it.
            let most = match is_json {
                true => MESSAGE_CAP,
                false => limits.max_error_response_size,
            };
            let body = read_capped(response, most).await?;
            if is_json
                && status != StatusCode::TOO_MANY_REQUESTS
                && let Ok(error @ ServerJsonRpcMessage::Error(_)) =
                    serde_json::from_slice::<ServerJsonRpcMessage>(&body.bytes)
            {
                return Ok(StreamableHttpPostResponse::Json(error, session));
            }
            if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
                return Err(HttpStatusError::new(status.as_u16(), retry_after).into());
            }
            let shown = &body.bytes[..body.bytes.len().min(limits.max_error_response_size)];
            let keep = crate::tool::complete_utf8_prefix(shown);
            return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                format!("HTTP {status}: {}", String::from_utf8_lossy(&shown[..keep])),
            )));
        }
        if is_sse {
            let events = CutEvents::new(response, MESSAGE_CAP, move |prefix| {
                let data = data_of(prefix);
                cut_reply(&data, &id)
            });
            // Read as the standard reads events (rmcp's own parser refuses what it ignores).
            let stream: BoxStream<'static, Result<Sse, SseError>> =
                Box::pin(crate::base::sse::events(events.into_stream()).map(|read| {
                    read.map(|event| Sse {
                        event: event.event,
                        data: Some(event.data),
                        id: event.id,
                        retry: event.retry,
                    })
                    .map_err(|e| SseError::Body(Box::new(e)))
                }));
            return Ok(StreamableHttpPostResponse::Sse(stream, session));
        }
        if !is_json {
            let shown = (!content_type.is_empty()).then_some(content_type);
            return Err(StreamableHttpError::UnexpectedContentType(shown));
        }
        let body = read_capped(response, MESSAGE_CAP).await?;
        let whole = match body.cut {
            false => body.bytes,
            true => cut_reply(&body.bytes, &id),
        };
        match serde_json::from_slice::<ServerJsonRpcMessage>(&whole) {
            Ok(answer) => Ok(StreamableHttpPostResponse::Json(answer, session)),
            Err(e) => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                format!("the answer to a tool call is not a JSON-RPC message: {e}"),
            ))),
        }
    }
}

/// The id of `message` when it is a tool call.
fn call_id(message: &ClientJsonRpcMessage) -> Option<Value> {
    match message {
        ClientJsonRpcMessage::Request(request)
            if matches!(request.request, ClientRequest::CallToolRequest(_)) =>
        {
            serde_json::to_value(&request.id).ok()
        }
        _ => None,
    }
}

/// The whole message for the answer to request `id` cut after `prefix`: what its text had so
/// far, or an error saying why there is none.
fn cut_reply(prefix: &[u8], id: &Value) -> Vec<u8> {
    let answer = CutAnswer::read(prefix);
    let cap = crate::units::bytes(MESSAGE_CAP as u64);
    tracing::warn!(
        request = %id,
        "an HTTP MCP server's answer to a tool call was longer than {cap}, the most the client reads of one message: it was cut there"
    );
    answer.into_message(id, prefix.len() as u64)
}

/// The scope a `403` challenge asks for (`scope="a b"`), when it names one.
fn scope_of(challenge: &str) -> Option<String> {
    let (_, after) = challenge.split_once("scope=")?;
    let scope = match after.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => after.split([',', ' ']).next()?,
    };
    (!scope.is_empty()).then(|| scope.to_owned())
}

/// A body read up to a cap.
struct Capped {
    bytes: Vec<u8>,
    /// Whether the body went on past the cap.
    cut: bool,
}

/// Reads `response`'s body a chunk at a time, at most `cap` bytes of it; the rest is never
/// read (the response is dropped, which closes the connection).
async fn read_capped(mut response: reqwest::Response, cap: usize) -> Result<Capped, HttpError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(StreamableHttpError::Client)?
    {
        let room = cap - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(Capped { bytes, cut: true });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Capped { bytes, cut: false })
}

impl StreamableHttpClient for CuttingClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = MESSAGE_CAP;
        limits.max_json_response_size = MESSAGE_CAP;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        limits.max_json_response_size = MESSAGE_CAP;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        match call_id(&message) {
            Some(id) => {
                self.post_call(
                    uri,
                    (message, id),
                    session_id,
                    auth_header,
                    custom_headers,
                    limits,
                )
                .await
            }
            None => {
                self.0
                    .post_message_with_response_limits(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        limits,
                    )
                    .await
            }
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.0
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        self.0
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                MESSAGE_CAP,
            )
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        self.0
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_names_its_scope_quoted_or_not() {
        assert_eq!(
            scope_of(r#"Bearer error="insufficient_scope", scope="files:read files:write""#),
            Some("files:read files:write".into())
        );
        assert_eq!(
            scope_of("Bearer scope=admin, error=x"),
            Some("admin".into())
        );
        assert_eq!(scope_of(r#"Bearer error="insufficient_scope""#), None);
    }
}
