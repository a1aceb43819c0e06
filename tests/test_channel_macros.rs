//! `#[channel_role]`, `#[channel]` and `#[tool(channel = ..)]` through the facade: what the
//! descriptors say, that a listed channel answers its role's calls with its dependencies
//! resolved, and every assembly problem of channels (missing, ambiguous, provided by a workflow,
//! one interpreter in two roles), together in one error.

use std::sync::{Arc, Mutex};

use agboss::channel::{
    Approves, AutoApproveChannel, Channel, ChannelRole, DecisionModel, PauseAnswerer,
    RoleDescriptor, RoleForm,
};
use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::store::MemoryStore;
use agboss::tool::Tool;
use agboss::{Application, AssemblyError, Resume, Workflow};
use serde_json::json;

/// A card refund.
#[dto]
pub struct RefundInput {
    /// The order.
    pub order_id: String,
    /// How much, in cents.
    pub amount_cents: u64,
}

/// What the refund did.
#[dto]
pub struct RefundOutput {
    /// Its status.
    pub status: String,
}

/// Approves card refunds.
#[channel_role(
    name = "refund-approval-channel",
    approves = RefundInput,
    answered_by = PauseAnswerer::Channel,
)]
pub struct RefundApproval;

/// A note to save.
#[dto]
pub struct NoteInput {
    /// Its text.
    pub text: String,
}

/// Reads a reply to a note's approval with a model that may only approve or refuse.
#[derive(Default)]
pub struct NoteDecider;

impl DecisionModel for NoteDecider {
    const MODEL: &'static str = "openai/gpt-5-mini";
}

#[channel_role(
    name = "note-approval-channel",
    description = "Approves saved notes",
    approves = NoteInput,
    answered_by = ThreadOwner,
    reply_interpreter = NoteDecider,
)]
pub struct NoteApproval;

/// Approves expenses; its interpreter is also the travel role's.
#[channel_role(
    name = "expense-approval-channel",
    approves = NoteInput,
    answered_by = Channel,
    reply_interpreter = FinanceDecider,
)]
pub struct ExpenseApproval;

/// Approves travel, read by the expense role's interpreter.
#[channel_role(
    name = "travel-approval-channel",
    approves = RefundInput,
    answered_by = Channel,
    reply_interpreter = FinanceDecider,
)]
pub struct TravelApproval;

/// Reads finance replies.
#[derive(Default)]
pub struct FinanceDecider;

impl DecisionModel for FinanceDecider {
    const MODEL: &'static str = "openai/gpt-5-mini";
}

/// Where the finance team is asked.
pub trait Slack: Send + Sync {
    /// Posts `text`, once per `key`.
    fn post(&self, text: String, key: String);
}

/// A Slack that keeps what was posted.
#[derive(Default)]
pub struct RecordingSlack {
    posts: Mutex<Vec<(String, String)>>,
}

impl Slack for RecordingSlack {
    fn post(&self, text: String, key: String) {
        self.posts.lock().unwrap().push((text, key));
    }
}

impl RecordingSlack {
    fn posts(&self) -> Vec<(String, String)> {
        self.posts.lock().unwrap().clone()
    }
}

/// Asks a finance manager in Slack; approves up to $50 at once.
#[channel(name = "slack-refund-approval-channel")]
pub struct SlackRefundApproval {
    execution: ExecutionContext,
    slack: Arc<dyn Slack>,
}

impl ChannelHandler for SlackRefundApproval {
    type Role = RefundApproval;

    async fn send(
        &self,
        ask: ChannelAsk<RefundApproval>,
    ) -> Result<ChannelOutcome<RefundApproval>, ToolError> {
        let cents = ask.value.arguments.amount_cents;
        self.slack.post(
            format!(
                "Refund {cents}c of {} (execution {})?",
                ask.value.arguments.order_id,
                self.execution.execution_id()
            ),
            ask.pause_id,
        );
        if cents <= 5_000 {
            return Ok(ChannelOutcome::decided(ToolCallApprovalDecision::approve()));
        }
        Ok(ChannelOutcome::await_reply())
    }
}

/// Asks the finance team in Teams; answers nothing itself.
#[channel(name = "teams-refund-approval-channel", description = "Asks in Teams")]
pub struct TeamsRefundApproval {
    teams: Arc<dyn Slack>,
}

impl ChannelHandler for TeamsRefundApproval {
    type Role = RefundApproval;

    async fn send(
        &self,
        ask: ChannelAsk<RefundApproval>,
    ) -> Result<ChannelOutcome<RefundApproval>, ToolError> {
        self.teams.post("refund?".into(), ask.pause_id);
        Ok(ChannelOutcome::await_reply())
    }
}

