//! Knowledge bases through the public API: a base of the user's own in tool mode (the search
//! tool `search-<name>-tool`, a tool like any other) and in context mode (what it finds added
//! to the input message of each model call, bounded, journaled once before the first and sent
//! the same after a resume); and, with feature
//! `knowledge`, the built-in index over a folder.

use std::sync::Arc;

// The built-in index (the facade's default feature `knowledge`).
#[path = "knowledge_folder.rs"]
mod folder;

use agboss::journal::LoopEvent;
use agboss::knowledge::{KnowledgeMode, registered_knowledge};
use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::store::{Journal, MemoryStore};
use agboss::units::bytes;
use agboss::{Application, ToolDefaults, Workflow};
use fixtures::chat;
use serde_json::json;

/// What a base of one's own reads from: here, a list of answers.
pub struct Answers(Vec<(&'static str, &'static str)>);

/// Answers to customers' frequent questions.
#[knowledge(name = "faq-rag", top_k = 2)]
pub struct FaqRag {
    answers: Arc<Answers>,
}

impl KnowledgeBase for FaqRag {
    async fn search(&self, query: &KnowledgeQuery) -> Result<Vec<Passage>, KnowledgeError> {
        if query.query.contains("explode") {
            return Err(KnowledgeError::other("the FAQ database is down"));
        }
        let words: Vec<String> = query
            .query
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let mut found: Vec<Passage> = self
            .answers
            .0
            .iter()
            .enumerate()
            .filter(|(_, (_, text))| {
                words
                    .iter()
                    .any(|w| text.to_lowercase().contains(w.as_str()))
            })
            .map(|(i, (heading, text))| Passage {
                source: "faq.md".into(),
                heading: (*heading).into(),
                line: i as u32 * 10 + 1,
                end_line: i as u32 * 10 + 3,
                text: (*text).into(),
                score: 1.0 / (i as f32 + 1.0),
            })
            .collect();
        found.truncate(query.top_k.unwrap_or(5) as usize + 1);
        Ok(found)
    }
}

/// The same answers, added to the input of each model call.
#[knowledge(name = "policy-rag", mode = "context")]
pub struct PolicyRag {
    answers: Arc<Answers>,
}

impl KnowledgeBase for PolicyRag {
    async fn search(&self, query: &KnowledgeQuery) -> Result<Vec<Passage>, KnowledgeError> {
        let hit = self.answers.0.iter().find(|(_, text)| {
            query
                .query
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w.len() > 3 && text.contains(w))
        });
        Ok(hit
            .map(|(heading, text)| Passage {
                source: "policy.md".into(),
                heading: (*heading).into(),
                line: 4,
                end_line: 9,
                text: (*text).into(),
                score: 2.0,
            })
            .into_iter()
            .collect())
    }
}

/// Answers customers, searching the FAQ when it needs to.
#[agent(name = "helper", model = "openai/gpt-5-mini", prompt = "prompts/helper.prompt.md", knowledge = [FaqRag])]
pub struct Helper;

/// Answers customers with the policy in front of it.
#[agent(name = "clerk", model = "openai/gpt-5-mini", prompt = "prompts/helper.prompt.md", knowledge = [PolicyRag])]
pub struct Clerk;

fn answers() -> Arc<Answers> {
    Arc::new(Answers(vec![
        ("Refunds > Delays", "Refunds take five working days."),
        (
            "Refunds > Methods",
            "Refunds go back to the card that paid.",
        ),
        ("Shipping", "Parcels ship within two days."),
        (
            "Contact",
            "Questions go to help.desk@shop.example, never to a person's own address.",
        ),
    ]))
}

fn app(model: &ScriptedModel, store: Arc<MemoryStore>, bound: Option<u64>) -> Application {
    agboss::model::forbid_real_requests(true);
    let mut workflow = Workflow::new("desk").agent::<Helper>().agent::<Clerk>();
    if let Some(bound) = bound {
        workflow = workflow.defaults(ToolDefaults::new().max_result_size(bytes(bound)));
    }
    Application::builder("knowledge")
        .store(store)
        .workflow(workflow)
        .provide(answers())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap()
}

