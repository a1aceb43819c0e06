//! The built-in knowledge base (feature `knowledge`): a folder of documents indexed on disk
//! ([`FolderIndex`]), searched by BM25 full text (tantivy), by embeddings from an
//! OpenAI-compatible endpoint, or by both fused. docs/knowledge.md, "The built-in index", says
//! how documents are cut, what is kept where and what each mode costs.
//!
//! - [`FolderSpec`], [`Documents`], [`SearchMode`], [`Embeddings`]: what an index is told.
//! - [`FolderIndex`]: open, [`update`](FolderIndex::update) (incremental, with
//!   [`IndexProgress`] and an [`IndexReport`]), [`search`](FolderIndex::search).
//! - [`MAX_PASSAGE_BYTES`]: the size a passage is cut to.

mod chunk;
mod embeddings;
mod index;
mod manifest;
mod search;
mod spec;
mod state;
mod store;
mod update;
mod vectors;
mod walk;

pub use chunk::MAX_PASSAGE_BYTES;
pub use index::FolderIndex;
pub use search::RRF_K;
pub use spec::{Documents, Embeddings, FolderSpec, SearchMode};
pub use update::{IndexProgress, IndexReport};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_semantic;
