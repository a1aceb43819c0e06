//! Fault plan T10, T15 and T16 (docs/fault-plan in the steering repo; figures in
//! docs/pauses.md): cancelling, answers racing, and answers that must be refused. Each test
//! keeps a history and checks it, and reports a progress figure beside its safety figure.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agboss::channel::{ChannelAsk, PauseAnswerer};
use agboss::context::Signal;
use agboss::journal::{ExecutionStatus, LoopEvent};
use agboss::model::{ChatFuture, ChatModel, ChatRequest, ChatResponse, ToolCall};
use agboss::prelude::*;
use agboss::run::RunOutcome;
use agboss::store::Store;
use agboss::time::ManualClock;
use agboss::units::hours;
use agboss::{Application, Resume, Workflow};

use super::report;
use fixtures::chat;

/// A payment to send.
#[dto]
pub struct PaymentInput {
    /// To whom.
    pub payee: String,
    /// How much, in cents.
    pub amount_cents: u64,
}

/// Approves payments; the thread's owner answers, within a day.
#[channel_role(
    name = "payment-approval-channel",
    description = "Approves payments",
    approves = PaymentInput,
    answered_by = ThreadOwner,
    expires_after = hours(24),
)]
pub struct PaymentApproval;

/// Where the approvals are posted: counts the asks.
#[derive(Default)]
pub struct Asks {
    count: AtomicUsize,
}

/// Posts the question and waits for the owner.
#[channel(name = "owner-inbox-channel", description = "Asks the thread's owner")]
pub struct OwnerInbox {
    asks: Arc<Asks>,
}

impl ChannelHandler for OwnerInbox {
    type Role = PaymentApproval;

    async fn send(
        &self,
        _: ChannelAsk<PaymentApproval>,
    ) -> Result<ChannelOutcome<PaymentApproval>, ToolError> {
        self.asks.count.fetch_add(1, Ordering::SeqCst);
        Ok(ChannelOutcome::await_reply())
    }
}

/// The effects, counted: what a payment provider would see.
#[derive(Default)]
pub struct Ledger {
    payments: AtomicUsize,
}

/// Sends a payment once approved.
#[tool(name = "send-payment-tool", channel = PaymentApproval)]
pub struct SendPayment {
    ledger: Arc<Ledger>,
}

impl ToolHandler for SendPayment {
    type Input = PaymentInput;
    type Output = PlainText;

    async fn run(&self, input: PaymentInput) -> Result<PlainText, ToolError> {
        self.ledger.payments.fetch_add(1, Ordering::SeqCst);
        Ok(PlainText::new(format!("paid {}", input.payee)))
    }
}

/// Pays people.
#[agent(name = "payer", prompt = "../prompts/helper.prompt.md", model = "test/payer", tools = [SendPayment])]
pub struct Payer;

/// A model that asks for one payment when the conversation has no tool result yet, and then
/// answers: order-free, so any number of executions can share it. It counts its calls.
#[derive(Default)]
pub struct PayerModel {
    calls: AtomicUsize,
}

