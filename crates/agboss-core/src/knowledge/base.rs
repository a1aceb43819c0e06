//! [`KnowledgeBase`] (what searches a knowledge base: the built-in index, or the user's own
//! code) and [`Knowledge`] (what `#[knowledge]` implements).

use std::future::Future;

use super::{KnowledgeDescriptor, KnowledgeError, KnowledgeQuery, Passage};
use crate::component::DependencyError;
use crate::tool::{Scope, ToolDescriptor};

/// What searches a knowledge base. `#[knowledge(folder = ..)]` implements it with the built-in
/// index; a base of your own (a database, a hosted vector store) implements it by hand, its
/// struct's fields being its dependencies as a tool's are:
///
/// ```
/// use agboss_core::knowledge::{KnowledgeBase, KnowledgeError, KnowledgeQuery, Passage};
///
/// struct Faq;
///
/// impl KnowledgeBase for Faq {
///     async fn search(&self, query: &KnowledgeQuery) -> Result<Vec<Passage>, KnowledgeError> {
///         let hit = query.query.contains("refund").then(|| Passage {
///             source: "faq/refunds".into(),
///             heading: "Refunds".into(),
///             line: 1,
///             end_line: 3,
///             text: "Refunds take five working days.".into(),
///             score: 1.0,
///         });
///         Ok(hit.into_iter().collect())
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `KnowledgeBase` impl",
    label = "a `#[knowledge]` without `folder` searches with its own code",
    note = "add `folder = \"..\"` to `#[knowledge]` for the built-in index, or `impl KnowledgeBase for {Self} {{ async fn search(&self, query: &KnowledgeQuery) -> Result<Vec<Passage>, KnowledgeError> {{ .. }} }}`"
)]
pub trait KnowledgeBase: Send + Sync + 'static {
    /// The passages that best match `query`, best first. `query.top_k` is always set when
    /// agboss calls it (the query's own, else the base's); returning more is harmless, they
    /// are cut.
    fn search(
        &self,
        query: &KnowledgeQuery,
    ) -> impl Future<Output = Result<Vec<Passage>, KnowledgeError>> + Send;
}

/// A knowledge base: a [`KnowledgeBase`] with a registered [`KnowledgeDescriptor`].
/// Implemented by `#[knowledge]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an agboss knowledge base",
    label = "not a `#[knowledge]`",
    note = "put `#[knowledge(name = \"...-rag\", folder = \"..\")]` on the struct"
)]
pub trait Knowledge: KnowledgeBase + Sized {
    /// The base's static description.
    const DESCRIPTOR: &'static KnowledgeDescriptor;

    /// The descriptor of its search tool, `search-<name>-tool`.
    #[doc(hidden)]
    const SEARCH_TOOL: &'static ToolDescriptor;

    /// Builds the base for one search from `scope`, resolving each field.
    #[doc(hidden)]
    fn build(scope: &Scope<'_>) -> Result<Self, DependencyError>;
}
