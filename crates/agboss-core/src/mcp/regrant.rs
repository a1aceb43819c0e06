//! The HTTP client of a session authorized with OAuth's client-credentials grant, which asks
//! for a new token when the server refuses the one it has. That grant gives no refresh token,
//! so once a token expires (or is revoked) every request would be refused for the rest of the
//! session: here a refusal (`401`) runs the grant again, once, and the request is sent again
//! with the new token. Requests waiting meanwhile use the token the first one got.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::stream::BoxStream;
use http_types::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::AuthClient;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;
use tokio::sync::RwLock;

/// The client of one grant.
pub(crate) type Inner = AuthClient<reqwest::Client>;

/// Runs the grant again: a new client, or why not (without the secret).
pub(crate) type Grant =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<Inner, String>> + Send>> + Send + Sync>;
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
    /// The client of a first grant, `first`, for the server at `url`; `grant` runs it again.
    pub(crate) fn new(url: &str, first: Inner, grant: Grant) -> Self {
        RegrantingClient {
            url: url.into(),
            grant,
            current: Arc::new(RwLock::new((0, first))),
        }
    }

    /// Runs `call` with the newest client; on a refusal, once more with a new grant's.
    async fn with_regrant<T, F, Fut>(&self, call: F) -> Result<T, HttpError>
    where
        F: Fn(Inner) -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let (generation, client) = self.current.read().await.clone();
        match call(client).await {
            Err(StreamableHttpError::AuthRequired(challenge)) => {
                match self.regrant(generation).await {
                    Ok(fresh) => call(fresh).await,
                    Err(why) => {
                        tracing::warn!(url = %self.url, %why, "a new OAuth token could not be granted");
                        Err(StreamableHttpError::AuthRequired(challenge))
                    }
                }
            }
            other => other,
        }
    }

    /// A client with a new token, unless another request got one since `generation`.
    async fn regrant(&self, generation: u64) -> Result<Inner, String> {
        let mut current = self.current.write().await;
        if current.0 != generation {
            return Ok(current.1.clone());
        }
        let fresh = (self.grant)().await?;
        tracing::info!(url = %self.url, grant = generation + 2, "OAuth token granted again");
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
        self.with_regrant(|client| {
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
        self.with_regrant(|client| {
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
        self.with_regrant(|client| {
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
        self.with_regrant(|client| {
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
        self.with_regrant(|client| {
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
        self.with_regrant(|client| {
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
