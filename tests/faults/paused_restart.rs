//! Fault plan T17: a crash while paused, and an answer much later (72 h on the manual clock),
//! to a new process reading the same SQLite file.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agboss::context::Signal;
use agboss::journal::LoopEvent;
use agboss::model::{ChatFuture, ChatModel, ChatRequest, ChatResponse, ToolCall};
use agboss::prelude::*;
use agboss::run::RunOutcome;
use agboss::store::SqliteStore;
use agboss::store::Store;
use agboss::time::ManualClock;
use agboss::{Application, Resume, Workflow};

use super::report;

/// A wire transfer.
#[dto]
pub struct WireInput {
    pub iban: String,
    pub cents: u64,
}

/// What the agent answers.
#[dto]
pub struct Receipt {
    pub note: String,
}

/// The account's owner approves each wire.
#[channel_role(name = "wire-approval-channel", approves = WireInput, answered_by = ThreadOwner)]
pub struct WireApproval;

fixtures::inbox! {
    /// Posts the question to the owner's inbox; the answer comes later.
    #[channel(name = "wire-inbox-channel")]
    pub struct WireInbox for WireApproval;
}

/// The bank: it dedupes by idempotency key for 24 hours only, then forgets the key.
pub struct Bank {
    clock: ManualClock,
    seen: Mutex<HashMap<String, Duration>>,
    /// Every request: key, argument bytes, when.
    pub requests: Mutex<Vec<(String, String, String)>>,
}

impl Bank {
    const WINDOW: Duration = Duration::from_secs(24 * 3_600);

    fn wire(&self, key: &str, call_id: &str, arguments: String) -> bool {
        let now = self.clock.elapsed();
        let mut seen = self.seen.lock().unwrap();
        seen.retain(|_, at| now.saturating_sub(*at) < Self::WINDOW);
        self.requests
            .lock()
            .unwrap()
            .push((key.to_owned(), call_id.to_owned(), arguments));
        seen.insert(key.to_owned(), now).is_none()
    }
}

/// Wires money; the bank takes the key.
#[tool(name = "wire-tool", channel = WireApproval)]
pub struct Wire {
    execution: ExecutionContext,
    bank: Arc<Bank>,
}

impl ToolHandler for Wire {
    type Input = WireInput;
    type Output = PlainText;

