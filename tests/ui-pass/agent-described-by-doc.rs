//! An agent described only by its doc comment.
#![deny(warnings)]

use agboss::agent::Agent;
use agboss::prelude::*;

/// Finds jobs that fit the user.
#[agent(name = "scout", prompt = "scout.prompt.md", model = "moonshotai/kimi-k2.6")]
pub struct Scout;

fn main() {
    assert_eq!(Scout::DESCRIPTOR.description(), "Finds jobs that fit the user.");
}
