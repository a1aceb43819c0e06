use agboss::prelude::*;

#[dto]
pub struct BudgetAnswer {
    pub cents: u64,
}

#[channel_role(
    name = "budget-question-channel",
    description = "Asks the owner for a budget",
    answered_by = ThreadOwner,
    answer = BudgetAnswer,
)]
pub struct BudgetQuestion;

fn main() {}
