//! What a watched run (`app.run(..).stream()`) hands whoever watches it: `Finished` last and
//! once, even when a call the step judged timed out goes on running on its thread and reports
//! progress after the run ended; and never the id of a pause its channel answers, since that id
//! is the right to answer it.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::run::RunEvent;
use agboss::time::ManualClock;
use agboss::units::millis;
use agboss::{Application, Workflow};
use serde_json::json;

#[dto]
pub struct Job {
    /// What to do.
    pub what: String,
}

/// Lets a stuck tool go, and hears when it has reported.
pub struct Latch {
    release: std::sync::Mutex<mpsc::Receiver<()>>,
    reported: std::sync::Mutex<mpsc::Sender<()>>,
}

/// Holds its thread until released (it never awaits, so only the step can time it out), then
/// reports progress: after its run ended.
#[tool(name = "stuck-tool", timeout = millis(50))]
pub struct Stuck {
    context: ExecutionContext,
    latch: Arc<Latch>,
}

impl ToolHandler for Stuck {
    type Input = Job;
    type Output = PlainText;

    async fn run(&self, _input: Job) -> Result<PlainText, ToolError> {
        let _ = self.latch.release.lock().unwrap().recv();
        self.context
            .report_progress(Progress::new(1, Some(1)).message("done at last"));
        let _ = self.latch.reported.lock().unwrap().send(());
        Ok(PlainText::new("late"))
    }
}

/// Waits for a stuck tool.
#[agent(
    name = "worker",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [Stuck]
)]
pub struct Worker;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_comes_after_finished_even_from_a_call_left_running() {
    agboss::model::forbid_real_requests(true);
    let (release, released) = mpsc::channel();
    let (reported, heard) = mpsc::channel();
    let latch = Arc::new(Latch {
        release: std::sync::Mutex::new(released),
        reported: std::sync::Mutex::new(reported),
    });
    let clock = ManualClock::new();
    let model = ScriptedModel::new([
        Turn::call("stuck-tool", json!({"what": "wait"})),
        Turn::text("gave up").expect_tool_result("Tool error: timed out after 50 ms"),
    ]);
    let app = Application::builder("desk")
        .workflow(Workflow::new("desk").agent::<Worker>())
        .provide(latch)
        .clock(Clock::from(clock.clone()))
        .chat_model(Arc::new(model))
        .build()
        .unwrap();
    let mut run = app.run("desk", "go").stream();
    loop {
        match run.next().await {
            Some(RunEvent::ToolStarted { .. }) => break,
            Some(_) => {}
            None => panic!("the run ended before its call started"),
        }
    }
    // Past the timeout and the grace: the step judges the call, the model answers, the run ends.
    clock.advance(
        Duration::from_millis(50) + agboss::tool::TIMEOUT_GRACE + Duration::from_millis(1),
    );
    let finished = loop {
        match run.next().await {
            Some(RunEvent::Finished(outcome)) => break outcome,
            Some(_) => {}
            None => panic!("the stream ended without `Finished`"),
        }
    };
    assert_eq!(finished.unwrap().text(), Some("gave up"));
    // The call that was left running now reports progress, after the end.
    release.send(()).unwrap();
    heard
        .recv_timeout(Duration::from_secs(10))
        .expect("the tool reported");
    assert!(run.next().await.is_none(), "an event after `Finished`");
    assert!(run.next().await.is_none());
}

#[dto]
pub struct Transfer {
    /// The account.
    pub account: String,
    /// How much, in cents.
    pub cents: u64,
}

/// Approves transfers; a manager answers in the bank's own system.
#[channel_role(name = "transfer-approval-channel", approves = Transfer, answered_by = Channel)]
pub struct TransferApproval;

/// Posts each transfer to the bank's queue: the pause id goes there and nowhere else.
#[channel(name = "bank-queue-channel")]
pub struct BankQueue {
    posted: Arc<std::sync::Mutex<Vec<String>>>,
}

impl ChannelHandler for BankQueue {
    type Role = TransferApproval;

    async fn send(
        &self,
        ask: ChannelAsk<TransferApproval>,
    ) -> Result<ChannelOutcome<TransferApproval>, ToolError> {
        self.posted.lock().unwrap().push(ask.pause_id.clone());
        Ok(ChannelOutcome::await_reply())
    }
}

/// Moves money.
#[tool(name = "transfer-tool", channel = TransferApproval)]
pub struct TransferTool;

impl ToolHandler for TransferTool {
    type Input = Transfer;
    type Output = PlainText;

    async fn run(&self, input: Transfer) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!(
            "sent {} to {}",
            input.cents, input.account
        )))
    }
}

/// Moves money.
#[agent(
    name = "teller",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [TransferTool]
)]
pub struct Teller;

#[tokio::test]
async fn a_watched_run_never_hands_out_the_id_of_a_pause_its_channel_answers() {
    agboss::model::forbid_real_requests(true);
    let posted = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let model = ScriptedModel::new([Turn::call(
        "transfer-tool",
        json!({"account": "DE-1", "cents": 5_000}),
    )]);
    let app = Application::builder("bank")
        .workflow(Workflow::new("bank").agent::<Teller>())
        .channel::<BankQueue>()
        .provide(posted.clone())
        .chat_model(Arc::new(model))
        .build()
        .unwrap();
    let mut events = Vec::new();
    let outcome = app
        .run("bank", "pay DE-1")
        .owner("ann")
        .stream()
        .watch(|event| events.push(format!("{event:?}")))
        .await
        .unwrap();
    let paused = outcome.paused().expect("the transfer waits for the bank");
    assert!(paused.pending.is_empty(), "{paused:?}");
    let pause_id = posted.lock().unwrap()[0].clone();
    let waiting: Vec<&String> = events
        .iter()
        .filter(|e| e.starts_with("PauseWaiting"))
        .collect();
    assert_eq!(waiting.len(), 1, "{events:?}");
    assert!(waiting[0].contains("pause_id: None"), "{}", waiting[0]);
    assert!(
        waiting[0].contains("answered_by: Channel"),
        "{}",
        waiting[0]
    );
    for event in &events {
        assert!(
            !event.contains(&pause_id),
            "the pause's id reached a watcher: {event}"
        );
    }
}
