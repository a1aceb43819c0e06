//! An incremental update of a folder index: list the folder, read only the files whose size,
//! modification time and then content changed, cut them into passages, embed the passages that
//! have no embedding yet, then delete the changed and removed files' passages, add the new ones
//! and commit once. The manifest is written last, so an update stopped halfway is redone by the
//! next one.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::{IndexWriter, TantivyDocument, Term};
use xxhash_rust::xxh3::xxh3_64;

use super::chunk::{Chunk, Shape, chunk};
use super::manifest::{FileEntry, Manifest, stamp};
use super::state::Shared;
use super::store::failed;
use super::walk;
use crate::knowledge::KnowledgeError;

/// The memory tantivy's writer may use while indexing.
const WRITER_BYTES: usize = 64 * 1024 * 1024;

/// How far an update has come, told as it goes: once per file looked at, then once per batch
/// of embeddings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexProgress {
    /// Files looked at so far.
    pub files_seen: usize,
    /// Files to look at.
    pub files_total: usize,
    /// The file being looked at (relative to the folder); empty while embedding.
    pub path: String,
    /// Passages embedded so far.
    pub embedded: usize,
    /// Passages to embed (0 without embeddings or when none are new).
    pub to_embed: usize,
}

/// What an update did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexReport {
    /// Documents found in the folder.
    pub files_seen: usize,
    /// Documents whose bytes were read (new, or whose size or modification time changed).
    pub files_read: usize,
    /// Documents whose content had not changed (most only looked at, never read).
    pub files_unchanged: usize,
    /// Documents indexed before and gone now, their passages removed.
    pub files_removed: usize,
    /// Passages in the index after the update.
    pub passages: u64,
    /// Passages added by this update.
    pub passages_added: usize,
    /// Passages embedded by this update.
    pub passages_embedded: usize,
    /// Documents read this time that were not valid UTF-8 (read with U+FFFD in place of the
    /// invalid bytes).
    pub lossy_files: usize,
    /// The bytes of the index folder after the update.
    pub index_bytes: u64,
    /// How long the update took.
    pub elapsed: Duration,
}

/// What the folder's files ask of the index.
struct Plan {
    manifest: Manifest,
    /// The manifest was missing or unreadable: the index is made again from nothing.
    rebuild: bool,
    /// The files to index again, with their passages and the passages' keys.
    changed: Vec<(String, Vec<Chunk>, Vec<u64>)>,
    removed: Vec<String>,
    /// Passages without an embedding: key and the text to embed.
    to_embed: Vec<(u64, String)>,
    report: IndexReport,
}

/// A passage's key: the hash of its heading and text.
fn key_of(chunk: &Chunk) -> u64 {
    xxh3_64(format!("{}\0{}", chunk.heading, chunk.text).as_bytes())
}

/// What an embedding is made of: the heading path, then the text.
fn embedding_input(heading: &str, text: &str) -> String {
    if heading.is_empty() {
        text.to_owned()
    } else {
        format!("{heading}\n\n{text}")
    }
}

/// Updates the index of `shared`, telling `progress` how far it has come.
pub async fn update(
    shared: &Arc<Shared>,
    progress: &mut (dyn FnMut(IndexProgress) + Send),
) -> Result<IndexReport, KnowledgeError> {
    let one_at_a_time = shared.updating.clone().lock_owned().await;
    let started = shared.spec.clock.now();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let planning = {
        let shared = shared.clone();
        tokio::task::spawn_blocking(move || {
            plan(&shared, &mut |p| {
                let _ = sender.send(p);
            })
        })
    };
    while let Some(p) = receiver.recv().await {
        progress(p);
    }
    let mut plan = planning.await.map_err(|e| failed(&shared.dir, e))??;
    let added = embed(shared, &mut plan, progress).await?;
    let shared_for_write = shared.clone();
    let mut report = tokio::task::spawn_blocking(move || {
        let written = write(&shared_for_write, plan, added);
        drop(one_at_a_time);
        written
    })
    .await
    .map_err(|e| failed(&shared.dir, e))??;
    report.index_bytes = shared.bytes();
    report.elapsed = shared.spec.clock.now().saturating_since(started);
    Ok(report)
}

/// Lists the folder and reads what changed (blocking).
fn plan(shared: &Shared, progress: &mut dyn FnMut(IndexProgress)) -> Result<Plan, KnowledgeError> {
    let loaded = if shared.fresh.load(Ordering::SeqCst) {
        None
    } else {
        Manifest::load(&shared.manifest_path())
    };
    let rebuild = loaded.is_none();
    let old = loaded.unwrap_or_else(Manifest::new);
    let found = walk::documents(&shared.spec.folder, shared.spec.documents)?;
    let mut report = IndexReport {
        files_seen: found.len(),
        ..IndexReport::default()
    };
    let mut manifest = Manifest::new();
    let mut changed = Vec::new();
    for (n, file) in found.iter().enumerate() {
        progress(IndexProgress {
            files_seen: n + 1,
            files_total: found.len(),
            path: file.source.clone(),
            ..IndexProgress::default()
        });
        let io = |source| KnowledgeError::Io {
            path: file.path.clone(),
            source,
        };
        let (size, modified) = stamp(&std::fs::metadata(&file.path).map_err(io)?);
        let before = old.files.get(&file.source).filter(|_| !rebuild);
        if let Some(entry) = before.filter(|e| e.size == size && e.modified == modified) {
            report.files_unchanged += 1;
            manifest.files.insert(file.source.clone(), entry.clone());
            continue;
        }
        let bytes = std::fs::read(&file.path).map_err(io)?;
        report.files_read += 1;
        let hash = xxh3_64(&bytes);
        let mut entry = FileEntry {
            size,
            modified,
            hash,
            keys: Vec::new(),
        };
        if let Some(before) = before.filter(|e| e.hash == hash) {
            report.files_unchanged += 1;
            entry.keys = before.keys.clone();
            manifest.files.insert(file.source.clone(), entry);
            continue;
        }
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                report.lossy_files += 1;
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        };
        let chunks = chunk(&text, Shape::of(&file.path));
        entry.keys = chunks.iter().map(key_of).collect();
        changed.push((file.source.clone(), chunks, entry.keys.clone()));
        manifest.files.insert(file.source.clone(), entry);
    }
    let removed: Vec<String> = old
        .files
        .keys()
        .filter(|source| !manifest.files.contains_key(*source))
        .cloned()
        .collect();
    report.files_removed = removed.len();
    let mut plan = Plan {
        manifest,
        rebuild,
        changed,
        removed,
        to_embed: Vec::new(),
        report,
    };
    if shared.embedder.is_some() {
        plan.to_embed = unembedded(shared, &plan)?;
    }
    Ok(plan)
}

