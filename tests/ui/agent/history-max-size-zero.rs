use agboss::prelude::*;
use agboss::units::kilobytes;

#[agent(name = "scout", description = "Finds jobs", prompt = "scout.prompt.md", model = "moonshotai/kimi-k2.6", history_max_size = kilobytes(0))]
pub struct Scout;

fn main() {}
