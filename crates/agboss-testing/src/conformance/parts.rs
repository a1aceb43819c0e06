//! A whole store's backend as a backend of each of its parts, so the suite of each part runs on
//! it: its journal and its leases are the store itself (upcast), its sub-stores are reached
//! with [`Store::artifacts`], [`Store::pins`] and [`Store::sealed`] on the store opened.

use std::sync::Arc;

use agboss_core::store::{
    ArtifactStore, Journal, Leases, McpApproval, McpDefinitionSeen, McpPin, PinStore, SealStore,
    SealedArguments, Store, StoreFuture,
};
use agboss_core::tool::{Artifact, ArtifactRef};

use super::{Backend, OpenFuture};

impl<B: Backend> Backend<dyn Leases> for B {
    fn open(&mut self) -> OpenFuture<'_, dyn Leases> {
        let store = Backend::<dyn Store>::open(self);
        Box::pin(async move { store.await as Arc<dyn Leases> })
    }
}

impl<B: Backend<dyn Leases>> Backend<dyn Journal> for B {
    fn open(&mut self) -> OpenFuture<'_, dyn Journal> {
        let store = Backend::<dyn Leases>::open(self);
        Box::pin(async move { store.await as Arc<dyn Journal> })
    }
}

impl<B: Backend> Backend<dyn ArtifactStore> for B {
    fn open(&mut self) -> OpenFuture<'_, dyn ArtifactStore> {
        let store = Backend::<dyn Store>::open(self);
        Box::pin(async move { Arc::new(ArtifactsOf(store.await)) as Arc<dyn ArtifactStore> })
    }
}

impl<B: Backend> Backend<dyn PinStore> for B {
    fn open(&mut self) -> OpenFuture<'_, dyn PinStore> {
        let store = Backend::<dyn Store>::open(self);
        Box::pin(async move { Arc::new(PinsOf(store.await)) as Arc<dyn PinStore> })
    }
}

impl<B: Backend> Backend<dyn SealStore> for B {
    fn open(&mut self) -> OpenFuture<'_, dyn SealStore> {
        let store = Backend::<dyn Store>::open(self);
        Box::pin(async move { Arc::new(SealedOf(store.await)) as Arc<dyn SealStore> })
    }
}

/// The artifacts of a store, held with the store (dropped with it, as a case reopens it).
struct ArtifactsOf(Arc<dyn Store>);

impl ArtifactStore for ArtifactsOf {
    fn put<'a>(&'a self, artifact: &'a Artifact) -> StoreFuture<'a, ()> {
        self.0.artifacts().put(artifact)
    }

    fn get<'a>(
        &'a self,
        execution_id: &'a str,
        reference: &'a str,
    ) -> StoreFuture<'a, Option<Artifact>> {
        self.0.artifacts().get(execution_id, reference)
    }

    fn list<'a>(
        &'a self,
        execution_id: &'a str,
        kind: &'a str,
    ) -> StoreFuture<'a, Vec<ArtifactRef>> {
        self.0.artifacts().list(execution_id, kind)
    }

    fn delete<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, u64> {
        self.0.artifacts().delete(execution_id)
    }
}

/// The pins of a store, held with the store.
struct PinsOf(Arc<dyn Store>);

impl PinStore for PinsOf {
    fn get<'a>(
        &'a self,
        application: &'a str,
        server: &'a str,
        tool: &'a str,
    ) -> StoreFuture<'a, Option<McpPin>> {
        self.0.pins().get(application, server, tool)
    }

    fn list<'a>(&'a self, application: &'a str) -> StoreFuture<'a, Vec<McpPin>> {
        self.0.pins().list(application)
    }

    fn see<'a>(&'a self, seen: &'a McpDefinitionSeen) -> StoreFuture<'a, McpPin> {
        self.0.pins().see(seen)
    }

    fn approve<'a>(&'a self, approval: &'a McpApproval) -> StoreFuture<'a, Option<McpPin>> {
        self.0.pins().approve(approval)
    }
}

/// The sealed arguments of a store, held with the store.
struct SealedOf(Arc<dyn Store>);

impl SealStore for SealedOf {
    fn seal<'a>(&'a self, sealed: &'a SealedArguments) -> StoreFuture<'a, ()> {
        self.0.sealed().seal(sealed)
    }

    fn unseal<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<String>> {
        self.0.sealed().unseal(execution_id, call_id)
    }

    fn forget<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: Option<&'a str>,
    ) -> StoreFuture<'a, u64> {
        self.0.sealed().forget(execution_id, call_id)
    }
}
