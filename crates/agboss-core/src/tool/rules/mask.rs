//! The `mask` rule: the kept part of a call's result masked by the agent's policy, after the
//! bound, so only what the model reads is read, and the bound still holds after.

use crate::masking::MaskingPolicy;
use crate::tool::pipeline::{CallEnd, Part, Stage, Then, ToolOutput};

/// Masks what the model reads of a result with an agent's policy (docs/privacy.md): the kept
/// part of a cut text as [`MaskingPolicy::mask_kept`] does (what is left of an entity the cut
/// went through is masked too), a whole text as [`MaskingPolicy::mask`]. A placeholder longer
/// than what it hides cannot take the text past the bound: a cut text's kept part is cut back to
/// its length, a whole text that grew past the bound is cut then (the marker counting the masked
/// text). The framework's own sentences hold nothing to mask.
pub(crate) struct MaskRule(pub(crate) MaskingPolicy);

impl Stage for MaskRule {
    fn name(&self) -> &str {
        "mask"
    }

    fn part(&self) -> Part {
        Part::Rule
    }

    fn after(&self, _call: &CallEnd<'_>, output: &mut ToolOutput) -> Then {
        MaskRule::apply(&self.0, output);
        Then::Keep
    }
}

impl MaskRule {
    /// Masks `output` with `policy`, as the rule does.
    pub(crate) fn apply(policy: &MaskingPolicy, output: &mut ToolOutput) {
        if output.exempt {
            return;
        }
        let kept = output.text.len();
        let masked = match output.cut {
            Some(_) => policy.mask_kept(&output.text),
            None => policy.mask(&output.text),
        };
        let std::borrow::Cow::Owned(mut masked) = masked else {
            return;
        };
        match (output.cut, output.bound) {
            (Some(_), _) if masked.len() > kept => {
                let mut end = kept;
                while !masked.is_char_boundary(end) {
                    end -= 1;
                }
                masked.truncate(end);
                output.text = masked;
            }
            (None, Some(bound)) if masked.len() > bound.as_usize() => {
                output.total = masked.len();
                output.text = masked;
                output.cut_to(bound.as_usize());
            }
            _ => output.text = masked,
        }
    }
}