#[test]
fn a_knowledge_base_is_registered_with_its_mode_and_search_tool() {
    let faq = registered_knowledge()
        .iter()
        .find(|k| k.descriptor().name() == "faq-rag")
        .expect("faq-rag is registered");
    let faq = faq.descriptor();
    assert_eq!(faq.mode(), KnowledgeMode::Tool);
    assert_eq!(faq.top_k(), 2);
    assert_eq!(
        faq.description(),
        "Answers to customers' frequent questions."
    );
    let tool = faq.search_tool().descriptor();
    assert_eq!(tool.name(), "search-faq-rag-tool");
    assert!(tool.is_read_only());
    assert!(
        tool.description().starts_with(
            "Searches the knowledge base faq-rag: Answers to customers' frequent questions. Returns"
        ),
        "{}",
        tool.description()
    );
}

#[tokio::test]
async fn in_tool_mode_the_agent_searches_through_its_search_tool() {
    let model = ScriptedModel::new([
        Turn::call("search-faq-rag-tool", json!({"query": "refunds"})),
        Turn::text("Five working days."),
    ]);
    let store = Arc::new(MemoryStore::new());
    let app = app(&model, store.clone(), None);
    let outcome = app
        .run_agent::<Helper>("How long do refunds take?")
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("Five working days."));

    let requests = model.requests();
    let offered: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(offered, ["search-faq-rag-tool"]);
    // The base's own number of passages, cut by the tool even when the base returns more.
    let result = chat::results_read(&requests[1])[0].clone();
    let hits: serde_json::Value = serde_json::from_str(&result).unwrap();
    let passages = hits["passages"].as_array().unwrap();
    assert_eq!(passages.len(), 2, "{result}");
    assert_eq!(passages[0]["heading"], "Refunds > Delays");
    assert_eq!(passages[0]["source"], "faq.md");
    assert_eq!(passages[0]["line"], 1);
}

#[tokio::test]
async fn a_search_is_validated_and_fails_as_a_tool_error() {
    let model = ScriptedModel::new([
        Turn::calls([
            ("search-faq-rag-tool", json!({"query": ""})),
            (
                "search-faq-rag-tool",
                json!({"query": "what if it explode"}),
            ),
            ("search-faq-rag-tool", json!({"query": "q".repeat(2001)})),
            (
                "search-faq-rag-tool",
                json!({"query": "refunds", "top_k": 51}),
            ),
            (
                "search-faq-rag-tool",
                json!({"query": "refunds", "top_k": 0}),
            ),
        ]),
        Turn::text("Sorry."),
    ]);
    let app = app(&model, Arc::new(MemoryStore::new()), None);
    app.run_agent::<Helper>("anything").await.unwrap();
    let results = chat::results_read(&model.requests()[1]);
    assert!(
        results[0].starts_with("Tool error: invalid input: query:"),
        "{}",
        results[0]
    );
    assert_eq!(
        results[1],
        "Tool error: knowledge base `faq-rag` could not be searched: the FAQ database is down"
    );
    // A query is at most 2,000 characters, and a search asks for 1 to 50 passages.
    assert!(
        results[2].starts_with("Tool error: invalid input: query:"),
        "{}",
        results[2]
    );
    for result in &results[3..] {
        assert!(
            result.starts_with("Tool error: invalid input: top_k:"),
            "{result}"
        );
    }
}

#[tokio::test]
async fn in_context_mode_a_long_input_is_searched_by_its_first_2000_characters() {
    let filler = |n: usize| "zz ".repeat(n / 3);
    // "Refunds" after the 2,000th character: not searched for, so no block.
    let late = format!("{}Refunds: how long?", filler(2001));
    // The same word before it: found, though the input is longer than a query may be.
    let early = format!("Refunds: how long?{}", filler(3000));
    let model = ScriptedModel::new([Turn::text("ok"), Turn::text("ok")]);
    let app = app(&model, Arc::new(MemoryStore::new()), None);
    app.run_agent::<Clerk>(&late).await.unwrap();
    app.run_agent::<Clerk>(&early).await.unwrap();
    let requests = model.requests();
    assert_eq!(chat::user_text(&requests[0]), late);
    let found = chat::user_text(&requests[1]);
    assert!(
        found.starts_with(&format!(
            "{early}\n\n[knowledge base policy-rag: 1 passage]"
        )),
        "{}",
        &found[early.len()..]
    );
}

