//! Knowledge bases: documents an agent searches, through its tool `search-<name>-tool` (tool
//! mode) or before each model call with the run's input (context mode). docs/knowledge.md is
//! the user's side.
//!
//! - [`KnowledgeDescriptor`] (what `#[knowledge]` registers), [`KnowledgeMode`],
//!   [`KnowledgeSource`], and [`KnowledgeRegistration`] (the registry).
//! - [`KnowledgeBase`] (what searches: the built-in index, or a base of your own) and
//!   [`Knowledge`] (what `#[knowledge]` implements).
//! - [`SearchKnowledge`]: the search tool, a tool like any other.
//! - [`Passage`], [`KnowledgeQuery`] and [`KnowledgeHits`]: what a search finds, and the search
//!   tool's DTOs; [`context_block`]: what context mode adds to the input message.
//! - [`KnowledgeShelf`]: the application's indexes of its bases' folders, and [`FolderBase`],
//!   through which a base over a folder reaches its index.
//! - [`KnowledgeError`]: why indexing or a search failed.
//! - `folder` (feature `knowledge`): the built-in index of a folder of documents.
//!
//! Files: `descriptor.rs`, `registration.rs`, `base.rs`, `search_tool.rs`, `passage.rs`,
//! `block.rs` (`context_block`), `shelf.rs`, `folder_base.rs`, `error.rs`, `folder/`.

mod base;
mod block;
mod descriptor;
mod error;
#[cfg(feature = "knowledge")]
pub mod folder;
mod folder_base;
mod passage;
mod registration;
mod search_tool;
mod shelf;

pub use base::{Knowledge, KnowledgeBase};
pub use block::context_block;
pub use descriptor::{FolderSource, KnowledgeDescriptor, KnowledgeMode, KnowledgeSource};
pub use error::KnowledgeError;
pub use folder_base::FolderBase;
pub use passage::{KnowledgeHits, KnowledgeQuery, Passage};
pub use registration::{KnowledgeRegistration, registered_knowledge};
pub use search_tool::SearchKnowledge;
pub use shelf::{DEFAULT_KNOWLEDGE_DIR, KnowledgeShelf};
