//! The artifacts a [`MemoryStore`](super::MemoryStore) keeps ([`ArtifactStore`]): by
//! reference, in the order they were put.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::store::{ArtifactStore, StoreFuture};
use crate::tool::{Artifact, ArtifactRef};

/// Artifacts by reference, and their references in the order they were put.
#[derive(Debug, Default)]
pub(super) struct MemoryArtifacts {
    inner: Mutex<Shelves>,
}

#[derive(Debug, Default)]
struct Shelves {
    by_reference: HashMap<String, Artifact>,
    order: Vec<String>,
}

impl MemoryArtifacts {
    fn lock(&self) -> std::sync::MutexGuard<'_, Shelves> {
        // Each change is whole before the lock is let go.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl ArtifactStore for MemoryArtifacts {
    fn put<'a>(&'a self, artifact: &'a Artifact) -> StoreFuture<'a, ()> {
        let mut shelves = self.lock();
        if !shelves.by_reference.contains_key(&artifact.reference) {
            shelves.order.push(artifact.reference.clone());
            shelves
                .by_reference
                .insert(artifact.reference.clone(), artifact.clone());
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn get<'a>(
        &'a self,
        execution_id: &'a str,
        reference: &'a str,
    ) -> StoreFuture<'a, Option<Artifact>> {
        let found = self
            .lock()
            .by_reference
            .get(reference)
            .filter(|a| a.execution_id == execution_id)
            .cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn list<'a>(
        &'a self,
        execution_id: &'a str,
        kind: &'a str,
    ) -> StoreFuture<'a, Vec<ArtifactRef>> {
        let shelves = self.lock();
        let listed = shelves
            .order
            .iter()
            .filter_map(|reference| shelves.by_reference.get(reference))
            .filter(|a| a.execution_id == execution_id && a.kind == kind)
            .map(Artifact::listed)
            .collect();
        Box::pin(std::future::ready(Ok(listed)))
    }

    fn delete<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, u64> {
        let mut shelves = self.lock();
        let before = shelves.by_reference.len();
        shelves
            .by_reference
            .retain(|_, a| a.execution_id != execution_id);
        let Shelves {
            by_reference,
            order,
        } = &mut *shelves;
        order.retain(|reference| by_reference.contains_key(reference));
        let deleted = (before - by_reference.len()) as u64;
        Box::pin(std::future::ready(Ok(deleted)))
    }
}
