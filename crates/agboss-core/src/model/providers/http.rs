//! The HTTP client every provider shares: one POST of a JSON body (its answer read whole, or as
//! a stream of events), with the key from the
//! environment, the call's timeout and the waits between retries on the application's
//! [`Clock`], cancellation by the call's [`Signal`], and each failure mapped to the
//! [`ModelError`] that says what to do about it.
//!
//! The timeout bounds the whole call: every attempt and every wait between attempts. A retry
//! whose wait would end after it is not made; the call fails with the status that asked for it.
//! A streamed answer that breaks off before its end is retried as a 5xx is ([`Failed`]).
//! The key never reaches an error, a log line or a `Debug` output: it is sent in a header
//! marked sensitive, and any echo of it in a body the API sends back is redacted.
//!
//! A 500 answering a request that forced a tool choice is tried once more, not as often as the
//! policy allows: some servers fail every request that forces a choice in a form they do not
//! take, and the error then names the setting to change (docs/decisions/0008).

mod attempts;
mod failure;
mod retry;

use std::fmt;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::ProviderSettings;
use crate::base::http::{api_client, error_chain};
use crate::context::{AbortReason, Signal};
use crate::model::real_requests_forbidden;
use crate::model::{ModelError, ToolChoice};
use crate::time::Clock;

use attempts::Call;
pub(crate) use attempts::{Failed, Reading, read_json};

/// Where an API expects its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    not(all(feature = "anthropic", feature = "gemini")),
    allow(
        dead_code,
        reason = "only some dialects send their key in a header of its own"
    )
)]
pub(crate) enum KeyHeader {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// The key alone in a header of its own, such as `x-api-key`.
    Named(&'static str),
}

/// One POST of a JSON body to a provider.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Post<'a> {
    /// Appended to the settings' base URL: `/chat/completions`.
    pub(crate) path: &'a str,
    /// The model asked for, which a forbidden request names.
    pub(crate) model: &'a str,
    /// The body.
    pub(crate) body: &'a Value,
    /// Where the key goes.
    pub(crate) key_header: KeyHeader,
    /// Headers every request of this API carries (`anthropic-version`).
    pub(crate) headers: &'a [(&'static str, &'static str)],
    /// The tool choice the request forces, if it forces one.
    pub(crate) forced: Option<Forced<'a>>,
}

/// A tool choice a request forces (`required`, or a tool's name), for the error a server's
/// failure of it gets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Forced<'a> {
    /// The choice.
    pub(crate) choice: &'a ToolChoice,
    /// A tool of the request, which the advice may name.
    pub(crate) tool: Option<&'a str>,
}

/// A provider's connection: its settings, its key, the clock its timeouts run on and one HTTP
/// client (with its connection pool) for all its calls.
pub(crate) struct Client {
    settings: ProviderSettings,
    key: Option<String>,
    clock: Clock,
    http: Result<reqwest::Client, String>,
    /// Why the system's CA certificates could not be loaded, if they could not: `https` fails
    /// then, and its errors say why.
    tls_problem: Option<String>,
}

