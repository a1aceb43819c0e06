use agboss::prelude::*;

#[agent(name = "scout", description = "Finds jobs", prompt = "scout.prompt.md", model = "moonshotai/kimi-k2.6", history_max_size = 8192)]
pub struct Scout;

fn main() {}
