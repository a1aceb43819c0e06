//! [`McpHub`]: every MCP server of an application, each one connection shared by all
//! executions.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::oauth::Authorizer;
use super::pins::{PinKeeper, PinSlot};
use super::server::McpConnection;
use super::{McpError, McpGrant, McpServerDescriptor};
use crate::base::Env;
use crate::time::Clock;
use crate::tool::CredentialProvider;

/// The connections, by server and owner.
type Connections = HashMap<(usize, Option<String>), Arc<McpConnection>>;

/// The application's MCP servers, started on first use.
pub struct McpHub {
    env: Env,
    clock: Clock,
    credentials: Option<Arc<dyn CredentialProvider>>,
    authorizer: Option<Arc<dyn Authorizer>>,
    /// By server, and by owner for a server a person approves (each owner their own session
    /// and token).
    connections: Mutex<Connections>,
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

    /// The connection to `server` (not started until a call needs it), shared by every
    /// execution; for a server whose OAuth grant a person approves, the session of no owner.
    pub fn connection(&self, server: &'static McpServerDescriptor) -> Arc<McpConnection> {
        self.connection_for(server, None)
    }

    /// The connection to `server` that a call of an execution of `owner` uses: the server's
    /// one connection, or, when a person approves its OAuth grant (the authorization code
    /// grant), the owner's own, whose token is that owner's approval.
    pub fn connection_for(
        &self,
        server: &'static McpServerDescriptor,
        owner: Option<&str>,
    ) -> Arc<McpConnection> {
        let per_owner = server
            .oauth()
            .is_some_and(|oauth| matches!(oauth.grant(), McpGrant::AuthorizationCode { .. }));
        let owner = owner.filter(|_| per_owner).map(str::to_owned);
        let key = (std::ptr::from_ref(server) as usize, owner.clone());
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
                    .with_authorizer(self.authorizer.clone(), owner),
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

    fn lock(&self) -> std::sync::MutexGuard<'_, Connections> {
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
