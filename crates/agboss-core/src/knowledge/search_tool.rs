//! [`SearchKnowledge`]: the tool `search-<name>-tool` a knowledge base gives an agent, a tool
//! like any other (its arguments validated, its time bounded, its result bounded).

use super::{Knowledge, KnowledgeHits, KnowledgeQuery};
use crate::component::DependencyError;
use crate::tool::{Scope, Tool, ToolDescriptor, ToolError, ToolHandler};

/// The search tool of knowledge base `K`: `search-<name>-tool`, whose input is a
/// [`KnowledgeQuery`] and whose output the [`KnowledgeHits`] found. `#[knowledge]` registers
/// it; an agent lists the base, never this type.
pub struct SearchKnowledge<K>(K);

impl<K: Knowledge> SearchKnowledge<K> {
    /// The tool over base `base`.
    pub fn new(base: K) -> SearchKnowledge<K> {
        SearchKnowledge(base)
    }
}

impl<K: Knowledge> ToolHandler for SearchKnowledge<K> {
    type Input = KnowledgeQuery;
    type Output = KnowledgeHits;

    async fn run(&self, mut input: KnowledgeQuery) -> Result<KnowledgeHits, ToolError> {
        let top_k = *input.top_k.get_or_insert(K::DESCRIPTOR.top_k()) as usize;
        match self.0.search(&input).await {
            Ok(mut passages) => {
                passages.truncate(top_k);
                Ok(KnowledgeHits { passages })
            }
            Err(error) => Err(ToolError::new(format!(
                "knowledge base `{}` could not be searched: {error}",
                K::DESCRIPTOR.name()
            ))),
        }
    }
}

impl<K: Knowledge> Tool for SearchKnowledge<K> {
    const DESCRIPTOR: &'static ToolDescriptor = K::SEARCH_TOOL;

    fn build(scope: &Scope<'_>) -> Result<Self, DependencyError> {
        K::build(scope).map(SearchKnowledge)
    }
}
