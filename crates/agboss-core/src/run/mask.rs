//! Masking what a run hands on with its agent's policy (docs/privacy.md): each call's result
//! before the journal keeps it and the model reads it, and each approval question before it is
//! journaled and a channel shows it to a person.

use serde_json::Value;

use super::agent_loop::AgentLoop;
use crate::masking::MaskingPolicy;
use crate::tool::{bound_text, mask_bounded};
use crate::units::ByteSize;

impl AgentLoop<'_> {
    /// `content`, a call's result held to `bound` (`truncated` when cut), masked by the
    /// agent's policy: the kept part only, the marker after it; and whether it is cut now.
    /// Untouched when the agent masks nothing. A whole result that placeholders make longer
    /// than its bound (`a@b.io` is `[email]`) is cut to the bound then, with the marker.
    pub(super) fn masked(
        &self,
        content: String,
        truncated: bool,
        bound: Option<ByteSize>,
    ) -> (String, bool) {
        let Some(masking) = self.agent.masking() else {
            return (content, truncated);
        };
        let masked = mask_bounded(content, truncated, &masking.value);
        match bound {
            Some(bound) if !truncated && masked.len() > bound.as_usize() => {
                let cut = bound_text(masked, bound);
                (cut.text, cut.truncated)
            }
            _ => (masked, truncated),
        }
    }

    /// Masks every text of an approval `question` a person reads: the arguments' strings, why
    /// they are asked and the tool's evidence (its name, call id and digest stay).
    pub(super) fn mask_question(&self, question: &mut Value) {
        let Some(masking) = self.agent.masking() else {
            return;
        };
        for key in ["arguments", "why", "evidence"] {
            if let Some(value) = question.get_mut(key) {
                mask_strings(&masking.value, value);
            }
        }
    }
}

/// Masks every string in `value`, keys of objects aside.
fn mask_strings(policy: &MaskingPolicy, value: &mut Value) {
    match value {
        Value::String(text) => {
            if let std::borrow::Cow::Owned(masked) = policy.mask(text) {
                *text = masked;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| mask_strings(policy, v)),
        Value::Object(fields) => fields.values_mut().for_each(|v| mask_strings(policy, v)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
