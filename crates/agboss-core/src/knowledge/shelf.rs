//! [`KnowledgeShelf`]: the application's built-in indexes, one per knowledge base over a
//! folder, opened and brought up to date on first use.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{KnowledgeDescriptor, KnowledgeError, KnowledgeQuery, Passage};
use crate::base::Env;
use crate::model::ModelRouter;

/// Where an application keeps its knowledge bases' indexes when it does not say:
/// `.agboss/knowledge` under the working directory, one folder per base.
pub const DEFAULT_KNOWLEDGE_DIR: &str = ".agboss/knowledge";

/// The application's indexes of its knowledge bases' folders (feature `knowledge`). The first
/// search of a base opens its index under [`dir`](Self::dir) and brings it up to date
/// (incrementally: unchanged files are not read again); later searches use it as it is.
/// [`update`](Self::update) brings one up to date again, as the `knowledge index` subcommand
/// does.
pub struct KnowledgeShelf {
    dir: PathBuf,
    folders: HashMap<String, PathBuf>,
    #[cfg_attr(not(feature = "knowledge"), allow(dead_code))]
    opened: Mutex<HashMap<&'static str, Arc<Opened>>>,
    /// How embeddings models are reached: as the application's chat models are.
    #[cfg_attr(not(feature = "knowledge"), allow(dead_code))]
    models: Option<(Arc<ModelRouter>, Env)>,
}

/// One base's index, opened on first use.
#[derive(Default)]
struct Opened {
    #[cfg(feature = "knowledge")]
    index: tokio::sync::OnceCell<super::folder::FolderIndex>,
}

#[cfg(feature = "knowledge")]
mod indexes {
    use std::sync::Arc;

    use super::{KnowledgeShelf, Opened};
    use crate::knowledge::folder::{
        Documents, Embeddings, FolderIndex, FolderSpec, IndexProgress, IndexReport, SearchMode,
    };
    use crate::knowledge::{KnowledgeDescriptor, KnowledgeError, KnowledgeSource, Passage};

    impl KnowledgeShelf {
        /// The index of `base`'s folder, opened and brought up to date on its first use.
        pub(super) async fn search_index(
            &self,
            base: &'static KnowledgeDescriptor,
            query: &str,
            top_k: usize,
        ) -> Result<Vec<Passage>, KnowledgeError> {
            let opened = self.opened(base);
            let index = opened
                .index
                .get_or_try_init(|| async {
                    let index = self.open(base)?;
                    index.update(&mut |_| {}).await?;
                    Ok::<_, KnowledgeError>(index)
                })
                .await?;
            index.search(query, top_k).await
        }

        /// Brings `base`'s index up to date with its folder (incrementally), telling
        /// `progress` each file: what `knowledge index` runs.
        pub async fn update(
            &self,
            base: &'static KnowledgeDescriptor,
            progress: &mut (dyn FnMut(IndexProgress) + Send),
        ) -> Result<IndexReport, KnowledgeError> {
            let opened = self.opened(base);
            let index = opened
                .index
                .get_or_try_init(|| async { self.open(base) })
                .await?;
            index.update(progress).await
        }

        fn opened(&self, base: &'static KnowledgeDescriptor) -> Arc<Opened> {
            let mut opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
            opened.entry(base.name()).or_default().clone()
        }

        /// Opens (or creates) `base`'s index under the shelf's folder.
        fn open(&self, base: &'static KnowledgeDescriptor) -> Result<FolderIndex, KnowledgeError> {
            let KnowledgeSource::Folder(source) = base.source() else {
                return Err(KnowledgeError::other(format!(
                    "knowledge base `{}` searches with its own code and has no index",
                    base.name()
                )));
            };
            let folder = self.folder_of(base).unwrap_or_else(|| source.folder.into());
            let documents = match source.documents {
                "code" => Documents::Code,
                _ => Documents::Text,
            };
            let search = match source.search {
                "semantic" => SearchMode::Semantic,
                "hybrid" => SearchMode::Hybrid,
                _ => SearchMode::FullText,
            };
            let mut spec = FolderSpec::new(folder, documents).search(search);
            if let Some(model) = source.embeddings {
                spec = spec.embeddings(self.embeddings(model)?);
            }
            FolderIndex::open(&self.index_dir(base), spec)
        }

