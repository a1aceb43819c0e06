//! [`ReplyReading`]: what a model that read a free-text reply to a pause spent.

use serde::{Deserialize, Serialize};

use crate::model::Usage;
use crate::units::Usd;

/// What reading a free-text reply with a model spent: journaled with the answer (or with its
/// refusal, when the reply could not be read) and counted in the execution's budgets and spend
/// like the loop's own model calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyReading {
    /// The model, `vendor/model` (the `DecisionModel`'s `MODEL`).
    pub model: String,
    /// The tokens it used.
    pub usage: Usage,
    /// What they cost, at the application's prices for the model (zero without prices).
    pub cost: Usd,
}
