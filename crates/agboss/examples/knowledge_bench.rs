//! The bench runner that compares the built-in folder index with Python BM25 engines
//! (benches/knowledge): indexes `DIR/docs` by full text into a fresh folder, runs every query
//! of `DIR/queries.txt` once to warm up and once timed, and prints one JSON object.
//!
//! ```text
//! cargo run --release -p agboss --example knowledge_bench -- --corpus DIR --k 10 [--index DIR]
//! ```
//!
//! It prints `{"engine", "version", "files", "index_seconds", "index_bytes", "query_ms",
//! "top"}`, where `top` holds each query's document ids (file names without `.md`), best first,
//! and two figures of its own: `passages`, and `update_unchanged_seconds` (a second update of
//! the unchanged folder, which reads no file).

use std::path::{Path, PathBuf};
use std::time::Instant;

use agboss::knowledge::folder::{Documents, FolderIndex, FolderSpec};
use serde_json::json;

/// The command line.
struct Args {
    corpus: PathBuf,
    k: usize,
    index: Option<PathBuf>,
}

fn args() -> Result<Args, String> {
    let usage = "usage: knowledge_bench --corpus DIR [--k 10] [--index DIR]";
    let mut corpus = None;
    let mut k = 10;
    let mut index = None;
    let mut words = std::env::args().skip(1);
    while let Some(word) = words.next() {
        let mut value = || {
            words
                .next()
                .ok_or_else(|| format!("{word} needs a value; {usage}"))
        };
        match word.as_str() {
            "--corpus" => corpus = Some(PathBuf::from(value()?)),
            "--k" => k = value()?.parse().map_err(|e| format!("--k: {e}"))?,
            "--index" => index = Some(PathBuf::from(value()?)),
            _ => return Err(format!("unknown argument {word}; {usage}")),
        }
    }
    Ok(Args {
        corpus: corpus.ok_or(usage)?,
        k: k.max(1),
        index,
    })
}

/// A document's id: its file name without `.md`.
fn doc_id(source: &str) -> String {
    let name = Path::new(source)
        .file_name()
        .map_or_else(|| source.into(), |n| n.to_string_lossy().into_owned());
    name.strip_suffix(".md").map_or(name.clone(), str::to_owned)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args()?;
    let docs = args.corpus.join("docs");
    let queries_path = args.corpus.join("queries.txt");
    let queries: Vec<String> = std::fs::read_to_string(&queries_path)
        .map_err(|e| format!("{}: {e}", queries_path.display()))?
        .lines()
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .map(str::to_owned)
        .collect();

    // A fresh index folder every run: the given one emptied, or one in the temporary folder.
    let (index_dir, temporary) = match &args.index {
        Some(dir) => (dir.clone(), false),
        None => (
            std::env::temp_dir().join(format!("agboss-knowledge-bench-{}", std::process::id())),
            true,
        ),
    };
    if index_dir.exists() {
        std::fs::remove_dir_all(&index_dir)?;
    }

    let started = Instant::now();
    let index = FolderIndex::open(&index_dir, FolderSpec::new(&docs, Documents::Text))?;
    let report = index.update(&mut |_| {}).await?;
    let index_seconds = started.elapsed().as_secs_f64();
    // An update of the unchanged folder: every file only looked at.
    let started = Instant::now();
    let again = index.update(&mut |_| {}).await?;
    let update_unchanged_seconds = started.elapsed().as_secs_f64();
    if again.files_read != 0 {
        return Err(format!("{} files read again unchanged", again.files_read).into());
    }

    for query in &queries {
        index.search(query, args.k).await?;
    }
    let mut query_ms = Vec::with_capacity(queries.len());
    let mut top = Vec::with_capacity(queries.len());
    for query in &queries {
        let started = Instant::now();
        let found = index.search(query, args.k).await?;
        query_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        let mut ids: Vec<String> = Vec::with_capacity(found.len());
        for passage in found {
            let id = doc_id(&passage.source);
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        top.push(ids);
    }

    let out = json!({
        "engine": "agboss",
        "version": env!("CARGO_PKG_VERSION"),
        "files": report.files_seen,
        "passages": report.passages,
        "index_seconds": index_seconds,
        "index_bytes": report.index_bytes,
        "update_unchanged_seconds": update_unchanged_seconds,
        "query_ms": query_ms,
        "top": top,
    });
    println!("{out}");
    drop(index);
    if temporary {
        std::fs::remove_dir_all(&index_dir)?;
    }
    Ok(())
}
