//! Fault plan T14, PII masking after bounding: 500 seeded entities (emails, phone numbers,
//! Luhn-valid cards, IBANs, API keys and tokens), planted as plain text, JSON-escaped,
//! URL-encoded and across a tool's bound, come back from real `#[tool]`s in real agent runs
//! (scripted model, SQLite store, a tracing subscriber that keeps every field); none survives
//! whole in what the model read, the journal (through the store and in the file's bytes), the
//! logs or the approval questions; what a cut leaves of one is masked too. Then the false
//! positives on a clean corpus. The figures are printed and kept (docs/privacy.md).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use agboss::journal::LoopEvent;
use agboss::model::{Message, ScriptedModel, Turn};
use agboss::policy::{Entity, MaskingPolicy};
use agboss::prelude::*;
use agboss::store::{SqliteStore, Store};
use agboss::units::bytes;
use agboss::{Application, Workflow};
use serde_json::json;

#[path = "masking/capture.rs"]
mod capture;
#[path = "masking/corpus.rs"]
mod corpus;
#[path = "masking/judge.rs"]
mod judge;
#[path = "faults/report.rs"]
mod reporting;

use corpus::{Form, KINDS, Planted, Rng, planted_corpus};
use judge::{clean_corpus_false_positives, deep_decode, leaks, partial_left};

/// The documents the tools return, by number.
static DOCS: OnceLock<Vec<String>> = OnceLock::new();
/// The questions the review channel was asked, as JSON.
static QUESTIONS: Mutex<Vec<String>> = Mutex::new(Vec::new());

#[dto]
pub struct DocRequest {
    /// Which document.
    pub doc: u32,
}

#[dto]
pub struct Record {
    /// The document's number.
    pub id: u32,
    /// Its text.
    pub body: String,
}

#[dto]
pub struct Note {
    /// Its text.
    pub text: String,
}

/// A record as JSON.
#[tool(
    name = "fetch-record-tool",
    description = "Fetches a record",
    read_only
)]
pub struct FetchRecord;

impl ToolHandler for FetchRecord {
    type Input = DocRequest;
    type Output = Record;

    async fn run(&self, input: DocRequest) -> Result<Record, ToolError> {
        let body = DOCS.get().unwrap()[input.doc as usize].clone();
        Ok(Record {
            id: input.doc,
            body,
        })
    }
}

/// A long page, bounded.
#[tool(name = "fetch-page-tool", description = "Fetches a page", read_only, max_result_size = bytes(2048))]
pub struct FetchPage;

impl ToolHandler for FetchPage {
    type Input = DocRequest;
    type Output = PlainText;

    async fn run(&self, input: DocRequest) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(
            DOCS.get().unwrap()[input.doc as usize].clone(),
        ))
    }
}

/// A person reviews each note before it is sent.
#[channel_role(name = "review-channel", approves = Note, answered_by = Channel)]
pub struct Review;

/// Keeps each question it is asked.
#[channel(name = "review-inbox-channel")]
pub struct ReviewInbox;

impl ChannelHandler for ReviewInbox {
    type Role = Review;

    async fn send(&self, ask: ChannelAsk<Review>) -> Result<ChannelOutcome<Review>, ToolError> {
        let question = serde_json::to_string(&ask.value).unwrap();
        QUESTIONS.lock().unwrap().push(question);
        Ok(ChannelOutcome::await_reply())
    }
}

#[tool(name = "send-note-tool", description = "Sends a note", channel = Review)]
pub struct SendNote;

impl ToolHandler for SendNote {
    type Input = Note;
    type Output = PlainText;

    async fn run(&self, _input: Note) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("sent"))
    }
}

/// Short addresses, each shorter than its placeholder, filling its bound.
#[tool(name = "short-mails-tool", description = "Lists addresses", read_only, max_result_size = bytes(40))]
pub struct ShortMails;

impl ToolHandler for ShortMails {
    type Input = DocRequest;
    type Output = PlainText;

    async fn run(&self, _input: DocRequest) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("a@b.io a@b.io a@b.io a@b.io"))
    }
}

