//! The gates a call passes before it runs, failing closed: a check-in reads the arguments as
//! the call contract accepts them (empty arguments, the `null`s OpenAI's strict mode sends for
//! optional fields), a checker's `Ask` is never dropped, a tool with both a channel and a
//! check-in asks its own role, and a gate that cannot decide (a predicate that panics) asks a
//! person instead of letting the call run. Each on the whole and the streamed path.
//!
//! And who answers what a run may wait for: a tool that asks a question of a role its thread's
//! owner answers, or checks in under such a check-in role, makes its agent need an owner, so a
//! run without one is refused before the first model call rather than left waiting for an
//! answer nobody may give.

use std::sync::{Arc, Mutex};

use agboss::dto::Value;
use agboss::model::{ScriptedModel, Turn};
use agboss::policy::{Permission, PermissionChecker, PermissionRequest};
use agboss::prelude::*;
use agboss::run::{RunError, RunOutcome};
use agboss::tool::Capability;
use agboss::{Application, Workflow};
use serde_json::json;

/// Approves any call; the thread's owner answers.
#[channel_role(name = "desk-approval-channel", approves = Value, answered_by = ThreadOwner)]
pub struct DeskApproval;

fixtures::inbox! {
    /// Leaves the question in the owner's inbox.
    #[channel(name = "desk-inbox-channel")]
    pub struct DeskInbox for DeskApproval;
}

/// What the tools did.
#[derive(Default)]
pub struct Effects(Mutex<Vec<String>>);

impl Effects {
    fn did(&self, what: String) {
        self.0.lock().unwrap().push(what);
    }

    fn done(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

#[dto]
pub struct RefundInput {
    /// The order.
    pub order: String,
    /// How much, in cents.
    pub cents: u64,
    /// A note for the customer (OpenAI's strict mode sends `null` when there is none).
    #[serde(default)]
    pub note: String,
}

/// Refunds over $1,000 need a person.
fn over_1000(input: &RefundInput, _context: &ExecutionContext) -> bool {
    input.cents > 100_000
}

/// Refunds an order to the card it was paid with.
#[tool(name = "refund-card-tool", capabilities = [Money], check_in = over_1000)]
pub struct RefundCard {
    effects: Arc<Effects>,
}

impl ToolHandler for RefundCard {
    type Input = RefundInput;
    type Output = PlainText;

    async fn run(&self, input: RefundInput) -> Result<PlainText, ToolError> {
        self.effects
            .did(format!("refund {} {}", input.order, input.cents));
        Ok(PlainText::new("refunded"))
    }
}

/// Approves payouts; the thread's owner answers.
#[channel_role(name = "payout-approval-channel", approves = RefundInput, answered_by = ThreadOwner)]
pub struct PayoutApproval;

fixtures::inbox! {
    /// Leaves the payout in the owner's inbox.
    #[channel(name = "payout-inbox-channel")]
    pub struct PayoutInbox for PayoutApproval;
}

/// Pays an order out, asking its own role when the sum is large.
#[tool(name = "payout-tool", channel = PayoutApproval, check_in = over_1000)]
pub struct Payout {
    effects: Arc<Effects>,
}

impl ToolHandler for Payout {
    type Input = RefundInput;
    type Output = PlainText;

    async fn run(&self, input: RefundInput) -> Result<PlainText, ToolError> {
        self.effects
            .did(format!("payout {} {}", input.order, input.cents));
        Ok(PlainText::new("paid"))
    }
}

#[dto]
pub struct SweepInput {
    /// Only say what would go.
    #[serde(default)]
    pub dry_run: bool,
}

/// A sweep that deletes something checks in.
fn unless_dry_run(input: &SweepInput, _context: &ExecutionContext) -> bool {
    !input.dry_run
}

/// Deletes old records.
#[tool(name = "sweep-tool", check_in = unless_dry_run)]
pub struct Sweep {
    effects: Arc<Effects>,
}

impl ToolHandler for Sweep {
    type Input = SweepInput;
    type Output = PlainText;

    async fn run(&self, input: SweepInput) -> Result<PlainText, ToolError> {
        self.effects.did(format!("sweep dry_run={}", input.dry_run));
        Ok(PlainText::new("swept"))
    }
}

/// A check-in written with a bug.
fn broken(_input: &SweepInput, _context: &ExecutionContext) -> bool {
    panic!("the ledger is not loaded")
}

/// Archives old records.
#[tool(name = "archive-tool", check_in = broken)]
pub struct Archive {
    effects: Arc<Effects>,
}

impl ToolHandler for Archive {
    type Input = SweepInput;
    type Output = PlainText;

    async fn run(&self, _input: SweepInput) -> Result<PlainText, ToolError> {
        self.effects.did("archive".into());
        Ok(PlainText::new("archived"))
    }
}

/// Helps with the desk's work.
#[agent(
    name = "clerk",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [RefundCard, Payout, Sweep, Archive]
)]
pub struct Clerk;

