//! [`McpConnection`]: one server, started on first use and shared by every execution; started
//! again after a crash; stopped at shutdown.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::Tool;
use rmcp::service::{Peer, RoleClient, RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use tokio::sync::Mutex;

use super::McpError;
use super::authorizer::{AUTHORIZATION_TIMEOUT, Authorizer};
use super::definitions::Listing;
use super::descriptor::{McpServerDescriptor, McpTransport};
use super::elicitation::{Elicitations, Elicitor};
use super::endpoint::{Endpoint, with_credential};
use super::oauth;
use super::oauth_code::Approval;
use super::pin::PinSlot;
use super::process::ServerProcess;
use super::restarts::Restarts;
use super::stdio::{Diagnostics, spawn};
use crate::base::Env;
use crate::time::Clock;
use crate::tool::CredentialProvider;

/// How long a server may take to start and answer `initialize` and `tools/list`.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A live session with a server.
pub(crate) struct Live {
    service: RunningService<RoleClient, Elicitor>,
    child: Option<ServerProcess>,
    diagnostics: Arc<Diagnostics>,
    /// Its declared tools' definitions, judged by the pins.
    listing: Option<Arc<Listing>>,
}

/// One server's connection.
pub struct McpConnection {
    descriptor: &'static McpServerDescriptor,
    env: Env,
    clock: Clock,
    /// What resolves the server's own credential, if it declares one.
    credentials: Option<Arc<dyn CredentialProvider>>,
    /// Who approves its OAuth authorization code grant, if it declares one (else a
    /// [`LoopbackAuthorizer`](super::LoopbackAuthorizer)).
    authorizer: Option<Arc<dyn Authorizer>>,
    /// The owner whose session it is, for a server a person approves.
    owner: Option<String>,
    live: Mutex<Option<Live>>,
    /// Its calls in flight, for its requests for input to find theirs.
    elicitations: Arc<Elicitations>,
    /// The keeper its tools' definitions are judged by.
    pins: Arc<PinSlot>,
    /// Its failures in a row, and when it may be started again.
    restarts: Restarts,
}

/// What a call needs of a live session.
#[derive(Clone)]
pub(crate) struct Session {
    pub(crate) peer: Peer<RoleClient>,
    pub(crate) diagnostics: Arc<Diagnostics>,
    /// What admits a call of a tool: its definition is the approved one. Every session a
    /// connection starts has one (`None` only for a session that listed nothing).
    pub(crate) listing: Option<Arc<Listing>>,
}

impl McpConnection {
    pub(crate) fn new(
        descriptor: &'static McpServerDescriptor,
        env: Env,
        clock: Clock,
        pins: Arc<PinSlot>,
    ) -> McpConnection {
        McpConnection {
            descriptor,
            env,
            clock,
            credentials: None,
            authorizer: None,
            owner: None,
            live: Mutex::new(None),
            elicitations: Elicitations::new(descriptor),
            pins,
            restarts: Restarts::default(),
        }
    }

    /// The same connection, the server's own credential resolved through `provider`.
    pub(crate) fn with_credentials(
        mut self,
        provider: Option<Arc<dyn CredentialProvider>>,
    ) -> McpConnection {
        self.credentials = provider;
        self
    }

    /// The same connection, its OAuth authorization code grant approved through `authorizer`
    /// by `owner` (the owner whose session it is; `None`: the session of no owner).
    pub(crate) fn with_authorizer(
        mut self,
        authorizer: Option<Arc<dyn Authorizer>>,
        owner: Option<String>,
    ) -> McpConnection {
        self.authorizer = authorizer;
        self.owner = owner;
        self
    }

    /// The server.
    pub fn descriptor(&self) -> &'static McpServerDescriptor {
        self.descriptor
    }

    /// Its calls in flight, which its requests for input are matched with.
    pub(crate) fn elicitations(&self) -> &Arc<Elicitations> {
        &self.elicitations
    }

    /// The live session, starting the server first if it is not running (or stopped since).
    pub(crate) async fn session(&self) -> Result<Session, McpError> {
        let mut live = self.live.lock().await;
        if let Some(current) = live.as_mut() {
            let exited = current
                .child
                .as_mut()
                .is_some_and(ServerProcess::has_exited);
            if !exited && !current.service.is_transport_closed() {
                return Ok(session_of(current));
            }
        }
        let attempt = self.restarts.attempt(self.descriptor.name(), &self.clock)?;
        let started = attempt.ended(self.start().await)?;
        let session = session_of(&started);
        *live = Some(started);
        Ok(session)
    }

    /// The server answered a call: its run of failures ends.
    pub(crate) fn answered(&self) {
        self.restarts.answered();
    }

    /// How many times the server was started (tried), since the application was built:
    /// failing servers are started again with a backoff (docs/mcp.md, "Lifecycle").
    pub fn starts(&self) -> u64 {
        self.restarts.starts()
    }

    /// Drops the session after a call saw it break, so that the next call starts the server
    /// again; returns why it broke, as well as the server said.
    pub(crate) async fn broken(&self, session: &Session) -> String {
        let mut live = self.live.lock().await;
        let mut status = None;
        if let Some(current) = live.as_mut()
            && Arc::ptr_eq(&current.diagnostics, &session.diagnostics)
        {
            if let Some(child) = current.child.as_mut() {
                status = child.exit_status().await;
            }
            if let Some(old) = live.take() {
                // The process is reaped already; ending the SDK's session may wait for its
                // handlers (seconds), which the call that saw the break does not wait for.
                tokio::spawn(old.stop());
            }
            let reason = describe_end(status, &session.diagnostics);
            self.restarts.failed(self.clock.now(), reason.clone());
            return reason;
        }
        describe_end(status, &session.diagnostics)
    }

    /// Whether the server is running now.
    pub async fn is_running(&self) -> bool {
        self.live.lock().await.is_some()
    }

    /// The process id of a stdio server that is running.
    pub async fn pid(&self) -> Option<u32> {
        self.live
            .lock()
            .await
            .as_ref()
            .and_then(|l| l.child.as_ref().and_then(|c| c.id()))
    }

    /// Stops the server (a stdio server's whole process group).
    pub async fn shutdown(&self) {
        if let Some(live) = self.live.lock().await.take() {
            live.stop().await;
        }
    }

    async fn start(&self) -> Result<Live, McpError> {
        let server = self.descriptor.name();
        let mut env = self
            .descriptor
            .env()
            .iter()
            .map(|name| {
                self.env
                    .get(name)
                    .map(|value| ((*name).to_owned(), value))
                    .ok_or_else(|| McpError::EnvMissing {
                        server,
                        variable: (*name).to_owned(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let endpoint = match self.descriptor.transport() {
            McpTransport::Stdio { command, args } => Endpoint::stdio(command, args, &self.env),
            McpTransport::Http { url } => Endpoint::http(url, &self.env).and_then(|endpoint| {
                let approval = Approval::new(server, self.owner.clone(), self.authorizer.clone())
                    .on(self.clock.clone())
                    .keeping(self.credentials.as_ref().and_then(|c| c.oauth_tokens()));
                endpoint.with_oauth(self.descriptor.oauth(), &self.env, approval)
            }),
        }
        .map_err(|variable| McpError::EnvMissing { server, variable })?;
        let command = endpoint.to_string();
        let endpoint = with_credential(
            self.descriptor.credential(),
            server,
            self.credentials.as_ref(),
            endpoint,
            &mut env,
        )
        .await
        .map_err(|reason| McpError::StartFailed {
            server,
            command: command.clone(),
            reason,
        })?;
        let failed = |reason| McpError::StartFailed {
            server,
            command: endpoint.to_string(),
            reason,
        };
        let listing = Listing::new(self.descriptor, self.pins.clone());
        let handler = Elicitor::of(self.elicitations.clone(), listing.clone());
        // A person's approval may come within the start, with time of its own.
        let timeout = if endpoint.waits_for_a_person() {
            START_TIMEOUT + AUTHORIZATION_TIMEOUT
        } else {
            START_TIMEOUT
        };
        let mut live = Live::open(&endpoint, &env, &self.clock, timeout, handler)
            .await
            .map_err(failed)?;
        let offered = match live.list_tools(&self.clock, timeout).await {
            Ok(Ok(offered)) => offered,
            Ok(Err(detail)) => {
                live.stop().await;
                return Err(McpError::Protocol { server, detail });
            }
            Err(timeout) => {
                live.stop().await;
                return Err(failed(timeout));
            }
        };
        // The server's `tools/list` must hold every tool the declaration names.
        if let Some(tool) = self
            .descriptor
            .tools()
            .iter()
            .find(|tool| !offered.iter().any(|o| o.name == **tool))
        {
            live.stop().await;
            return Err(McpError::ToolMissing {
                server,
                tool: (*tool).to_owned(),
                offered: offered
                    .iter()
                    .map(|t| t.name.as_ref())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        // Each declared tool's definition is pinned at its first sight, or compared with the pin.
        listing.take(&offered).await;
        live.listing = Some(listing);
        Ok(live)
    }
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
                let config = StreamableHttpClientTransportConfig::with_uri(url.clone());
                let served = match oauth {
                    None => {
                        let client = super::http_client_with(headers.clone())?;
                        let transport = StreamableHttpClientTransport::with_client(client, config);
                        within(clock, timeout, handler.serve(transport)).await?
                    }
                    Some(oauth) => {
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
fn without_type_names(text: &str) -> String {
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
async fn within<F: std::future::Future>(
    clock: &Clock,
    timeout: Duration,
    future: F,
) -> Result<F::Output, String> {
    tokio::select! {
        output = future => Ok(output),
        () = clock.sleep(timeout) => Err(format!("it did not answer within {} s", timeout.as_secs())),
    }
}

fn session_of(live: &Live) -> Session {
    Session {
        peer: live.service.peer().clone(),
        diagnostics: live.diagnostics.clone(),
        listing: live.listing.clone(),
    }
}

/// Why a session ended, in the server's own words where it left some.
fn describe_end(status: Option<String>, diagnostics: &Diagnostics) -> String {
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

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("server", &self.descriptor.name())
            .finish_non_exhaustive()
    }
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