/// Asks the thread's owner about notes, later.
#[channel(
    name = "inbox-note-approval-channel",
    description = "Asks in the owner's inbox"
)]
pub struct InboxNoteApproval;

impl ChannelHandler for InboxNoteApproval {
    type Role = NoteApproval;

    async fn send(
        &self,
        _: ChannelAsk<NoteApproval>,
    ) -> Result<ChannelOutcome<NoteApproval>, ToolError> {
        Ok(ChannelOutcome::await_reply())
    }
}

/// Approves expenses at once.
#[channel(name = "expense-desk-channel", description = "The expense desk")]
pub struct ExpenseDesk;

impl ChannelHandler for ExpenseDesk {
    type Role = ExpenseApproval;

    async fn send(
        &self,
        _: ChannelAsk<ExpenseApproval>,
    ) -> Result<ChannelOutcome<ExpenseApproval>, ToolError> {
        Ok(ChannelOutcome::decided(ToolCallApprovalDecision::approve()))
    }
}

/// Approves travel at once.
#[channel(name = "travel-desk-channel", description = "The travel desk")]
pub struct TravelDesk;

impl ChannelHandler for TravelDesk {
    type Role = TravelApproval;

    async fn send(
        &self,
        _: ChannelAsk<TravelApproval>,
    ) -> Result<ChannelOutcome<TravelApproval>, ToolError> {
        Ok(ChannelOutcome::decided(ToolCallApprovalDecision::approve()))
    }
}

/// Refunds a card payment.
#[tool(name = "refund-card-tool", channel = RefundApproval)]
pub struct RefundCard;

impl ToolHandler for RefundCard {
    type Input = RefundInput;
    type Output = RefundOutput;

    async fn run(&self, input: RefundInput) -> Result<RefundOutput, ToolError> {
        Ok(RefundOutput {
            status: format!(
                "refunded {} cents of {}",
                input.amount_cents, input.order_id
            ),
        })
    }
}

/// Saves a note.
#[tool(name = "note-save-tool", channel = NoteApproval)]
pub struct NoteSave;

/// Files an expense.
#[tool(name = "expense-file-tool", channel = ExpenseApproval)]
pub struct ExpenseFile;

/// Books travel.
#[tool(name = "travel-book-tool", channel = TravelApproval)]
pub struct TravelBook;

/// Archives a note, approved at once by the built-in channel.
#[tool(name = "note-archive-tool", channel = AutoApproveChannel)]
pub struct NoteArchive;

macro_rules! echo_note {
    ($($ty:ty),*) => {$(
        impl ToolHandler for $ty {
            type Input = NoteInput;
            type Output = PlainText;

            async fn run(&self, input: NoteInput) -> Result<PlainText, ToolError> {
                Ok(PlainText::new(input.text))
            }
        }
    )*};
}

echo_note!(NoteSave, ExpenseFile, NoteArchive);

impl ToolHandler for TravelBook {
    type Input = RefundInput;
    type Output = RefundOutput;

    async fn run(&self, input: RefundInput) -> Result<RefundOutput, ToolError> {
        Ok(RefundOutput {
            status: input.order_id,
        })
    }
}

#[agent(
    name = "cashier",
    description = "Refunds cards",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [RefundCard, NoteArchive],
)]
pub struct Cashier;

/// Compiles only when `R` approves calls whose input is `I`.
fn approves<R: Approves<I>, I>() {}

/// The codes of a failed assembly.
fn codes(error: &AssemblyError) -> Vec<&'static str> {
    let mut codes = error.codes();
    codes.sort_unstable();
    codes
}

/// The message of the one problem with `code`.
fn message<'e>(error: &'e AssemblyError, code: &str) -> &'e str {
    let found: Vec<_> = error
        .problems()
        .iter()
        .filter(|p| p.code() == code)
        .collect();
    assert_eq!(found.len(), 1, "{error}");
    found[0].message()
}

fn slack() -> Arc<RecordingSlack> {
    Arc::new(RecordingSlack::default())
}

