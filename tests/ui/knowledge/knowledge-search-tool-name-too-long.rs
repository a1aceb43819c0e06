use agboss::prelude::*;

/// Everything the company ever wrote down, in one place.
#[knowledge(name = "everything-the-company-ever-wrote-down-in-one-place-rag", folder = "docs")]
pub struct Everything;

fn main() {}
