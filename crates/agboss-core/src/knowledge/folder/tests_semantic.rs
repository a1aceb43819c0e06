//! Semantic and hybrid search against a fake embeddings endpoint on 127.0.0.1, written here:
//! its vectors are hashed bags of words in which a few synonyms share a word, so that a
//! search finds a passage that says the same thing in other words. No network, no real key.

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::*;
use crate::base::Env;

type Outcome = Result<(), Box<dyn std::error::Error>>;

/// The fake vectors' dimension.
const DIMENSION: usize = 256;

/// What the fake endpoint saw.
#[derive(Default)]
struct Seen {
    requests: AtomicUsize,
    inputs: AtomicUsize,
    unauthorized: AtomicUsize,
}

/// A hashed bag of words, `automobile` and `vehicle` counted as `car`.
fn fake_embedding(text: &str) -> Vec<f32> {
    let mut vector = vec![0.0f32; DIMENSION];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let word = word.to_lowercase();
        let word = match word.as_str() {
            "automobile" | "vehicle" => "car",
            other => other,
        };
        let bucket = xxhash_rust::xxh3::xxh3_64(word.as_bytes()) as usize % DIMENSION;
        vector[bucket] += 1.0;
    }
    vector
}

/// Answers one HTTP request on `stream`: embeddings for `/embeddings` with the right key,
/// 401 without it.
async fn answer(mut stream: TcpStream, seen: Arc<Seen>) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 8192];
    let (head_end, length) = loop {
        let n = stream.read(&mut buffer).await?;
        if n == 0 {
            return Ok(());
        }
        bytes.extend_from_slice(&buffer[..n]);
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&bytes[..end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            break (end + 4, length);
        }
    };
    while bytes.len() < head_end + length {
        let n = stream.read(&mut buffer).await?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buffer[..n]);
    }
    let head = String::from_utf8_lossy(&bytes[..head_end]).to_lowercase();
    seen.requests.fetch_add(1, Ordering::SeqCst);
    let (status, body) = if !head.contains("authorization: bearer test-key") {
        seen.unauthorized.fetch_add(1, Ordering::SeqCst);
        ("401 Unauthorized", json!({"error": {"message": "bad key"}}))
    } else {
        let request: Value = serde_json::from_slice(&bytes[head_end..]).unwrap_or_default();
        let inputs = request["input"].as_array().cloned().unwrap_or_default();
        seen.inputs.fetch_add(inputs.len(), Ordering::SeqCst);
        let data: Vec<Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, text)| {
                json!({"index": i, "embedding": fake_embedding(text.as_str().unwrap_or(""))})
            })
            .collect();
        ("200 OK", json!({"data": data, "model": request["model"]}))
    };
    let body = body.to_string();
    let reply = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(reply.as_bytes()).await?;
    stream.shutdown().await
}

/// Starts the fake endpoint; its base URL and what it saw.
async fn fake_endpoint() -> std::io::Result<(String, Arc<Seen>)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let seen = Arc::new(Seen::default());
    let for_server = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(answer(stream, for_server.clone()));
        }
    });
    Ok((format!("http://{address}/v1"), seen))
}

/// The documents: one about cars, one about boats.
fn write_docs(docs: &Path) -> std::io::Result<()> {
    fs::create_dir_all(docs)?;
    fs::write(
        docs.join("cars.md"),
        "# Cars\n\nA car has four wheels and an engine.\n",
    )?;
    fs::write(
        docs.join("boats.md"),
        "# Boats\n\nA boat floats on water with a hull.\n",
    )?;
    fs::write(docs.join("wheels.md"), "# Wheels\n\nWheels turn.\n")
}

