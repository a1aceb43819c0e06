//! The stages a tool's calls pass on their own, as its descriptor and its invoker's settings
//! make them: what `Invoker::invoke` runs, and what an agent's pipeline for the tool starts
//! from.

use std::sync::Arc;

use crate::masking::MaskingPolicy;
use crate::time::Clock;
use crate::tool::gates::{ArgumentsGate, CredentialsGate};
use crate::tool::pipeline::{Pipeline, Stage};
use crate::tool::rules::{ArtifactRule, BoundRule, CeilingRule};
use crate::tool::{CredentialProvider, ToolDescriptor};
use crate::units::{ByteSize, TimeSpan};

/// The pipeline of `tool`'s calls outside any agent's run: its arguments read as the contract
/// accepts them, the credentials it `needs` (asked of `provider` within `timeout` on `clock`),
/// its ceiling, its artifacts, and `bound`.
pub(crate) fn own_pipeline(
    tool: &'static ToolDescriptor,
    provider: Option<&Arc<dyn CredentialProvider>>,
    clock: &Clock,
    timeout: TimeSpan,
    bound: ByteSize,
) -> Pipeline {
    Pipeline::of(own_stages(tool, provider, clock, timeout, bound, None))
}

/// The stages of [`own_pipeline`], with the artifacts it keeps masked by `masking` (its agent's
/// policy, when an agent's pipeline starts from them).
pub(crate) fn own_stages(
    tool: &'static ToolDescriptor,
    provider: Option<&Arc<dyn CredentialProvider>>,
    clock: &Clock,
    timeout: TimeSpan,
    bound: ByteSize,
    masking: Option<&MaskingPolicy>,
) -> Vec<Arc<dyn Stage>> {
    let mut stages: Vec<Arc<dyn Stage>> = vec![Arc::new(ArgumentsGate)];
    if !tool.needs().is_empty() {
        stages.push(Arc::new(CredentialsGate {
            provider: provider.cloned(),
            clock: clock.clone(),
            timeout,
        }));
    }
    if let Some(ceiling) = tool.result_ceiling() {
        stages.push(Arc::new(CeilingRule(*ceiling)));
    }
    if let Some(kind) = tool.result_kind() {
        stages.push(Arc::new(ArtifactRule {
            kind: *kind,
            bound,
            masking: masking.cloned(),
        }));
    }
    stages.push(Arc::new(BoundRule(bound)));
    stages
}
