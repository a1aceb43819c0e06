use agboss::prelude::*;

#[dto]
pub struct RefundInput {
    pub cents: u64,
}

#[tool(
    name = "refund-card-tool",
    description = "Refunds a card",
    capabilities = [ExternalNett, Money, Custom(""), Custom(prod), 3]
)]
pub struct RefundCard;

#[tool(name = "refund-cash-tool", description = "Refunds cash", capabilities = Money)]
pub struct RefundCash;

impl ToolHandler for RefundCard {
    type Input = RefundInput;
    type Output = PlainText;

    async fn run(&self, _input: RefundInput) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("refunded"))
    }
}

impl ToolHandler for RefundCash {
    type Input = RefundInput;
    type Output = PlainText;

    async fn run(&self, _input: RefundInput) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("refunded"))
    }
}

fn main() {}
