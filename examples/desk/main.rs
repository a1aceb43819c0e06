//! The desk: an application with two agents, `notes` and `scout`. Saving a note waits for the
//! user's approval; the question stays in the desk's store (an SQLite file) and is answered
//! from any process, later:
//!
//! ```text
//! cargo run --example desk                           # asks three questions; the save waits
//! cargo run --example desk -- pending                # what waits for you
//! cargo run --example desk -- approve <pause id>     # the note is saved; the run completes
//! cargo run --example desk -- refuse <pause id> "wrong day"
//! cargo run --example desk -- reply <pause id> "yes, save it"
//! cargo run --example desk -- describe               # who can use which tool, with what limits
//! cargo run --example desk -- knowledge index        # index the knowledge bases (else on first use)
//! cargo run --example desk -- knowledge search docs-rag "result size"
//! ```
//!
//! With a provider's key in the environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`,
//! `GEMINI_API_KEY`, `OPENROUTER_API_KEY`), or `DESK_LOCAL_URL` naming an OpenAI-compatible
//! server (llama.cpp, Ollama; `DESK_LOCAL_API_KEY` holds its key if it needs one), the agents
//! talk to that model (`DESK_MODEL` picks another). `DESK_CONFIG` may name a TOML configuration
//! file, layered over what the variables say: the file wins, value by value. With no provider
//! and no file the desk says so and runs on a scripted model. Before the questions, it prints
//! the route each agent's model takes: the provider, its URL, the model's name there and the
//! variable its key comes from. `NOTES_FILE` names the notes file, `JOBS_FILE` the job board,
//! `DESK_DB` the store (default: `desk.db` in the data folder, docs/stores.md). The questions
//! are asked for the user at the terminal (`$AGBOSS_USER`, else `$USER`, else `desk-user`):
//! they own the threads, so they answer their pauses, and the subcommands act for the same user.
//! Each agent keeps a thread of its own per user (`desk/<user>/<agent>`): an agent remembers
//! its own conversations, not the other agent's. `notes` can search agboss's guides (`docs/`,
//! the knowledge base `docs-rag`, tool mode); `scout` reads career advice
//! (`examples/desk/career`, `career-rag`, context mode) with every question.

mod approval;
mod models;
mod notes;
mod scout;
mod script;
mod watch;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use agboss::run::{Answer, RunError, RunOutcome};
use agboss::store::{SqliteStore, Store, StoreError};
use agboss::units::kilobytes;
use agboss::{Application, Env, ToolDefaults, Workflow};

use approval::DeskPending;
use models::Models;
use notes::{NotesAgent, NotesFile};
use scout::{JobBoard, Scout};

/// Who asks when the environment names nobody.
const DESK_USER: &str = "desk-user";

/// The thread of `agent`'s questions for `owner`: one per agent, so that an agent's history
/// holds its own turns only (the notes agent never reads the scout's calls), and one per user.
fn thread(owner: &str, agent: &str) -> String {
    format!("desk/{owner}/{agent}")
}

/// The desk's application, its models as `models` says, its variables read from `env`, its
/// journals kept in `store`.
fn desk(
    models: &Models,
    env: &Env,
    store: Arc<dyn Store>,
) -> Result<Application, agboss::AssemblyError> {
    let mut builder = Application::builder("desk-application")
        .workflow(Workflow::new("desk").agent::<NotesAgent>().agent::<Scout>())
        .provide_from_env::<NotesFile>()
        .provide_from_env::<JobBoard>()
        .channel::<DeskPending>()
        .store(store)
        .defaults(ToolDefaults::new().max_result_size(kilobytes(64)))
        // The knowledge bases read this repository's folders wherever the desk runs from, and
        // keep their indexes beside its store.
        .knowledge_folder(
            "docs-rag",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs"),
        )
        .knowledge_folder(
            "career-rag",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/desk/career"),
        )
        .knowledge_dir(knowledge_dir(env))
        .env(env.clone());
    match models {
        Models::Scripted(model) => builder = builder.chat_model(Arc::new(*model)),
        Models::Provider(config) => builder = builder.config(config.clone()),
    }
    builder.build()
}