        /// The embeddings endpoint of `model`, routed as the application's chat models are.
        fn embeddings(&self, model: &str) -> Result<Embeddings, KnowledgeError> {
            let Some((router, env)) = &self.models else {
                return Err(KnowledgeError::Embeddings(format!(
                    "no model settings to reach `{model}` with"
                )));
            };
            let route = router
                .route_of(model)
                .map_err(|e| KnowledgeError::Embeddings(format!("`{model}`: {e}")))?;
            let base_url = route.base_url.ok_or_else(|| {
                KnowledgeError::Embeddings(format!(
                    "`{model}` goes to provider `{}`, which has no base URL",
                    route.provider
                ))
            })?;
            let mut embeddings = Embeddings::new(base_url, route.model).env(env.clone());
            if let Some(key) = route.key_env {
                embeddings = embeddings.api_key_env(key);
            }
            Ok(embeddings)
        }
    }
}

impl KnowledgeShelf {
    /// Indexes kept under `dir`, of no base yet.
    pub fn new(dir: impl Into<PathBuf>) -> KnowledgeShelf {
        KnowledgeShelf {
            dir: dir.into(),
            folders: HashMap::new(),
            opened: Mutex::new(HashMap::new()),
            models: None,
        }
    }

    /// The same shelf, reading base `name`'s documents from `folder` instead of the folder its
    /// declaration names ([`ApplicationBuilder::knowledge_folder`](crate::app::ApplicationBuilder::knowledge_folder)).
    pub fn with_folder(
        mut self,
        name: impl Into<String>,
        folder: impl Into<PathBuf>,
    ) -> KnowledgeShelf {
        self.folders.insert(name.into(), folder.into());
        self
    }

    /// The same shelf, reaching embeddings models (`openai/text-embedding-3-small`) as
    /// `router` reaches chat models, their keys read from `env`.
    pub fn with_models(mut self, router: Arc<ModelRouter>, env: Env) -> KnowledgeShelf {
        self.models = Some((router, env));
        self
    }

    /// Where the indexes are kept: one folder per base, named as the base.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder base `base` reads: the application's for it, else its declaration's; `None` for a
    /// base of its own.
    pub fn folder_of(&self, base: &KnowledgeDescriptor) -> Option<PathBuf> {
        if let Some(folder) = self.folders.get(base.name()) {
            return Some(folder.clone());
        }
        match base.source() {
            super::KnowledgeSource::Folder(source) => Some(PathBuf::from(source.folder)),
            super::KnowledgeSource::Own => None,
        }
    }

    /// Where base `base`'s index is kept.
    pub fn index_dir(&self, base: &KnowledgeDescriptor) -> PathBuf {
        self.dir.join(base.name())
    }

    /// The passages of base `base`'s folder that best match `query` (`query.top_k` of them,
    /// else the base's number).
    pub async fn search(
        &self,
        base: &'static KnowledgeDescriptor,
        query: &KnowledgeQuery,
    ) -> Result<Vec<Passage>, KnowledgeError> {
        let top_k = query.top_k.unwrap_or(base.top_k()) as usize;
        self.search_index(base, &query.query, top_k).await
    }

    #[cfg(not(feature = "knowledge"))]
    async fn search_index(
        &self,
        base: &'static KnowledgeDescriptor,
        _query: &str,
        _top_k: usize,
    ) -> Result<Vec<Passage>, KnowledgeError> {
        Err(KnowledgeError::other(format!(
            "knowledge base `{}` reads a folder, and this program was built without agboss's feature `knowledge` (the built-in index): turn it on",
            base.name()
        )))
    }
}
