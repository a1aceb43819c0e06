//! The rules that shape what the model reads of a result, in their order: the bound cuts only
//! the tool's own text, the mask reads only what the bound kept, and the framework's sentences
//! (a repeated call's note, a ceiling's refusal) are never cut, the marker always last. On the
//! whole and the streamed path.

use std::sync::Arc;

use agboss::journal::LoopEvent;
use agboss::model::{ScriptedModel, Turn};
use agboss::policy::MaskingPolicy;
use agboss::prelude::*;
use agboss::run::RunOutcome;
use agboss::store::{Journal, MemoryStore};
use agboss::units::bytes;
use agboss::{Application, Workflow};
use serde_json::json;

#[dto]
pub struct Topic {
    /// What to look up.
    pub topic: String,
}

/// The same long page for every topic, an address in its first line.
fn page() -> String {
    let mut page = String::from("write to ada@example.com for more\n");
    while page.len() < 2_000 {
        page.push_str("the same long line of the same long page of notes\n");
    }
    page
}

/// Looks a topic up: always the same long page, bounded to 512 bytes.
#[tool(name = "lookup-tool", read_only, max_result_size = bytes(512))]
pub struct Lookup;

impl ToolHandler for Lookup {
    type Input = Topic;
    type Output = PlainText;

    async fn run(&self, _input: Topic) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(page()))
    }
}

/// A short answer, always the same.
#[tool(name = "status-tool", read_only)]
pub struct Status;

impl ToolHandler for Status {
    type Input = Topic;
    type Output = PlainText;

    async fn run(&self, _input: Topic) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("all green"))
    }
}

/// A page too long to read, refused over 1 KB, with a bound of 32 bytes.
#[tool(
    name = "capped-tool",
    read_only,
    result_ceiling = bytes(1024),
    ceiling_hint = "ask about one topic at a time",
    max_result_size = bytes(32)
)]
pub struct Capped;

impl ToolHandler for Capped {
    type Input = Topic;
    type Output = PlainText;

    async fn run(&self, _input: Topic) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(page()))
    }
}

/// Reads pages.
#[agent(
    name = "reader",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [Lookup, Status, Capped]
)]
pub struct Reader;

/// What the model read of each call of a run of `turns`, masked with the standard policy when
/// `masked`, awaited whole or watched.
async fn results(turns: Vec<Turn>, masked: bool, streamed: bool) -> Vec<(String, bool)> {
    agboss::model::forbid_real_requests(true);
    let store = Arc::new(MemoryStore::new());
    let mut builder = Application::builder("desk")
        .workflow(Workflow::new("desk").agent::<Reader>())
        .store(store.clone())
        .chat_model(Arc::new(ScriptedModel::new(turns)));
    if masked {
        builder = builder.masking(MaskingPolicy::standard());
    }
    let app = builder.build().unwrap();
    let run = app.run("desk", "read");
    let outcome: RunOutcome = match streamed {
        false => run.await,
        true => run.stream().watch(|_| {}).await,
    }
    .unwrap();
    let events = store.events(outcome.execution_id()).await.unwrap();
    events
        .into_iter()
        .filter_map(|e| match e {
            LoopEvent::ToolFinished {
                content, truncated, ..
            } => Some((content, truncated)),
            _ => None,
        })
        .collect()
}

/// Two calls of `tool` with the same arguments, then the answer.
fn twice(tool: &str) -> Vec<Turn> {
    vec![
        Turn::call(tool, json!({"topic": "notes"})),
        Turn::call(tool, json!({"topic": "notes"})),
        Turn::text("read"),
    ]
}

/// The kept part of a cut text, before its marker.
fn kept(content: &str) -> &str {
    let at = content.rfind("\n[result truncated: ").expect("a marker");
    &content[..at]
}

#[tokio::test]
async fn a_repeated_call_s_note_fits_the_bound_and_the_marker_stays_last() {
    for (masked, streamed) in [(false, false), (false, true), (true, false), (true, true)] {
        let read = results(twice("lookup-tool"), masked, streamed).await;
        let (first, second) = (&read[0].0, &read[1].0);
        assert!(read[0].1 && read[1].1, "both cut: {read:?}");
        let note = "Note: you called `lookup-tool` with these same arguments earlier in this run and got this same result; calling it again will not change it.";
        assert!(!first.contains("Note:"), "{first}");
        // The note comes after the kept text and before the marker, and both fit the bound.
        let before_marker = kept(second);
        assert!(before_marker.ends_with(&format!("\n\n{note}")), "{second}");
        assert!(
            before_marker.len() <= 512,
            "{} bytes: {second}",
            before_marker.len()
        );
        let text = &before_marker[..before_marker.len() - note.len() - 2];
        assert!(
            second.ends_with(&format!(
                "[result truncated: {} bytes, the first {} kept]",
                group(json!({"text": page()}).to_string().len()),
                text.len()
            )),
            "{second}"
        );
        // The mask read the kept text only; the note is the framework's, as it was.
        assert_eq!(text.contains("[email]"), masked, "{text}");
        assert_eq!(text.contains("ada@example.com"), !masked, "{text}");
    }
}

#[tokio::test]
async fn an_uncut_repeated_result_reads_as_it_did_with_its_note_after() {
    for streamed in [false, true] {
        let read = results(twice("status-tool"), false, streamed).await;
        assert_eq!(read[0], (r#"{"text":"all green"}"#.to_owned(), false));
        assert_eq!(
            read[1],
            (
                r#"{"text":"all green"}

Note: you called `status-tool` with these same arguments earlier in this run and got this same result; calling it again will not change it."#
                    .to_owned(),
                false
            )
        );
    }
}

#[tokio::test]
async fn a_ceiling_s_refusal_is_read_whole_whatever_the_bound() {
    for streamed in [false, true] {
        let turns = vec![
            Turn::call("capped-tool", json!({"topic": "everything"})),
            Turn::text("narrowed"),
        ];
        let read = results(turns, false, streamed).await;
        let size = group(json!({"text": page()}).to_string().len());
        assert_eq!(
            read[0],
            (
                format!(
                    "Tool error: the result is {size} bytes, over this tool's ceiling of 1,024 bytes, so none of it is shown; to narrow the call: ask about one topic at a time"
                ),
                false
            )
        );
    }
}

/// `n` with thousands separated by commas, as the marker writes it.
fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
