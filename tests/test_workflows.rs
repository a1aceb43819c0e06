//! Workflows inside workflows: a child's agents, tools and roles are assembled with the
//! application of the workflow that includes it, every check applies to them, their defaults
//! and providers stay their own, cycles are refused, and `describe` shows the tree.

use std::sync::Arc;

use agboss::config::Config;
use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::units::kilobytes;
use agboss::{AgentDefaults, Application, AssemblyError, ToolDefaults, Workflow};
use serde_json::json;

#[dto]
pub struct Ask {
    /// The customer.
    pub text: String,
}

#[dto]
pub struct Reply {
    pub text: String,
}

/// What each customer holds.
pub trait Ledger: Send + Sync {
    fn balance(&self, customer: &str) -> u64;
}

struct FixedLedger(u64);

impl Ledger for FixedLedger {
    fn balance(&self, _: &str) -> u64 {
        self.0
    }
}

#[tool(name = "balance-tool", description = "Reads a customer's balance")]
pub struct Balance {
    ledger: Arc<dyn Ledger>,
}

impl ToolHandler for Balance {
    type Input = Ask;
    type Output = Reply;

    async fn run(&self, input: Ask) -> Result<Reply, ToolError> {
        let cents = self.ledger.balance(&input.text);
        Ok(Reply {
            text: format!("{}: {cents}c", input.text),
        })
    }
}

/// Approves refunds; the finance desk answers.
#[channel_role(name = "refund-approval-channel", approves = Ask, answered_by = Channel)]
pub struct RefundApproval;

/// The finance desk approves every refund at once.
#[channel(name = "finance-desk-channel")]
pub struct FinanceDesk;

impl ChannelHandler for FinanceDesk {
    type Role = RefundApproval;

    async fn send(
        &self,
        _: ChannelAsk<RefundApproval>,
    ) -> Result<ChannelOutcome<RefundApproval>, ToolError> {
        Ok(ChannelOutcome::decided(ToolCallApprovalDecision::approve()))
    }
}

#[tool(name = "refund-tool", description = "Refunds a customer", channel = RefundApproval)]
pub struct Refund;

impl ToolHandler for Refund {
    type Input = Ask;
    type Output = Reply;

    async fn run(&self, input: Ask) -> Result<Reply, ToolError> {
        Ok(Reply {
            text: format!("refunded {}", input.text),
        })
    }
}

#[tool(name = "greet-tool", description = "Greets a customer")]
pub struct Greet;

impl ToolHandler for Greet {
    type Input = Ask;
    type Output = Reply;

    async fn run(&self, input: Ask) -> Result<Reply, ToolError> {
        Ok(Reply {
            text: format!("hello {}", input.text),
        })
    }
}

#[agent(
    name = "refunds",
    description = "Refunds customers",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Balance, Refund],
)]
pub struct Refunds;

#[agent(
    name = "front",
    description = "Greets customers",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Greet],
)]
pub struct Front;

/// The billing workflow, with its own ledger.
fn billing() -> Workflow {
    Workflow::new("billing")
        .agent::<Refunds>()
        .provide::<dyn Ledger>(Arc::new(FixedLedger(4_200)))
}

/// The support workflow, which includes billing.
fn support() -> Workflow {
    Workflow::new("support").agent::<Front>().include(billing())
}

fn desk(model: ScriptedModel) -> agboss::app::ApplicationBuilder {
    Application::builder("desk")
        .workflow(support())
        .channel::<FinanceDesk>()
        .chat_model(Arc::new(model))
}

fn failure(builder: agboss::app::ApplicationBuilder) -> AssemblyError {
    builder.build().err().expect("assembly fails")
}

