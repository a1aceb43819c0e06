//! Masking what a run hands on with its agent's policy (docs/privacy.md): each call's result
//! before the journal keeps it and the model reads it, and each approval question before it is
//! journaled and a channel shows it to a person.

use serde_json::Value;

use super::agent_loop::AgentLoop;
use crate::masking::MaskingPolicy;
use crate::tool::mask_bounded;

impl AgentLoop<'_> {
    /// `content`, a call's bounded result (`truncated` when cut), masked by the agent's policy:
    /// the kept part only, the marker after it. Untouched when the agent masks nothing.
    pub(super) fn masked(&self, content: String, truncated: bool) -> String {
        match self.agent.masking() {
            Some(masking) => mask_bounded(content, truncated, &masking.value),
            None => content,
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
