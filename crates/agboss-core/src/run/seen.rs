//! [`Seen`]: what a permission checker is told of the run so far, kept as the run grows.

use crate::model::Message;
use crate::policy::CallSeen;

/// What a checker is told of the run so far, kept up to date as the conversation grows (each
/// message read once): the calls made, and whether content nobody vouches for entered since the
/// last message of a person.
#[derive(Debug, Default)]
pub(super) struct Seen {
    /// Messages read so far.
    read: usize,
    /// The calls made so far, oldest first.
    pub(super) calls: Vec<CallSeen>,
    /// Whether content nobody vouches for entered since the last message of a person.
    pub(super) untrusted: bool,
}

impl Seen {
    /// Reads the messages not read yet; `untrusted` says which tools' results are not vouched
    /// for.
    pub(super) fn catch_up(&mut self, messages: &[Message], untrusted: impl Fn(&str) -> bool) {
        for message in messages.iter().skip(self.read) {
            match message {
                Message::User { .. } => self.untrusted = false,
                Message::Tool { name, is_error, .. } => {
                    self.calls.push(CallSeen {
                        tool: name.clone(),
                        is_error: *is_error,
                    });
                    // The framework's own texts (an unknown tool, a refusal) are vouched for.
                    self.untrusted |= untrusted(name);
                }
                _ => {}
            }
        }
        self.read = messages.len();
    }
}