#[tokio::test]
async fn in_context_mode_each_model_call_reads_the_block_and_the_journal_keeps_the_input() {
    let model = ScriptedModel::new([Turn::text("Refunds take five working days.")]);
    let store = Arc::new(MemoryStore::new());
    let app = app(&model, store.clone(), None);
    app.run_agent::<Clerk>("Refunds: how long?").await.unwrap();

    let requests = model.requests();
    assert!(
        requests[0].tools.is_empty(),
        "no search tool in context mode"
    );
    let input = chat::user_text(&requests[0]);
    assert_eq!(
        input,
        "Refunds: how long?\n\n[knowledge base policy-rag: 1 passage]\n\n[1] policy.md:4-9 (Refunds > Delays)\nRefunds take five working days.\n"
    );
    let ids = store.execution_ids();
    let events = store.events(&ids[0]).await.unwrap();
    let started = events
        .iter()
        .find_map(|e| match e {
            LoopEvent::Started { input, .. } => Some(input.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(started, "Refunds: how long?");
}

#[tokio::test]
async fn a_context_block_is_bounded_by_the_agents_bound_with_the_marker() {
    let model = ScriptedModel::new([Turn::text("ok")]);
    let app = app(&model, Arc::new(MemoryStore::new()), Some(60));
    app.run_agent::<Clerk>("Refunds: how long?").await.unwrap();
    let input = chat::user_text(&model.requests()[0]);
    let block = input.split_once("\n\n").unwrap().1;
    let (kept, marker) = block.split_once("\n[result truncated: ").unwrap();
    assert!(kept.len() <= 60, "{kept:?}");
    assert!(marker.ends_with(" kept]"), "{marker}");
}

#[tokio::test]
async fn nothing_found_leaves_the_input_as_it_is() {
    let model = ScriptedModel::new([Turn::text("ok")]);
    let app = app(&model, Arc::new(MemoryStore::new()), None);
    app.run_agent::<Clerk>("zzz").await.unwrap();
    assert_eq!(chat::user_text(&model.requests()[0]), "zzz");
}

/// A tool that takes the name of the base's search tool.
#[tool(name = "search-faq-rag-tool", description = "Searches the FAQ by hand")]
pub struct HandSearch;

impl ToolHandler for HandSearch {
    type Input = KnowledgeQuery;
    type Output = PlainText;

    async fn run(&self, input: KnowledgeQuery) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(input.query))
    }
}

/// An agent with both.
#[agent(
    name = "twice",
    model = "openai/gpt-5-mini",
    prompt = "prompts/helper.prompt.md",
    tools = [HandSearch],
    knowledge = [FaqRag]
)]
pub struct Twice;

#[test]
fn a_search_tool_is_in_the_agents_duplicate_name_check() {
    let problems = Application::builder("knowledge")
        .workflow(Workflow::new("desk").agent::<Twice>())
        .provide(answers())
        .build()
        .err()
        .expect("two tools of one name are refused")
        .to_string();
    assert!(
        problems.contains("[tool.duplicate-name] agent `twice` (workflow `desk`) has two tools named `search-faq-rag-tool`"),
        "{problems}"
    );
}

#[tokio::test]
async fn a_context_block_is_masked_after_its_bound_as_a_result_is() {
    agboss::model::forbid_real_requests(true);
    let model = ScriptedModel::new([Turn::text("ok")]);
    let app = Application::builder("knowledge")
        .store(Arc::new(MemoryStore::new()))
        .workflow(Workflow::new("desk").agent::<Clerk>())
        .provide(answers())
        .masking(agboss::policy::MaskingPolicy::standard())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    app.run_agent::<Clerk>("Questions: where do they go?")
        .await
        .unwrap();
    let input = chat::user_text(&model.requests()[0]);
    assert!(
        input.ends_with("(Contact)\nQuestions go to [email], never to a person's own address.\n"),
        "{input}"
    );
}
