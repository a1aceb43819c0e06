use agboss::prelude::*;
use agboss::units::kilobytes;

#[agent(name = "scout", description = "Finds jobs", prompt = "scout.prompt.md", model = "moonshotai/kimi-k2.6", max_duration = kilobytes(5))]
pub struct Scout;

fn main() {}
