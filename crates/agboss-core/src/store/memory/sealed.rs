//! The sealed arguments a [`MemoryStore`](super::MemoryStore) keeps ([`SealStore`]): by
//! execution and call.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::store::{SealStore, SealedArguments, StoreFuture};

/// Arguments by execution, then call.
#[derive(Debug, Default)]
pub(super) struct MemorySealed {
    inner: Mutex<HashMap<String, HashMap<String, String>>>,
}

impl MemorySealed {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, HashMap<String, String>>> {
        // Each change is whole before the lock is let go.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl SealStore for MemorySealed {
    fn seal<'a>(&'a self, sealed: &'a SealedArguments) -> StoreFuture<'a, ()> {
        self.lock()
            .entry(sealed.execution_id.clone())
            .or_default()
            .entry(sealed.call_id.clone())
            .or_insert_with(|| sealed.arguments.clone());
        Box::pin(std::future::ready(Ok(())))
    }

    fn unseal<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<String>> {
        let found = self
            .lock()
            .get(execution_id)
            .and_then(|calls| calls.get(call_id))
            .cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn forget<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: Option<&'a str>,
    ) -> StoreFuture<'a, u64> {
        let mut kept = self.lock();
        let forgotten = match call_id {
            None => kept.remove(execution_id).map_or(0, |calls| calls.len()),
            Some(call_id) => kept
                .get_mut(execution_id)
                .and_then(|calls| calls.remove(call_id))
                .map_or(0, |_| 1),
        };
        if kept.get(execution_id).is_some_and(HashMap::is_empty) {
            kept.remove(execution_id);
        }
        Box::pin(std::future::ready(Ok(forgotten as u64)))
    }
}