/// The passages of the new manifest that have no embedding: from the changed files' chunks, or
/// else read back from the index.
fn unembedded(shared: &Shared, plan: &Plan) -> Result<Vec<(u64, String)>, KnowledgeError> {
    let vectors = shared.vectors();
    let mut have = vectors.key_set();
    let mut out = Vec::new();
    for (_, chunks, keys) in &plan.changed {
        for (chunk, key) in chunks.iter().zip(keys) {
            if have.insert(*key) {
                out.push((*key, embedding_input(&chunk.heading, &chunk.text)));
            }
        }
    }
    let searcher = shared.store.reader.searcher();
    for entry in plan.manifest.files.values() {
        for key in &entry.keys {
            if !have.insert(*key) {
                continue;
            }
            let term = Term::from_field_u64(shared.store.fields.key, *key);
            let query = TermQuery::new(term, IndexRecordOption::Basic);
            let hits = searcher
                .search(&query, &TopDocs::with_limit(1).order_by_score())
                .map_err(|e| failed(&shared.dir, e))?;
            if let Some((_, address)) = hits.first() {
                let passage = shared.store.passage(&searcher, *address, 0.0)?;
                out.push((*key, embedding_input(&passage.heading, &passage.text)));
            }
        }
    }
    Ok(out)
}

/// Embeds the plan's passages that need it (no request when none do).
async fn embed(
    shared: &Shared,
    plan: &mut Plan,
    progress: &mut (dyn FnMut(IndexProgress) + Send),
) -> Result<Vec<(u64, Vec<f32>)>, KnowledgeError> {
    let Some(embedder) = &shared.embedder else {
        return Ok(Vec::new());
    };
    let to_embed = std::mem::take(&mut plan.to_embed);
    if to_embed.is_empty() {
        return Ok(Vec::new());
    }
    let (keys, texts): (Vec<u64>, Vec<String>) = to_embed.into_iter().unzip();
    let files = plan.report.files_seen;
    let total = texts.len();
    let vectors = embedder
        .embed(&texts, &mut |embedded| {
            progress(IndexProgress {
                files_seen: files,
                files_total: files,
                path: String::new(),
                embedded,
                to_embed: total,
            });
        })
        .await?;
    plan.report.passages_embedded = vectors.len();
    Ok(keys.into_iter().zip(vectors).collect())
}

/// Writes the plan into the index with one commit, then the embeddings and the manifest
/// (blocking).
fn write(
    shared: &Shared,
    plan: Plan,
    added: Vec<(u64, Vec<f32>)>,
) -> Result<IndexReport, KnowledgeError> {
    let Plan {
        manifest,
        rebuild,
        changed,
        removed,
        mut report,
        ..
    } = plan;
    let store = &shared.store;
    let fail = |e: tantivy::TantivyError| failed(&store.dir, e);
    if rebuild || !changed.is_empty() || !removed.is_empty() {
        let mut writer: IndexWriter = store.index.writer(WRITER_BYTES).map_err(fail)?;
        if rebuild {
            writer.delete_all_documents().map_err(fail)?;
        }
        for source in removed.iter().chain(changed.iter().map(|c| &c.0)) {
            writer.delete_term(Term::from_field_text(store.fields.source, source));
        }
        for (source, chunks, keys) in &changed {
            for (chunk, key) in chunks.iter().zip(keys) {
                let mut doc = TantivyDocument::default();
                doc.add_text(store.fields.text, &chunk.text);
                doc.add_text(store.fields.source, source);
                doc.add_text(store.fields.heading, &chunk.heading);
                doc.add_u64(store.fields.line, u64::from(chunk.line));
                doc.add_u64(store.fields.end_line, u64::from(chunk.end_line));
                doc.add_u64(store.fields.key, *key);
                writer.add_document(doc).map_err(fail)?;
                report.passages_added += 1;
            }
        }
        writer.commit().map_err(fail)?;
        writer.wait_merging_threads().map_err(fail)?;
        store.reader.reload().map_err(fail)?;
    }
    if shared.embedder.is_some() {
        let alive: HashSet<u64> = manifest
            .files
            .values()
            .flat_map(|e| e.keys.iter().copied())
            .collect();
        let vectors = shared
            .vectors()
            .rebuilt(&alive, added)
            .map_err(KnowledgeError::Embeddings)?;
        vectors.save(&shared.vectors_path())?;
        shared.set_vectors(vectors);
    }
    manifest.save(&shared.manifest_path())?;
    shared.fresh.store(false, Ordering::SeqCst);
    report.passages = store.reader.searcher().num_docs();
    Ok(report)
}
