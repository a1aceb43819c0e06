use agboss::prelude::*;

#[agent(name = "scout", description = "Finds jobs", prompt = "scout.prompt.md", model = "moonshotai/kimi-k2.6", max_duration = 120)]
pub struct Scout;

fn main() {}
