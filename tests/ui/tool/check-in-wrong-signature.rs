use agboss::prelude::*;

#[dto]
pub struct RefundInput {
    pub cents: u64,
}

/// Forgets the execution context.
fn over_1000(input: &RefundInput) -> bool {
    input.cents > 100_000
}

/// Returns no text.
fn evidence(input: &RefundInput) -> u64 {
    input.cents
}

#[tool(
    name = "refund-card-tool",
    description = "Refunds a card",
    check_in = over_1000,
    check_in_evidence = evidence
)]
pub struct RefundCard;

impl ToolHandler for RefundCard {
    type Input = RefundInput;
    type Output = PlainText;

    async fn run(&self, _input: RefundInput) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("refunded"))
    }
}

fn main() {}
