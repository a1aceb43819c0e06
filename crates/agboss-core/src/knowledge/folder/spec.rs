//! What a folder index is told: which folder and which of its files ([`Documents`]), how it
//! searches ([`SearchMode`]) and where its embeddings come from ([`Embeddings`]), all in one
//! [`FolderSpec`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::base::Env;
use crate::time::Clock;

/// Which files of the folder are indexed. Hidden folders and files (`.git`), `target/` and
/// `node_modules/` are always skipped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Documents {
    /// Prose: `.md`, `.markdown` and `.txt`. Markdown splits at its headings, and every
    /// passage carries the headings above it.
    #[default]
    Text,
    /// Source code and configuration (`.rs`, `.py`, `.ts`, `.go`, `.toml`, `.yaml`, ...), split
    /// at blank lines between top-level items.
    Code,
}

/// The extensions [`Documents::Text`] reads.
const TEXT_EXTENSIONS: &[&str] = &["md", "markdown", "txt"];

/// The extensions [`Documents::Code`] reads.
const CODE_EXTENSIONS: &[&str] = &[
    "rs", "py", "pyi", "ts", "tsx", "js", "jsx", "mjs", "cjs", "go", "java", "kt", "kts", "scala",
    "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "cs", "rb", "php", "swift", "m", "mm", "lua", "pl",
    "r", "sql", "proto", "toml", "yaml", "yml", "json", "ini", "cfg", "sh", "bash", "zsh", "fish",
    "ps1", "html", "css", "scss", "vue", "svelte", "zig", "nim", "ex", "exs", "erl", "hs", "ml",
    "clj", "dart", "tf", "gradle", "cmake", "mk",
];

impl Documents {
    /// The file name extensions read, lowercase and without their dot.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Documents::Text => TEXT_EXTENSIONS,
            Documents::Code => CODE_EXTENSIONS,
        }
    }

    /// Whether the file at `path` is one of these documents (by its extension, any case).
    pub fn takes(self, path: &Path) -> bool {
        let Some(extension) = path.extension().and_then(|e| e.to_str()) else {
            return false;
        };
        let extension = extension.to_ascii_lowercase();
        self.extensions().contains(&extension.as_str())
    }
}

/// How a search ranks passages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchMode {
    /// BM25 over the words of the passages: exact words, no embeddings needed.
    #[default]
    FullText,
    /// Cosine similarity between the query's embedding and the passages' (needs
    /// [`Embeddings`]): finds passages that say the same thing in other words.
    Semantic,
    /// Both lists fused by reciprocal rank (k = 60): a passage high in either ranks high.
    Hybrid,
}

impl SearchMode {
    /// Whether this mode needs embeddings.
    pub fn needs_embeddings(self) -> bool {
        !matches!(self, SearchMode::FullText)
    }
}

/// An OpenAI-compatible embeddings endpoint (`POST {base_url}/embeddings`), configured as a
/// chat model is: a base URL and the NAME of the variable that holds the key, never the key.
#[derive(Clone, Debug)]
pub struct Embeddings {
    /// The API's base URL, without `/embeddings`: `https://api.openai.com/v1`.
    pub base_url: String,
    /// The embedding model: `text-embedding-3-small`.
    pub model: String,
    /// The NAME of the environment variable that holds the API key; `None` sends no key (a
    /// local server).
    pub api_key_env: Option<String>,
    /// Texts per request (64 by default).
    pub batch_size: usize,
    /// How long one request may take, answer included (60 s by default).
    pub timeout: Duration,
    /// Where the key's variable is read from (the process's environment by default).
    pub env: Env,
}

impl Embeddings {
    /// `model` at `base_url`, with no key, 64 texts a request and a 60 s timeout.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Embeddings {
        Embeddings {
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            model: model.into(),
            api_key_env: None,
            batch_size: 64,
            timeout: Duration::from_secs(60),
            env: Env::process(),
        }
    }

    /// OpenAI's API, its key in `OPENAI_API_KEY`.
    pub fn openai(model: impl Into<String>) -> Embeddings {
        Embeddings::new("https://api.openai.com/v1", model).api_key_env("OPENAI_API_KEY")
    }

    /// The same, its key read from the variable `name`.
    pub fn api_key_env(mut self, name: impl Into<String>) -> Embeddings {
        self.api_key_env = Some(name.into());
        self
    }

    /// The same, sending at most `size` texts a request (at least 1).
    pub fn batch_size(mut self, size: usize) -> Embeddings {
        self.batch_size = size.max(1);
        self
    }

    /// The same, with requests bounded by `timeout`.
    pub fn timeout(mut self, timeout: Duration) -> Embeddings {
        self.timeout = timeout;
        self
    }

    /// The same, reading the key's variable from `env`.
    pub fn env(mut self, env: Env) -> Embeddings {
        self.env = env;
        self
    }
}

/// Everything a [`FolderIndex`](super::FolderIndex) needs besides where it lives.
#[derive(Clone, Debug)]
pub struct FolderSpec {
    /// The folder whose files are indexed (read recursively).
    pub folder: PathBuf,
    /// Which of its files.
    pub documents: Documents,
    /// How a search ranks.
    pub search: SearchMode,
    /// Where embeddings come from: required by [`SearchMode::Semantic`] and
    /// [`SearchMode::Hybrid`], unused by [`SearchMode::FullText`].
    pub embeddings: Option<Embeddings>,
    /// The clock that times indexing and bounds embedding requests (the system's by default).
    pub clock: Clock,
}

impl FolderSpec {
    /// The `documents` of `folder`, searched by full text.
    pub fn new(folder: impl Into<PathBuf>, documents: Documents) -> FolderSpec {
        FolderSpec {
            folder: folder.into(),
            documents,
            search: SearchMode::FullText,
            embeddings: None,
            clock: Clock::system(),
        }
    }

    /// The same, searched by `mode`.
    pub fn search(mut self, mode: SearchMode) -> FolderSpec {
        self.search = mode;
        self
    }

    /// The same, with its embeddings from `embeddings`.
    pub fn embeddings(mut self, embeddings: Embeddings) -> FolderSpec {
        self.embeddings = Some(embeddings);
        self
    }

    /// The same, timed by `clock`.
    pub fn clock(mut self, clock: Clock) -> FolderSpec {
        self.clock = clock;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_told_by_their_extension() {
        assert!(Documents::Text.takes(Path::new("guides/Tools.MD")));
        assert!(Documents::Text.takes(Path::new("notes.txt")));
        assert!(!Documents::Text.takes(Path::new("src/lib.rs")));
        assert!(Documents::Code.takes(Path::new("src/lib.rs")));
        assert!(Documents::Code.takes(Path::new("Cargo.toml")));
        assert!(!Documents::Code.takes(Path::new("README")));
    }
}