impl ChatModel for PayerModel {
    fn chat<'a>(&'a self, request: &'a ChatRequest, _: &'a Signal) -> ChatFuture<'a> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let response = if chat::results_so_far(request) > 0 {
            chat::answer("done")
        } else {
            let arguments = r#"{"payee": "ada", "amount_cents": 4200}"#;
            chat::calling(vec![chat::call("call_1", "send-payment-tool", arguments)])
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

struct Fixture {
    app: Arc<Application>,
    ledger: Arc<Ledger>,
    asks: Arc<Asks>,
    model: Arc<PayerModel>,
    store: Arc<dyn Store>,
    clock: ManualClock,
}

fn fixture() -> Fixture {
    let ledger = Arc::new(Ledger::default());
    let asks = Arc::new(Asks::default());
    let model = Arc::new(PayerModel::default());
    let store: Arc<dyn Store> = Arc::new(agboss::store::MemoryStore::new());
    let clock = ManualClock::new();
    let app = Application::builder("payments")
        .workflow(Workflow::new("desk").agent::<Payer>())
        .provide(ledger.clone())
        .provide(asks.clone())
        .channel::<OwnerInbox>()
        .chat_model(model.clone())
        .store(store.clone())
        .clock(clock.clone())
        .build()
        .unwrap();
    Fixture {
        app: Arc::new(app),
        ledger,
        asks,
        model,
        store,
        clock,
    }
}

/// Runs a payment in execution `id` of owner `u-1` until it pauses; its pause id.
async fn pause(f: &Fixture, id: &str) -> String {
    let outcome = f
        .app
        .run("desk", "pay ada 42")
        .execution_id(id)
        .thread(id)
        .owner("u-1")
        .await
        .unwrap();
    let RunOutcome::Paused(paused) = outcome else {
        panic!("{id} did not pause: {outcome:?}");
    };
    assert_eq!(paused.pending[0].answered_by, PauseAnswerer::ThreadOwner);
    paused.pending[0].pause_id.clone()
}

fn approve() -> ToolCallApprovalDecision<PaymentInput> {
    ToolCallApprovalDecision::approve()
}

/// T15: 1,000 races of two concurrent answers on one approval (approve against refuse, and
/// approve against approve); then the answer replayed after the tool ran.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t15_an_approval_answered_twice_takes_one_decision() {
    const RACES: usize = 1_000;
    let f = fixture();
    let mut ids = Vec::with_capacity(RACES);
    for n in 0..RACES {
        ids.push((format!("e-{n}"), pause(&f, &format!("e-{n}")).await));
    }
    let mut tasks = Vec::with_capacity(RACES);
    for (n, (_, pause_id)) in ids.iter().enumerate() {
        let both: [ToolCallApprovalDecision<PaymentInput>; 2] = if n % 2 == 0 {
            [approve(), ToolCallApprovalDecision::refuse("no")]
        } else {
            [approve(), approve()]
        };
        for decision in both {
            let (app, pause_id) = (f.app.clone(), pause_id.clone());
            tasks.push(tokio::spawn(async move {
                app.resume(Resume::decision(pause_id, decision).answered_by("u-1"))
                    .await
                    .map(|_| ())
                    .map_err(|e| e.code().to_owned())
            }));
        }
    }
    let mut taken = 0;
    let mut already = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(()) => taken += 1,
            Err(code) if code == "pause.already-answered" => already += 1,
            Err(code) => panic!("an answer failed with {code}"),
        }
    }
    // The checker: per execution, exactly one resolution journaled, and the tool run at most
    // once (exactly once when the taken decision approved).
    let mut one_decision = 0;
    let mut runs_per_approval_max = 0;
    let mut audited = 0;
    for (id, _) in &ids {
        let events = f.store.events(id).await.unwrap();
        audited += events
            .iter()
            .filter(|e| matches!(e, LoopEvent::PauseAnswerRejected { .. }))
            .count();
        let resolutions = events
            .iter()
            .filter(|e| matches!(e, LoopEvent::PauseResolved { .. }))
            .count();
        let runs = events
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    LoopEvent::ToolFinished {
                        is_error: false,
                        ..
                    }
                )
            })
            .count();
        one_decision += usize::from(resolutions == 1);
        runs_per_approval_max = runs_per_approval_max.max(runs);
        let record = f.store.execution(id).await.unwrap().unwrap();
        assert!(
            matches!(record.status, ExecutionStatus::Answered { .. }),
            "every execution finishes: {id} {record:?}"
        );
    }
    // A replay of an answer after the tool ran changes nothing.
    let replay = f
        .app
        .resume(Resume::decision(&ids[1].1, approve()).answered_by("u-1"))
        .await
        .unwrap_err();
    assert_eq!(replay.code(), "pause.already-answered");
    let payments = f.ledger.payments.load(Ordering::SeqCst);
    report(
        "T15",
        &format!(
            "decisions recorded per approval = 1 ({one_decision}/{RACES}); answers taken {taken}, refused as already answered {already}; losers' answers audited in a journal {audited}; tool executions per approval <= {runs_per_approval_max}; payments {payments} of {RACES} approvals"
        ),
    );
    assert_eq!(one_decision, RACES);
    assert_eq!(
        audited, 0,
        "an answer to an answered pause is told so, and nothing is appended for it"
    );
    assert_eq!((taken, already), (RACES, RACES));
    assert!(runs_per_approval_max <= 1);
    // Odd races approved twice (always approved); even ones approve or refuse.
    assert!((RACES / 2..=RACES).contains(&payments));
    assert_eq!(
        f.asks.count.load(Ordering::SeqCst),
        RACES,
        "each pause asked once"
    );
}

