//! [`Live`]: a session with a server that is running, opened over stdio or streamable HTTP
//! (with OAuth where declared), and why one could not be opened or ended, said in the server's
//! own words and without the SDK's type names.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::Tool;
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};

use super::endpoint::Endpoint;
use crate::mcp::elicitation::Elicitor;
use crate::mcp::oauth;
use crate::mcp::pins::Listing;
use crate::mcp::transport::{
    CuttingClient, Diagnostics, MESSAGE_CAP, ServerProcess, http_client_with, spawn,
};
use crate::time::Clock;

/// A live session with a server.
pub(crate) struct Live {
    pub(crate) service: RunningService<RoleClient, Elicitor>,
    pub(crate) child: Option<ServerProcess>,
    pub(crate) diagnostics: Arc<Diagnostics>,
    /// Its declared tools' definitions, judged by the pins.
    pub(crate) listing: Option<Arc<Listing>>,
}

impl Live {
    /// A session with the server at `endpoint`, `initialize` answered within `timeout` on
    /// `clock`, its requests answered by `handler`. A stdio server is started in its own process group with the variables `env` set
    /// on top of the process's environment. The error says why, in the server's own words where
    /// it left some.
    pub(crate) async fn open(
        endpoint: &Endpoint,
        env: &[(String, String)],
        clock: &Clock,
        timeout: Duration,
        handler: Elicitor,
    ) -> Result<Live, String> {
        match endpoint {
            Endpoint::Stdio { command, args } => {
                let started = spawn(command, args, env).map_err(|e| {
                    if e.kind() == std::io::ErrorKind::NotFound {
                        format!("`{command}` was not found: install it or put it on PATH")
                    } else {
                        e.to_string()
                    }
                })?;
                let diagnostics = started.diagnostics.clone();
                let mut child = ServerProcess::new(started.child);
                let served =
                    within(clock, timeout, handler.serve((started.read, started.write))).await;
                let reason = match served {
                    Ok(Ok(service)) => {
                        return Ok(Live {
                            service,
                            child: Some(child),
                            diagnostics,
                            listing: None,
                        });
                    }
                    Ok(Err(e)) => e.to_string(),
                    Err(timeout) => {
                        child.stop().await;
                        let stderr = diagnostics.stderr_tail().map_or_else(String::new, |tail| {
                            format!("; its stderr ends with: {tail}")
                        });
                        return Err(format!("{timeout}{stderr}"));
                    }
                };
                let status = child.exit_status().await;
                child.stop().await;
                Err(format!("{} ({reason})", describe_end(status, &diagnostics)))
            }
            Endpoint::Http {
                url,
                oauth,
                headers,
            } => {
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.clone());
                // What the client reads of one message, as over stdio: a tool call's answer
                // longer than that is cut and read as far as it came (`http_answers`); any
                // other message that long fails its request in the SDK.
                config.max_json_response_size = MESSAGE_CAP;
                config.max_sse_event_size = MESSAGE_CAP;
                let served = match oauth {
                    None => {
                        let client = http_client_with(headers.clone())?;
                        let transport = StreamableHttpClientTransport::with_client(
                            CuttingClient(client),
                            config,
                        );
                        within(clock, timeout, handler.serve(transport)).await?
                    }
                    Some(oauth) => {
                        // Its requests go through the same cutting client, under the token's.
                        let client = within(clock, timeout, oauth::authorize(url, oauth)).await??;
                        let transport = StreamableHttpClientTransport::with_client(client, config);
                        within(clock, timeout, handler.serve(transport)).await?
                    }
                };
                Ok(Live {
                    service: served.map_err(|e| http_failure(url, &e))?,
                    child: None,
                    diagnostics: Arc::new(Diagnostics::default()),
                    listing: None,
                })
            }
        }
    }

    /// The server's tools (`tools/list`, every page), within `timeout` on `clock`: `Err` when it
    /// did not answer in time, `Ok(Err)` when it answered with an error.
    pub(crate) async fn list_tools(
        &self,
        clock: &Clock,
        timeout: Duration,
    ) -> Result<Result<Vec<Tool>, String>, String> {
        let listed = within(clock, timeout, self.service.peer().list_all_tools()).await?;
        Ok(listed.map_err(|e| format!("tools/list failed: {e}")))
    }

    /// Ends the session and stops the server (a stdio server's whole process group).
    pub(crate) async fn stop(self) {
        let Live { service, child, .. } = self;
        let _ = service.cancel().await;
        if let Some(mut child) = child {
            // The whole process group: `npx` and the server it started.
            child.stop().await;
        }
    }
}

/// Why a streamable-HTTP server could not be reached, said without the SDK's type names:
/// `connection refused at <url>` when nothing listens there, else the error and its causes.
fn http_failure(url: &str, error: &(dyn std::error::Error + 'static)) -> String {
    let mut texts: Vec<String> = Vec::new();
    let mut pending = vec![error];
    while let Some(e) = pending.pop() {
        let refused = e
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused);
        let text = e.to_string();
        if refused || text.to_ascii_lowercase().contains("connection refused") {
            return format!(
                "connection refused at {url}: nothing listens there; start the server, or check its address"
            );
        }
        if !texts.iter().any(|t| t.contains(&text)) {
            texts.push(text);
        }
        // The SDK keeps the transport's error, and the HTTP client's inside that, without
        // naming them as sources.
        if let Some(rmcp::service::ClientInitializeError::TransportError { error, .. }) =
            e.downcast_ref::<rmcp::service::ClientInitializeError>()
        {
            pending.push(error);
        }
        if let Some(StreamableHttpError::Client(client)) =
            e.downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            pending.push(client);
        }
        pending.extend(e.source());
    }
    without_type_names(&texts.join(": "))
}

/// `text` without the `Transport [<type>] error: ` prefixes the SDK writes, whose type names
/// (`WorkerTransport<StreamableHttpClientWorker<..>>`) mean nothing to a user.
pub(crate) fn without_type_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("Transport [") {
        out.push_str(&rest[..at]);
        match rest[at..].find("] error: ") {
            Some(end) => rest = &rest[at + end + "] error: ".len()..],
            None => {
                out.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Runs `future` for at most `timeout` on `clock`.
pub(crate) async fn within<F: std::future::Future>(
    clock: &Clock,
    timeout: Duration,
    future: F,
) -> Result<F::Output, String> {
    tokio::select! {
        output = future => Ok(output),
        () = clock.sleep(timeout) => Err(format!("it did not answer within {} s", timeout.as_secs())),
    }
}

/// Why a session ended, in the server's own words where it left some.
pub(crate) fn describe_end(status: Option<String>, diagnostics: &Diagnostics) -> String {
    if let Some(violation) = diagnostics.violation() {
        return violation;
    }
    let mut reason = match status {
        Some(status) => format!("the process {status}"),
        None => "the connection closed".to_owned(),
    };
    if let Some(stderr) = diagnostics.stderr_tail() {
        reason.push_str(&format!("; its stderr ends with: {stderr}"));
    }
    reason
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sdks_type_names_are_left_out() {
        assert_eq!(
            without_type_names(
                "Send message error Transport [rmcp::transport::worker::WorkerTransport<rmcp::transport::streamable_http_client::StreamableHttpClientWorker<reqwest::async_impl::client::Client>>] error: Client error: HTTP status 404, when send initialize request"
            ),
            "Send message error Client error: HTTP status 404, when send initialize request"
        );
        assert_eq!(without_type_names("plain"), "plain");
    }
}
