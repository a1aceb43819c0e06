use agboss::channel::{InterpretContext, ReplyInterpretation, ReplyInterpreter};
use agboss::prelude::*;

#[dto]
pub struct BudgetAsk {
    pub project: String,
}

#[dto]
pub struct BudgetAnswer {
    pub cents: u64,
}

#[dto]
pub struct RefundInput {
    pub order_id: String,
}

/// Reads "200 dollars" as a budget.
#[derive(Default)]
pub struct BudgetReader;

impl ReplyInterpreter<BudgetQuestion> for BudgetReader {
    async fn interpret(
        &self,
        _: &BudgetAsk,
        reply: &str,
        _: &InterpretContext,
    ) -> ReplyInterpretation<BudgetAnswer> {
        match reply.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()) {
            Some(dollars) => ReplyInterpretation::Answer(BudgetAnswer { cents: dollars * 100 }),
            None => ReplyInterpretation::Unclear("no amount".into()),
        }
    }
}

#[channel_role(
    name = "budget-question-channel",
    description = "Asks the owner for a budget",
    answered_by = ThreadOwner,
    ask = BudgetAsk,
    answer = BudgetAnswer,
    reply_interpreter = BudgetReader,
)]
pub struct BudgetQuestion;

#[channel_role(
    name = "refund-approval-channel",
    description = "Approves card refunds",
    answered_by = Channel,
    approves = RefundInput,
    reply_interpreter = BudgetReader,
)]
pub struct RefundApproval;

fn main() {}
