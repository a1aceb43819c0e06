//! What approvals (`approve.rs`) and questions (`asks.rs`) share: a pause made for a call, its
//! channel asked within the call's scope, and what the channel said as the journal keeps it.

use std::sync::Arc;

use serde_json::Value;

use super::RunError;
use super::approvals::ApprovalRole;
use super::cx::Cx;
use crate::channel::{ChannelError, PauseAnswerer, SendFuture, SentOutcome};
use crate::context::Step;
use crate::journal::{AskedIn, PauseOpened, PauseResolution, PendingCall};
use crate::tool::{Scope, ToolError};

impl Cx<'_> {
    /// A new pause holding back (or asked by) call `pending`: `question` to `role`, opened
    /// now, after the call started `attempt` times; `asked` for a question the call asks.
    pub(super) fn new_pause(
        &self,
        pending: &PendingCall,
        role: &ApprovalRole,
        question: Value,
        attempt: u32,
        asked: Option<AskedIn>,
    ) -> Result<PauseOpened, RunError> {
        let opened_at_ms = millis_since_epoch(self.env.clock.wall_time());
        let answered_by = role.role.answered_by();
        Ok(PauseOpened {
            pause_id: new_pause_id()?,
            call_id: pending.call_id.clone(),
            role: role.role.name().to_owned(),
            channel: role.channel.descriptor().name().to_owned(),
            answered_by,
            owner: match answered_by {
                PauseAnswerer::ThreadOwner => self.execution.owner_id().map(str::to_owned),
                PauseAnswerer::Channel => None,
            },
            question,
            arguments_digest: digest(&pending.call.arguments),
            opened_at_ms,
            expires_at_ms: role
                .role
                .expires_after()
                .map(|after| opened_at_ms.saturating_add(after.as_duration().as_millis() as u64)),
            attempt,
            asked,
        })
    }

    /// Starts asking `role`'s channel `question` for pause `pause_id` of call `pending`, the
    /// channel built in the call's scope (its `ExecutionContext` is the call's).
    pub(super) fn send_pause(
        &self,
        pending: &PendingCall,
        visit: u32,
        role: &Arc<ApprovalRole>,
        pause_id: String,
        question: Value,
    ) -> Result<SendFuture, ChannelError> {
        let Some(tool) = self.agent.tool(&pending.call.name) else {
            return Err(ChannelError::Question(format!(
                "the agent has no tool `{}`",
                pending.call.name
            )));
        };
        let step = Step::new(
            Arc::from(self.agent.name()),
            visit,
            pending.call_id.as_str(),
        );
        let env = self.env.approvals.env();
        let scope = Scope::new(
            env.providers(),
            env.clock(),
            &self.execution,
            &step,
            tool.descriptor(),
        );
        role.channel.send(&scope, pause_id, question)
    }
}

impl Cx<'_> {
    /// Journals that pause `pause_id` closed with `resolution`.
    pub(super) async fn close_pause(
        &self,
        state: &mut crate::journal::LoopState,
        pause_id: String,
        resolution: PauseResolution,
    ) -> Result<(), RunError> {
        let event = crate::journal::LoopEvent::PauseResolved {
            pause_id,
            resolution,
        };
        self.record(state, event).await
    }
}

/// What channel `role` said, as the journal keeps it: `None` when the answer comes later; a
/// decision checked against the role's answer type; a failure with its message.
pub(super) fn resolution_of(
    role: &ApprovalRole,
    said: Result<SentOutcome, ToolError>,
) -> Option<PauseResolution> {
    let channel = role.channel.descriptor().name();
    Some(match said {
        Ok(SentOutcome::AwaitReply) => return None,
        Ok(SentOutcome::Decided(answer)) => match role.answer.check_value(&answer) {
            Ok(()) => PauseResolution::Decided { answer },
            Err(issues) => PauseResolution::Failed {
                message: format!(
                    "channel `{channel}` decided with an answer role `{}` does not take: {issues}",
                    role.role.name()
                ),
            },
        },
        Err(error) => PauseResolution::Failed {
            message: format!("channel `{channel}` could not ask: {error}"),
        },
    })
}

/// The SHA-256 of `arguments`, hex.
pub(crate) fn digest(arguments: &str) -> String {
    use sha2::{Digest, Sha256};
    let hash = Sha256::digest(arguments.as_bytes());
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// 128 bits from the operating system's random source, hex: unguessable.
fn new_pause_id() -> Result<String, RunError> {
    crate::base::random::random_hex(16, "a pause id").map_err(RunError::Refused)
}

/// Milliseconds since the Unix epoch of `time` (0 before it).
pub(crate) fn millis_since_epoch(time: std::time::SystemTime) -> u64 {
    time.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
