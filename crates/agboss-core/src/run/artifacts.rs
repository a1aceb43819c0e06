//! Artifacts in a run: the shelf a call of a tool with a `result_kind` or `wants` gets (its
//! execution's artifacts in the application's store), and their deletion when the run ends,
//! unless [`ArtifactRetention`] keeps them.

use std::sync::Arc;

use super::cx::Cx;
use super::retention::ArtifactRetention;
use crate::agent::AppAgent;
use crate::store::{ExecutionShelf, Store};
use crate::tool::{ArtifactShelf, ToolDescriptor};

impl Cx<'_> {
    /// The shelf a call of `tool` keeps and redeems artifacts on: its execution's, for a tool
    /// that declares a `result_kind` or `wants` (no other call gets one, and pays nothing).
    pub(super) fn shelf_for(&self, tool: &ToolDescriptor) -> Option<Arc<dyn ArtifactShelf>> {
        if tool.result_kind().is_none() && tool.wants().is_empty() {
            return None;
        }
        let shelf = ExecutionShelf::new(self.env.store.clone(), self.execution.execution_id());
        Some(Arc::new(shelf))
    }
}

/// Whether a run of `agent` can keep artifacts: one of its tools declares a `result_kind`.
pub(crate) fn keeps_artifacts(agent: &AppAgent) -> bool {
    agent
        .tools()
        .iter()
        .any(|t| t.descriptor().result_kind().is_some())
}

/// After the run of `agent` in `execution_id` ended: forgets the arguments it sealed (an agent
/// that masks), and deletes its artifacts unless `retention` keeps them (or none of the agent's
/// tools makes any: a run that cannot have artifacts costs the store nothing). A store that
/// fails leaves them (a warning says so): the run's outcome stands.
pub(crate) async fn run_ended(
    store: &dyn Store,
    agent: Option<&AppAgent>,
    execution_id: &str,
    retention: ArtifactRetention,
) {
    if agent.is_none_or(|a| a.masking().is_some())
        && let Err(error) = store.sealed().forget(execution_id, None).await
    {
        tracing::warn!(
            execution_id,
            %error,
            "the sealed arguments of an ended run could not be forgotten; they stay in the store"
        );
    }
    if retention == ArtifactRetention::Kept || !agent.is_some_and(keeps_artifacts) {
        return;
    }
    if let Err(error) = store.artifacts().delete(execution_id).await {
        tracing::warn!(
            execution_id,
            %error,
            "the artifacts of an ended run could not be deleted; they stay in the store"
        );
    }
}