#[agent(
    name = "lister",
    description = "Lists addresses",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [ShortMails],
)]
pub struct Lister;

/// A whole result within its bound that its placeholders make longer than the bound is cut
/// to the bound, with the marker: the model never reads more than a tool's bound of a result.
#[tokio::test]
async fn placeholders_do_not_take_a_result_past_its_bound() {
    let model = ScriptedModel::new([
        Turn::calls([("short-mails-tool", json!({ "doc": 0 }))]),
        Turn::text("done"),
    ]);
    let app = Application::builder("bounded-masks")
        .workflow(Workflow::new("desk").agent::<Lister>())
        .masking(MaskingPolicy::standard())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    let outcome = app.run("desk", "list them").await.unwrap();
    assert_eq!(outcome.text(), Some("done"));
    let read: Vec<String> = model
        .requests()
        .into_iter()
        .flat_map(|request| request.messages)
        .filter_map(|message| match message {
            Message::Tool { content, .. } => Some(content),
            _ => None,
        })
        .collect();
    assert_eq!(read.len(), 1);
    let content = &read[0];
    // Unmasked, the result is 38 bytes: `{"text":"a@b.io a@b.io a@b.io a@b.io"}`.
    let kept = content
        .find("\n[result truncated: ")
        .expect("cut, with the marker");
    assert!(kept <= 40, "kept {kept} bytes: {content:?}");
    assert!(
        content.starts_with(r#"{"text":"[email] [email] [email]"#),
        "{content}"
    );
    assert!(!content.contains("a@b.io"), "{content}");
}

#[agent(
    name = "clerk",
    description = "Reads records",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [FetchRecord, FetchPage, SendNote],
)]
pub struct Clerk;

#[agent(
    name = "scribe",
    description = "Writes notes",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [SendNote],
)]
pub struct Scribe;

