//! The HTTP client of a session authorized with OAuth, which authorizes again when the server
//! refuses: a `401` (no token yet, or one that expired and could not be refreshed: the
//! client-credentials grant gives no refresh token) runs the grant again; a `403` with
//! `insufficient_scope` asks for the wider scope the server names (a step-up). Either runs
//! once per request, and the request is sent again with the new token; requests waiting
//! meanwhile use the token the first one got.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::stream::BoxStream;
use http_types::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::{AuthClient, AuthError};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;
use tokio::sync::RwLock;

/// The client of one grant.
pub(crate) type Inner = AuthClient<crate::mcp::transport::CuttingClient>;

/// Why the server refused a request: its `WWW-Authenticate` challenge.
#[derive(Clone, Debug)]
pub(crate) enum Refusal {
    /// `401`: no token, or one it no longer takes.
    Unauthorized(String),
    /// `403` with `insufficient_scope`: the token lacks a scope the challenge names.
    InsufficientScope(String),
}

/// Authorizes again after `Refusal`, given the client refused: a new client (or the same one,
/// its token replaced), or why not (without any secret).
pub(crate) type Grant = Arc<
    dyn Fn(Refusal, Inner) -> Pin<Box<dyn Future<Output = Result<Inner, String>> + Send>>
        + Send
        + Sync,
>;
type HttpError = StreamableHttpError<reqwest::Error>;

/// A session's client: the token's client and how to get another.
#[derive(Clone)]
pub(crate) struct RegrantingClient {
    url: Arc<str>,
    grant: Grant,
    /// The client of the newest grant, and how many grants came before it.
    current: Arc<RwLock<(u64, Inner)>>,
}

impl RegrantingClient {
    /// The client of a first grant, `first` (perhaps without a token yet), for the server at
    /// `url`; `grant` authorizes again.
    pub(crate) fn new(url: &str, first: Inner, grant: Grant) -> Self {
        RegrantingClient {
            url: url.into(),
            grant,
            current: Arc::new(RwLock::new((0, first))),
        }
    }

    /// Runs `call` with the newest client; on a refusal, once more after authorizing again.
    /// When that fails, a request says why (an authorization error); a `stream` (the `GET`
    /// rmcp reconnects) keeps the server's refusal, which rmcp stops reconnecting on.
    async fn with_regrant<T, F, Fut>(&self, stream: bool, call: F) -> Result<T, HttpError>
    where
        F: Fn(Inner) -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let (generation, client) = self.current.read().await.clone();
        let (refusal, error) = match call(client).await {
            Err(StreamableHttpError::AuthRequired(challenge)) => (
                Refusal::Unauthorized(challenge.www_authenticate_header.clone()),
                StreamableHttpError::AuthRequired(challenge),
            ),
            Err(StreamableHttpError::InsufficientScope(challenge)) => (
                Refusal::InsufficientScope(challenge.www_authenticate_header.clone()),
                StreamableHttpError::InsufficientScope(challenge),
            ),
            other => return other,
        };
        match self.regrant(generation, refusal).await {
            Ok(fresh) => call(fresh).await,
            Err(why) => {
                tracing::warn!(url = %self.url, %why, "the MCP server could not be authorized");
                if stream {
                    Err(error)
                } else {
                    Err(StreamableHttpError::Auth(AuthError::AuthorizationFailed(
                        why,
                    )))
                }
            }
        }
    }

    /// A client authorized after `refusal`, unless another request got one since
    /// `generation`.
    async fn regrant(&self, generation: u64, refusal: Refusal) -> Result<Inner, String> {
        let mut current = self.current.write().await;
        if current.0 != generation {
            return Ok(current.1.clone());
        }
        let fresh = (self.grant)(refusal, current.1.clone()).await?;
        tracing::info!(url = %self.url, grant = generation + 2, "MCP server authorized again");
        *current = (generation + 1, fresh.clone());
        Ok(fresh)
    }
}

impl StreamableHttpClient for RegrantingClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.with_regrant(false, |client| {
            let (uri, message, session_id) = (uri.clone(), message.clone(), session_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
                    .post_message(uri, message, session_id, auth_header, custom_headers)
                    .await
            }
        })
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
        self.with_regrant(false, |client| {
            let (uri, message, session_id) = (uri.clone(), message.clone(), session_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
                    .post_message_with_max_sse_event_size(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        max_sse_event_size,
                    )
                    .await
            }
        })
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
        self.with_regrant(false, |client| {
            let (uri, message, session_id) = (uri.clone(), message.clone(), session_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
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
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.with_regrant(false, |client| {
            let (uri, session_id) = (uri.clone(), session_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
                    .delete_session(uri, session_id, auth_header, custom_headers)
                    .await
            }
        })
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
        self.with_regrant(true, |client| {
            let (uri, session_id, last_event_id) =
                (uri.clone(), session_id.clone(), last_event_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
                    .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
                    .await
            }
        })
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
        self.with_regrant(true, |client| {
            let (uri, session_id, last_event_id) =
                (uri.clone(), session_id.clone(), last_event_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
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
        })
        .await
    }
}
