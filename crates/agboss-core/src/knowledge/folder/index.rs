//! [`FolderIndex`]: a folder's documents indexed on disk, updated incrementally and searched
//! by full text, by embeddings, or both.

use std::path::Path;
use std::sync::Arc;

use super::search::{by_keys, full_text, fused};
use super::spec::{FolderSpec, SearchMode};
use super::state::Shared;
use super::store::failed;
use super::update::{IndexProgress, IndexReport, update};
use crate::knowledge::{KnowledgeError, Passage};

/// How many more candidates than asked each list of a hybrid search brings to the fusion.
const HYBRID_DEPTH: usize = 4;

/// A folder's documents, indexed in a folder of their own: a tantivy index (BM25), a manifest
/// of the files indexed, and, with embeddings, their vectors. Cheap to clone: clones share the
/// index. Searches run while an update is under way and see it once it commits.
///
/// ```no_run
/// # async fn demo() -> Result<(), agboss_core::knowledge::KnowledgeError> {
/// use agboss_core::knowledge::folder::{Documents, FolderIndex, FolderSpec};
///
/// let spec = FolderSpec::new("docs", Documents::Text);
/// let index = FolderIndex::open(".agboss/knowledge/docs".as_ref(), spec)?;
/// let report = index.update(&mut |_| {}).await?;
/// println!("{} files read, {} passages", report.files_read, report.passages);
/// for passage in index.search("result size of a tool", 5).await? {
///     println!("{} {}", passage.location(), passage.heading);
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct FolderIndex {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for FolderIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FolderIndex")
            .field("dir", &self.shared.dir)
            .field("spec", &self.shared.spec)
            .finish_non_exhaustive()
    }
}

impl FolderIndex {
    /// The index of `spec`'s folder kept in `index_dir`, created (empty) when there is none
    /// there. An index that cannot be read is an error that names `index_dir` and says to
    /// delete it; a semantic or hybrid search without embeddings is an error too. It reads a
    /// few small files (and the vectors, with embeddings): from async code, call it at start-up
    /// or inside `spawn_blocking`.
    pub fn open(index_dir: &Path, spec: FolderSpec) -> Result<FolderIndex, KnowledgeError> {
        Ok(FolderIndex {
            shared: Arc::new(Shared::open(index_dir, spec)?),
        })
    }

    /// Brings the index up to date with the folder: new and changed files indexed, removed ones
    /// taken out, unchanged ones only looked at; `progress` is told each file as it goes, then
    /// each batch of embeddings. One update runs at a time; a second waits for the first.
    pub async fn update(
        &self,
        progress: &mut (dyn FnMut(IndexProgress) + Send),
    ) -> Result<IndexReport, KnowledgeError> {
        update(&self.shared, progress).await
    }

    /// The `top_k` passages that best match `query`, best first, ranked by the spec's
    /// [`SearchMode`]. Any text is a query: its words count, its punctuation and operators do
    /// not, so a search never fails on what a model wrote. Ties go by source, then line.
    pub async fn search(&self, query: &str, top_k: usize) -> Result<Vec<Passage>, KnowledgeError> {
        if top_k == 0 {
            return Ok(Vec::new());
        }
        match self.shared.spec.search {
            SearchMode::FullText => self.full_text(query, top_k).await,
            SearchMode::Semantic => self.semantic(query, top_k).await,
            SearchMode::Hybrid => {
                let depth = top_k * HYBRID_DEPTH;
                let words = self.full_text(query, depth).await?;
                let meaning = self.semantic(query, depth).await?;
                Ok(fused([words, meaning], top_k))
            }
        }
    }

    /// The bytes the index takes on disk (the tantivy index, the manifest, the vectors).
    pub fn index_bytes(&self) -> u64 {
        self.shared.bytes()
    }

    /// The folder the index lives in.
    pub fn index_dir(&self) -> &Path {
        &self.shared.dir
    }

    /// Its settings.
    pub fn spec(&self) -> &FolderSpec {
        &self.shared.spec
    }

    /// BM25 over the query's terms.
    async fn full_text(&self, query: &str, top_k: usize) -> Result<Vec<Passage>, KnowledgeError> {
        let shared = self.shared.clone();
        let query = query.to_owned();
        tokio::task::spawn_blocking(move || full_text(&shared.store, &query, top_k))
            .await
            .map_err(|e| failed(&self.shared.dir, e))?
    }

    /// Cosine between the query's embedding and the passages'.
    async fn semantic(&self, query: &str, top_k: usize) -> Result<Vec<Passage>, KnowledgeError> {
        let Some(embedder) = &self.shared.embedder else {
            return Ok(Vec::new());
        };
        if query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let mut vectors = embedder.embed(&[query.to_owned()], &mut |_| {}).await?;
        let query_vector = vectors.pop().unwrap_or_default();
        let shared = self.shared.clone();
        tokio::task::spawn_blocking(move || {
            let nearest = shared.vectors().nearest(query_vector, top_k);
            by_keys(&shared.store, &nearest, top_k)
        })
        .await
        .map_err(|e| failed(&self.shared.dir, e))?
    }
}
