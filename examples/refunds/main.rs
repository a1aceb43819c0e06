//! The Tools page's refund flow: a tool that refunds a card waits for a finance manager's
//! approval. Twice: once asked on the terminal (answers come from standard input), once through
//! a channel that posts to an inbox and answers later, through `Application::resume`.
//!
//! ```text
//! cargo run --example refunds                  # the inbox, answered later by "manager-17"
//! echo y | cargo run --example refunds -- terminal
//! echo "n not this month" | cargo run --example refunds -- terminal
//! ```
//!
//! No API key is needed: a scripted model plays the cashier.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use agboss::app::Resume;
use agboss::channel::{ChannelAsk, TerminalUserChannel};
use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::run::RunOutcome;
use agboss::{Application, Workflow};
use serde_json::json;

/// A refund of one card payment.
#[dto]
pub struct RefundCardInput {
    /// The order whose payment is refunded.
    pub order_id: String,
    /// How much, in cents.
    pub amount_cents: u64,
}

/// What the payment provider said.
#[dto]
pub struct RefundCardOutput {
    /// The refund's status.
    pub status: String,
}

/// Approves card refunds; the finance channel answers.
#[channel_role(
    name = "refund-approval-channel",
    description = "Approves card refunds",
    approves = RefundCardInput,
    answered_by = Channel,
)]
pub struct RefundApprovalChannel;

/// The finance team's inbox: where refund questions are posted, with their pause ids.
#[derive(Default)]
pub struct FinanceInbox {
    posts: Mutex<Vec<(String, String)>>,
}

impl FinanceInbox {
    /// Posts `text` under `pause_id` (the idempotency key: a retried post is not doubled).
    fn post(&self, pause_id: &str, text: String) {
        let mut posts = self.posts.lock().unwrap();
        if !posts.iter().any(|(id, _)| id == pause_id) {
            posts.push((pause_id.to_owned(), text));
        }
    }

    /// Everything posted, oldest first.
    fn posts(&self) -> Vec<(String, String)> {
        self.posts.lock().unwrap().clone()
    }
}

/// Asks a finance manager through the inbox; the answer comes later.
#[channel(
    name = "finance-inbox-channel",
    description = "Posts refunds to the finance inbox"
)]
pub struct FinanceInboxChannel {
    inbox: Arc<FinanceInbox>,
}

impl ChannelHandler for FinanceInboxChannel {
    type Role = RefundApprovalChannel;

    async fn send(
        &self,
        ask: ChannelAsk<RefundApprovalChannel>,
    ) -> Result<ChannelOutcome<RefundApprovalChannel>, ToolError> {
        let refund = &ask.value.arguments;
        self.inbox.post(
            &ask.pause_id,
            format!(
                "Refund {} cents for order {}?",
                refund.amount_cents, refund.order_id
            ),
        );
        Ok(ChannelOutcome::await_reply())
    }
}

/// Refunds a card payment, once the finance channel approves.
#[tool(name = "refund-card-tool", channel = RefundApprovalChannel)]
pub struct RefundCardTool;

/// Refunds a card payment, once the person at the terminal approves.
#[tool(name = "refund-card-at-terminal-tool", channel = TerminalUserChannel)]
pub struct RefundCardAtTerminalTool;

/// What both tools do once approved.
fn refund(input: &RefundCardInput) -> RefundCardOutput {
    RefundCardOutput {
        status: format!(
            "refunded {} cents for {}",
            input.amount_cents, input.order_id
        ),
    }
}

impl ToolHandler for RefundCardTool {
    type Input = RefundCardInput;
    type Output = RefundCardOutput;

    async fn run(&self, input: RefundCardInput) -> Result<RefundCardOutput, ToolError> {
        Ok(refund(&input))
    }
}

impl ToolHandler for RefundCardAtTerminalTool {
    type Input = RefundCardInput;
    type Output = RefundCardOutput;

    async fn run(&self, input: RefundCardInput) -> Result<RefundCardOutput, ToolError> {
        Ok(refund(&input))
    }
}

/// Refunds through the finance inbox.
#[agent(
    name = "cashier",
    prompt = "cashier.prompt.md",
    model = "scripted/cashier",
    tools = [RefundCardTool],
)]
pub struct Cashier;

/// Refunds, asking the person at the terminal.
#[agent(
    name = "terminal-cashier",
    prompt = "cashier.prompt.md",
    model = "scripted/cashier",
    tools = [RefundCardAtTerminalTool],
)]
pub struct TerminalCashier;

/// The cashier's moves: refund order A-1001, then say what happened.
fn script(tool: &str) -> ScriptedModel {
    ScriptedModel::new([
        Turn::call(tool, json!({"order_id": "A-1001", "amount_cents": 4200})),
        Turn::text("Done: the refund of 42.00 for order A-1001 went through.")
            .expect_tool_result("refunded 4200 cents"),
    ])
}

