use agboss::prelude::*;

#[dto]
pub struct Charge {
    pub cents: u64,
}

/// Charges a card.
#[tool(name = "charge-card-tool", on_crash = retry)]
pub struct ChargeCard;

impl ToolHandler for ChargeCard {
    type Input = Charge;
    type Output = PlainText;

    async fn run(&self, input: Charge) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!("charged {}", input.cents)))
    }
}

fn main() {}
