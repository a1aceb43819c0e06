use agboss::prelude::*;
use agboss::units::seconds;

#[agent(name = "scout", description = "Finds jobs", prompt = "scout.prompt.md", model = "moonshotai/kimi-k2.6", max_duration = seconds(0))]
pub struct Scout;

fn main() {}
