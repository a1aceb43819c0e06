//! The arguments of `#[knowledge(..)]`, as written.

use darling::FromMeta;
use darling::util::SpannedValue;

use crate::header::HeaderArgs;

/// The keys `#[knowledge]` accepts.
pub const KEYS: &[&str] = &[
    "name",
    "description",
    "mode",
    "top_k",
    "folder",
    "documents",
    "search",
    "embeddings",
    "trusted",
    "crate",
];

/// `#[knowledge(..)]` as written; checked in `check`.
#[derive(Debug, FromMeta)]
pub struct KnowledgeArgs {
    #[darling(flatten)]
    pub header: HeaderArgs,
    /// `"tool"` (the default) or `"context"`.
    pub mode: Option<SpannedValue<String>>,
    /// Passages a search returns unless its query says.
    pub top_k: Option<syn::LitInt>,
    /// The folder the built-in index reads; without it, the struct's `KnowledgeBase` impl
    /// searches.
    pub folder: Option<SpannedValue<String>>,
    /// With `folder`: `"text"` (the default) or `"code"`.
    pub documents: Option<SpannedValue<String>>,
    /// With `folder`: `"full-text"` (the default), `"semantic"` or `"hybrid"`.
    pub search: Option<SpannedValue<String>>,
    /// With `semantic` or `hybrid` search: the embeddings model, `vendor/model`.
    pub embeddings: Option<SpannedValue<String>>,
    /// Its documents are vouched for: what it finds is not untrusted content.
    #[darling(default)]
    pub trusted: bool,
}
