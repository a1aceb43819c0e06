//! Every attempt of one call, with the waits between them: what is retried (429, 5xx, an
//! answer that broke off before its end) and how a successful answer is read ([`Reading`]: a
//! whole JSON body, or a provider's stream of events).

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderName, LOCATION, RETRY_AFTER};
use serde_json::Value;

use super::{Answer, Client, Forced, failure, retry};
use crate::model::ModelError;
use crate::time::ClockTime;

/// The largest answer read whole; a longer one is reported, not buffered.
const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// Attempts at most for a request that forced a tool choice and got a 500: the first, and one
/// more to tell a passing failure from one that comes back every time.
const FORCED_CHOICE_ATTEMPTS: u32 = 2;

/// How the successful answer (a 2xx) of one attempt is read.
pub(crate) trait Reading: Send {
    /// What a read answer gives.
    type Output: Send;
    /// What the request's `Accept` header asks for.
    const ACCEPT: &'static str;

    /// Reads `response`, which `url` answered with a 2xx.
    async fn read(
        &mut self,
        client: &Client,
        url: &str,
        response: reqwest::Response,
    ) -> Result<Self::Output, Failed>;

    /// The attempt just read failed, and another follows.
    fn retrying(&mut self) {}
}

/// Why reading a successful answer failed.
#[derive(Debug)]
pub(crate) enum Failed {
    /// For good: the call fails with it, no retry.
    Final(ModelError),
    /// The answer said it failed after all (an `error` event in a stream): judged, and retried
    /// or not, as an answer of `status` with `body` would be.
    Said {
        /// The status the failure stands for.
        status: u16,
        /// The failure's JSON, as an error body of the API holds it.
        body: Vec<u8>,
    },
    /// The answer broke off before its end (a stream ended early, the connection broke),
    /// `why` saying how: retried as a 5xx is.
    Cut(String),
}

/// The JSON of a whole answer.
pub(super) struct Json;

impl Reading for Json {
    type Output = Value;
    const ACCEPT: &'static str = "application/json";

    async fn read(
        &mut self,
        client: &Client,
        url: &str,
        response: reqwest::Response,
    ) -> Result<Value, Failed> {
        read_json(client, url, response)
            .await
            .map_err(Failed::Final)
    }
}

/// One call's request, sent again on each attempt.
pub(super) struct Call<'a> {
    pub(super) http: &'a reqwest::Client,
    pub(super) url: &'a str,
    pub(super) headers: &'a HeaderMap,
    pub(super) body: &'a [u8],
    /// When the call began, on the client's clock.
    pub(super) started: ClockTime,
    pub(super) forced: Option<Forced<'a>>,
}

/// What made an attempt fail, and whether it may be tried again.
struct Refused {
    error: ModelError,
    retryable: bool,
    retry_after: Option<String>,
}

impl Client {
    /// Every attempt of `call`, with the waits between them.
    pub(super) async fn attempts<R: Reading>(
        &self,
        call: Call<'_>,
        reading: &mut R,
    ) -> Result<R::Output, ModelError> {
        let policy = self.settings.retry;
        let max_attempts = policy.max_attempts.max(1);
        let max_backoff = policy.max_backoff.as_duration();
        let mut backoff = policy.first_backoff.as_duration().min(max_backoff);
        let url = call.url;
        let mut attempt = 1;
        loop {
            tracing::debug!(provider = self.provider(), url, attempt, "model request");
            let response = call
                .http
                .post(url)
                .headers(call.headers.clone())
                .body(call.body.to_vec())
                .send()
                .await
                .map_err(|e| self.request_failed(url, &e))?;
            let refused = if response.status().is_success() {
                match reading.read(self, url, response).await {
                    Ok(output) => return Ok(output),
                    Err(Failed::Final(error)) => return Err(error),
                    Err(Failed::Said { status, body }) => {
                        let status =
                            StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
                        let answer = Answer {
                            status,
                            retry_after: None,
                            location: None,
                            body,
                        };
                        self.judge(url, &answer, attempt, call.forced)
                    }
                    Err(Failed::Cut(why)) => Refused {
                        error: self.transport(format!(
                            "the answer broke off before its end (attempt {attempt} of {max_attempts}): {why} (POST {url})"
                        )),
                        retryable: true,
                        retry_after: None,
                    },
                }
            } else {
                let answer = self.answer(url, response).await?;
                self.judge(url, &answer, attempt, call.forced)
            };
            if !refused.retryable || attempt >= max_attempts {
                return Err(refused.error);
            }
            let wait = retry::wait(
                refused.retry_after.as_deref(),
                backoff,
                max_backoff,
                self.clock.wall_time(),
            );
            let elapsed = self.clock.now().saturating_since(call.started);
            if elapsed.saturating_add(wait) >= self.settings.request_timeout.as_duration() {
                tracing::debug!(
                    provider = self.provider(),
                    attempt,
                    error = %refused.error,
                    "no time left to retry"
                );
                return Err(refused.error);
            }
            tracing::debug!(
                provider = self.provider(),
                attempt,
                error = %refused.error,
                wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                "retrying model request"
            );
            reading.retrying();
            self.clock.sleep(wait).await;
            backoff = backoff.saturating_mul(2).min(max_backoff);
            attempt += 1;
        }
    }

    /// The error a failed answer reports, and whether it may be tried again.
    fn judge(
        &self,
        url: &str,
        answer: &Answer,
        attempt: u32,
        forced: Option<Forced<'_>>,
    ) -> Refused {
        let error = failure::map(self, url, answer, attempt, forced);
        let retryable = match error {
            // One more attempt tells a passing failure from one that comes back every time.
            ModelError::ToolChoiceFailed(_) => attempt < FORCED_CHOICE_ATTEMPTS,
            // A 5xx whose body says the request is invalid fails the same way every time.
            ModelError::BadRequest { .. } => false,
            _ => answer.status == StatusCode::TOO_MANY_REQUESTS || answer.status.is_server_error(),
        };
        Refused {
            error,
            retryable,
            retry_after: answer.retry_after.clone(),
        }
    }

    /// A failed answer: its status, what `failure` and `retry` need of its headers, its body.
    async fn answer(&self, url: &str, response: reqwest::Response) -> Result<Answer, ModelError> {
        let status = response.status();
        let header = |name: HeaderName| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let retry_after = header(RETRY_AFTER);
        let location = header(LOCATION);
        let body = read_body(self, url, response).await?;
        Ok(Answer {
            status,
            retry_after,
            location,
            body,
        })
    }
}

/// The JSON of a successful answer read whole.
pub(crate) async fn read_json(
    client: &Client,
    url: &str,
    response: reqwest::Response,
) -> Result<Value, ModelError> {
    let body = read_body(client, url, response).await?;
    serde_json::from_slice(&body).map_err(|e| ModelError::MalformedResponse {
        provider: client.provider().to_owned(),
        detail: format!(
            "the body is not complete JSON ({e}); it begins `{}`. Check that base_url points at an API of this kind",
            client.redact(&failure::snippet(&String::from_utf8_lossy(&body), 120)),
        ),
        url: url.to_owned(),
    })
}

/// The body of `response`, up to [`MAX_BODY_BYTES`].
async fn read_body(
    client: &Client,
    url: &str,
    mut response: reqwest::Response,
) -> Result<Vec<u8>, ModelError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| client.request_failed(url, &e))?
    {
        if bytes.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(ModelError::MalformedResponse {
                provider: client.provider().to_owned(),
                detail: format!(
                    "the answer is longer than {} MB; check that base_url points at a model API",
                    MAX_BODY_BYTES >> 20
                ),
                url: url.to_owned(),
            });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}