#[tokio::test]
async fn a_child_is_a_workflow_of_the_application_and_runs_through_its_channels() {
    let model = ScriptedModel::new([
        Turn::call("balance-tool", json!({"text": "c-7"})),
        Turn::call("refund-tool", json!({"text": "c-7"}))
            .expect_tool_result(r#"{"text":"c-7: 4200c"}"#),
        Turn::text("Refunded.").expect_tool_result(r#"{"text":"refunded c-7"}"#),
    ]);
    let app = desk(model.clone()).build().unwrap();
    let names: Vec<&str> = app.workflows().iter().map(|w| w.name()).collect();
    assert_eq!(names, ["support", "billing"]);
    let support = app.workflow("support").unwrap();
    assert_eq!(support.includes(), ["billing"]);
    assert!(support.included_by().is_empty());
    assert_eq!(app.workflow("billing").unwrap().included_by(), ["support"]);

    // The child's agent runs by the child's name; its refund waits for the application's
    // channel, which approves it at once.
    let outcome = app.run("billing", "refund c-7").await.unwrap();
    assert_eq!(outcome.text(), Some("Refunded."));
    assert_eq!(model.remaining(), 0);
}

#[test]
fn a_childs_defaults_stay_its_own_and_fall_to_the_applications() {
    let parent = |child: Workflow| {
        Workflow::new("support")
            .agent::<Front>()
            .include(child)
            .defaults(
                ToolDefaults::new()
                    .max_result_size(kilobytes(32))
                    .max_tool_calls(3),
            )
            .agent_defaults(AgentDefaults::new().max_turns(5))
    };
    let app = |child: Workflow| {
        Application::builder("desk")
            .workflow(parent(child))
            .channel::<FinanceDesk>()
            .defaults(ToolDefaults::new().max_result_size(kilobytes(64)))
            .agent_defaults(AgentDefaults::new().max_turns(9))
            .build()
            .unwrap()
    };

    // A child that sets its own keeps them.
    let own = app(billing()
        .defaults(ToolDefaults::new().max_result_size(kilobytes(16)))
        .agent_defaults(AgentDefaults::new().max_turns(2)));
    let refunds = own.workflow("billing").unwrap().agent("refunds").unwrap();
    assert_eq!(
        refunds.tool("balance-tool").unwrap().bound().to_string(),
        "16 KB (billing)"
    );
    assert_eq!(refunds.max_turns().to_string(), "2 (billing)");

    // A child that sets none gets the application's, never its parent's.
    let bare = app(billing());
    let billing = bare.workflow("billing").unwrap();
    let refunds = billing.agent("refunds").unwrap();
    assert_eq!(
        refunds.tool("balance-tool").unwrap().bound().to_string(),
        "64 KB (desk)"
    );
    assert_eq!(refunds.max_turns().to_string(), "9 (desk)");
    assert_eq!(refunds.max_tool_calls().to_string(), "20 (built-in)");
    let front = bare.workflow("support").unwrap().agent("front").unwrap();
    assert_eq!(front.max_tool_calls().to_string(), "3 (support)");
    assert_eq!(front.max_turns().to_string(), "5 (support)");
}

#[test]
fn a_childs_tools_see_its_providers_and_the_applications_never_its_parents() {
    let error = failure(
        Application::builder("desk")
            .workflow(
                Workflow::new("support")
                    .provide::<dyn Ledger>(Arc::new(FixedLedger(1)))
                    .include(Workflow::new("billing").agent::<Refunds>()),
            )
            .channel::<FinanceDesk>(),
    );
    assert_eq!(
        error.to_string(),
        "application `desk` cannot start: 1 problem\n\
         [di.missing-implementation] workflow `billing` (included by `support`): tool `balance-tool` field `ledger` needs `Arc<dyn Ledger>`, which neither the workflow nor the application provides (provide `dyn workflows::Ledger`)"
    );
    // The application's serves it.
    Application::builder("desk")
        .workflow(Workflow::new("support").include(Workflow::new("billing").agent::<Refunds>()))
        .provide::<dyn Ledger>(Arc::new(FixedLedger(1)))
        .channel::<FinanceDesk>()
        .build()
        .unwrap();
}

#[test]
fn a_role_only_a_childs_tool_waits_for_needs_a_channel_on_the_application() {
    let error = failure(Application::builder("desk").workflow(support()));
    assert_eq!(error.codes(), ["di.missing-implementation"]);
    assert_eq!(
        error.problems()[0].to_string(),
        "[di.missing-implementation] tool `refund-tool` of workflow `billing` (included by `support`) needs a channel for role `refund-approval-channel`, which no channel listed on the application provides (list a `#[channel]` whose role is `RefundApproval` with `.channel::<YourChannel>()`)"
    );
}

#[test]
fn a_workflow_that_includes_itself_is_refused_with_the_path() {
    let looped = Workflow::new("support")
        .agent::<Front>()
        .include(Workflow::new("billing").include(Workflow::new("support")));
    let error = failure(Application::builder("desk").workflow(looped));
    assert_eq!(
        error.to_string(),
        "application `desk` cannot start: 1 problem\n\
         [workflow.include-cycle] workflow `support` includes itself (support → billing → support): a workflow cannot contain itself; remove one of these includes"
    );
    let direct = Workflow::new("billing").include(Workflow::new("billing"));
    let error = failure(Application::builder("desk").workflow(direct));
    assert_eq!(error.codes(), ["workflow.include-cycle"]);
    assert!(error.to_string().contains("(billing → billing)"), "{error}");
}

#[test]
fn a_child_included_twice_is_one_workflow_and_another_under_its_name_is_a_duplicate() {
    let app = desk(ScriptedModel::new([]))
        .workflow(Workflow::new("sales").include(billing()).include(billing()))
        .workflow(billing())
        .build()
        .unwrap();
    let names: Vec<&str> = app.workflows().iter().map(|w| w.name()).collect();
    assert_eq!(names, ["support", "billing", "sales"]);
    assert_eq!(
        app.workflow("billing").unwrap().included_by(),
        ["support", "sales"]
    );
    assert_eq!(app.workflow("sales").unwrap().includes(), ["billing"]);

    // Another workflow under the same name is not the same one.
    let error = failure(
        desk(ScriptedModel::new([]))
            .workflow(Workflow::new("sales").include(Workflow::new("billing").agent::<Front>())),
    );
    assert_eq!(error.codes(), ["workflow.duplicate-name"]);
}

#[test]
fn every_check_applies_inside_a_child_and_configuration_reaches_it() {
    let config = Config::from_toml(
        "desk.toml",
        r#"
        [workflows.billing.defaults.tools]
        max_result_size = "0 KB"
        "#,
    );
    let child = billing().agent::<Refunds>();
    let error = failure(
        Application::builder("desk")
            .workflow(Workflow::new("support").include(child))
            .channel::<FinanceDesk>()
            .config(config),
    );
    let messages: Vec<String> = error.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "[tools.max-result-size-invalid] workflow `billing`: defaults.tools.max_result_size: \"0 KB\" keeps nothing: a bound keeps at least 1 byte",
            "[agent.duplicate-name] workflow `billing` has two agents named `refunds`: give each its own name",
        ]
    );

    let config = Config::from_toml(
        "desk.toml",
        r#"
        [workflows.billing.defaults.tools]
        max_result_size = "8 KB"
        "#,
    );
    let app = desk(ScriptedModel::new([])).config(config).build().unwrap();
    let refunds = app.workflow("billing").unwrap().agent("refunds").unwrap();
    assert_eq!(
        refunds.tool("refund-tool").unwrap().bound().to_string(),
        "8 KB (billing)"
    );
}

