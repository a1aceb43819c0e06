//! [`McpConnection`]: one server, started on first use and shared by every execution; started
//! again after a crash; stopped at shutdown.

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{Peer, RoleClient, RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use tokio::sync::Mutex;

use super::McpError;
use super::descriptor::{McpServerDescriptor, McpTransport, expand};
use super::process::ServerProcess;
use super::stdio::{Diagnostics, spawn};
use crate::app::Env;
use crate::time::Clock;

/// How long a server may take to start and answer `initialize` and `tools/list`.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A live session with a server.
struct Live {
    service: RunningService<RoleClient, ()>,
    child: Option<ServerProcess>,
    diagnostics: Arc<Diagnostics>,
}

/// One server's connection.
pub struct McpConnection {
    descriptor: &'static McpServerDescriptor,
    env: Env,
    clock: Clock,
    live: Mutex<Option<Live>>,
}

/// What a call needs of a live session.
#[derive(Clone)]
pub(crate) struct Session {
    pub(crate) peer: Peer<RoleClient>,
    pub(crate) diagnostics: Arc<Diagnostics>,
}

impl McpConnection {
    pub(crate) fn new(
        descriptor: &'static McpServerDescriptor,
        env: Env,
        clock: Clock,
    ) -> McpConnection {
        McpConnection {
            descriptor,
            env,
            clock,
            live: Mutex::new(None),
        }
    }

    /// The server.
    pub fn descriptor(&self) -> &'static McpServerDescriptor {
        self.descriptor
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
        let started = self.start().await?;
        let session = session_of(&started);
        *live = Some(started);
        Ok(session)
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
                stop(old).await;
            }
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
            stop(live).await;
        }
    }

    async fn start(&self) -> Result<Live, McpError> {
        let server = self.descriptor.name();
        let env = self
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
        let missing = |variable: String| McpError::EnvMissing { server, variable };
        let (service, child, diagnostics, command) = match self.descriptor.transport() {
            McpTransport::Stdio { command, args } => {
                let command = expand(command, &self.env).map_err(missing)?;
                let args = args
                    .iter()
                    .map(|a| expand(a, &self.env))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(missing)?;
                let line = format!("{command} {}", args.join(" "));
                let started = spawn(&command, &args, &env).map_err(|e| McpError::StartFailed {
                    server,
                    command: line.clone(),
                    reason: if e.kind() == std::io::ErrorKind::NotFound {
                        format!("`{command}` was not found: install it or put it on PATH")
                    } else {
                        e.to_string()
                    },
                })?;
                let diagnostics = started.diagnostics.clone();
                let mut child = ServerProcess::new(started.child);
                let served = self
                    .within_start(().serve((started.read, started.write)))
                    .await;
                match served {
                    Ok(Ok(service)) => (service, Some(child), diagnostics, line),
                    failed => {
                        let status = child.exit_status().await;
                        child.stop().await;
                        let reason = match failed {
                            Err(timeout) => timeout,
                            Ok(Err(e)) => format!("{} ({e})", describe_end(status, &diagnostics)),
                            Ok(Ok(_)) => unreachable!(),
                        };
                        return Err(McpError::StartFailed {
                            server,
                            command: line,
                            reason,
                        });
                    }
                }
            }
            McpTransport::Http { url } => {
                let url = expand(url, &self.env).map_err(missing)?;
                let client = super::http_client().map_err(|reason| McpError::StartFailed {
                    server,
                    command: url.clone(),
                    reason,
                })?;
                let transport = StreamableHttpClientTransport::with_client(
                    client,
                    StreamableHttpClientTransportConfig::with_uri(url.clone()),
                );
                match self.within_start(().serve(transport)).await {
                    Ok(Ok(service)) => (service, None, Arc::new(Diagnostics::default()), url),
                    Ok(Err(e)) => {
                        return Err(McpError::StartFailed {
                            server,
                            command: url,
                            reason: e.to_string(),
                        });
                    }
                    Err(timeout) => {
                        return Err(McpError::StartFailed {
                            server,
                            command: url,
                            reason: timeout,
                        });
                    }
                }
            }
        };
        let live = Live {
            service,
            child,
            diagnostics,
        };
        if let Err(e) = self.check_tools(&live, &command).await {
            stop(live).await;
            return Err(e);
        }
        Ok(live)
    }

    /// The server's `tools/list` must hold every tool the declaration names.
    async fn check_tools(&self, live: &Live, command: &str) -> Result<(), McpError> {
        let server = self.descriptor.name();
        let listed = self
            .within_start(live.service.peer().list_all_tools())
            .await
            .map_err(|reason| McpError::StartFailed {
                server,
                command: command.into(),
                reason,
            })?
            .map_err(|e| McpError::Protocol {
                server,
                detail: format!("tools/list failed: {e}"),
            })?;
        let offered: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
        for tool in self.descriptor.tools() {
            if !offered.iter().any(|o| o == tool) {
                return Err(McpError::ToolMissing {
                    server,
                    tool: (*tool).to_owned(),
                    offered: offered.join(", "),
                });
            }
        }
        Ok(())
    }

    /// Runs `future` under the start timeout, on the application's clock.
    async fn within_start<F: std::future::Future>(&self, future: F) -> Result<F::Output, String> {
        tokio::select! {
            output = future => Ok(output),
            () = self.clock.sleep(START_TIMEOUT) => Err(format!("it did not answer within {} s", START_TIMEOUT.as_secs())),
        }
    }
}

fn session_of(live: &Live) -> Session {
    Session {
        peer: live.service.peer().clone(),
        diagnostics: live.diagnostics.clone(),
    }
}

/// Why a session ended, in the server's own words where it left some.
fn describe_end(status: Option<String>, diagnostics: &Diagnostics) -> String {
    if let Some(violation) = diagnostics.violation() {
        return format!(
            "{violation}; a stdio MCP server must write only protocol messages to stdout"
        );
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

async fn stop(live: Live) {
    let Live { service, child, .. } = live;
    let _ = service.cancel().await;
    if let Some(mut child) = child {
        // The whole process group: `npx` and the server it started.
        child.stop().await;
    }
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("server", &self.descriptor.name())
            .finish_non_exhaustive()
    }
}
