//! Telling a watched run's [`RunEvent`]s of its tool calls: the watch each call's frame gets
//! (it starts, it reports progress) and its end once journaled. Nothing here runs when nobody
//! watches.

use std::sync::Arc;

use super::cx::Cx;
use super::events::RunEvent;
use crate::channel::PauseAnswerer;
use crate::context::Progress;
use crate::journal::PendingCall;
use crate::tool::CallWatch;

impl Cx<'_> {
    /// What `pending`'s frame tells the watcher, if the run is watched.
    pub(super) fn watch_of(&self, pending: &PendingCall, arguments: &str) -> Option<CallWatch> {
        let events = self.options.events.clone()?;
        let (call_id, tool) = (pending.call_id.clone(), pending.call.name.clone());
        let arguments = serde_json::from_str(arguments)
            .unwrap_or_else(|_| serde_json::Value::String(arguments.to_owned()));
        let started = {
            let (events, call_id, tool) = (events.clone(), call_id.clone(), tool.clone());
            Arc::new(move || {
                events.send(RunEvent::ToolStarted {
                    call_id: call_id.clone(),
                    tool: tool.clone(),
                    arguments: arguments.clone(),
                });
            })
        };
        let progress = Arc::new(move |progress: &Progress| {
            events.send(RunEvent::ToolProgress {
                call_id: call_id.clone(),
                tool: tool.clone(),
                progress: progress.clone(),
            });
        });
        Some(CallWatch { started, progress })
    }

    /// The event of `pending`'s end, which the model reads as `outcome`, if the run is watched
    /// (told once the end is journaled).
    pub(super) fn ended_event(
        &self,
        pending: &PendingCall,
        outcome: &crate::tool::CallOutcome,
    ) -> Option<RunEvent> {
        self.options.events.as_ref()?;
        Some(RunEvent::ToolEnded {
            call_id: pending.call_id.clone(),
            tool: pending.call.name.clone(),
            is_error: !outcome.is_ok(),
            is_result_truncated: outcome.is_result_truncated,
            content: outcome.content.clone(),
        })
    }

    /// Tells the watcher that `pending`'s pause `pause_id` waits for an answer to role `role`,
    /// answered by `answered_by`: its id only when the thread's owner answers it.
    pub(super) fn tell_waiting(
        &self,
        pending: &PendingCall,
        pause_id: &str,
        role: &str,
        answered_by: PauseAnswerer,
    ) {
        if let Some(events) = &self.options.events {
            let pause_id = (answered_by == PauseAnswerer::ThreadOwner).then(|| pause_id.to_owned());
            events.send(RunEvent::PauseWaiting {
                pause_id,
                answered_by,
                call_id: pending.call_id.clone(),
                tool: pending.call.name.clone(),
                role: role.to_owned(),
            });
        }
    }

    /// Tells the watcher `event`, if there is one.
    pub(super) fn tell(&self, event: Option<RunEvent>) {
        if let (Some(events), Some(event)) = (&self.options.events, event) {
            events.send(event);
        }
    }
}
