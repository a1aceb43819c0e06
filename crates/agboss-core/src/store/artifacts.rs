//! [`ArtifactStore`]: the artifacts a store keeps beside its journals, per execution.

use super::StoreFuture;
use crate::tool::{Artifact, ArtifactRef};

/// Artifacts (`result_kind` / `wants`): results kept aside per execution, which the model passes
/// by reference. They are not journal events: nothing folds them, they are looked up by
/// reference, and they are deleted with their execution (docs/stores.md, docs/policies.md). A
/// store hands its artifacts out with [`Store::artifacts`](super::Store::artifacts).
pub trait ArtifactStore: Send + Sync {
    /// Keeps `artifact` under its reference, in its execution. A reference held already is
    /// left as it is (a retry of the same put); references are random, so two artifacts never
    /// share one.
    fn put<'a>(&'a self, artifact: &'a Artifact) -> StoreFuture<'a, ()>;

    /// The artifact `reference` of execution `execution_id`: `None` when that execution holds
    /// no such reference (never made, deleted, or another execution's).
    fn get<'a>(
        &'a self,
        execution_id: &'a str,
        reference: &'a str,
    ) -> StoreFuture<'a, Option<Artifact>>;

    /// The artifacts of kind `kind` execution `execution_id` holds, oldest first, without their
    /// data.
    fn list<'a>(
        &'a self,
        execution_id: &'a str,
        kind: &'a str,
    ) -> StoreFuture<'a, Vec<ArtifactRef>>;

    /// Deletes every artifact of execution `execution_id`; the number deleted.
    fn delete<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, u64>;
}
