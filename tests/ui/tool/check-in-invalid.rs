use agboss::prelude::*;

#[dto]
pub struct RefundInput {
    pub cents: u64,
}

#[tool(name = "refund-card-tool", description = "Refunds a card", check_in = true)]
pub struct RefundCard;

impl ToolHandler for RefundCard {
    type Input = RefundInput;
    type Output = PlainText;

    async fn run(&self, _input: RefundInput) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("refunded"))
    }
}

fn main() {}
