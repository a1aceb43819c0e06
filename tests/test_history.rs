//! What an agent reads of its thread, through the public API on a scripted model: only its own
//! turns, within its `history_max_size`, which configuration, the attribute or the model's
//! context window sets.

use std::sync::Arc;

use agboss::app::Source;
use agboss::config::Config;
use agboss::model::{ChatRequest, Message, ModelRouter, ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::units::{bytes, kilobytes};
use agboss::{Application, Workflow};
use serde_json::json;

#[dto]
pub struct Words {
    /// Words.
    pub words: String,
}

/// Searches the web; only the scout has it.
#[tool(
    name = "web-search-tool",
    description = "Searches the web",
    read_only = true
)]
pub struct WebSearch;

impl ToolHandler for WebSearch {
    type Input = Words;
    type Output = Words;

    async fn run(&self, input: Words) -> Result<Words, ToolError> {
        Ok(input)
    }
}

/// Keeps notes, with no tool; remembers up to ten turns.
#[agent(
    name = "notes",
    prompt = "prompts/helper.prompt.md",
    model = "local/gemma-3-270m",
    history_turns = 10
)]
pub struct Notes;

/// Looks things up on the web.
#[agent(
    name = "scout",
    prompt = "prompts/helper.prompt.md",
    model = "local/gemma-3-270m",
    tools = [WebSearch],
    history_max_size = kilobytes(8)
)]
pub struct Scout;

/// A model that answers `turns`, and an application of both agents on it, over `config`.
fn desk(turns: Vec<Turn>, config: &str) -> (Application, ScriptedModel) {
    let model = ScriptedModel::new(turns);
    let app = Application::builder("desk-application")
        .workflow(Workflow::new("desk").agent::<Notes>().agent::<Scout>())
        .chat_model(Arc::new(model.clone()))
        .config(Config::from_toml("desk.toml", config))
        .build()
        .unwrap();
    (app, model)
}

/// What `agent` answers on thread `t-1`.
async fn ask(app: &Application, agent: &str, input: &str) -> String {
    let outcome = app
        .run("desk", input)
        .agent(agent)
        .thread("t-1")
        .owner("u-1")
        .await
        .unwrap();
    outcome.into_completed().unwrap().text().unwrap().to_owned()
}