#[test]
fn the_most_specific_policy_is_in_effect_whole() {
    let app = Application::builder("levels")
        .masking(MaskingPolicy::standard())
        .workflow(
            Workflow::new("desk")
                .masking(MaskingPolicy::standard().without(Entity::Phone))
                .agent::<Clerk>()
                .agent::<Scribe>()
                .agent_masking::<Scribe>(MaskingPolicy::empty().with(Entity::Card)),
        )
        .workflow(Workflow::new("other").agent::<Clerk>())
        .channel::<ReviewInbox>()
        .build()
        .unwrap();
    let masking = |workflow: &str, agent: &str| {
        let workflow = app.workflow(workflow).unwrap();
        let agent = workflow
            .agents()
            .iter()
            .find(|a| a.name() == agent)
            .unwrap();
        let setting = agent.masking().unwrap();
        (setting.value.clone(), setting.source.to_string())
    };
    let (own, source) = masking("desk", "scribe");
    assert_eq!(
        (own.entities(), source.as_str()),
        (&[Entity::Card][..], "own")
    );
    assert_eq!(
        own.mask("ada@example.com"),
        "ada@example.com",
        "not merged with the workflow's"
    );
    let (workflow, source) = masking("desk", "clerk");
    assert_eq!(
        (workflow, source.as_str()),
        (MaskingPolicy::standard().without(Entity::Phone), "desk")
    );
    let (application, source) = masking("other", "clerk");
    assert_eq!(
        (application, source.as_str()),
        (MaskingPolicy::standard(), "levels")
    );
    // describe shows each agent's policy and where it was set; an agent with none has no key.
    let text = agboss::describe::text(&app);
    assert!(
        text.contains(" · masking card (own)"),
        "the scribe's own policy: {text}"
    );
    assert!(
        text.contains(" · masking secret, email, iban, card (desk)"),
        "the desk's: {text}"
    );
    let json = agboss::describe::json(&app);
    let scribe = &json["workflows"][0]["agents"][1];
    assert_eq!(scribe["name"], "scribe", "{json}");
    assert_eq!(
        scribe["masking"],
        serde_json::json!({"entities": ["card"], "patterns": [], "source": "own"})
    );
    let unmasked = Application::builder("plain")
        .workflow(Workflow::new("desk").agent::<Clerk>())
        .channel::<ReviewInbox>()
        .build()
        .unwrap();
    assert!(
        unmasked.workflow("desk").unwrap().agents()[0]
            .masking()
            .is_none()
    );
    let json = agboss::describe::json(&unmasked);
    assert!(json["workflows"][0]["agents"][0].get("masking").is_none());
    assert!(!agboss::describe::text(&unmasked).contains("masking"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t14_no_covered_entity_survives_in_model_input_journal_logs_or_questions() {
    let logs = capture::install();
    let mut rng = Rng::new(0x7140_2026);
    let corpus = planted_corpus(&mut rng);
    DOCS.set(corpus.docs.clone()).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("t14.db");
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await.unwrap());
    let model = ScriptedModel::new([]);
    let app = Application::builder("t14")
        .workflow(Workflow::new("desk").agent::<Clerk>())
        .masking(MaskingPolicy::standard())
        .channel::<ReviewInbox>()
        .store(store.clone())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();

    // Every document read by its tool, ten calls a run.
    let mut executions = Vec::new();
    for (run, docs) in (0..corpus.docs.len())
        .collect::<Vec<_>>()
        .chunks(10)
        .enumerate()
    {
        let calls: Vec<(&str, serde_json::Value)> = docs
            .iter()
            .map(|&d| (corpus.planted[d].0, json!({ "doc": d })))
            .collect();
        model.then([Turn::calls(calls), Turn::text("done")]);
        let id = format!("t14-{run}");
        let outcome = app
            .run("desk", "read them")
            .execution_id(&id)
            .await
            .unwrap();
        assert_eq!(outcome.text(), Some("done"));
        executions.push(id);
    }
    // Notes with entities in their arguments wait for a person: ten questions.
    let mut notes_planted = Vec::new();
    let notes: Vec<(&str, serde_json::Value)> = (0..10)
        .map(|_| {
            let planted: Vec<Planted> = KINDS
                .iter()
                .map(|&kind| {
                    let plain = corpus::entity(&mut rng, kind);
                    Planted {
                        kind,
                        form: Form::Plain,
                        placed: plain.clone(),
                        plain,
                    }
                })
                .collect();
            let text = planted
                .iter()
                .map(|p| format!("{} ", p.plain))
                .collect::<String>();
            notes_planted.extend(planted);
            ("send-note-tool", json!({ "text": text }))
        })
        .collect();
    model.then([Turn::calls(notes)]);
    let outcome = app
        .run("desk", "send them")
        .execution_id("t14-notes")
        .await
        .unwrap();
    assert!(
        outcome.paused().is_some(),
        "the notes wait for their review"
    );
    executions.push("t14-notes".to_owned());

    // What the model read, call by call.
    let mut read: HashMap<usize, String> = HashMap::new();
    for request in model.requests() {
        for message in request.messages {
            if let Message::Tool { content, .. } = message {
                let doc = content
                    .split("doc-")
                    .nth(1)
                    .and_then(|s| s.split(':').next())
                    .and_then(|n| n.parse().ok());
                if let Some(doc) = doc {
                    read.insert(doc, content);
                }
            }
        }
    }
    assert_eq!(read.len(), corpus.docs.len(), "every document was read");
    // The journal, through the store and in the file.
    let mut journal = String::new();
    for id in &executions {
        let events: Vec<LoopEvent> = store.events(id).await.unwrap();
        journal.push_str(&serde_json::to_string(&events).unwrap());
    }
    drop(app);
    let mut file = Vec::new();
    for suffix in ["", "-wal"] {
        let mut name = path.clone().into_os_string();
        name.push(suffix);
        file.extend(std::fs::read(&name).unwrap_or_default());
    }
    let file = String::from_utf8_lossy(&file).into_owned();
    let logs = logs.lock().unwrap().clone();
    let questions = QUESTIONS.lock().unwrap().join("\n");
    assert_eq!(QUESTIONS.lock().unwrap().len(), 10);

    let sinks: [(&str, &str); 4] = [
        ("journal", &journal),
        ("store file", &file),
        ("logs", &logs),
        ("questions", &questions),
    ];
    let decoded_sinks: Vec<String> = sinks.iter().map(|(_, s)| deep_decode(s)).collect();
    let mut leaks_in: HashMap<&str, Vec<String>> = HashMap::new();
    let mut recalled: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut partials = (0usize, 0usize, Vec::new());
    let all_planted = corpus
        .planted
        .iter()
        .enumerate()
        .flat_map(|(doc, (_, planted))| planted.iter().map(move |p| (Some(doc), p)))
        .chain(notes_planted.iter().map(|p| (None, p)));
    for (doc, planted) in all_planted {
        let mut caught = true;
        if let Some(doc) = doc {
            let content = &read[&doc];
            if planted.form == Form::Boundary {
                partials.0 += 1;
                if let Some((prefix, enough)) = partial_left(&corpus.docs[doc], content, planted) {
                    caught = !enough;
                    partials.1 += 1;
                    partials
                        .2
                        .push(format!("{}:{prefix:?}", planted.kind.name()));
                }
            } else if leaks(content, &deep_decode(content), planted) {
                caught = false;
                leaks_in
                    .entry("model input")
                    .or_default()
                    .push(planted.placed.clone());
            }
        }
        for ((sink, text), decoded) in sinks.iter().zip(&decoded_sinks) {
            // A note's entities are the model's own arguments: the journal keeps them masked,
            // and the file holds them sealed beside it while their calls wait for the review
            // (docs/privacy.md, "Sealed arguments").
            let arguments = doc.is_none() && *sink == "store file";
            if !arguments && leaks(text, decoded, planted) {
                caught = false;
                leaks_in
                    .entry(sink)
                    .or_default()
                    .push(planted.placed.clone());
            }
        }
        let entry = recalled.entry(planted.kind.name()).or_default();
        entry.1 += 1;
        if caught {
            entry.0 += 1;
        }
    }

    let (fp_items, fp_bytes, fp_found) = clean_corpus_false_positives();
    let mut figures = String::new();
    let _ = write!(
        figures,
        "entities {} (+{} in approval questions)",
        500,
        notes_planted.len()
    );
    for kind in KINDS {
        let (caught, total) = recalled[kind.name()];
        let _ = write!(figures, "; recall {} {caught}/{total}", kind.name());
    }
    for sink in ["model input", "journal", "store file", "logs", "questions"] {
        let _ = write!(
            figures,
            "; leaks in {sink} {}",
            leaks_in.get(sink).map_or(0, Vec::len)
        );
    }
    let _ = write!(
        figures,
        "; across the bound {}: a part left visible {} (none enough to count), e.g. {:?}",
        partials.0,
        partials.1,
        partials.2.iter().take(3).collect::<Vec<_>>()
    );
    let _ = write!(
        figures,
        "; clean corpus {fp_items} texts, {fp_bytes} bytes: false positives {}",
        fp_found.len()
    );
    reporting::report("t14_masking", &figures);
    // The checks looked at something: placeholders where the entities were, and logs.
    let placeholders: usize = read
        .values()
        .map(|c| {
            ["[email]", "[phone]", "[card]", "[iban]", "[secret]"]
                .iter()
                .map(|p| c.matches(p).count())
                .sum::<usize>()
        })
        .sum();
    assert!(
        placeholders >= 375,
        "{placeholders} placeholders in what the model read"
    );
    assert!(logs.contains("span agboss.tool_call"), "the logs were kept");
    assert!(journal.contains("[email]") && file.contains("[card]"));
    assert!(leaks_in.is_empty(), "leaks: {leaks_in:?}");
    for kind in KINDS {
        let (caught, total) = recalled[kind.name()];
        assert_eq!(caught, total, "recall of {}", kind.name());
    }
    assert!(
        fp_found.len() * 100 <= fp_items,
        "false positives: {fp_found:?}"
    );
}
