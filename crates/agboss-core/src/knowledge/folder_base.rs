//! [`FolderBase`]: how a `#[knowledge(folder = ..)]` reaches the application's index of its
//! folder (a hidden field the macro adds, resolved like a tool's dependencies).

use std::marker::PhantomData;
use std::sync::Arc;

use super::{Knowledge, KnowledgeError, KnowledgeQuery, KnowledgeShelf, Passage};
use crate::component::Requirement;
use crate::deps::Unresolved;
use crate::tool::{Dependency, Scope};

/// The application's index of knowledge base `K`'s folder. `#[knowledge(folder = ..)]` adds it
/// to the struct as a hidden field; nothing else names it.
pub struct FolderBase<K> {
    shelf: Arc<KnowledgeShelf>,
    _base: PhantomData<fn() -> K>,
}

impl<K: Knowledge> FolderBase<K> {
    /// The passages of `K`'s folder that best match `query`.
    pub async fn search(&self, query: &KnowledgeQuery) -> Result<Vec<Passage>, KnowledgeError> {
        self.shelf.search(K::DESCRIPTOR, query).await
    }
}

impl<K: Knowledge> Dependency for FolderBase<K> {
    fn requirement() -> Requirement {
        Requirement::Builtin
    }

    fn resolve(scope: &Scope<'_>) -> Result<Self, Unresolved> {
        Ok(FolderBase {
            shelf: scope.providers().get::<KnowledgeShelf>()?,
            _base: PhantomData,
        })
    }
}
