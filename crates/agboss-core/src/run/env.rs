//! [`RunEnv`]: all a run sees of the application it runs in.

use std::sync::Arc;

use super::Approvals;
use crate::model::ModelRouter;
use crate::spend::Budgets;
use crate::store::Store;
use crate::time::Clock;

/// What a run needs of the application it runs in: where it journals, how it reaches models,
/// the budgets it starts with, the channels its tools' roles are answered by, and the clock.
/// The loop sees nothing else of the application.
#[derive(Clone)]
pub struct RunEnv {
    /// Where each step is journaled before the next begins.
    pub store: Arc<dyn Store>,
    /// Which provider answers each model id, and at what price.
    pub router: Arc<ModelRouter>,
    /// The budgets of a run that sets none of its own.
    pub budgets: Budgets,
    /// The roles of the application's tools and their channels.
    pub approvals: Arc<Approvals>,
    /// The application's clock (pauses are dated by it).
    pub clock: Clock,
    /// How long the execution's artifacts are kept once its run ends.
    pub artifact_retention: super::retention::ArtifactRetention,
    /// Whether spans record the texts models and tools read and wrote, masked
    /// (the application builder's `trace_content`).
    pub trace_content: bool,
}
