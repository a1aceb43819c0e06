//! Masking an approval question with the agent's policy (docs/privacy.md) before it is
//! journaled and a channel shows it to a person. A call's result is masked by its pipeline's
//! `mask` rule.

use serde_json::Value;

use super::cx::Cx;
use crate::masking::MaskingPolicy;

impl Cx<'_> {
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
pub(super) fn mask_strings(policy: &MaskingPolicy, value: &mut Value) {
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
