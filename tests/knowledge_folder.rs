//! Knowledge bases over a folder, with the built-in index (feature `knowledge`): searched
//! through the search tool, brought up to date incrementally, indexed and searched from the
//! command line, and shown by `describe`.

use std::sync::Arc;

use agboss::Env;
use agboss::cli::{Command, command_from};
use agboss::knowledge::KnowledgeShelf;
use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::store::MemoryStore;
use agboss::{Application, Workflow};
use fixtures::chat;
use serde_json::json;

/// The team's guides on tools and stores.
#[knowledge(
    name = "guides-rag",
    folder = "guides-are-given-by-each-test",
    top_k = 2
)]
pub struct GuidesRag;

/// Answers from the guides.
#[agent(name = "guide", model = "openai/gpt-5-mini", prompt = "prompts/helper.prompt.md", knowledge = [GuidesRag])]
pub struct Guide;

const TOOLS_MD: &str = "# Tools\n\nA tool is a struct.\n\n## Result size\n\nA result over its bound is cut at a whitespace and ends with a marker line.\nThe marker says how many bytes there were.\n\n## Timeouts\n\nEvery call has a timeout of thirty seconds unless it says otherwise.\n";
const STORES_MD: &str = "# Stores\n\nJournals are kept in SQLite or PostgreSQL.\n\n## Leases\n\nAn execution's lease runs out when its holder stops renewing it.\n";

/// A folder of guides and a folder for indexes, for one test.
struct Guides {
    _root: tempfile::TempDir,
    docs: std::path::PathBuf,
    indexes: std::path::PathBuf,
}

fn guides() -> Guides {
    let root = tempfile::tempdir().unwrap();
    let docs = root.path().join("docs");
    std::fs::create_dir_all(docs.join("more")).unwrap();
    std::fs::write(docs.join("tools.md"), TOOLS_MD).unwrap();
    std::fs::write(docs.join("more/stores.md"), STORES_MD).unwrap();
    std::fs::write(docs.join("picture.png"), [0u8, 159, 146, 150]).unwrap();
    let indexes = root.path().join("indexes");
    Guides {
        docs,
        indexes,
        _root: root,
    }
}