/// Asks a person about every payment.
struct AskAboutMoney;

impl PermissionChecker for AskAboutMoney {
    fn name(&self) -> &str {
        "ask-about-money"
    }

    fn governs(&self) -> &[Capability] {
        &[Capability::Money]
    }

    fn check(&self, _request: &PermissionRequest<'_>) -> Permission {
        Permission::ask("money-is-asked", "every payment is checked by a person")
    }
}

/// The desk: its application and what its tools did.
fn desk(turns: Vec<Turn>, checker: bool) -> (Application, Arc<Effects>) {
    agboss::model::forbid_real_requests(true);
    let effects = Arc::new(Effects::default());
    let mut builder = Application::builder("desk")
        .workflow(Workflow::new("desk").agent::<Clerk>())
        .channel::<DeskInbox>()
        .channel::<PayoutInbox>()
        .check_in_role::<DeskApproval>()
        .provide(effects.clone())
        .chat_model(Arc::new(ScriptedModel::new(turns)));
    if checker {
        builder = builder.permissions(AskAboutMoney);
    }
    (builder.build().unwrap(), effects)
}

/// The application's check-in role.
const DESK: &str = "desk-approval-channel";

/// A call of `tool` with `arguments` exactly as written (empty, or with `null`s).
fn call(tool: &str, arguments: &str) -> Turn {
    Turn::tool_calls(vec![agboss::model::ToolCall {
        provider_id: Some("call_0".into()),
        name: tool.into(),
        arguments: arguments.into(),
    }])
}

/// Runs the desk on `input` for ann, awaited whole or watched as a stream.
async fn run(app: &Application, input: &str, streamed: bool) -> RunOutcome {
    let run = app.run("desk", input).owner("ann");
    let outcome = match streamed {
        false => run.await,
        true => run.stream().watch(|_| {}).await,
    };
    outcome.unwrap()
}

/// On both paths: the call of `tool` with `arguments` waits for a person of `role`, asked why
/// `why`, and the tool did nothing.
async fn waits_for_a_person(tool: &str, arguments: &str, checker: bool, why: &str, role: &str) {
    for streamed in [false, true] {
        let (app, effects) = desk(vec![call(tool, arguments), Turn::text("done")], checker);
        let outcome = run(&app, "go", streamed).await;
        let paused = outcome
            .paused()
            .unwrap_or_else(|| panic!("{tool} {arguments} ran without a person: {outcome:?}"));
        let question = &paused.pending[0].question;
        let asked = question["why"].as_str().unwrap_or_default();
        assert!(asked.contains(why), "streamed {streamed}: {question}");
        assert_eq!(paused.pending[0].role, role);
        assert!(effects.done().is_empty(), "{:?}", effects.done());
    }
}

#[tokio::test]
async fn a_check_in_reads_an_optional_null_as_the_contract_does() {
    let arguments = r#"{"order":"B-2","cents":250000,"note":null}"#;
    let why = "the tool checks in with a person before this call";
    waits_for_a_person("refund-card-tool", arguments, false, why, DESK).await;
}

#[tokio::test]
async fn a_check_in_reads_empty_arguments_as_the_contract_does() {
    let why = "the tool checks in with a person before this call";
    waits_for_a_person("sweep-tool", "", false, why, DESK).await;
}

#[tokio::test]
async fn a_checkers_ask_is_kept_when_the_check_in_does_not_trip() {
    let arguments = r#"{"order":"A-1","cents":500,"note":null}"#;
    let why = "every payment is checked by a person (rule `money-is-asked`)";
    waits_for_a_person("refund-card-tool", arguments, true, why, DESK).await;
}

#[tokio::test]
async fn a_tool_with_a_channel_and_a_check_in_asks_its_own_role() {
    let arguments = r#"{"order":"B-2","cents":250000,"note":null}"#;
    let why = "the tool checks in with a person before this call";
    waits_for_a_person(
        "payout-tool",
        arguments,
        false,
        why,
        "payout-approval-channel",
    )
    .await;
}

