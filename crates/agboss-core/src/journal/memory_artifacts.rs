//! The artifacts a [`MemoryStore`](super::MemoryStore) keeps: by reference, in the order they
//! were put.

use std::collections::HashMap;
use std::sync::Mutex;

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

    pub(super) fn put(&self, artifact: &Artifact) {
        let mut shelves = self.lock();
        if shelves.by_reference.contains_key(&artifact.reference) {
            return;
        }
        shelves.order.push(artifact.reference.clone());
        shelves
            .by_reference
            .insert(artifact.reference.clone(), artifact.clone());
    }

    pub(super) fn get(&self, execution_id: &str, reference: &str) -> Option<Artifact> {
        self.lock()
            .by_reference
            .get(reference)
            .filter(|a| a.execution_id == execution_id)
            .cloned()
    }

    pub(super) fn list(&self, execution_id: &str, kind: &str) -> Vec<ArtifactRef> {
        let shelves = self.lock();
        shelves
            .order
            .iter()
            .filter_map(|reference| shelves.by_reference.get(reference))
            .filter(|a| a.execution_id == execution_id && a.kind == kind)
            .map(Artifact::listed)
            .collect()
    }

    pub(super) fn delete(&self, execution_id: &str) -> u64 {
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
        (before - by_reference.len()) as u64
    }
}
