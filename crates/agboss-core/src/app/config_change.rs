//! What resuming an execution does when its workflow's configuration hash is not the one its
//! journal holds: go on and say so (`OnConfigChange::Warn`), or refuse
//! (`OnConfigChange::Refuse`, `[resume.config-changed]`).

use agboss_rules::codes;

use crate::assembly::{AppWorkflow, OnConfigChange};
use crate::journal::{LoopEvent, LoopState};
use crate::run::RunError;

/// Judges resuming the execution `state` folds under `workflow` as it is now: `None` when the
/// hashes agree or the journal holds none (a layout before 6), the `config_changed` event to
/// journal before the run goes on under `Warn` (after a `tracing` warning), or the refusal
/// under `Refuse`.
pub(super) fn judge(
    workflow: &AppWorkflow,
    state: &LoopState,
) -> Result<Option<LoopEvent>, RunError> {
    let current = workflow.config_hash();
    let Some(recorded) = state.config_hash.as_deref() else {
        return Ok(None);
    };
    if recorded == current {
        return Ok(None);
    }
    match workflow.on_config_change() {
        OnConfigChange::Warn => {
            tracing::warn!(
                execution_id = %state.execution_id,
                workflow = %state.workflow,
                recorded,
                current,
                "the execution resumes under another configuration of its workflow than it last ran under"
            );
            Ok(Some(LoopEvent::ConfigChanged {
                from: recorded.to_owned(),
                to: current.to_owned(),
            }))
        }
        OnConfigChange::Refuse => Err(RunError::Refused(
            codes::RESUME_CONFIG_CHANGED
                .finding(&[
                    ("execution", &state.execution_id),
                    ("workflow", &state.workflow),
                    ("recorded", &recorded),
                    ("current", &current),
                ])
                .into(),
        )),
    }
}