#[tokio::test]
async fn a_check_in_that_panics_asks_a_person_instead_of_running() {
    let why = "the check-in `broken` could not decide: it panicked: the ledger is not loaded";
    waits_for_a_person("archive-tool", r#"{"dry_run":false}"#, false, why, DESK).await;
}

#[tokio::test]
async fn a_check_in_that_does_not_trip_lets_the_call_run_on_both_paths() {
    for streamed in [false, true] {
        let turns = vec![
            call("sweep-tool", r#"{"dry_run":true}"#),
            call(
                "refund-card-tool",
                r#"{"order":"A-1","cents":500,"note":null}"#,
            ),
            Turn::text("done"),
        ];
        let (app, effects) = desk(turns, false);
        let outcome = run(&app, "go", streamed).await;
        assert_eq!(outcome.text(), Some("done"), "{outcome:?}");
        assert_eq!(effects.done(), ["sweep dry_run=true", "refund A-1 500"]);
    }
}

#[tokio::test]
async fn invalid_arguments_are_refused_before_any_person_is_asked() {
    for streamed in [false, true] {
        let turns = vec![
            call("payout-tool", r#"{"order":"B-2"}"#),
            Turn::text("done").expect_tool_result("Tool error: invalid input: cents: is required"),
        ];
        let (app, effects) = desk(turns, false);
        let outcome = run(&app, "go", streamed).await;
        assert_eq!(outcome.text(), Some("done"), "{outcome:?}");
        assert!(effects.done().is_empty());
    }
}

// Who may answer what a run waits for.

#[dto]
pub struct LineQuestion {
    /// What is asked.
    pub what: String,
}

#[dto]
pub struct LineAnswer {
    /// The answer.
    pub text: String,
}

/// Asks the thread's owner a question.
#[channel_role(
    name = "owner-question-channel",
    ask = LineQuestion,
    answer = LineAnswer,
    answered_by = ThreadOwner
)]
pub struct OwnerQuestion;

fixtures::inbox! {
    /// Leaves the question in the owner's inbox.
    #[channel(name = "owner-inbox-channel")]
    pub struct OwnerInbox for OwnerQuestion;
}

/// Asks its owner which address to use.
#[tool(name = "address-tool", asks = [OwnerQuestion])]
pub struct AddressTool {
    questions: Questions,
}

impl ToolHandler for AddressTool {
    type Input = SweepInput;
    type Output = PlainText;

    async fn run(&self, _input: SweepInput) -> Result<PlainText, ToolError> {
        let question = LineQuestion {
            what: "which address?".into(),
        };
        let answer = self.questions.ask::<OwnerQuestion>(question).await?;
        Ok(PlainText::new(answer.text))
    }
}

/// Asks its owner questions.
#[agent(
    name = "asker",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [AddressTool]
)]
pub struct Asker;

/// Checks in, under the application's check-in role.
#[agent(
    name = "sweeper",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [Sweep]
)]
pub struct Sweeper;

/// Pays, under a checker that may ask.
#[agent(
    name = "payer",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [RefundCard]
)]
pub struct Payer;

fn owners_app() -> Application {
    agboss::model::forbid_real_requests(true);
    Application::builder("owners")
        .workflow(Workflow::new("ask").agent::<Asker>())
        .workflow(Workflow::new("sweep").agent::<Sweeper>())
        .workflow(Workflow::new("pay").agent::<Payer>())
        .channel::<OwnerInbox>()
        .channel::<DeskInbox>()
        .check_in_role::<DeskApproval>()
        .permissions(AskAboutMoney)
        .provide(Arc::new(Effects::default()))
        .chat_model(Arc::new(ScriptedModel::new([])))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_run_that_may_wait_for_its_owner_needs_one_whatever_makes_it_wait() {
    let app = owners_app();
    let cases = [
        ("ask", "owner-question-channel"),
        ("sweep", "desk-approval-channel"),
        ("pay", "desk-approval-channel"),
    ];
    for (workflow, role) in cases {
        let agent = &app.workflow(workflow).unwrap().agents()[0];
        assert_eq!(agent.owner_roles(), [role], "{workflow}");
        let refused = app.run(workflow, "go").await.unwrap_err();
        assert!(
            matches!(&refused, RunError::Refused(_)),
            "{workflow}: {refused:?}"
        );
        assert_eq!(refused.code(), "run.owner-required", "{workflow}");
        assert!(refused.to_string().contains(role), "{workflow}: {refused}");
    }
    let described = agboss::describe::json(&app);
    for workflow in described["workflows"].as_array().unwrap() {
        let agent = &workflow["agents"][0];
        assert_eq!(agent["needsOwner"], json!(true), "{agent}");
    }
}
