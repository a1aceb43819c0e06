//! [`McpConnection`]: one server, started on first use and shared by every execution; started
//! again after a crash; stopped at shutdown.

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{Peer, RoleClient};
use tokio::sync::Mutex;

use super::endpoint::{Endpoint, with_credential};
use super::live::{Live, describe_end};
use super::restarts::Restarts;
use crate::base::Env;
use crate::mcp::elicitation::{Elicitations, Elicitor};
use crate::mcp::oauth::{AUTHORIZATION_TIMEOUT, Approval, Authorizer};
use crate::mcp::pins::{Listing, PinSlot};
use crate::mcp::transport::{Diagnostics, ServerProcess};
use crate::mcp::{McpError, McpServerDescriptor, McpTransport};
use crate::time::Clock;
use crate::tool::CredentialProvider;

/// How long a server may take to start and answer `initialize` and `tools/list`.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);

/// One server's connection.
pub struct McpConnection {
    descriptor: &'static McpServerDescriptor,
    env: Env,
    clock: Clock,
    /// What resolves the server's own credential, if it declares one.
    credentials: Option<Arc<dyn CredentialProvider>>,
    /// Who approves its OAuth authorization code grant, if it declares one (else a
    /// [`LoopbackAuthorizer`](crate::mcp::LoopbackAuthorizer)).
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

fn session_of(live: &Live) -> Session {
    Session {
        peer: live.service.peer().clone(),
        diagnostics: live.diagnostics.clone(),
        listing: live.listing.clone(),
    }
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("server", &self.descriptor.name())
            .finish_non_exhaustive()
    }
}