#[test]
fn an_approval_role_is_described_as_declared() {
    let role: &RoleDescriptor = RefundApproval::DESCRIPTOR;
    assert_eq!(role.name(), "refund-approval-channel");
    assert_eq!(role.description(), "Approves card refunds.");
    assert_eq!(role.rust_type(), "RefundApproval");
    assert_eq!(role.answered_by(), PauseAnswerer::Channel);
    assert_eq!(
        role.form(),
        RoleForm::Approval {
            approves: "RefundInput"
        }
    );
    assert!(role.interpreter().is_none());
    assert_eq!(role.expires_after(), None);
    assert!(role.location().file.ends_with("test_channel_macros.rs"));
    // The question carries the tool's typed arguments; the answer is a decision.
    let question = role.question_schema();
    assert_eq!(
        question["required"],
        json!(["tool", "call_id", "arguments", "arguments_digest"]),
        "{question}"
    );
    let answer = role.answer_schema().to_string();
    assert!(
        answer.contains("\"approve\"") && answer.contains("\"refuse\""),
        "{answer}"
    );
    approves::<RefundApproval, <RefundCard as ToolHandler>::Input>();

    let notes = NoteApproval::DESCRIPTOR;
    assert_eq!(notes.answered_by(), PauseAnswerer::ThreadOwner);
    assert!(
        notes
            .interpreter()
            .unwrap()
            .rust_type()
            .ends_with("NoteDecider")
    );
    approves::<NoteApproval, <NoteSave as ToolHandler>::Input>();
}

#[test]
fn a_channel_is_described_with_its_role_and_dependencies() {
    let channel = SlackRefundApproval::DESCRIPTOR;
    assert_eq!(channel.name(), "slack-refund-approval-channel");
    assert_eq!(
        channel.description(),
        "Asks a finance manager in Slack; approves up to $50 at once."
    );
    assert_eq!(channel.rust_type(), "SlackRefundApproval");
    assert!(std::ptr::eq(channel.role(), RefundApproval::DESCRIPTOR));
    let fields: Vec<(&str, &str)> = channel
        .dependencies()
        .iter()
        .map(|d| (d.field(), d.type_written()))
        .collect();
    assert_eq!(
        fields,
        [
            ("execution", "ExecutionContext"),
            ("slack", "Arc<dyn Slack>")
        ]
    );
    assert!(InboxNoteApproval::DESCRIPTOR.dependencies().is_empty());
}

#[test]
fn a_tool_names_its_role_in_its_descriptor() {
    let approval = RefundCard::DESCRIPTOR.approval().unwrap();
    assert_eq!(approval.role(), "refund-approval-channel");
    let declared = approval.declaration::<RoleDescriptor>().unwrap();
    assert!(std::ptr::eq(declared, RefundApproval::DESCRIPTOR));
    let builtin = NoteArchive::DESCRIPTOR.approval().unwrap();
    assert_eq!(builtin.role(), "auto-approve-channel");
    approves::<AutoApproveChannel, NoteInput>();
    approves::<AutoApproveChannel, RefundInput>();
}

#[test]
fn a_listed_channel_answers_its_role_and_a_built_in_one_needs_no_listing() {
    let app = Application::builder("refunds")
        .workflow(Workflow::new("desk").agent::<Cashier>())
        .provide::<dyn Slack>(slack())
        .channel::<SlackRefundApproval>()
        .build();
    assert!(app.is_ok(), "{}", app.err().unwrap());
}

#[tokio::test]
async fn the_channel_is_built_with_its_dependencies_and_asked_with_typed_arguments() {
    agboss::model::forbid_real_requests(true);
    let posts = slack();
    let model = ScriptedModel::new([
        Turn::call(
            "refund-card-tool",
            json!({"order_id": "o-1", "amount_cents": 1200}),
        ),
        Turn::text("Refunded at once.").expect_tool_result("refunded 1200 cents of o-1"),
        Turn::call(
            "refund-card-tool",
            json!({"order_id": "o-2", "amount_cents": 12000}),
        ),
        Turn::text("Refunded once approved.").expect_tool_result("refunded 12000 cents of o-2"),
    ]);
    let app = Application::builder("refunds")
        .store(Arc::new(MemoryStore::new()))
        .workflow(Workflow::new("desk").agent::<Cashier>())
        .provide::<dyn Slack>(posts.clone())
        .channel::<SlackRefundApproval>()
        .chat_model(Arc::new(model))
        .build()
        .unwrap();

    // Up to $50: the channel decides at once, and the run goes on.
    let done = app
        .run("desk", "refund o-1")
        .execution_id("e-1")
        .await
        .unwrap();
    assert_eq!(done.text(), Some("Refunded at once."));
    let (text, first_pause) = posts.posts()[0].clone();
    assert_eq!(text, "Refund 1200c of o-1 (execution e-1)?");
    assert!(
        first_pause.len() >= 32,
        "an unguessable pause id: {first_pause}"
    );

    // Over $50: the run pauses; a channel pause is never listed, its id is in the post.
    let outcome = app
        .run("desk", "refund o-2")
        .execution_id("e-2")
        .await
        .unwrap();
    let paused = outcome.paused().expect("the run waits");
    assert!(paused.pending.is_empty());
    let (text, pause_id) = posts.posts()[1].clone();
    assert_eq!(text, "Refund 12000c of o-2 (execution e-2)?");
    let done = app
        .resume(
            Resume::decision(pause_id, ToolCallApprovalDecision::<RefundInput>::approve())
                .answered_by("manager-17"),
        )
        .await
        .unwrap();
    assert_eq!(done.text(), Some("Refunded once approved."));
}

