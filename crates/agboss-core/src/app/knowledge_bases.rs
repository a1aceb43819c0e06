//! The application's knowledge bases: which its agents read, and their indexes, brought up to
//! date on first use or ahead of it (what `knowledge index` runs).

use std::sync::Arc;

use super::Application;
use crate::knowledge::{KnowledgeDescriptor, KnowledgeShelf, KnowledgeSource};

impl Application {
    /// Every knowledge base an agent of the application reads, each once, sorted by name.
    pub fn knowledge_bases(&self) -> Vec<&'static KnowledgeDescriptor> {
        let mut bases: Vec<&'static KnowledgeDescriptor> = self
            .workflows()
            .iter()
            .flat_map(|w| w.agents())
            .flat_map(|a| a.descriptor().knowledge().iter().map(|k| k.descriptor()))
            .collect();
        bases.sort_by_key(|b| (b.name(), std::ptr::from_ref(*b) as usize));
        bases.dedup_by_key(|b| std::ptr::from_ref(*b) as usize);
        bases
    }

    /// The bases over a folder, which the built-in index searches.
    pub fn indexed_knowledge_bases(&self) -> Vec<&'static KnowledgeDescriptor> {
        let mut bases = self.knowledge_bases();
        bases.retain(|b| matches!(b.source(), KnowledgeSource::Folder(_)));
        bases
    }

    /// The indexes of the application's knowledge bases over a folder: where they are kept,
    /// and (feature `knowledge`) [`KnowledgeShelf::update`] to bring one up to date.
    pub fn knowledge_shelf(&self) -> Arc<KnowledgeShelf> {
        self.assembly
            .providers()
            .get::<KnowledgeShelf>()
            .expect("assembly provides the knowledge shelf")
    }
}
