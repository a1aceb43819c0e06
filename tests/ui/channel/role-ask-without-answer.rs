use agboss::prelude::*;

#[dto]
pub struct BudgetAsk {
    pub project: String,
}

#[channel_role(
    name = "budget-question-channel",
    description = "Asks the owner for a budget",
    answered_by = ThreadOwner,
    ask = BudgetAsk,
)]
pub struct BudgetQuestion;

fn main() {}