impl fmt::Debug for Client {
    /// Never prints the key, only whether there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = if self.key.is_some() {
            "<set>"
        } else {
            "<none>"
        };
        f.debug_struct("Client")
            .field("settings", &self.settings)
            .field("key", &key)
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client for `settings`, sending `key` (trimmed; blank counts as missing). Building the
    /// HTTP client cannot fail the caller: a failure is the error of every call.
    pub(crate) fn new(settings: ProviderSettings, key: Option<String>, clock: Clock) -> Client {
        let key = key.map(|k| k.trim().to_owned()).filter(|k| !k.is_empty());
        let mut tls_problem = None;
        let http = api_client().map(|(client, problem)| {
            tls_problem = problem;
            client
        });
        Client {
            settings,
            key,
            clock,
            http,
            tls_problem,
        }
    }

    /// Where a request to `path` (`/chat/completions`) goes.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.settings.base_url)
    }

    /// The provider's name, as errors give it.
    pub(crate) fn provider(&self) -> &str {
        &self.settings.name
    }

    /// Sends `post` and returns the JSON the API answered, retrying 429 and 5xx, stopping when
    /// `signal` fires or the call's timeout passes.
    pub(crate) async fn post_json(
        &self,
        post: Post<'_>,
        signal: &Signal,
    ) -> Result<Value, ModelError> {
        self.post(post, signal, &mut attempts::Json).await
    }

    /// Sends `post` and reads each attempt's successful answer with `reading` (a whole JSON
    /// body, or a stream of events), retrying 429, 5xx and answers that broke off before their
    /// end, stopping when `signal` fires or the call's timeout passes: both bound the whole
    /// call, every attempt read to its end and every wait between attempts.
    pub(crate) async fn post<R: Reading>(
        &self,
        post: Post<'_>,
        signal: &Signal,
        reading: &mut R,
    ) -> Result<R::Output, ModelError> {
        if real_requests_forbidden() {
            return Err(ModelError::Forbidden {
                model: post.model.to_owned(),
            });
        }
        let headers = self.headers(&post, R::ACCEPT)?;
        let http = self
            .http
            .as_ref()
            .map_err(|detail| self.transport(detail.clone()))?;
        let body = serde_json::to_vec(post.body)
            .map_err(|e| self.transport(format!("could not encode the request: {e}")))?;
        let url = self.url(post.path);
        let timeout = self.settings.request_timeout;
        let call = Call {
            http,
            url: &url,
            headers: &headers,
            body: &body,
            started: self.clock.now(),
            forced: post.forced,
        };
        tokio::select! {
            biased;
            () = signal.cancelled() => Err(ModelError::Aborted(
                signal.reason().unwrap_or_else(|| AbortReason::cancelled("execution cancelled")),
            )),
            () = self.clock.sleep(timeout.as_duration()) => Err(ModelError::Timeout {
                provider: self.provider().to_owned(),
                after: timeout,
                url: url.clone(),
            }),
            result = self.attempts(call, reading) => result,
        }
    }

    /// The headers of every attempt, the key among them.
    fn headers(&self, post: &Post<'_>, accept: &'static str) -> Result<HeaderMap, ModelError> {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        for (name, value) in post.headers {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        let Some(key_env) = &self.settings.key_env else {
            return Ok(headers);
        };
        let Some(key) = &self.key else {
            return Err(ModelError::MissingKey {
                provider: self.provider().to_owned(),
                key_env: key_env.clone(),
            });
        };
        let (name, value) = match post.key_header {
            KeyHeader::Bearer => (
                AUTHORIZATION,
                HeaderValue::from_str(&format!("Bearer {key}")),
            ),
            KeyHeader::Named(name) => (HeaderName::from_static(name), HeaderValue::from_str(key)),
        };
        let mut value = value.map_err(|_| {
            self.transport(format!(
                "the key in {key_env} cannot be sent in an HTTP header (it holds a line break or another control character): set {key_env} to the key alone"
            ))
        })?;
        value.set_sensitive(true);
        headers.insert(name, value);
        Ok(headers)
    }

    /// A request that never got an answer: refused connection, broken body, bad URL.
    pub(crate) fn request_failed(&self, url: &str, error: &reqwest::Error) -> ModelError {
        let mut detail = format!("{}; check base_url and the network", error_chain(error));
        if url.starts_with("https:")
            && let Some(problem) = &self.tls_problem
        {
            detail.push_str(&format!(
                " (TLS: {problem}; install the system's CA certificates)"
            ));
        }
        self.transport(detail)
    }

    /// [`ModelError::Transport`] with `detail`, the key redacted from it.
    pub(crate) fn transport(&self, detail: String) -> ModelError {
        ModelError::Transport {
            provider: self.provider().to_owned(),
            detail: self.redact(&detail),
        }
    }

    /// `text` without the key, should the API have echoed it.
    pub(crate) fn redact(&self, text: &str) -> String {
        match &self.key {
            Some(key) if key.len() >= 4 && text.contains(key.as_str()) => {
                text.replace(key.as_str(), "[redacted]")
            }
            _ => text.to_owned(),
        }
    }
}

/// What one attempt got back: a failed answer, or an error event of a stream read as the
/// status it stands for.
struct Answer {
    status: StatusCode,
    retry_after: Option<String>,
    location: Option<String>,
    body: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::providers::WireFormat;

    #[test]
    fn debug_output_never_shows_the_key() {
        let settings = ProviderSettings::new(
            "openai",
            WireFormat::OpenAi,
            "http://127.0.0.1:9",
            Some("OPENAI_API_KEY"),
        );
        let client = Client::new(
            settings,
            Some(" sk-secret-1234\n".into()),
            Clock::from(crate::time::ManualClock::new()),
        );
        let debug = format!("{client:?}");
        assert!(debug.contains(r#"key: "<set>""#), "{debug}");
        assert!(!debug.contains("sk-secret-1234"), "{debug}");
        assert_eq!(
            client.key.as_deref(),
            Some("sk-secret-1234"),
            "the key is trimmed"
        );
        assert_eq!(client.redact("echo sk-secret-1234!"), "echo [redacted]!");
    }

    #[test]
    fn a_blank_key_is_a_missing_one() {
        let settings = ProviderSettings::new(
            "anthropic",
            WireFormat::Anthropic,
            "http://127.0.0.1:9",
            Some("ANTHROPIC_API_KEY"),
        );
        let client = Client::new(
            settings,
            Some("  ".into()),
            Clock::from(crate::time::ManualClock::new()),
        );
        let post = Post {
            path: "/messages",
            model: "m",
            body: &Value::Null,
            key_header: KeyHeader::Named("x-api-key"),
            headers: &[],
            forced: None,
        };
        assert_eq!(
            client.headers(&post, "application/json").unwrap_err(),
            ModelError::MissingKey {
                provider: "anthropic".into(),
                key_env: "ANTHROPIC_API_KEY".into()
            }
        );
    }
}
