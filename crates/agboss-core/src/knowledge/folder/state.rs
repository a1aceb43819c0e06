//! What every handle on one folder index shares: its settings, its tantivy index, its
//! embeddings in memory and the client that makes them, and the files beside the index.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, RwLock};

use super::embeddings::Embedder;
use super::spec::FolderSpec;
use super::store::Store;
use super::vectors::Vectors;
use crate::knowledge::KnowledgeError;

/// The tantivy index's folder inside the index folder.
const TANTIVY_DIR: &str = "tantivy";

/// The manifest's file inside the index folder.
const MANIFEST_FILE: &str = "manifest.json";

/// The embeddings' file inside the index folder.
const VECTORS_FILE: &str = "vectors.bin";

/// One folder index's state.
pub struct Shared {
    /// Its settings.
    pub spec: FolderSpec,
    /// The index folder (the tantivy index, the manifest and the vectors inside).
    pub dir: PathBuf,
    /// The tantivy index.
    pub store: Store,
    /// The embeddings, replaced whole by an update.
    pub vectors: RwLock<Arc<Vectors>>,
    /// The embeddings' client, when the settings have embeddings.
    pub embedder: Option<Embedder>,
    /// Held by an update until its writing is done, even if its caller stops waiting: one
    /// update at a time.
    pub updating: Arc<tokio::sync::Mutex<()>>,
    /// The tantivy index was created by this opening and no update has written it yet: a
    /// manifest or vectors left beside it belong to another index and are not read.
    pub fresh: AtomicBool,
}

impl Shared {
    /// Opens the index in `dir` for `spec` (blocking: it reads files).
    pub fn open(dir: &Path, spec: FolderSpec) -> Result<Shared, KnowledgeError> {
        if spec.search.needs_embeddings() && spec.embeddings.is_none() {
            return Err(KnowledgeError::other(format!(
                "the knowledge base of {} searches by {:?}, which needs embeddings: give it \
                 an embeddings endpoint",
                spec.folder.display(),
                spec.search
            )));
        }
        let store = Store::open(&dir.join(TANTIVY_DIR))?;
        let embedder = spec
            .embeddings
            .clone()
            .map(|settings| Embedder::new(settings, spec.clock.clone()));
        let vectors = match &embedder {
            Some(embedder) if !store.created => Vectors::load(&vectors_path(dir), embedder.model()),
            Some(embedder) => Vectors::empty(embedder.model()),
            None => Vectors::default(),
        };
        let created = store.created;
        Ok(Shared {
            spec,
            dir: dir.to_path_buf(),
            store,
            vectors: RwLock::new(Arc::new(vectors)),
            embedder,
            updating: Arc::new(tokio::sync::Mutex::new(())),
            fresh: AtomicBool::new(created),
        })
    }

    /// The embeddings now.
    pub fn vectors(&self) -> Arc<Vectors> {
        match self.vectors.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Replaces the embeddings.
    pub fn set_vectors(&self, vectors: Vectors) {
        let mut guard = match self.vectors.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        *guard = Arc::new(vectors);
    }

    /// The manifest's path.
    pub fn manifest_path(&self) -> PathBuf {
        self.dir.join(MANIFEST_FILE)
    }

    /// The embeddings' path.
    pub fn vectors_path(&self) -> PathBuf {
        vectors_path(&self.dir)
    }

    /// The bytes of the index folder's files (the tantivy index, the manifest, the vectors).
    pub fn bytes(&self) -> u64 {
        fn size_of(dir: &Path) -> u64 {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return 0;
            };
            entries
                .flatten()
                .map(|entry| match entry.file_type() {
                    Ok(kind) if kind.is_dir() => size_of(&entry.path()),
                    _ => entry.metadata().map_or(0, |m| m.len()),
                })
                .sum()
        }
        size_of(&self.dir)
    }
}

/// The embeddings' path in the index folder `dir`.
fn vectors_path(dir: &Path) -> PathBuf {
    dir.join(VECTORS_FILE)
}