/// T16: answers by the wrong party, forged or replayed: every case refused with a clear error
/// and audited, and the execution stays paused.
#[tokio::test]
async fn t16_answers_from_the_wrong_party_are_refused_and_audited() {
    let f = fixture();
    let pause_id = pause(&f, "e-x").await;
    let _other = pause(&f, "e-y").await;
    let digest = {
        let record = f.store.pause(&pause_id).await.unwrap().unwrap();
        record.opened.arguments_digest
    };
    let model_calls_before = f.model.calls.load(Ordering::SeqCst);
    let cases: Vec<(&str, Resume)> = vec![
        (
            "pause.wrong-answerer",
            Resume::decision(&pause_id, approve()).answered_by("mallory"),
        ),
        ("pause.wrong-answerer", Resume::decision(&pause_id, approve())),
        (
            "pause.other-execution",
            Resume::decision(&pause_id, approve())
                .answered_by("u-1")
                .for_execution("e-y"),
        ),
        (
            "pause.arguments-changed",
            Resume::decision(&pause_id, approve())
                .answered_by("u-1")
                .for_arguments(format!("{}0", &digest[..63])),
        ),
        (
            "pause.unknown",
            Resume::decision("00000000000000000000000000000000", approve()).answered_by("u-1"),
        ),
        (
            "pause.unknown",
            Resume::decision(&pause_id[..31], approve()).answered_by("u-1"),
        ),
        (
            "pause.invalid-answer",
            Resume::decision(&pause_id, serde_json::json!({"decision": "approve", "override_arguments": {"payee": "mallory"}}))
                .answered_by("u-1"),
        ),
    ];
    let n = cases.len() + 1;
    let mut refused = 0;
    for (code, resume) in cases {
        let error = f.app.resume(resume).await.unwrap_err();
        assert_eq!(error.code(), code, "{error}");
        refused += 1;
    }
    // Expired: the role takes answers for a day.
    f.clock.advance(Duration::from_secs(25 * 3600));
    let expired = f
        .app
        .resume(Resume::decision(&pause_id, approve()).answered_by("u-1"))
        .await
        .unwrap_err();
    assert_eq!(expired.code(), "pause.expired");
    refused += 1;
    // The model has no tool that answers pauses: a call to one is an unknown tool.
    let events = f.store.events("e-x").await.unwrap();
    let audited = events
        .iter()
        .filter(|e| matches!(e, LoopEvent::PauseAnswerRejected { .. }))
        .count();
    let record = f.store.pause(&pause_id).await.unwrap().unwrap();
    let payments = f.ledger.payments.load(Ordering::SeqCst);
    report(
        "T16",
        &format!(
            "unauthorized acceptances {payments} of {n} cases; refused {refused}/{n}; audit records in the journal {audited}/{} (unknown ids are audited in the traces, having no journal)",
            n - 2
        ),
    );
    assert_eq!(payments, 0);
    assert_eq!(refused, n);
    assert_eq!(audited, n - 2);
    assert!(record.is_open(), "the execution stays paused");
    assert_eq!(
        f.model.calls.load(Ordering::SeqCst),
        model_calls_before,
        "no answer reached the model"
    );
}

