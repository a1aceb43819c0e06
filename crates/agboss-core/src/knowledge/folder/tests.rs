//! Tests of a folder index through its public API: finding passages with their location,
//! incremental updates, queries a model may write, a corrupt index; semantic and hybrid search
//! live in `tests_semantic.rs`.

use std::fs;
use std::path::Path;

use super::*;
use crate::knowledge::KnowledgeError;

type Outcome = Result<(), Box<dyn std::error::Error>>;

/// Writes `text` to `folder/name`, creating its folders.
fn put(folder: &Path, name: &str, text: &str) -> std::io::Result<()> {
    let path = folder.join(name);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, text)
}

const TOOLS: &str = "# Tools\n\nA tool is a struct under an attribute.\n\n## Result size\n\n\
                     Results are bounded: a result longer than the bound is truncated.\n";

const MODELS: &str = "# Models\n\nModels are reached through providers.\n";

/// A folder of three documents and its index, updated once.
async fn indexed(root: &Path) -> Result<(FolderIndex, IndexReport), Box<dyn std::error::Error>> {
    let docs = root.join("docs");
    put(&docs, "guides/tools.md", TOOLS)?;
    put(&docs, "models.md", MODELS)?;
    put(
        &docs,
        "notes.txt",
        "Plain notes about nothing in particular.\n",
    )?;
    put(&docs, "lib.rs", "fn bounded() {}\n")?;
    let index = FolderIndex::open(&root.join("index"), FolderSpec::new(&docs, Documents::Text))?;
    let report = index.update(&mut |_| {}).await?;
    Ok((index, report))
}

#[tokio::test]
async fn a_search_finds_the_passage_with_its_file_heading_and_lines() -> Outcome {
    let dir = tempfile::tempdir()?;
    let (index, report) = indexed(dir.path()).await?;
    assert_eq!(
        (report.files_seen, report.files_read, report.passages),
        (3, 3, 4)
    );
    assert!(report.index_bytes > 0 && report.index_bytes == index.index_bytes());
    let found = index.search("how are results truncated", 3).await?;
    let first = found.first().ok_or("nothing found")?;
    assert_eq!(first.location(), "guides/tools.md:5-7");
    assert_eq!(first.heading, "Tools > Result size");
    assert!(first.text.contains("truncated"));
    assert!(first.score > 0.0);
    assert!(index.search("zebra", 3).await?.is_empty());
    Ok(())
}

#[tokio::test]
async fn queries_with_punctuation_and_operators_never_fail() -> Outcome {
    let dir = tempfile::tempdir()?;
    let (index, _) = indexed(dir.path()).await?;
    for query in [
        "",
        "   ",
        "\"unclosed (paren AND OR NOT",
        "tools:* +results -models ~2 ^3 [a TO b} \\ / ? !",
        "providers?! && || {}",
        "∑∫ 🙂",
    ] {
        index.search(query, 5).await?;
    }
    let found = index.search("models: (providers)", 5).await?;
    assert_eq!(found.first().map(|p| p.source.as_str()), Some("models.md"));
    Ok(())
}

#[tokio::test]
async fn ties_are_broken_by_source_then_line() -> Outcome {
    let dir = tempfile::tempdir()?;
    let docs = dir.path().join("docs");
    for name in ["c.md", "a.md", "b.md"] {
        put(&docs, name, "same words here\n")?;
    }
    let index = FolderIndex::open(
        &dir.path().join("index"),
        FolderSpec::new(&docs, Documents::Text),
    )?;
    index.update(&mut |_| {}).await?;
    let found = index.search("same", 2).await?;
    let sources: Vec<&str> = found.iter().map(|p| p.source.as_str()).collect();
    assert_eq!(sources, ["a.md", "b.md"]);
    Ok(())
}

#[tokio::test]
async fn an_update_reads_only_what_changed_and_survives_reopening() -> Outcome {
    let dir = tempfile::tempdir()?;
    let (index, _) = indexed(dir.path()).await?;
    let docs = dir.path().join("docs");

    let mut seen = Vec::new();
    let again = index.update(&mut |p| seen.push(p)).await?;
    assert_eq!(
        (
            again.files_read,
            again.files_unchanged,
            again.passages_added
        ),
        (0, 3, 0)
    );
    assert_eq!(seen.len(), 3);
    assert_eq!((seen[2].files_seen, seen[2].files_total), (3, 3));
    assert_eq!(seen[0].path, "guides/tools.md");

    put(
        &docs,
        "models.md",
        "# Models\n\nModels speak through gateways now.\n",
    )?;
    fs::remove_file(docs.join("notes.txt"))?;
    put(&docs, "new.md", "# New\n\nA gateway page.\n")?;
    let changed = index.update(&mut |_| {}).await?;
    assert_eq!(
        (
            changed.files_seen,
            changed.files_read,
            changed.files_unchanged,
            changed.files_removed
        ),
        (3, 2, 1, 1)
    );
    assert_eq!(changed.passages, 4);
    assert!(index.search("providers", 5).await?.is_empty());
    assert!(index.search("particular", 5).await?.is_empty());
    assert_eq!(index.search("gateways", 5).await?.len(), 1);

    drop(index);
    let reopened = FolderIndex::open(
        &dir.path().join("index"),
        FolderSpec::new(&docs, Documents::Text),
    )?;
    let found = reopened.search("gateway", 5).await?;
    assert_eq!(found.len(), 1, "{found:?}");
    let report = reopened.update(&mut |_| {}).await?;
    assert_eq!((report.files_read, report.files_unchanged), (0, 3));
    Ok(())
}

#[tokio::test]
async fn files_that_are_not_utf8_are_read_lossily_and_counted() -> Outcome {
    let dir = tempfile::tempdir()?;
    let docs = dir.path().join("docs");
    fs::create_dir_all(&docs)?;
    fs::write(docs.join("latin1.txt"), b"caf\xe9 menu\n")?;
    let index = FolderIndex::open(
        &dir.path().join("index"),
        FolderSpec::new(&docs, Documents::Text),
    )?;
    let report = index.update(&mut |_| {}).await?;
    assert_eq!(report.lossy_files, 1);
    let found = index.search("menu", 1).await?;
    assert_eq!(
        found.first().map(|p| p.text.as_str()),
        Some("caf\u{fffd} menu")
    );
    Ok(())
}

#[tokio::test]
async fn a_corrupt_index_is_an_error_that_says_to_delete_it() -> Outcome {
    let dir = tempfile::tempdir()?;
    let (index, _) = indexed(dir.path()).await?;
    drop(index);
    let tantivy = dir.path().join("index/tantivy");
    fs::write(tantivy.join("meta.json"), "{ not json")?;
    let docs = dir.path().join("docs");
    let opened = FolderIndex::open(
        &dir.path().join("index"),
        FolderSpec::new(&docs, Documents::Text),
    );
    let error = opened.err().ok_or("a corrupt index opened")?;
    assert!(matches!(error, KnowledgeError::Index { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains(&tantivy.display().to_string()),
        "{message}"
    );
    assert!(message.contains("delete the folder"), "{message}");
    Ok(())
}

#[tokio::test]
async fn semantic_search_without_embeddings_is_refused_at_open() -> Outcome {
    let dir = tempfile::tempdir()?;
    let spec = FolderSpec::new(dir.path(), Documents::Text).search(SearchMode::Hybrid);
    let error = FolderIndex::open(&dir.path().join("index"), spec)
        .err()
        .ok_or("opened")?;
    assert!(error.to_string().contains("needs embeddings"), "{error}");
    Ok(())
}