#[cfg(test)]
fn refused_script(tool: &str) -> ScriptedModel {
    ScriptedModel::new([
        Turn::call(tool, json!({"order_id": "A-1001", "amount_cents": 4200})),
        Turn::text("The refund of order A-1001 was not approved."),
    ])
}

/// The refund, asked of the person at the terminal.
async fn at_the_terminal(app: &Application) -> Result<(), String> {
    let outcome = app
        .run_agent::<TerminalCashier>("Refund order A-1001, 42.00.")
        .on_tool_end(|end| println!("\n  · {} -> {}", end.tool, end.content))
        .await
        .map_err(|e| e.to_string())?;
    match outcome {
        RunOutcome::Completed(done) => {
            println!("cashier -> {}", done.text().unwrap_or_default());
            Ok(())
        }
        RunOutcome::Paused(_) | RunOutcome::Elsewhere(_) => {
            Err("the terminal channel decides at once; it never pauses".into())
        }
    }
}

/// The refund, posted to the inbox, answered later by a finance manager.
async fn through_the_inbox(app: &Application, inbox: &FinanceInbox) -> Result<(), String> {
    let outcome = app
        .run_agent::<Cashier>("Refund order A-1001, 42.00.")
        .await
        .map_err(|e| e.to_string())?;
    let RunOutcome::Paused(paused) = outcome else {
        return Err("the inbox answers later, so the run should wait".into());
    };
    // A channel's pauses are not listed: the inbox holds the id, the right to answer.
    println!(
        "cashier waits (execution {}); pending for the thread's owner: {}",
        paused.execution_id,
        paused.pending.len()
    );
    let posts = inbox.posts();
    for (pause_id, text) in &posts {
        println!("finance inbox: {text} (pause {pause_id})");
    }
    let (pause_id, _) = posts.first().ok_or("nothing was posted")?;
    println!("manager-17 approves");
    let outcome = app
        .resume(
            Resume::decision(
                pause_id,
                ToolCallApprovalDecision::<RefundCardInput>::approve(),
            )
            .answered_by("manager-17"),
        )
        .await
        .map_err(|e| e.to_string())?;
    println!("cashier -> {}", outcome.text().unwrap_or_default());
    Ok(())
}

fn application(model: ScriptedModel, inbox: Arc<FinanceInbox>) -> Result<Application, String> {
    Application::builder("refunds")
        .workflow(
            Workflow::new("shop")
                .agent::<Cashier>()
                .agent::<TerminalCashier>(),
        )
        .provide(inbox)
        .channel::<FinanceInboxChannel>()
        .chat_model(Arc::new(model))
        .build()
        .map_err(|e| e.to_string())
}

#[tokio::main]
async fn main() -> ExitCode {
    let terminal = std::env::args().nth(1).as_deref() == Some("terminal");
    let inbox = Arc::new(FinanceInbox::default());
    let model = if terminal {
        // The script cannot know the answer: it reads the tool's result either way.
        ScriptedModel::new([
            Turn::call(
                "refund-card-at-terminal-tool",
                json!({"order_id": "A-1001", "amount_cents": 4200}),
            ),
            Turn::text("The cashier reports what the terminal said."),
        ])
    } else {
        script("refund-card-tool")
    };
    let app = match application(model, inbox.clone()) {
        Ok(app) => app,
        Err(problems) => {
            eprintln!("{problems}");
            return ExitCode::FAILURE;
        }
    };
    let done = if terminal {
        at_the_terminal(&app).await
    } else {
        through_the_inbox(&app, &inbox).await
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_inbox_flow_completes_once_the_manager_approves() {
        let inbox = Arc::new(FinanceInbox::default());
        let app = application(script("refund-card-tool"), inbox.clone()).unwrap();
        through_the_inbox(&app, &inbox).await.unwrap();
        assert_eq!(inbox.posts().len(), 1, "posted once");
    }

    #[tokio::test]
    async fn a_refusal_through_the_inbox_reaches_the_model() {
        let inbox = Arc::new(FinanceInbox::default());
        let app = application(refused_script("refund-card-tool"), inbox.clone()).unwrap();
        let paused = app
            .run_agent::<Cashier>("Refund order A-1001, 42.00.")
            .await
            .unwrap();
        assert!(paused.paused().is_some());
        let (pause_id, _) = inbox.posts()[0].clone();
        let outcome = app
            .resume(
                Resume::decision(
                    &pause_id,
                    ToolCallApprovalDecision::<RefundCardInput>::refuse("over the monthly limit"),
                )
                .answered_by("manager-17"),
            )
            .await
            .unwrap();
        assert_eq!(
            outcome.text(),
            Some("The refund of order A-1001 was not approved.")
        );
    }
}
