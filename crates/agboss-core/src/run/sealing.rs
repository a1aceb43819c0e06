//! Sealed arguments: an agent that masks personal data journals its model's call arguments
//! masked, since the journal is kept for good; the arguments as the model sent them, which the
//! calls run with, are sealed beside the journal (`Store::sealed`) before the answer is
//! journaled, read back by a run resumed in another process, and forgotten once each call's
//! result is journaled, or the run ends. A call whose sealed arguments are gone does not run.

use std::collections::HashMap;
use std::sync::{MutexGuard, PoisonError};

use serde_json::Value;

use super::RunError;
use super::cx::Cx;
use crate::journal::{LoopState, PendingCall};
use crate::masking::MaskingPolicy;
use crate::model::Message;
use crate::store::SealedArguments;
use crate::tool::{ToolFailure, ToolOutput};

/// What a call whose sealed arguments are gone reads instead of running.
const GONE: &str = "the journal keeps this call's arguments masked, and their sealed copy is gone, so it does not run: ask again for what it was to do";

impl Cx<'_> {
    /// Masks the arguments of `calls`, and of the tool calls of `message` (the model's answer),
    /// with the agent's policy; seals the arguments masking changed, before the answer is
    /// journaled. The ids of the calls sealed.
    pub(super) async fn seal_arguments(
        &self,
        calls: &mut [PendingCall],
        message: &mut Message,
    ) -> Result<Vec<String>, RunError> {
        let Some(masking) = self.agent.masking() else {
            return Ok(Vec::new());
        };
        let mut sealed = Vec::new();
        for (position, call) in calls.iter_mut().enumerate() {
            let Some(masked) = masked_arguments(&masking.value, &call.call.arguments) else {
                continue;
            };
            let kept = SealedArguments {
                execution_id: self.execution.execution_id().to_owned(),
                call_id: call.call_id.clone(),
                arguments: std::mem::replace(&mut call.call.arguments, masked.clone()),
            };
            let store = self.env.store.sealed();
            store.seal(&kept).await.map_err(RunError::from_store)?;
            if let Message::Assistant { tool_calls, .. } = message
                && let Some(said) = tool_calls.get_mut(position)
            {
                said.arguments = masked;
            }
            self.raw().insert(kept.call_id, kept.arguments);
            sealed.push(call.call_id.clone());
        }
        Ok(sealed)
    }

    /// Reads back the sealed arguments of the calls of `state` that wait for a result and this
    /// drive does not know yet (a resumed run's). The places of the calls whose sealed
    /// arguments are gone, with what they get instead of running.
    pub(super) async fn unseal(
        &self,
        state: &LoopState,
    ) -> Result<Vec<(usize, ToolOutput)>, RunError> {
        let mut gone = Vec::new();
        for (index, pending) in state.pending.iter().enumerate() {
            let known = self.raw().contains_key(&pending.call_id);
            if known || pending.result.is_some() || !state.sealed.contains(&pending.call_id) {
                continue;
            }
            let id = self.execution.execution_id();
            let kept = self.env.store.sealed().unseal(id, &pending.call_id).await;
            match kept.map_err(RunError::from_store)? {
                Some(arguments) => {
                    self.raw().insert(pending.call_id.clone(), arguments);
                }
                None => {
                    let refused = ToolFailure::Refused(GONE.to_owned());
                    gone.push((index, ToolOutput::failed(refused)));
                }
            }
        }
        Ok(gone)
    }

    /// What call `pending` runs with: its arguments as the model sent them, unsealed, or as the
    /// journal holds them when they were not sealed.
    pub(super) fn arguments_of(&self, pending: &PendingCall) -> String {
        match self.raw().get(&pending.call_id) {
            Some(raw) => raw.clone(),
            None => pending.call.arguments.clone(),
        }
    }

    /// Forgets the sealed arguments of call `call_id` of `state`, once its result is journaled;
    /// a store that fails leaves them to the run's end.
    pub(super) async fn forget_sealed(&self, state: &LoopState, call_id: &str) {
        if !state.sealed.contains(call_id) {
            return;
        }
        self.raw().remove(call_id);
        let id = self.execution.execution_id();
        if let Err(error) = self.env.store.sealed().forget(id, Some(call_id)).await {
            tracing::warn!(execution_id = id, call_id, %error, "sealed arguments could not be forgotten; the run's end forgets them");
        }
    }

    fn raw(&self) -> MutexGuard<'_, HashMap<String, String>> {
        self.raw.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `arguments` (JSON text) with every string `policy` masks masked, if any is; a text that is
/// not JSON is masked as text.
fn masked_arguments(policy: &MaskingPolicy, arguments: &str) -> Option<String> {
    match serde_json::from_str::<Value>(arguments) {
        Ok(mut value) => {
            let before = value.clone();
            super::mask::mask_strings(policy, &mut value);
            (value != before).then(|| value.to_string())
        }
        Err(_) => match policy.mask(arguments) {
            std::borrow::Cow::Owned(masked) => Some(masked),
            std::borrow::Cow::Borrowed(_) => None,
        },
    }
}
