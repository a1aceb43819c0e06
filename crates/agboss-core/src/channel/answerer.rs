//! [`PauseAnswerer`]: who may answer a role's pauses.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Who may answer a pause of a role: `#[channel_role(answered_by = ..)]`, required, no default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseAnswerer {
    /// The owner of the execution's thread, and nobody else. Its pauses are listed in
    /// `RunOutcome::Paused { pending }` and in the store's pending pauses of that owner.
    ThreadOwner,
    /// Whoever holds the pause id: the channel's own system (a Slack button, a ticket) passes
    /// it back. The id is the right to answer, so it is never listed.
    Channel,
}

impl fmt::Display for PauseAnswerer {
    /// `thread owner` or `channel`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PauseAnswerer::ThreadOwner => "thread owner",
            PauseAnswerer::Channel => "channel",
        })
    }
}
