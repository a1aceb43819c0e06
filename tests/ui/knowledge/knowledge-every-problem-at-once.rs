use agboss::prelude::*;

/// Guides.
#[knowledge(
    name = "Guides",
    mode = "always",
    top_k = 0,
    documents = "code",
    serch = "hybrid",
)]
pub struct Guides<T> {
    value: T,
}

fn main() {}
