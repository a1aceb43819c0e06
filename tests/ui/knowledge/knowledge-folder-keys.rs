use agboss::prelude::*;

/// Guides, searched by meaning without saying with what.
#[knowledge(name = "guides-rag", folder = "docs", search = "semantic")]
pub struct Guides;

/// Guides, full text, with a model it does not use.
#[knowledge(name = "manuals-rag", folder = "", embeddings = "openai/text-embedding-3-small")]
pub struct Manuals;

/// Guides over a folder, with a field.
#[knowledge(name = "notes-rag", folder = "notes", search = "hybrid", embeddings = "text-embedding-3-small")]
pub struct Notes {
    clock: Clock,
}

fn main() {}
