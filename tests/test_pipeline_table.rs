//! The table of the call's pipeline in docs/tools.md is the order the code keeps: its rows, read
//! here, are the gates and rules in the order the pipeline module declares them, and the order
//! assembly builds them in for a tool that has every stage. A tool that needs few stages gets
//! only those, in the same order.

use agboss::credentials::StaticCredentials;
use agboss::dto::Value;
use agboss::policy::{MaskingPolicy, Permission, PermissionChecker, PermissionRequest};
use agboss::prelude::*;
use agboss::tool::{
    Capability, GATE_ORDER, GateCall, MIDDLEWARE, Middleware, MiddlewareFuture, RULE_ORDER,
};
use agboss::units::kilobytes;
use agboss::{Application, Workflow};

/// The rows of the pipeline table: each stage's name and part (`gate` or `rule`).
fn table() -> Vec<(String, String)> {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/tools.md"))
        .expect("docs/tools.md");
    let start = docs
        .find("<!-- tools:pipeline")
        .expect("the table's marker in docs/tools.md");
    docs[start..]
        .lines()
        .skip(3)
        .take_while(|line| line.starts_with('|'))
        .map(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            (cells[1].trim_matches('`').to_owned(), cells[2].to_owned())
        })
        .collect()
}

/// The names of the table's rows of `part`.
fn names(part: &str) -> Vec<String> {
    table()
        .into_iter()
        .filter(|(_, p)| p == part)
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn the_table_is_the_order_the_pipeline_keeps() {
    assert_eq!(names("gate"), GATE_ORDER);
    assert_eq!(names("rule"), RULE_ORDER);
    assert_eq!(table().len(), GATE_ORDER.len() + RULE_ORDER.len());
}

#[dto]
pub struct Refund {
    /// The order.
    pub order: String,
}

#[dto]
pub struct Line {
    /// A line.
    pub text: String,
}

/// Approves refunds; the thread's owner answers.
#[channel_role(name = "refund-approval-channel", approves = Refund, answered_by = ThreadOwner)]
pub struct RefundApproval;

/// Asks the owner which account.
#[channel_role(name = "account-question-channel", ask = Line, answer = Line, answered_by = ThreadOwner)]
pub struct AccountQuestion;

fixtures::inbox! {
    /// Leaves approvals in the owner's inbox.
    #[channel(name = "refund-inbox-channel")]
    pub struct RefundInbox for RefundApproval;
}

fixtures::inbox! {
    /// Leaves questions in the owner's inbox.
    #[channel(name = "account-inbox-channel")]
    pub struct AccountInbox for AccountQuestion;
}

/// Every stage a tool can have: a governed capability, a check-in, its own role, questions,
/// credentials, a ceiling, artifacts, retries.
#[tool(
    name = "everything-tool",
    capabilities = [Money],
    check_in = always,
    channel = RefundApproval,
    asks = [AccountQuestion],
    needs = ["bank"],
    result_ceiling = kilobytes(64),
    ceiling_hint = "ask for one order",
    result_kind = "refund/receipt",
    retries = 2
)]
pub struct Everything {
    questions: Questions,
    credentials: Credentials,
}

impl ToolHandler for Everything {
    type Input = Refund;
    type Output = PlainText;

    async fn run(&self, input: Refund) -> Result<PlainText, ToolError> {
        let _ = (&self.questions, &self.credentials);
        Ok(PlainText::new(input.order))
    }
}

/// Nothing beyond the contract.
#[tool(name = "plain-tool", read_only)]
pub struct Plain;

impl ToolHandler for Plain {
    type Input = Line;
    type Output = PlainText;

    async fn run(&self, input: Line) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(input.text))
    }
}

/// Refunds orders.
#[agent(
    name = "clerk",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [Everything, Plain]
)]
pub struct Clerk;

/// Asks about money.
struct Money;

impl PermissionChecker for Money {
    fn name(&self) -> &str {
        "money"
    }

    fn governs(&self) -> &[Capability] {
        &[Capability::Money]
    }

    fn check(&self, _request: &PermissionRequest<'_>) -> Permission {
        Permission::allow("money-is-fine")
    }
}

/// Counts calls.
struct Counter;

impl Middleware for Counter {
    fn name(&self) -> &str {
        "counter"
    }

    fn before<'a>(&'a self, _call: &'a GateCall<'_>) -> MiddlewareFuture<'a> {
        Box::pin(async { Ok(()) })
    }
}

fn app() -> Application {
    Application::builder("desk")
        .workflow(Workflow::new("desk").agent::<Clerk>())
        .channel::<RefundInbox>()
        .channel::<AccountInbox>()
        .permissions(Money)
        .credentials(StaticCredentials::new().with("bank", "t0ken"))
        .middleware(Counter)
        .masking(MaskingPolicy::standard())
        .build()
        .unwrap()
}

/// The table's names of `part`, a middleware's row named `middleware`.
fn expected(part: &str, middleware: &str) -> Vec<String> {
    names(part)
        .into_iter()
        .map(|n| {
            if n == MIDDLEWARE {
                middleware.to_owned()
            } else {
                n
            }
        })
        .collect()
}

#[test]
fn assembly_builds_a_tool_s_stages_in_the_table_s_order() {
    let app = app();
    let agent = &app.workflow("desk").unwrap().agents()[0];
    let everything = agent.tool("everything-tool").unwrap().pipeline();
    let gates: Vec<&str> = everything.gates().collect();
    let rules: Vec<&str> = everything.rules().collect();
    assert_eq!(gates, expected("gate", "counter"));
    assert_eq!(rules, expected("rule", "counter"));

    let plain = agent.tool("plain-tool").unwrap().pipeline();
    assert_eq!(plain.gates().collect::<Vec<_>>(), ["arguments", "counter"]);
    assert_eq!(
        plain.rules().collect::<Vec<_>>(),
        ["bound", "mask", "counter", "fatal", "notes"]
    );
}

#[test]
fn describe_lists_each_tool_s_pipeline() {
    let described = agboss::describe::json(&app());
    let tools = &described["workflows"][0]["agents"][0]["tools"];
    let everything = &tools[0];
    assert_eq!(everything["name"], "everything-tool");
    let listed = |part: &str| -> Vec<String> {
        let list: &Value = &everything["pipeline"][part];
        list.as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(listed("gates"), expected("gate", "counter"));
    assert_eq!(listed("rules"), expected("rule", "counter"));
    let schema = &described["schemas"]["tools"]["everything-tool"];
    assert_eq!(schema["retries"]["count"], 2);
    assert_eq!(schema["retries"]["backoffMs"], 1_000);
}
