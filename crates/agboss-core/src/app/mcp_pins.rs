//! Pinned MCP definitions (fault plan T20): the application's store judges its MCP servers'
//! tool definitions, and a person lists the pins and approves a changed definition.

use std::sync::Arc;
use std::time::UNIX_EPOCH;

use agboss_rules::codes;

use super::Application;
use crate::base::Problem;
use crate::mcp::{Definition, PinFuture, PinKeeper, Verdict};
use crate::store::{McpApproval, McpDefinitionSeen, McpPin, Store};
use crate::time::Clock;

/// The application's store as the keeper of its MCP pins: pins are the application's (keyed by
/// its name), so instances of it sharing a store share their approvals.
struct StorePins {
    store: Arc<dyn Store>,
    application: String,
    clock: Clock,
}

impl PinKeeper for StorePins {
    fn judge<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        definition: &'a Definition,
    ) -> PinFuture<'a> {
        Box::pin(async move {
            let held = self
                .store
                .pins()
                .get(&self.application, server, tool)
                .await
                .map_err(|e| e.to_string())?;
            // The common case writes nothing: the definition is the one the store saw last,
            // approved or not.
            if let Some(pin) = held.filter(|pin| pin.seen_hash == definition.hash) {
                return Ok(if pin.approved_hash == definition.hash {
                    Verdict::Approved
                } else {
                    Verdict::Changed
                });
            }
            let seen = McpDefinitionSeen {
                application: self.application.clone(),
                server: server.to_owned(),
                tool: tool.to_owned(),
                hash: definition.hash.clone(),
                definition: definition.canonical.clone(),
                at_ms: millis(&self.clock),
            };
            let pin = self
                .store
                .pins()
                .see(&seen)
                .await
                .map_err(|e| e.to_string())?;
            Ok(
                if pin.is_approved() && pin.approved_hash == definition.hash {
                    Verdict::Approved
                } else {
                    Verdict::Changed
                },
            )
        })
    }
}

fn millis(clock: &Clock) -> u64 {
    clock
        .wall_time()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

impl Application {
    /// Hands the MCP hub the application's store as the keeper of its pins.
    pub(super) fn keep_mcp_pins(&self) {
        self.mcp().use_pins(Arc::new(StorePins {
            store: self.store().clone(),
            application: self.name().to_owned(),
            clock: self.clock().clone(),
        }));
    }

    /// The pinned definitions of the MCP server tools this application has listed, by server,
    /// then tool: each with the definition approved and the one its server gave last
    /// ([`McpPin::is_approved`] says whether they are the same; a tool whose definition
    /// changed is not called until [`approve_mcp_definition`](Self::approve_mcp_definition)).
    pub async fn mcp_pins(&self) -> Result<Vec<McpPin>, Problem> {
        self.store()
            .pins()
            .list(self.name())
            .await
            .map_err(|e| Problem::new(&codes::STORE, e.to_string()))
    }

    /// Approves, as `by`, the definition that server `server` gives now of its tool `tool`,
    /// as [`mcp_pins`](Self::mcp_pins) shows it: calls of the tool are sent again. Refused:
    /// a tool the application holds no pin of (`[mcp.pin-unknown]`), or a store failure
    /// (`[store]`). Approving a tool whose definition did not change changes nothing but who
    /// approved it and when.
    pub async fn approve_mcp_definition(
        &self,
        server: &str,
        tool: &str,
        by: &str,
    ) -> Result<McpPin, Problem> {
        let store_failed = |e: crate::store::StoreError| Problem::new(&codes::STORE, e.to_string());
        let unknown = || {
            Problem::new(
                &codes::MCP_PIN_UNKNOWN,
                codes::MCP_PIN_UNKNOWN.fill(&[
                    ("application", &self.name()),
                    ("server", &server),
                    ("tool", &tool),
                ]),
            )
        };
        let held = self
            .store()
            .pins()
            .get(self.name(), server, tool)
            .await
            .map_err(store_failed)?
            .ok_or_else(unknown)?;
        let approval = McpApproval {
            application: self.name().to_owned(),
            server: server.to_owned(),
            tool: tool.to_owned(),
            hash: held.seen_hash,
            by: Some(by.to_owned()),
            at_ms: millis(self.clock()),
        };
        self.store()
            .pins()
            .approve(&approval)
            .await
            .map_err(store_failed)?
            .ok_or_else(unknown)
    }
}
