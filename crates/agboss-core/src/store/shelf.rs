//! [`ExecutionShelf`]: one execution's artifacts in a [`Store`] (its
//! [`ArtifactStore`](super::ArtifactStore)), as the call contract reaches them
//! ([`ArtifactShelf`]).

use std::sync::Arc;

use super::Store;
use crate::tool::{Artifact, ArtifactRef, ArtifactShelf, ShelfFuture};

/// The artifacts of execution `execution_id` in `store`: a call redeems only these.
#[derive(Clone)]
pub struct ExecutionShelf {
    store: Arc<dyn Store>,
    execution_id: String,
}

impl ExecutionShelf {
    /// The artifacts of `execution_id` in `store`.
    pub fn new(store: Arc<dyn Store>, execution_id: impl Into<String>) -> ExecutionShelf {
        ExecutionShelf {
            store,
            execution_id: execution_id.into(),
        }
    }
}

impl std::fmt::Debug for ExecutionShelf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecutionShelf")
            .field("execution_id", &self.execution_id)
            .finish_non_exhaustive()
    }
}

impl ArtifactShelf for ExecutionShelf {
    fn put<'a>(&'a self, artifact: &'a Artifact) -> ShelfFuture<'a, ()> {
        Box::pin(async move {
            self.store
                .artifacts()
                .put(artifact)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn get<'a>(&'a self, reference: &'a str) -> ShelfFuture<'a, Option<Artifact>> {
        Box::pin(async move {
            self.store
                .artifacts()
                .get(&self.execution_id, reference)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn live<'a>(&'a self, kind: &'a str) -> ShelfFuture<'a, Vec<ArtifactRef>> {
        Box::pin(async move {
            self.store
                .artifacts()
                .list(&self.execution_id, kind)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn execution_id(&self) -> &str {
        &self.execution_id
    }
}
