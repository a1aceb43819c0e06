//! The definitions of a server's declared tools in one session: listed when it starts, listed
//! again after the server says its tools changed (`notifications/tools/list_changed`), each
//! judged by the hub's keeper of pins. A call is sent only when its tool's definition, as
//! listed last, is the approved one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::Tool;
use rmcp::service::{Peer, RoleClient};

use super::pin::{Definition, PinSlot, Verdict};
use crate::mcp::{McpError, McpServerDescriptor};

/// A session's definitions of its server's declared tools.
pub(crate) struct Listing {
    server: &'static McpServerDescriptor,
    pins: Arc<PinSlot>,
    /// How many times the server said its tools changed.
    changes: AtomicU64,
    /// How many of those the last listing that ended covers (`changes` when it began).
    listed: AtomicU64,
    /// Held while the tools are listed again, so that calls wait for the listing under way.
    listing: tokio::sync::Mutex<()>,
    /// The declared tools the server offers, by the server's names.
    definitions: Mutex<HashMap<String, Definition>>,
    /// What the server offered when last listed, for a tool that went missing.
    offered: Mutex<String>,
}

impl Listing {
    pub(crate) fn new(server: &'static McpServerDescriptor, pins: Arc<PinSlot>) -> Arc<Listing> {
        Arc::new(Listing {
            server,
            pins,
            changes: AtomicU64::new(0),
            listed: AtomicU64::new(0),
            listing: tokio::sync::Mutex::new(()),
            definitions: Mutex::new(HashMap::new()),
            offered: Mutex::new(String::new()),
        })
    }

    /// Takes what `tools/list` answered: keeps the definitions of the declared tools and has
    /// each judged now, so a first sight is pinned and a change is recorded (and warned of)
    /// whether or not a call follows.
    pub(crate) async fn take(&self, offered: &[Tool]) {
        let definitions: HashMap<String, Definition> = offered
            .iter()
            .filter(|tool| self.server.declares(&tool.name))
            .map(|tool| (tool.name.to_string(), Definition::of(tool)))
            .collect();
        let names: Vec<&str> = offered.iter().map(|t| t.name.as_ref()).collect();
        *lock(&self.offered) = names.join(", ");
        *lock(&self.definitions) = definitions.clone();
        let mut sorted: Vec<_> = definitions.iter().collect();
        sorted.sort_by_key(|(name, _)| name.as_str());
        for (tool, definition) in sorted {
            // A failure to judge now refuses the tool's next call, which judges again.
            let _ = self.judge(tool, definition).await;
        }
    }

    /// The server said its tools changed: no call is sent before they are listed again.
    pub(crate) fn mark_stale(&self) {
        self.changes.fetch_add(1, Ordering::SeqCst);
    }

    fn is_stale(&self) -> bool {
        self.listed.load(Ordering::SeqCst) < self.changes.load(Ordering::SeqCst)
    }

    /// Lists the server's tools again through `peer`, unless a listing that began after the
    /// last change ended meanwhile.
    pub(crate) async fn refresh(&self, peer: &Peer<RoleClient>) -> Result<(), McpError> {
        let _listing = self.listing.lock().await;
        if !self.is_stale() {
            return Ok(());
        }
        let covers = self.changes.load(Ordering::SeqCst);
        match peer.list_all_tools().await {
            Ok(offered) => {
                self.take(&offered).await;
                self.listed.fetch_max(covers, Ordering::SeqCst);
                Ok(())
            }
            Err(e) => Err(McpError::Protocol {
                server: self.server.name(),
                detail: format!(
                    "it said its tools changed, and listing them again failed, so no call is sent: {e}"
                ),
            }),
        }
    }

    /// Whether tool `tool` may be called now: its definition (listed again first when the
    /// server said its tools changed) is the approved one. Refused: a declared tool the server
    /// no longer offers (`[mcp.tool-missing]`), a definition that changed since it was approved
    /// (`[mcp.definition-changed]`), a keeper that could not judge.
    pub(crate) async fn admit(&self, peer: &Peer<RoleClient>, tool: &str) -> Result<(), McpError> {
        if self.is_stale() {
            self.refresh(peer).await?;
        }
        let server = self.server.name();
        let definition = lock(&self.definitions).get(tool).cloned();
        let Some(definition) = definition else {
            return Err(McpError::ToolMissing {
                server,
                tool: tool.to_owned(),
                offered: lock(&self.offered).clone(),
            });
        };
        match self.judge(tool, &definition).await? {
            Verdict::Approved => Ok(()),
            Verdict::Changed => Err(McpError::DefinitionChanged {
                server,
                tool: tool.to_owned(),
            }),
        }
    }

    async fn judge(&self, tool: &str, definition: &Definition) -> Result<Verdict, McpError> {
        let server = self.server.name();
        let keeper = self.pins.keeper();
        match keeper.judge(server, tool, definition).await {
            Ok(Verdict::Changed) => {
                tracing::warn!(
                    server,
                    tool,
                    hash = definition.hash,
                    "the server changed the tool's definition since it was approved: its calls are refused until a person approves it"
                );
                Ok(Verdict::Changed)
            }
            Ok(verdict) => Ok(verdict),
            Err(why) => Err(McpError::Protocol {
                server,
                detail: format!(
                    "the pinned definition of `{tool}` could not be checked, so no call is sent: {why}"
                ),
            }),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