/// Where the knowledge bases' indexes are kept: `knowledge` beside the store's file.
fn knowledge_dir(env: &Env) -> std::path::PathBuf {
    let db = match env.get("DESK_DB") {
        Some(path) => std::path::PathBuf::from(path),
        None => SqliteStore::default_path("desk", env).unwrap_or_else(|_| "desk.db".into()),
    };
    db.parent()
        .map_or_else(|| "desk-knowledge".into(), |dir| dir.join("desk-knowledge"))
}

/// The store: the file `DESK_DB` names, else `desk.db` in the data folder.
async fn store(env: &Env) -> Result<SqliteStore, StoreError> {
    match env.get("DESK_DB") {
        Some(path) => SqliteStore::open(path).await,
        None => SqliteStore::open_default("desk").await,
    }
}

/// Who asks: the user at the terminal (else `desk-user`), who owns the threads and answers
/// their pauses. The subcommands act for the same user (`Command::run_as`).
fn owner(env: &Env) -> String {
    agboss::cli::current_user_or(env, DESK_USER)
}

/// One line per agent: the route its model takes (`notes: local/qwen2.5 via local at
/// http://127.0.0.1:8080/v1 as `qwen2.5`, no key`), or why it has none.
fn routes(app: &Application) -> Vec<String> {
    let router = app.router();
    app.workflows()
        .iter()
        .flat_map(|workflow| workflow.agents())
        .map(|agent| {
            let route = router
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|router| router.route_of(agent.model()));
            match route {
                Ok(route) => format!("{}: {route}", agent.name()),
                Err(error) => format!("{}: {error}", agent.name()),
            }
        })
        .collect()
}

/// Asks `agent` the `question` for `owner`, showing the run as it goes (the answer as it is
/// written, each tool call as it runs and ends); whether the answer was shown as it came.
async fn ask(
    app: &Application,
    agent: &str,
    question: &str,
    owner: &str,
) -> (Result<RunOutcome, RunError>, bool) {
    let mut watch = watch::Watch::new(agent);
    let outcome = app
        .run("desk", question)
        .agent(agent)
        .thread(&thread(owner, agent))
        .owner(owner)
        .stream()
        .watch(|event| watch.show(event))
        .await;
    (outcome, watch.finish())
}

/// What the desk prints of a run that waits: each pause, and how to answer it from a shell.
async fn waiting(app: &Application, execution_id: &str, pause_ids: &[String]) -> String {
    let now = app
        .clock()
        .wall_time()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64);
    let mut text = format!("  waits for your answer (execution {execution_id}):\n");
    for pause_id in pause_ids {
        match app.store().pause(pause_id).await {
            Ok(Some(pause)) => text.push_str(&agboss::cli::render_pause(&pause, now)),
            Ok(None) => text.push_str(&format!("{pause_id}  (not in the store)\n")),
            Err(error) => text.push_str(&format!("{pause_id}  (the store failed: {error})\n")),
        }
        text.push_str(&format!(
            "  answer it from any shell:\n    cargo run --example desk -- approve {pause_id}\n    cargo run --example desk -- refuse {pause_id} \"the reason\"\n    cargo run --example desk -- reply {pause_id} \"yes, save it\"\n"
        ));
    }
    text
}

