//! The `artifact` rule: a long result of a tool with a `result_kind` kept aside.

use crate::masking::MaskingPolicy;
use crate::tool::ResultKind;
use crate::tool::pipeline::{CallEnd, Part, Stage, Then, ToolOutput};

/// The `artifact` rule: a result longer than its tool's artifact size (else its bound) is kept
/// aside as an artifact of the tool's `result_kind`, and the model reads the reference, which no
/// bound cuts. A failure, a stream and a ceiling's refusal are never kept. In an agent that
/// masks, what is kept is masked first: the store keeps what the model could have read.
pub(crate) struct ArtifactRule {
    pub(crate) kind: ResultKind,
    /// The bound in effect, the artifact size of a kind that sets none.
    pub(crate) bound: crate::units::ByteSize,
    /// The agent's masking policy, if it masks.
    pub(crate) masking: Option<MaskingPolicy>,
}

impl Stage for ArtifactRule {
    fn name(&self) -> &str {
        "artifact"
    }

    fn part(&self) -> Part {
        Part::Rule
    }

    fn after(&self, _call: &CallEnd<'_>, output: &mut ToolOutput) -> Then {
        let kept = !output.is_error() && !output.streamed && !output.exempt;
        if !kept || output.text.len() as u64 <= self.kind.threshold(self.bound).get() {
            return Then::Keep;
        }
        if let Some(policy) = &self.masking {
            super::MaskRule::apply(policy, output);
        }
        Then::KeepAside(self.kind)
    }
}
