//! [`Asker`]: how a running call asks a question of a role and gets its answer, said without
//! naming the loop or the channels, so that the tool layer stays under them. The agent loop
//! gives each call of a tool that declares `asks` one; `Questions` (in `channel`) is what the
//! tool holds.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

/// What an ask gives back while it is not an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AskFailure {
    /// The answer comes later: the pause is journaled, the call stops here and runs again from
    /// its start once the pause is answered.
    Waiting {
        /// The role asked.
        role: String,
        /// The pause that waits for the answer.
        pause_id: String,
    },
    /// The question cannot be answered: its channel failed, it was cancelled, the role has no
    /// channel, or the call asked something else than what the journal holds at this place.
    Failed(String),
}

/// The future of one ask.
pub type AskFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, AskFailure>> + Send + 'a>>;

/// Asks questions on behalf of one call, in its order: the `n`-th ask of a call is matched with
/// the `n`-th question the journal holds for it.
pub trait Asker: Send + Sync {
    /// Asks role `role` `question` (the role's question, as JSON); the answer, as JSON, checked
    /// against the role's answer type.
    fn ask(&self, role: &'static str, question: Value) -> AskFuture<'_>;
}
