//! [`KnowledgeDescriptor`]: a knowledge base's static description, what `#[knowledge]`
//! registers; [`KnowledgeMode`] and [`KnowledgeSource`].

use std::fmt;

use crate::component::{Component, derefs_to_component};
use crate::tool::ToolRegistration;

/// How an agent reads a knowledge base.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KnowledgeMode {
    /// The agent gets the tool `search-<name>-tool` and searches when it decides to.
    Tool,
    /// Before each model call, the base is searched with the run's input, and what it finds is
    /// added to the input message, bounded like a tool result.
    Context,
}

impl KnowledgeMode {
    /// `tool` or `context`, as `#[knowledge(mode = ..)]`, describe and configuration write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            KnowledgeMode::Tool => "tool",
            KnowledgeMode::Context => "context",
        }
    }
}

impl fmt::Display for KnowledgeMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a knowledge base's passages come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KnowledgeSource {
    /// A folder the built-in index reads (feature `knowledge`).
    Folder(FolderSource),
    /// The struct's own [`KnowledgeBase`](super::KnowledgeBase) impl: a database, a hosted
    /// vector store.
    Own,
}

/// A folder the built-in index reads, as `#[knowledge(folder = ..)]` declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FolderSource {
    /// The folder, relative to the working directory unless absolute.
    pub folder: &'static str,
    /// `text` (Markdown and text files) or `code` (source files).
    pub documents: &'static str,
    /// `full-text`, `semantic` or `hybrid`.
    pub search: &'static str,
    /// The embeddings model (`openai/text-embedding-3-small`), for `semantic` and `hybrid`.
    pub embeddings: Option<&'static str>,
}

/// A knowledge base's static description: its header, mode, number of passages per search,
/// source, and the search tool an agent gets in tool mode. Derefs to its [`Component`].
#[derive(Clone, Copy)]
pub struct KnowledgeDescriptor {
    component: Component,
    mode: KnowledgeMode,
    top_k: u32,
    source: KnowledgeSource,
    search_tool: ToolRegistration,
}

impl KnowledgeDescriptor {
    /// The passages a search returns when its query does not say.
    pub const DEFAULT_TOP_K: u32 = 5;

    /// A knowledge base with header `component`, searched by `search_tool`, in tool mode, of
    /// its own source, [`DEFAULT_TOP_K`](Self::DEFAULT_TOP_K) passages a search.
    pub const fn new(component: Component, search_tool: ToolRegistration) -> KnowledgeDescriptor {
        KnowledgeDescriptor {
            component,
            mode: KnowledgeMode::Tool,
            top_k: Self::DEFAULT_TOP_K,
            source: KnowledgeSource::Own,
            search_tool,
        }
    }

    /// In `mode`.
    pub const fn with_mode(mut self, mode: KnowledgeMode) -> KnowledgeDescriptor {
        self.mode = mode;
        self
    }

    /// Returning `top_k` passages a search.
    pub const fn with_top_k(mut self, top_k: u32) -> KnowledgeDescriptor {
        self.top_k = top_k;
        self
    }

    /// Reading `source`.
    pub const fn with_source(mut self, source: KnowledgeSource) -> KnowledgeDescriptor {
        self.source = source;
        self
    }

    /// How agents read it.
    pub const fn mode(&self) -> KnowledgeMode {
        self.mode
    }

    /// The passages a search returns when its query does not say.
    pub const fn top_k(&self) -> u32 {
        self.top_k
    }

    /// Where its passages come from.
    pub const fn source(&self) -> &KnowledgeSource {
        &self.source
    }

    /// Its search tool, `search-<name>-tool`: what an agent calls in tool mode, and what
    /// context mode searches through (the same contract: validated, timed out, bounded).
    pub const fn search_tool(&self) -> &ToolRegistration {
        &self.search_tool
    }
}

derefs_to_component!(KnowledgeDescriptor);

impl fmt::Debug for KnowledgeDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KnowledgeDescriptor")
            .field("name", &self.name())
            .field("mode", &self.mode)
            .field("top_k", &self.top_k)
            .field("source", &self.source)
            .finish()
    }
}
