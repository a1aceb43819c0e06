//! The sub-stores of a [`FaultyStore`](super::FaultyStore) (artifacts, pins, sealed arguments): the wrapped store's, behind the
//! same gate, so they freeze and go out of reach with the rest.

use std::sync::Arc;

use agboss_core::store::{
    ArtifactStore, McpApproval, McpDefinitionSeen, McpPin, PinStore, SealStore, SealedArguments,
    Store, StoreFuture,
};
use agboss_core::tool::{Artifact, ArtifactRef};

use super::gate::Gate;

/// The wrapped store's artifacts, gated.
pub(super) struct FaultyArtifacts {
    pub(super) inner: Arc<dyn Store>,
    pub(super) gate: Arc<Gate>,
}

impl ArtifactStore for FaultyArtifacts {
    fn put<'a>(&'a self, artifact: &'a Artifact) -> StoreFuture<'a, ()> {
        self.gate
            .gated(None, move || self.inner.artifacts().put(artifact))
    }

    fn get<'a>(
        &'a self,
        execution_id: &'a str,
        reference: &'a str,
    ) -> StoreFuture<'a, Option<Artifact>> {
        self.gate.gated(None, move || {
            self.inner.artifacts().get(execution_id, reference)
        })
    }

    fn list<'a>(
        &'a self,
        execution_id: &'a str,
        kind: &'a str,
    ) -> StoreFuture<'a, Vec<ArtifactRef>> {
        self.gate.gated(None, move || {
            self.inner.artifacts().list(execution_id, kind)
        })
    }

    fn delete<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, u64> {
        self.gate
            .gated(None, move || self.inner.artifacts().delete(execution_id))
    }
}

/// The wrapped store's pins, gated.
pub(super) struct FaultyPins {
    pub(super) inner: Arc<dyn Store>,
    pub(super) gate: Arc<Gate>,
}

impl PinStore for FaultyPins {
    fn get<'a>(
        &'a self,
        application: &'a str,
        server: &'a str,
        tool: &'a str,
    ) -> StoreFuture<'a, Option<McpPin>> {
        self.gate.gated(None, move || {
            self.inner.pins().get(application, server, tool)
        })
    }

    fn list<'a>(&'a self, application: &'a str) -> StoreFuture<'a, Vec<McpPin>> {
        self.gate
            .gated(None, move || self.inner.pins().list(application))
    }

    fn see<'a>(&'a self, seen: &'a McpDefinitionSeen) -> StoreFuture<'a, McpPin> {
        self.gate.gated(None, move || self.inner.pins().see(seen))
    }

    fn approve<'a>(&'a self, approval: &'a McpApproval) -> StoreFuture<'a, Option<McpPin>> {
        self.gate
            .gated(None, move || self.inner.pins().approve(approval))
    }
}

/// The wrapped store's sealed arguments, gated.
pub(super) struct FaultySealed {
    pub(super) inner: Arc<dyn Store>,
    pub(super) gate: Arc<Gate>,
}

impl SealStore for FaultySealed {
    fn seal<'a>(&'a self, sealed: &'a SealedArguments) -> StoreFuture<'a, ()> {
        self.gate
            .gated(None, move || self.inner.sealed().seal(sealed))
    }

    fn unseal<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<String>> {
        self.gate.gated(None, move || {
            self.inner.sealed().unseal(execution_id, call_id)
        })
    }

    fn forget<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: Option<&'a str>,
    ) -> StoreFuture<'a, u64> {
        self.gate.gated(None, move || {
            self.inner.sealed().forget(execution_id, call_id)
        })
    }
}
