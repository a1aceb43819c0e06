//! What a run tells the stages of its calls about itself ([`CallHistory`]): the permission
//! checker's decisions journaled for a call, the calls made so far and whether content nobody
//! vouches for entered since a person last wrote ([`Seen`]), and the digests of finished calls.

use std::borrow::Cow;
use std::sync::{Mutex, PoisonError};

use crate::agent::AppAgent;
use crate::journal::LoopState;
use crate::model::Message;
use crate::tool::{
    CallDigest, CallHistory, CallSeen, Capability, Permission, RepeatedWhen, ToolDescriptor,
};

/// What a checker is told of the run so far, kept up to date as the conversation grows (each
/// message read once): the calls made, and whether content nobody vouches for entered since the
/// last message of a person.
#[derive(Debug, Default)]
pub(super) struct Seen {
    /// Messages read so far.
    read: usize,
    /// The calls made so far, oldest first.
    calls: Vec<CallSeen>,
    /// Whether content nobody vouches for entered since the last message of a person.
    untrusted: bool,
}

impl Seen {
    /// Reads the messages of `state` not read yet; `tool` finds the tool of a name (whether its
    /// results are vouched for, and its name to keep without a copy). The run's input carries
    /// what its knowledge bases in context mode found: when a base nobody vouches for added to
    /// it, it does not count as a person's own words.
    fn catch_up(
        &mut self,
        state: &LoopState,
        tool: impl Fn(&str) -> Option<&'static ToolDescriptor>,
    ) {
        for (at, message) in state.messages.iter().enumerate().skip(self.read) {
            match message {
                Message::User { .. } => {
                    self.untrusted = state.untrusted_context && state.input_at == Some(at);
                }
                Message::Tool { name, is_error, .. } => {
                    let descriptor = tool(name);
                    self.calls.push(CallSeen {
                        tool: descriptor
                            .map_or_else(|| Cow::Owned(name.clone()), |d| Cow::Borrowed(d.name())),
                        is_error: *is_error,
                    });
                    // The framework's own texts (an unknown tool, a refusal) are vouched for.
                    self.untrusted |= descriptor.is_some_and(ToolDescriptor::has_untrusted_output);
                }
                _ => {}
            }
        }
        self.read = state.messages.len();
    }
}

/// The run as one of its calls' stages see it.
pub(super) struct RunHistory<'s> {
    pub(super) state: &'s LoopState,
    /// The call's place among the last answer's calls.
    pub(super) index: usize,
    pub(super) seen: &'s Mutex<Seen>,
    pub(super) agent: &'s AppAgent,
}

impl CallHistory for RunHistory<'_> {
    fn permission(&self, capability: Capability) -> Option<Permission> {
        self.state
            .permission(self.index, capability.as_str())
            .cloned()
    }

    fn seen(&self, read: &mut dyn FnMut(&[CallSeen], bool)) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.catch_up(self.state, |name| {
            self.agent.tool(name).map(|t| t.descriptor())
        });
        read(&seen.calls, seen.untrusted);
    }

    fn repeats(&self, digest: &CallDigest, when: RepeatedWhen) -> bool {
        self.state.repeats.repeats(digest, when)
    }
}