/// The texts of a request's messages before the run's own input.
fn history_of(request: &ChatRequest) -> Vec<String> {
    let messages = &request.messages[..request.messages.len() - 1];
    messages
        .iter()
        .map(|m| match m {
            Message::User { text } => text.clone(),
            Message::Assistant { text, .. } => text.clone().unwrap_or_default(),
            other => panic!("not history: {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn each_agent_of_a_thread_reads_only_its_own_turns() {
    let (app, model) = desk(
        vec![
            Turn::text("Noted: the dentist is on Tuesday."),
            Turn::call("web-search-tool", json!({"words": "dentist opening hours"})),
            Turn::text("I used web-search-tool: it opens at 9."),
            Turn::text("Tuesday."),
            Turn::text("At 9, as I found before."),
        ],
        "",
    );
    ask(&app, "notes", "The dentist is on Tuesday.").await;
    ask(&app, "scout", "When does the dentist open?").await;
    assert_eq!(ask(&app, "notes", "When is the dentist?").await, "Tuesday.");
    ask(&app, "scout", "And again?").await;
    let requests = model.requests();
    // The scout's first run reads nothing of the notes agent's turn.
    assert!(history_of(&requests[1]).is_empty());
    // The notes agent reads its own turn, never the scout's answer naming a tool it lacks.
    assert_eq!(
        history_of(&requests[3]),
        [
            "The dentist is on Tuesday.",
            "Noted: the dentist is on Tuesday."
        ]
    );
    assert!(requests[3].tools.is_empty());
    // The scout reads its own.
    assert_eq!(
        history_of(&requests[4]),
        [
            "When does the dentist open?",
            "I used web-search-tool: it opens at 9."
        ]
    );
}

#[tokio::test]
async fn configuration_bounds_the_history_and_the_newest_turns_stay() {
    let answer = |n: usize| format!("{n}{}", "x".repeat(399));
    let mut turns: Vec<Turn> = (0..5).map(|n| Turn::text(answer(n))).collect();
    turns.push(Turn::text("Done."));
    let (app, model) = desk(turns, "[agents.notes]\nhistory_max_size = \"1 KB\"\n");
    let notes = app.workflow("desk").unwrap().agent("notes").unwrap();
    assert_eq!(notes.history_max_size().to_string(), "1 KB (configuration)");
    for n in 0..6 {
        ask(&app, "notes", &format!("question {n}")).await;
    }
    // Each turn is 410 bytes: the last run reads the two newest, in order.
    let history = history_of(&model.requests()[5]);
    assert_eq!(
        history,
        ["question 3", &answer(3), "question 4", &answer(4)]
    );
    for request in model.requests() {
        let read: usize = history_of(&request).iter().map(String::len).sum();
        assert!(read <= 1024, "{read} bytes of history");
    }
}

#[tokio::test]
async fn a_newest_turn_longer_than_the_bound_is_cut_with_the_results_marker() {
    let long = "word ".repeat(1000);
    let (app, model) = desk(
        vec![Turn::text(long.clone()), Turn::text("Short.")],
        "[agents.notes]\nhistory_max_size = \"1 KB\"\n",
    );
    ask(&app, "notes", "Tell me everything.").await;
    ask(&app, "notes", "Now briefly.").await;
    let history = history_of(&model.requests()[1]);
    assert_eq!(history[0], "Tell me everything.");
    assert!(long.starts_with(history[1].split('\n').next().unwrap()));
    assert!(
        history[1].ends_with("\n[result truncated: 5,000 bytes, the first 949 kept]"),
        "{}",
        history[1]
    );
    assert!(history.iter().map(String::len).sum::<usize>() <= 1024);
}

#[tokio::test]
async fn the_models_context_window_sizes_the_history_and_its_own_bound_wins() {
    let model = ScriptedModel::new([Turn::text("Hi.")]);
    let router = ModelRouter::new()
        .route("*", "model", Arc::new(model.clone()), false)
        .context_window("local/gemma-3-270m", 2048);
    let app = Application::builder("desk-application")
        .workflow(Workflow::new("desk").agent::<Notes>().agent::<Scout>())
        .router(router)
        .build()
        .unwrap();
    let desk = app.workflow("desk").unwrap();
    let notes = desk.agent("notes").unwrap().history_max_size();
    assert_eq!(notes.value, bytes(2048));
    assert_eq!(notes.source, Source::ContextWindow(2048));
    assert_eq!(
        desk.agent("scout").unwrap().history_max_size().to_string(),
        "8 KB (own)"
    );
}

#[test]
fn a_providers_context_window_in_configuration_counts_and_an_unknown_one_takes_32_kb() {
    let build = |config: &str| {
        Application::builder("desk-application")
            .workflow(Workflow::new("desk").agent::<Notes>())
            .config(Config::from_toml("desk.toml", config))
            .build()
            .unwrap()
    };
    let bound = |app: &Application| {
        app.workflow("desk")
            .unwrap()
            .agent("notes")
            .unwrap()
            .history_max_size()
            .to_string()
    };
    let local = build(
        "[models.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:8080/v1\"\ncontext_window = 2048\n",
    );
    assert_eq!(bound(&local), "2 KB (context window of 2048 tokens)");
    assert_eq!(bound(&build("")), "32 KB (built-in)");
}

#[tokio::test]
async fn a_summary_is_asked_of_the_model_only_for_a_turn_whose_summary_is_read() {
    // Short turns: at the seventh run the first falls out of the scout's last five, and its
    // summary is made, then read.
    let mut turns: Vec<Turn> = (0..6).map(|n| Turn::text(format!("Answer {n}."))).collect();
    turns.push(Turn::text("The user asked question 0."));
    turns.push(Turn::text("Answer 6."));
    let (app, model) = desk(turns, "");
    for n in 0..7 {
        ask(&app, "scout", &format!("question {n}")).await;
    }
    let requests = model.requests();
    assert!(requests[6].system.starts_with("You keep the memory"));
    assert_eq!(
        history_of(&requests[7])[0],
        "Earlier in this conversation (summarized, oldest first):\n- The user asked question 0."
    );

    // Long turns: four fill the scout's 8 KB, so the older ones and their summaries stay out,
    // and no summary is asked for (the script has none to give).
    let long = |n: usize| format!("{n}{}", "y".repeat(1999));
    let (app, model) = desk((0..7).map(|n| Turn::text(long(n))).collect(), "");
    for n in 0..7 {
        ask(&app, "scout", &format!("question {n}")).await;
    }
    let requests = model.requests();
    assert_eq!(requests.len(), 7);
    assert!(requests.iter().all(|r| r.system == "You help."));
    assert_eq!(history_of(&requests[6]).len(), 8);
}