fn app(guides: &Guides, model: &ScriptedModel) -> Application {
    agboss::model::forbid_real_requests(true);
    Application::builder("guides")
        .store(Arc::new(MemoryStore::new()))
        .workflow(Workflow::new("desk").agent::<Guide>())
        .knowledge_folder("guides-rag", &guides.docs)
        .knowledge_dir(&guides.indexes)
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_search_tool_finds_the_passage_with_its_file_heading_and_lines() {
    let guides = guides();
    let model = ScriptedModel::new([
        Turn::call(
            "search-guides-rag-tool",
            json!({"query": "what does the marker line say"}),
        ),
        Turn::text("It says how many bytes there were."),
    ]);
    let app = app(&guides, &model);
    app.run_agent::<Guide>("What does a cut result end with?")
        .await
        .unwrap();
    let result = chat::results_read(&model.requests()[1])[0].clone();
    let hits: serde_json::Value = serde_json::from_str(&result).unwrap();
    let first = &hits["passages"][0];
    assert_eq!(first["source"], "tools.md", "{result}");
    assert_eq!(first["heading"], "Tools > Result size", "{result}");
    assert_eq!(first["line"], 5, "{result}");
    assert!(
        first["text"].as_str().unwrap().contains("marker line"),
        "{result}"
    );
    assert!(
        hits["passages"].as_array().unwrap().len() <= 2,
        "top_k 2: {result}"
    );
    // The index was made where the application keeps indexes, one folder per base.
    assert!(guides.indexes.join("guides-rag").is_dir());
}

#[tokio::test]
async fn an_update_reads_only_what_changed() {
    let guides = guides();
    let app = app(&guides, &ScriptedModel::new([]));
    let shelf: Arc<KnowledgeShelf> = app.knowledge_shelf();
    let base = app.indexed_knowledge_bases()[0];
    let first = shelf.update(base, &mut |_| {}).await.unwrap();
    assert_eq!((first.files_seen, first.files_read), (2, 2), "{first:?}");
    let again = shelf.update(base, &mut |_| {}).await.unwrap();
    assert_eq!(
        (again.files_read, again.files_unchanged),
        (0, 2),
        "{again:?}"
    );

    std::fs::write(
        guides.docs.join("tools.md"),
        format!("{TOOLS_MD}\n## Retries\n\nA failed call is not retried.\n"),
    )
    .unwrap();
    std::fs::remove_file(guides.docs.join("more/stores.md")).unwrap();
    let changed = shelf.update(base, &mut |_| {}).await.unwrap();
    assert_eq!(
        (changed.files_read, changed.files_removed),
        (1, 1),
        "{changed:?}"
    );
    let query = agboss::knowledge::KnowledgeQuery::new("retried");
    let found = shelf.search(base, &query).await.unwrap();
    assert_eq!(found[0].heading, "Tools > Retries");
    let leases = shelf
        .search(
            base,
            &agboss::knowledge::KnowledgeQuery::new("lease holder"),
        )
        .await
        .unwrap();
    assert!(
        leases.iter().all(|p| p.source != "more/stores.md"),
        "{leases:?}"
    );
}

#[tokio::test]
async fn the_command_line_indexes_and_searches() {
    let guides = guides();
    let app = app(&guides, &ScriptedModel::new([]));
    let env = Env::from_pairs::<&str, &str>([]);
    let index = command(&["knowledge", "index"]);
    let out = index.output(&app, &env).await;
    assert!(
        out.starts_with("guides-rag: 2 files (2 read, 0 unchanged, 0 removed), "),
        "{out}"
    );
    let out = command(&["knowledge", "index", "guides-rag"])
        .output(&app, &env)
        .await;
    assert!(
        out.starts_with("guides-rag: 2 files (0 read, 2 unchanged, 0 removed), "),
        "{out}"
    );
    let out = command(&["knowledge", "search", "guides-rag", "lease", "--top-k", "1"])
        .output(&app, &env)
        .await;
    assert!(
        out.starts_with(
            "[knowledge base guides-rag: 1 passage]\n\n[1] more/stores.md:5-7 (Stores > Leases)\n"
        ),
        "{out}"
    );
    let out = command(&["knowledge", "index", "nope-rag"])
        .output(&app, &env)
        .await;
    assert_eq!(
        out,
        "error: no knowledge base over a folder named `nope-rag` in this application (it has: guides-rag)\n"
    );
}

#[tokio::test]
async fn describe_shows_each_agents_knowledge_bases() {
    let guides = guides();
    let app = app(&guides, &ScriptedModel::new([]));
    let env = Env::from_pairs::<&str, &str>([]);
    let text = command(&["describe"]).output(&app, &env).await;
    assert!(
        text.contains("· knowledge guides-rag (tool mode: search-guides-rag-tool; folder guides-are-given-by-each-test, text, full-text; top 2) — The team's guides on tools and stores."),
        "{text}"
    );
    assert!(
        text.contains("search-guides-rag-tool (read, local, untrusted output)"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&command(&["describe", "--json"]).output(&app, &env).await).unwrap();
    let agent = &json["workflows"][0]["agents"][0];
    assert_eq!(
        agent["knowledge"],
        json!([{
            "name": "guides-rag",
            "description": "The team's guides on tools and stores.",
            "mode": "tool",
            "topK": 2,
            "searchTool": "search-guides-rag-tool",
            "folder": "guides-are-given-by-each-test",
            "documents": "text",
            "search": "full-text",
            "embeddings": null,
        }])
    );
}

#[tokio::test]
async fn a_missing_folder_is_a_tool_error_that_names_it() {
    let guides = guides();
    let model = ScriptedModel::new([
        Turn::call("search-guides-rag-tool", json!({"query": "anything"})),
        Turn::text("ok"),
    ]);
    agboss::model::forbid_real_requests(true);
    let gone = guides.docs.join("gone");
    let app = Application::builder("guides")
        .workflow(Workflow::new("desk").agent::<Guide>())
        .knowledge_folder("guides-rag", &gone)
        .knowledge_dir(&guides.indexes)
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    app.run_agent::<Guide>("anything").await.unwrap();
    let result = chat::results_read(&model.requests()[1])[0].clone();
    assert!(
        result.starts_with("Tool error: knowledge base `guides-rag` could not be searched: "),
        "{result}"
    );
    assert!(result.contains(&gone.display().to_string()), "{result}");
}

fn command(args: &[&str]) -> Command {
    let mut all = vec!["myapp"];
    all.extend_from_slice(args);
    command_from(all).unwrap().unwrap()
}
