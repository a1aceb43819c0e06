use agboss::prelude::*;

/// Answers from a database, but no code searches it.
#[knowledge(name = "faq-rag")]
pub struct Faq;

fn main() {}