#[test]
fn a_role_without_a_channel_is_a_missing_implementation() {
    let error = Application::builder("refunds")
        .workflow(Workflow::new("desk").tool::<RefundCard>())
        .build()
        .err()
        .expect("assembly fails");
    assert_eq!(codes(&error), ["di.missing-implementation"]);
    let message = message(&error, "di.missing-implementation");
    assert!(message.contains("tool `refund-card-tool`"), "{message}");
    assert!(
        message.contains("a channel for role `refund-approval-channel`"),
        "{message}"
    );
}

#[test]
fn two_channels_for_one_role_are_ambiguous() {
    let error = Application::builder("refunds")
        .workflow(Workflow::new("desk").tool::<RefundCard>())
        .provide::<dyn Slack>(slack())
        .channel::<SlackRefundApproval>()
        .channel::<TeamsRefundApproval>()
        .build()
        .err()
        .expect("assembly fails");
    assert_eq!(codes(&error), ["di.ambiguous-implementation"]);
    let message = message(&error, "di.ambiguous-implementation");
    assert!(
        message.contains("slack-refund-approval-channel, teams-refund-approval-channel"),
        "{message}"
    );
}

#[test]
fn a_channel_provided_by_a_workflow_is_infrastructure_and_by_the_application_is_not() {
    let teams = || Arc::new(TeamsRefundApproval { teams: slack() });
    let error = Application::builder("refunds")
        .workflow(Workflow::new("desk").tool::<RefundCard>().provide(teams()))
        .provide::<dyn Slack>(slack())
        .channel::<TeamsRefundApproval>()
        .build()
        .err()
        .expect("assembly fails");
    assert_eq!(codes(&error), ["di.infrastructure-in-workflow"]);
    let message = message(&error, "di.infrastructure-in-workflow");
    assert!(
        message.starts_with("workflow `desk` provides `"),
        "{message}"
    );
    assert!(
        message.contains(
            "TeamsRefundApproval`, channel `teams-refund-approval-channel` (the application lists it: `.channel::<TeamsRefundApproval>()`)"
        ),
        "{message}"
    );

    let app = Application::builder("refunds")
        .workflow(Workflow::new("desk").tool::<RefundCard>())
        .provide(teams())
        .provide::<dyn Slack>(slack())
        .channel::<TeamsRefundApproval>()
        .build();
    assert!(app.is_ok(), "{}", app.err().unwrap());
}

#[test]
fn one_interpreter_in_two_roles_is_shared() {
    let error = Application::builder("finance")
        .workflow(
            Workflow::new("desk")
                .tool::<ExpenseFile>()
                .tool::<TravelBook>(),
        )
        .channel::<ExpenseDesk>()
        .channel::<TravelDesk>()
        .build()
        .err()
        .expect("assembly fails");
    assert_eq!(codes(&error), ["channel.shared-interpreter"]);
    let message = message(&error, "channel.shared-interpreter");
    assert!(message.contains("FinanceDecider"), "{message}");
    assert!(
        message.contains("`expense-approval-channel` and `travel-approval-channel`")
            || message.contains("`travel-approval-channel` and `expense-approval-channel`"),
        "{message}"
    );
}

#[test]
fn every_channel_problem_is_in_one_assembly_error() {
    let error = Application::builder("everything")
        .workflow(
            Workflow::new("desk")
                .tool::<RefundCard>()
                .tool::<NoteSave>()
                .tool::<ExpenseFile>()
                .tool::<TravelBook>()
                .provide(Arc::new(TeamsRefundApproval { teams: slack() })),
        )
        .provide::<dyn Slack>(slack())
        .channel::<SlackRefundApproval>()
        .channel::<TeamsRefundApproval>()
        .channel::<ExpenseDesk>()
        .channel::<TravelDesk>()
        .build()
        .err()
        .expect("assembly fails");
    assert_eq!(
        codes(&error),
        [
            "channel.shared-interpreter",
            "di.ambiguous-implementation",
            "di.infrastructure-in-workflow",
            "di.missing-implementation",
        ],
        "{error}"
    );
    assert!(message(&error, "di.missing-implementation").contains("role `note-approval-channel`"));
}
