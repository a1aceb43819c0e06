//! [`McpHub`]: every MCP server of an application, each one connection shared by all
//! executions.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::authorizer::Authorizer;
use super::connection::McpConnection;
use super::pin::{PinKeeper, PinSlot};
use super::{McpError, McpServerDescriptor};
use crate::base::Env;
use crate::time::Clock;
use crate::tool::CredentialProvider;

/// The application's MCP servers, started on first use.
pub struct McpHub {
    env: Env,
    clock: Clock,
    credentials: Option<Arc<dyn CredentialProvider>>,
    authorizer: Option<Arc<dyn Authorizer>>,
    connections: Mutex<HashMap<usize, Arc<McpConnection>>>,
    /// What judges the tools' definitions: pins in memory, until the application hands its
    /// store's.
    pins: Arc<PinSlot>,
}

impl McpHub {
    /// A hub whose servers read variables from `env` and time out on `clock`.
    pub fn new(env: Env, clock: Clock) -> McpHub {
        McpHub {
            env,
            clock,
            credentials: None,
            authorizer: None,
            connections: Mutex::new(HashMap::new()),
            pins: PinSlot::new(),
        }
    }

    /// Judges the servers' tool definitions with `keeper` from now on (an application hands
    /// its store's); until then pins are kept in memory ([`MemoryPins`](super::MemoryPins)).
    pub fn use_pins(&self, keeper: Arc<dyn PinKeeper>) {
        self.pins.set(keeper);
    }

    /// The same hub, whose servers' own credentials (`#[mcp_server(credential = ..)]`) are
    /// resolved through `provider` as each starts.
    pub fn with_credentials(mut self, provider: Option<Arc<dyn CredentialProvider>>) -> McpHub {
        self.credentials = provider;
        self
    }

    /// The same hub, whose servers' OAuth authorization code grants a person approves through
    /// `authorizer` (without one, a [`LoopbackAuthorizer`](super::LoopbackAuthorizer) prints
    /// the page to approve on standard error).
    pub fn with_authorizer(mut self, authorizer: Option<Arc<dyn Authorizer>>) -> McpHub {
        self.authorizer = authorizer;
        self
    }

    /// The connection to `server` (not started until a call needs it).
    pub fn connection(&self, server: &'static McpServerDescriptor) -> Arc<McpConnection> {
        let key = std::ptr::from_ref(server) as usize;
        self.lock()
            .entry(key)
            .or_insert_with(|| {
                Arc::new(
                    McpConnection::new(
                        server,
                        self.env.clone(),
                        self.clock.clone(),
                        self.pins.clone(),
                    )
                    .with_credentials(self.credentials.clone())
                    .with_authorizer(self.authorizer.clone()),
                )
            })
            .clone()
    }

    /// Starts each of `servers` that is not running, all at once, and checks that each offers
    /// the tools its declaration names; every failure, one per server, in the given order.
    pub async fn start(
        &self,
        servers: impl IntoIterator<Item = &'static McpServerDescriptor>,
    ) -> Vec<McpError> {
        let mut starting = tokio::task::JoinSet::new();
        for (i, server) in servers.into_iter().enumerate() {
            let connection = self.connection(server);
            starting.spawn(async move { (i, connection.session().await.err()) });
        }
        let mut failures = Vec::new();
        while let Some(joined) = starting.join_next().await {
            match joined {
                Ok((i, Some(e))) => failures.push((i, e)),
                Ok((_, None)) => {}
                Err(e) => std::panic::resume_unwind(e.into_panic()),
            }
        }
        failures.sort_by_key(|(i, _)| *i);
        failures.into_iter().map(|(_, e)| e).collect()
    }

    /// The variables each of `servers` needs that the environment does not set, without
    /// starting anything.
    pub fn missing_env(
        &self,
        servers: impl IntoIterator<Item = &'static McpServerDescriptor>,
    ) -> Vec<McpError> {
        servers
            .into_iter()
            .flat_map(|server| {
                server
                    .env()
                    .iter()
                    .filter(|name| self.env.get(name).is_none())
                    .map(|name| McpError::EnvMissing {
                        server: server.name(),
                        variable: (*name).to_owned(),
                    })
            })
            .collect()
    }

    /// Stops every server that runs (stdio servers' process groups included).
    pub async fn shutdown(&self) {
        let connections: Vec<_> = self.lock().values().cloned().collect();
        for connection in connections {
            connection.shutdown().await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<usize, Arc<McpConnection>>> {
        self.connections.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHub")
            .field("servers", &self.lock().len())
            .finish()
    }
}

crate::infrastructure!(McpHub, "the MCP server connections");
