//! The pinned MCP definitions a [`MemoryStore`](super::MemoryStore) keeps ([`PinStore`]), by
//! application, server and tool, each seen or approved under one lock.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::STORE;
use crate::store::{
    McpApproval, McpDefinitionSeen, McpPin, PinStore, StoreFuture, pin_after_approval,
    pin_after_seen,
};

/// Pins by application, server and tool (sorted, as listed).
type Pins = BTreeMap<(String, String, String), McpPin>;

/// The pins, under their lock.
#[derive(Debug, Default)]
pub(super) struct MemoryPins {
    inner: Mutex<Pins>,
}

impl MemoryPins {
    fn lock(&self) -> std::sync::MutexGuard<'_, Pins> {
        // Each change is whole before the lock is let go.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl PinStore for MemoryPins {
    fn get<'a>(
        &'a self,
        application: &'a str,
        server: &'a str,
        tool: &'a str,
    ) -> StoreFuture<'a, Option<McpPin>> {
        let key = (application.to_owned(), server.to_owned(), tool.to_owned());
        let pin = self.lock().get(&key).cloned();
        Box::pin(std::future::ready(Ok(pin)))
    }

    fn list<'a>(&'a self, application: &'a str) -> StoreFuture<'a, Vec<McpPin>> {
        let pins = self
            .lock()
            .values()
            .filter(|pin| pin.application == application)
            .cloned()
            .collect();
        Box::pin(std::future::ready(Ok(pins)))
    }

    fn see<'a>(&'a self, seen: &'a McpDefinitionSeen) -> StoreFuture<'a, McpPin> {
        let key = (
            seen.application.clone(),
            seen.server.clone(),
            seen.tool.clone(),
        );
        let mut pins = self.lock();
        if let Some(next) = pin_after_seen(pins.get(&key), seen) {
            pins.insert(key.clone(), next);
        }
        let pin = pins[&key].clone();
        Box::pin(std::future::ready(Ok(pin)))
    }

    fn approve<'a>(&'a self, approval: &'a McpApproval) -> StoreFuture<'a, Option<McpPin>> {
        let key = (
            approval.application.clone(),
            approval.server.clone(),
            approval.tool.clone(),
        );
        let mut pins = self.lock();
        let result = match pins.get(&key) {
            None => Ok(None),
            Some(held) => pin_after_approval(STORE, held, approval).map(|pin| {
                pins.insert(key, pin.clone());
                Some(pin)
            }),
        };
        Box::pin(std::future::ready(result))
    }
}