#[tokio::main]
async fn main() -> ExitCode {
    let env = Env::process();
    let models = models::from_env(&env);
    let store = match store(&env).await {
        Ok(store) => store,
        Err(error) => {
            eprintln!("the desk's store cannot be opened: {error}");
            return ExitCode::FAILURE;
        }
    };
    let app = match desk(&models, &env, Arc::new(store)) {
        Ok(app) => app,
        Err(problems) => {
            eprintln!("{problems}");
            return ExitCode::FAILURE;
        }
    };
    let owner = owner(&env);
    if let Some(command) = agboss::cli::command() {
        return command.run_as(&app, &owner).await;
    }
    match &models {
        Models::Scripted(_) => println!(
            "no model provider configured (set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY or DESK_LOCAL_URL, or DESK_CONFIG): running on a scripted model"
        ),
        Models::Provider(_) => {
            for route in routes(&app) {
                println!("{route}");
            }
        }
    }
    if let Err(problems) = app.check_environment() {
        eprintln!("{problems}");
        return ExitCode::FAILURE;
    }
    let questions = [
        ("notes", "When is my dentist appointment?"),
        ("notes", "Remember: the dentist is on Tuesday at 9."),
        ("scout", "Find me remote Rust jobs."),
        ("notes", "How are bounded results shown to the model?"),
    ];
    for (agent, question) in questions {
        println!("\n{agent} <- {question}");
        let (outcome, streamed) = ask(&app, agent, question, &owner).await;
        match outcome {
            Ok(RunOutcome::Completed(outcome)) => {
                match &outcome.answer {
                    // Shown as it came.
                    Answer::Text(_) if streamed => {}
                    Answer::Text(text) => println!("{agent} -> {text}"),
                    Answer::Structured(value) => println!("{agent} -> {value}"),
                }
                println!(
                    "  ({} tool calls, {} tokens, {})",
                    outcome.tool_calls,
                    outcome.usage.total(),
                    outcome.spend
                );
            }
            Ok(RunOutcome::Paused(paused)) => {
                let ids: Vec<String> = paused.pending.iter().map(|p| p.pause_id.clone()).collect();
                print!("{}", waiting(&app, &paused.execution_id, &ids).await);
            }
            Ok(RunOutcome::Elsewhere(elsewhere)) => {
                println!(
                    "{agent}: execution {} goes on in another desk process",
                    elsewhere.execution_id
                );
            }
            Err(error) => {
                eprintln!("{agent} failed: [{}] {error}", error.code());
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use agboss::app::Resume;
    use agboss::prelude::ToolCallApprovalDecision;
    use agboss::store::MemoryStore;
    use serde_json::json;

    fn memory() -> Arc<dyn Store> {
        Arc::new(MemoryStore::new())
    }
    use wire_server::{Canned, Flavour, WireServer};

    /// A file of its own under the system's temporary directory, holding `text`.
    fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("agboss-desk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn completion(message: serde_json::Value) -> Canned {
        let body = json!({
            "id": "chatcmpl-desk",
            "object": "chat.completion",
            "model": "llama3.2",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
        });
        Canned::json(200, body.to_string())
    }

    /// `DESK_CONFIG` is layered over what the variables say (before, it replaced it and the
    /// banner named a model the run did not use); the route printed is the one the request
    /// takes, and the local server's key comes from `DESK_LOCAL_API_KEY`.
    #[tokio::test]
    async fn the_file_is_layered_over_the_environment_and_the_route_printed_is_taken() {
        let server = WireServer::start_as(
            Flavour::LlamaCppPython,
            [
                completion(json!({"role": "assistant", "content": null, "tool_calls": [{
                    "id": "call_1", "type": "function",
                    "function": {"name": "note-save-tool", "arguments": "{\"text\": \"dentist Tuesday 9\"}"},
                }]})),
                completion(json!({"role": "assistant", "content": "Saved."})),
            ],
        )
        .await;
        let base_url = format!("{}/v1", server.base_url());
        let config = temp_file(
            "desk.toml",
            "[agents.notes]\nmodel = \"local/llama3.2\"\nfirst_turn_tool_choice = \"required\"\n",
        );
        let notes = temp_file("notes.jsonl", "");
        let env = Env::from_pairs([
            ("DESK_LOCAL_URL", base_url.as_str()),
            ("DESK_LOCAL_API_KEY", "local-secret"),
            ("DESK_CONFIG", config.to_str().unwrap()),
            ("NOTES_FILE", notes.to_str().unwrap()),
        ]);
        let app = desk(&models::from_env(&env), &env, memory()).unwrap();
        assert_eq!(
            routes(&app),
            [
                format!(
                    "notes: local/llama3.2 via local at {base_url} as `llama3.2`, key from DESK_LOCAL_API_KEY"
                ),
                format!(
                    "scout: local/qwen2.5 via local at {base_url} as `qwen2.5`, key from DESK_LOCAL_API_KEY"
                ),
            ]
        );
        let paused = ask(
            &app,
            "notes",
            "Remember: the dentist is on Tuesday at 9.",
            "ann",
        )
        .await
        .0
        .unwrap();
        let pending = &paused
            .paused()
            .expect("the save waits for approval")
            .pending;
        assert_eq!(pending[0].tool, "note-save-tool");
        let outcome = app
            .resume(
                Resume::decision(
                    &pending[0].pause_id,
                    ToolCallApprovalDecision::<notes::Note>::approve(),
                )
                .answered_by("ann"),
            )
            .await
            .unwrap();
        assert_eq!(outcome.text(), Some("Saved."));
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        for request in &requests {
            assert_eq!(request.problems, Vec::<String>::new());
            assert_eq!(request.url, format!("{base_url}/chat/completions"));
            assert_eq!(request.body["model"], "llama3.2");
            assert_eq!(request.header("authorization"), Some("Bearer local-secret"));
        }
        assert_eq!(requests[0].body["tool_choice"], "required");
        assert_eq!(requests[1].body["tool_choice"], "auto");
        assert!(
            std::fs::read_to_string(&notes)
                .unwrap()
                .contains("dentist Tuesday 9")
        );
    }

    /// With nobody named in the environment, the desk asks as `desk-user`, and its `pending`
    /// lists that user's pauses (it used to refuse to guess whose pauses to list).
    #[tokio::test]
    async fn the_desk_and_its_subcommands_agree_on_the_user() {
        let notes = temp_file("agree-notes.jsonl", "");
        let env = Env::from_pairs([("NOTES_FILE", notes.to_str().unwrap())]);
        let app = desk(&Models::Scripted(script::DeskModel), &env, memory()).unwrap();
        let owner = owner(&env);
        assert_eq!(owner, "desk-user");
        let outcome = ask(
            &app,
            "notes",
            "Remember: the dentist is on Tuesday at 9.",
            &owner,
        )
        .await
        .0
        .unwrap();
        let pause_id = &outcome.paused().expect("the save waits").pending[0].pause_id;
        let pending = agboss::cli::command_from(["desk", "pending"])
            .unwrap()
            .unwrap();
        let listed = pending.output_as(&app, &env, &owner).await;
        assert!(listed.starts_with(pause_id.as_str()), "{listed}");
        assert!(
            listed.contains(", thread desk/desk-user/notes\n"),
            "{listed}"
        );
    }

    /// Without a provider or a file, the desk runs on its script and says so.
    #[test]
    fn with_nothing_configured_the_desk_runs_on_its_script() {
        let env = Env::from_pairs::<&str, &str>([]);
        assert!(matches!(models::from_env(&env), Models::Scripted(_)));
        let env = Env::from_pairs([("OPENROUTER_API_KEY", "sk-or-test")]);
        let Models::Provider(config) = models::from_env(&env) else {
            panic!("a key configures its provider");
        };
        let app = desk(&Models::Provider(config), &env, memory()).unwrap();
        assert_eq!(
            routes(&app)[0],
            "notes: moonshotai/kimi-k2.6 via openrouter at https://openrouter.ai/api/v1 as `moonshotai/kimi-k2.6`, key from OPENROUTER_API_KEY"
        );
    }
}