fn spec(docs: &Path, base_url: &str, mode: SearchMode) -> FolderSpec {
    let env = Env::from_pairs([("EMBED_KEY", "test-key")]);
    let embeddings = Embeddings::new(base_url, "fake-embed")
        .api_key_env("EMBED_KEY")
        .env(env)
        .batch_size(2)
        .timeout(Duration::from_secs(10));
    FolderSpec::new(docs, Documents::Text)
        .search(mode)
        .embeddings(embeddings)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn semantic_search_finds_other_words_and_embeds_only_what_changed() -> Outcome {
    let (base_url, seen) = fake_endpoint().await?;
    let dir = tempfile::tempdir()?;
    let docs = dir.path().join("docs");
    write_docs(&docs)?;
    let index_dir = dir.path().join("index");
    let index = FolderIndex::open(&index_dir, spec(&docs, &base_url, SearchMode::Semantic))?;
    let mut embedded = Vec::new();
    let report = index.update(&mut |p| embedded.push(p.embedded)).await?;
    assert_eq!(report.passages_embedded, 3);
    // Batches of two: after 2, then after 3.
    assert_eq!(
        embedded.iter().filter(|n| **n > 0).collect::<Vec<_>>(),
        [&2, &3]
    );
    assert_eq!(seen.requests.load(Ordering::SeqCst), 2);

    // The full text has no "automobile"; its embedding is the car's.
    let found = index.search("automobile", 1).await?;
    assert_eq!(
        found.first().map(|p| p.location()),
        Some("cars.md:1-3".into())
    );

    fs::write(docs.join("boats.md"), "# Boats\n\nA boat has a sail.\n")?;
    let again = index.update(&mut |_| {}).await?;
    assert_eq!((again.files_read, again.passages_embedded), (1, 1));
    assert_eq!(seen.inputs.load(Ordering::SeqCst), 3 + 1 + 1);

    drop(index);
    let reopened = FolderIndex::open(&index_dir, spec(&docs, &base_url, SearchMode::Semantic))?;
    let found = reopened.search("vehicle", 1).await?;
    assert_eq!(found.first().map(|p| p.source.as_str()), Some("cars.md"));
    assert_eq!(seen.unauthorized.load(Ordering::SeqCst), 0);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hybrid_search_fuses_both_lists() -> Outcome {
    let (base_url, _) = fake_endpoint().await?;
    let dir = tempfile::tempdir()?;
    let docs = dir.path().join("docs");
    write_docs(&docs)?;
    let index = FolderIndex::open(
        &dir.path().join("index"),
        spec(&docs, &base_url, SearchMode::Hybrid),
    )?;
    index.update(&mut |_| {}).await?;
    // "wheels" is in two files by its words; "automobile" only means cars, by embeddings.
    let found = index.search("automobile wheels", 3).await?;
    let mut sources: Vec<&str> = found.iter().take(2).map(|p| p.source.as_str()).collect();
    sources.sort_unstable();
    assert_eq!(sources, ["cars.md", "wheels.md"], "{found:?}");
    // In both lists: a fused score above any one list's best share.
    let top = found.first().map_or(0.0, |p| p.score);
    assert!(top > 1.0 / 61.0 && top <= 2.0 / 61.0, "{top}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_error_names_the_endpoint_and_status() -> Outcome {
    let (base_url, _) = fake_endpoint().await?;
    let dir = tempfile::tempdir()?;
    let docs = dir.path().join("docs");
    write_docs(&docs)?;
    let mut spec = spec(&docs, &base_url, SearchMode::Semantic);
    if let Some(embeddings) = spec.embeddings.as_mut() {
        embeddings.env = Env::from_pairs([("EMBED_KEY", "wrong")]);
    }
    let index = FolderIndex::open(&dir.path().join("index"), spec)?;
    let error = index.update(&mut |_| {}).await.err().ok_or("no error")?;
    let message = error.to_string();
    assert!(
        message.contains(&format!("POST {base_url}/embeddings")),
        "{message}"
    );
    assert!(message.contains("401"), "{message}");
    assert!(!message.contains("wrong"), "{message}");

    let mut unset = spec_without_key(&docs, &base_url);
    unset.search = SearchMode::Semantic;
    let index = FolderIndex::open(&dir.path().join("index2"), unset)?;
    let error = index.update(&mut |_| {}).await.err().ok_or("no error")?;
    assert!(
        error.to_string().contains("EMBED_KEY is not set"),
        "{error}"
    );
    Ok(())
}

fn spec_without_key(docs: &Path, base_url: &str) -> FolderSpec {
    let embeddings = Embeddings::new(base_url, "fake-embed")
        .api_key_env("EMBED_KEY")
        .env(Env::from_pairs::<&str, &str>([]));
    FolderSpec::new(docs, Documents::Text).embeddings(embeddings)
}