    async fn run(&self, input: WireInput) -> Result<PlainText, ToolError> {
        let bytes = format!(r#"{{"iban":"{}","cents":{}}}"#, input.iban, input.cents);
        let applied = self.bank.wire(
            self.execution.idempotency_key(),
            self.execution.call_id(),
            bytes,
        );
        Ok(PlainText::new(if applied {
            "wired"
        } else {
            "already wired"
        }))
    }
}

/// Wires money and answers with a receipt.
#[agent(name = "banker", prompt = "../prompts/helper.prompt.md", model = "test/banker", tools = [Wire], output = Receipt)]
pub struct Banker;

/// The argument bytes the model sends, byte for byte (spaces included).
const ARGUMENTS: &str = r#"{"iban": "DE89 3704 0044 0532 0130 00",  "cents": 125000}"#;

/// Asks for the wire and gives its receipt in the same answer: once the wire has its result,
/// the run ends without asking the model again.
#[derive(Default)]
pub struct BankerModel {
    pub calls: Mutex<usize>,
}

impl ChatModel for BankerModel {
    fn chat<'a>(&'a self, _: &'a ChatRequest, _: &'a Signal) -> ChatFuture<'a> {
        *self.calls.lock().unwrap() += 1;
        let call = |id: &str, name: &str, arguments: &str| ToolCall {
            provider_id: Some(id.into()),
            name: name.into(),
            arguments: arguments.into(),
        };
        let response = ChatResponse {
            tool_calls: vec![
                call("call_wire", "wire-tool", ARGUMENTS),
                call("call_done", "answer-receipt", r#"{"note": "wire sent"}"#),
            ],
            ..ChatResponse::default()
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

async fn app(
    path: &std::path::Path,
    bank: &Arc<Bank>,
    model: &Arc<BankerModel>,
    clock: &ManualClock,
    instance: &str,
) -> Application {
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(path).await.unwrap());
    Application::builder("bank")
        .workflow(Workflow::new("desk").agent::<Banker>())
        .provide(bank.clone())
        .channel::<WireInbox>()
        .chat_model(model.clone())
        .store(store)
        .clock(clock.clone())
        .instance(instance)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t17_a_pause_answered_72_hours_after_a_crash_runs_the_journaled_call_once() {
    const N: usize = 5;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("bank.db");
    let clock = ManualClock::new();
    let bank = Arc::new(Bank {
        clock: clock.clone(),
        seen: Mutex::default(),
        requests: Mutex::default(),
    });
    let model = Arc::new(BankerModel::default());
    let mut pauses = Vec::new();
    {
        let first = app(&path, &bank, &model, &clock, "first").await;
        for n in 0..N {
            let id = format!("wire-{n}");
            let outcome = first
                .run("desk", "wire 1250 to Ada")
                .execution_id(&id)
                .thread(&id)
                .owner("u-1")
                .await
                .unwrap();
            let RunOutcome::Paused(paused) = outcome else {
                panic!("{outcome:?}")
            };
            pauses.push((id, paused.pending[0].pause_id.clone()));
        }
        // The process dies here: nothing of it outlives the drop but the file.
    }
    clock.advance(Duration::from_secs(72 * 3_600));
    let model_calls_before = *model.calls.lock().unwrap();
    let second = app(&path, &bank, &model, &clock, "second").await;
    let mut resumed = 0;
    let mut digest_mismatches = 0;
    for (id, pause_id) in &pauses {
        let digest = {
            let record = second.store().pause(pause_id).await.unwrap().unwrap();
            record.opened.arguments_digest
        };
        let approve = ToolCallApprovalDecision::<WireInput>::approve();
        let outcome = second
            .resume(
                Resume::decision(pause_id, approve)
                    .answered_by("u-1")
                    .for_arguments(&digest),
            )
            .await
            .unwrap();
        let done = outcome.completed().expect("completed");
        resumed += usize::from(
            done.answer
                == agboss::run::Answer::Structured(serde_json::json!({"note": "wire sent"})),
        );
        // The call ran with the journaled id, key and argument bytes.
        let events = second.store().events(id).await.unwrap();
        let journaled = events.iter().find_map(|e| match e {
            LoopEvent::ModelAnswered { calls, .. } if !calls.is_empty() => Some(calls[0].clone()),
            _ => None,
        });
        let journaled = journaled.expect("the model's call");
        assert_eq!(
            journaled.call.arguments, ARGUMENTS,
            "the journal keeps the bytes"
        );
        // What was approved is what was journaled, and what ran.
        let sha = {
            use sha2::Digest;
            use std::fmt::Write;
            let hash = sha2::Sha256::digest(journaled.call.arguments.as_bytes());
            hash.iter().fold(String::new(), |mut s, b| {
                let _ = write!(s, "{b:02x}");
                s
            })
        };
        digest_mismatches += usize::from(sha != digest);
        let key =
            agboss::context::Step::new("banker", 1, journaled.call_id.as_str()).idempotency_key(id);
        let requests = bank.requests.lock().unwrap().clone();
        let mine: Vec<_> = requests.iter().filter(|r| r.0 == key).collect();
        assert_eq!(mine.len(), 1, "{id}: {requests:#?}");
        assert_eq!(mine[0].1, "call_wire");
    }
    let model_calls_on_resume = *model.calls.lock().unwrap() - model_calls_before;
    // Much later again (the bank has long forgotten the keys): answering again, or resuming,
    // runs nothing: the journal holds each call's result.
    clock.advance(Duration::from_secs(72 * 3_600));
    let mut replays_refused = 0;
    for (id, pause_id) in &pauses {
        let again = second
            .resume(
                Resume::decision(pause_id, ToolCallApprovalDecision::<WireInput>::approve())
                    .answered_by("u-1"),
            )
            .await
            .unwrap_err();
        replays_refused += usize::from(again.code() == "pause.already-answered");
        let outcome = second.resume_execution(id, None).await.unwrap();
        assert!(outcome.completed().is_some());
    }
    let wires = bank.requests.lock().unwrap().len();
    report(
        "T17",
        &format!(
            "resumes {resumed}/{N}; digest mismatches {digest_mismatches}; model calls on resume {model_calls_on_resume}; replays after the bank's dedupe window refused {replays_refused}/{N}; wires sent {wires}/{N}"
        ),
    );
    assert_eq!(resumed, N);
    assert_eq!(digest_mismatches, 0);
    assert_eq!(model_calls_on_resume, 0);
    assert_eq!(replays_refused, N);
    assert_eq!(wires, N);
}
