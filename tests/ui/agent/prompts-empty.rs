use agboss::prelude::*;

#[agent(
    name = "scout",
    description = "Finds jobs",
    prompts = [],
    model = "moonshotai/kimi-k2.6",
)]
pub struct Scout;

fn main() {}
