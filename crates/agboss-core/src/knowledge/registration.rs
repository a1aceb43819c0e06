//! [`KnowledgeRegistration`]: a knowledge base's entry in the registry of every `#[knowledge]`
//! in the program; also how agents list their knowledge bases.

use super::{Knowledge, KnowledgeDescriptor};
use crate::component::registry;

registry! {
    /// A knowledge base's registration, submitted by `#[knowledge]`; also how an agent lists
    /// the bases it reads (`knowledge = [DocsRag]`).
    pub type KnowledgeRegistration = Registration<KnowledgeDescriptor> of Knowledge;

    /// Every `#[knowledge]` linked into the program, sorted by name, then by Rust type.
    pub fn registered_knowledge();
}