#[test]
fn describe_shows_the_tree() {
    let app = desk(ScriptedModel::new([]))
        .workflow(Workflow::new("sales").include(billing()))
        .build()
        .unwrap();
    let text = agboss::describe::text(&app);
    let headers: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("workflow "))
        .collect();
    assert_eq!(
        headers,
        [
            "workflow support",
            "  workflow billing (included by support, sales)",
            "workflow sales",
            "  workflow billing (included by support, sales): described above",
        ]
    );
    assert!(
        text.contains("\n    refunds  openai/gpt-5-mini"),
        "the child's agent one level deeper:\n{text}"
    );
    assert!(
        text.contains(
            "\n      · refund-tool (write, local, waits for approval: refund-approval-channel)"
        ),
        "and its tools:\n{text}"
    );

    let json = agboss::describe::json(&app);
    let workflows = json["workflows"].as_array().unwrap();
    let edges: Vec<(&str, &serde_json::Value, &serde_json::Value)> = workflows
        .iter()
        .map(|w| {
            (
                w["name"].as_str().unwrap(),
                &w["includes"],
                &w["includedBy"],
            )
        })
        .collect();
    assert_eq!(
        edges,
        [
            ("support", &json!(["billing"]), &json!([])),
            ("billing", &json!([]), &json!(["support", "sales"])),
            ("sales", &json!(["billing"]), &json!([])),
        ]
    );
    assert_eq!(workflows[1]["agents"][0]["name"], "refunds");
}
