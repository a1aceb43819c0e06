//! [`Seen`]: what a permission checker is told of the run so far, kept as the run grows.

use std::borrow::Cow;

use crate::model::Message;
use crate::policy::CallSeen;
use crate::tool::ToolDescriptor;

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
    /// Reads the messages not read yet; `tool` finds the tool of a name (whether its results
    /// are vouched for, and its name to keep without a copy).
    pub(super) fn catch_up(
        &mut self,
        messages: &[Message],
        tool: impl Fn(&str) -> Option<&'static ToolDescriptor>,
    ) {
        for message in messages.iter().skip(self.read) {
            match message {
                Message::User { .. } => self.untrusted = false,
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
        self.read = messages.len();
    }
}
