//! [`KnowledgeError`]: why a knowledge base could not be indexed or searched.

use std::path::PathBuf;

/// Why a knowledge base could not be indexed or searched. In a search tool's call it becomes
/// the tool error the model reads; in context mode, a warning and no block.
#[derive(Debug, thiserror::Error)]
pub enum KnowledgeError {
    /// A file or folder could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The index could not be opened, written or searched.
    #[error("the index at {path} failed: {message}")]
    Index {
        /// The index's folder.
        path: PathBuf,
        /// What went wrong, in the index's words.
        message: String,
    },
    /// The embeddings endpoint failed or answered something unreadable.
    #[error("embeddings: {0}")]
    Embeddings(String),
    /// A base of the user's own failed, in its own words.
    #[error("{0}")]
    Other(String),
}

impl KnowledgeError {
    /// A base's own failure, in its words.
    pub fn other(message: impl Into<String>) -> KnowledgeError {
        KnowledgeError::Other(message.into())
    }
}
