use agboss::prelude::*;

#[dto]
pub struct Charge {
    pub cents: u64,
}

/// Charges a card; after a crash, someone would be asked whether to charge again, but the tool
/// names no role to ask.
#[tool(name = "charge-card-tool", on_crash = ask)]
pub struct ChargeCard;

impl ToolHandler for ChargeCard {
    type Input = Charge;
    type Output = PlainText;

    async fn run(&self, input: Charge) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!("charged {}", input.cents)))
    }
}

fn main() {}
