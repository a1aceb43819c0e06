use agboss::prelude::*;
use agboss::units::kilobytes;

const HISTORY_KB: u64 = 0;

#[agent(name = "scout", description = "Finds jobs", prompt = "scout.prompt.md", model = "moonshotai/kimi-k2.6", history_max_size = kilobytes(HISTORY_KB))]
pub struct Scout;

fn main() {}