/// T10: cancelling while paused (and a late answer), during a tool call, during a model call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t10_cancelling_an_execution_stops_it_everywhere() {
    // While paused: the pause closes, a late answer is told the execution was cancelled.
    let f = fixture();
    let pause_id = pause(&f, "e-paused").await;
    let started = Instant::now();
    f.app.cancel("e-paused", "the user left").await.unwrap();
    let mut latencies = vec![started.elapsed()];
    let late = f
        .app
        .resume(Resume::decision(&pause_id, approve()).answered_by("u-1"))
        .await
        .unwrap_err();
    assert_eq!(late.code(), "pause.execution-cancelled");
    let record = f.store.execution("e-paused").await.unwrap().unwrap();
    assert_eq!(record.status, ExecutionStatus::Cancelled);
    assert_eq!(record.open_pauses, 0);

    // During a tool call and during a model call: a run whose parts wait on the signal.
    let mut calls_after_cancel = 0;
    for round in 0..20 {
        let (during_tool, after) = cancel_during(round % 2 == 0).await;
        latencies.push(during_tool);
        calls_after_cancel += after;
    }
    latencies.sort();
    let p99 = latencies[(latencies.len() * 99 / 100).min(latencies.len() - 1)];
    report(
        "T10",
        &format!(
            "calls after cancel {calls_after_cancel}; payments after a cancelled pause {}; cancel latency p99 {:?} over {} cancels",
            f.ledger.payments.load(Ordering::SeqCst),
            p99,
            latencies.len()
        ),
    );
    assert_eq!(calls_after_cancel, 0);
    assert_eq!(f.ledger.payments.load(Ordering::SeqCst), 0);
    assert!(p99 < Duration::from_secs(1), "{p99:?}");
}

/// A tool that waits until cancelled.
#[tool(name = "wait-tool", description = "Waits")]
pub struct Wait {
    execution: ExecutionContext,
    seen: Arc<Seen>,
}

/// What happened to the runs cancelled: calls started, and calls started after the cancel.
#[derive(Default)]
pub struct Seen {
    started: AtomicUsize,
    cancelled: std::sync::atomic::AtomicBool,
    after: AtomicUsize,
}

impl ToolHandler for Wait {
    type Input = PlainText;
    type Output = PlainText;

    async fn run(&self, _: PlainText) -> Result<PlainText, ToolError> {
        if self.seen.cancelled.load(Ordering::SeqCst) {
            self.seen.after.fetch_add(1, Ordering::SeqCst);
        }
        self.seen.started.fetch_add(1, Ordering::SeqCst);
        self.execution.signal().cancelled().await;
        Err(ToolError::new("stopped"))
    }
}

/// Waits in its tool, or in its model.
#[agent(name = "waiter", prompt = "../prompts/helper.prompt.md", model = "test/waiter", tools = [Wait])]
pub struct Waiter;

/// A model that calls `wait-tool`, or hangs until cancelled when `hang` is set, and counts
/// calls made after the cancel.
pub struct WaiterModel {
    hang: bool,
    seen: Arc<Seen>,
}

impl ChatModel for WaiterModel {
    fn chat<'a>(&'a self, _: &'a ChatRequest, signal: &'a Signal) -> ChatFuture<'a> {
        Box::pin(async move {
            if self.seen.cancelled.load(Ordering::SeqCst) {
                self.seen.after.fetch_add(1, Ordering::SeqCst);
            }
            self.seen.started.fetch_add(1, Ordering::SeqCst);
            if self.hang {
                signal.cancelled().await;
                return Err(agboss::model::ModelError::Aborted(signal.reason().unwrap()));
            }
            Ok(ChatResponse {
                tool_calls: vec![ToolCall {
                    provider_id: None,
                    name: "wait-tool".into(),
                    arguments: r#"{"text": "x"}"#.into(),
                }],
                ..ChatResponse::default()
            })
        })
    }
}

/// Cancels a run while its tool (or its model) waits; the time from the cancel to the run's
/// end, and the calls started after the cancel.
async fn cancel_during(in_tool: bool) -> (Duration, usize) {
    let seen = Arc::new(Seen::default());
    let app = Arc::new(
        Application::builder("waiting")
            .workflow(Workflow::new("desk").agent::<Waiter>())
            .provide(seen.clone())
            .chat_model(Arc::new(WaiterModel {
                hang: !in_tool,
                seen: seen.clone(),
            }))
            .build()
            .unwrap(),
    );
    let run = tokio::spawn({
        let app = app.clone();
        async move { app.run("desk", "wait").execution_id("e-w").await }
    });
    while seen.started.load(Ordering::SeqCst) < if in_tool { 2 } else { 1 } {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    seen.cancelled.store(true, Ordering::SeqCst);
    let started = Instant::now();
    app.cancel("e-w", "stop").await.unwrap();
    let ended = run.await.unwrap();
    let latency = started.elapsed();
    let error = ended.unwrap_err();
    assert_eq!(error.code(), "cancelled", "{error}");
    (latency, seen.after.load(Ordering::SeqCst))
}
