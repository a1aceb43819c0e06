//! `describe --check`, through the facade and the command line: a tool that moves money with
//! nothing between it and the model, a role with a channel that nothing asks, and a result
//! bound larger than the model's context window, each with its code and level; the exit status
//! CI reads at each `--fail-on` level.

use std::process::ExitCode;
use std::sync::Arc;

use agboss::cli::command_from;
use agboss::describe::{Level, check};
use agboss::dto::Value;
use agboss::model::{ModelRouter, ScriptedModel};
use agboss::policy::Permission;
use agboss::prelude::*;
use agboss::tool::Capability;
use agboss::units::kilobytes;
use agboss::{Application, Workflow};
use fixtures::policy::Always;

/// Approves any call; the thread's owner answers.
#[channel_role(name = "spare-approval-channel", approves = Value, answered_by = ThreadOwner)]
pub struct SpareApproval;

fixtures::inbox! {
    /// Leaves the question in the owner's inbox.
    #[channel(name = "spare-inbox-channel")]
    pub struct SpareInbox for SpareApproval;
}

#[dto]
pub struct Order {
    /// The order.
    pub order: String,
}

/// Refunds an order: nothing guards it.
#[tool(name = "refund-order-tool", description = "Refunds an order", capabilities = [Money])]
pub struct RefundOrder;

impl ToolHandler for RefundOrder {
    type Input = Order;
    type Output = PlainText;

    async fn run(&self, _input: Order) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("refunded"))
    }
}

/// Deletes an order: the checker governs it.
#[tool(name = "delete-order-tool", description = "Deletes an order", capabilities = [Destructive])]
pub struct DeleteOrder;

impl ToolHandler for DeleteOrder {
    type Input = Order;
    type Output = PlainText;

    async fn run(&self, _input: Order) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("deleted"))
    }
}

/// Exports every order: its bound is larger than the model reads.
#[tool(
    name = "export-orders-tool",
    description = "Exports the orders",
    read_only,
    max_result_size = kilobytes(512)
)]
pub struct ExportOrders;

impl ToolHandler for ExportOrders {
    type Input = Order;
    type Output = PlainText;

    async fn run(&self, _input: Order) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("order,total"))
    }
}

/// Runs the shop.
#[agent(
    name = "cashier",
    description = "Runs the shop",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [RefundOrder, DeleteOrder, ExportOrders]
)]
pub struct Cashier;

/// Exports orders, and nothing else.
#[agent(
    name = "exporter",
    description = "Exports orders",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [ExportOrders]
)]
pub struct Exporter;

/// Asks a person before any delete.
fn no_silent_deletes() -> Always {
    let ask = Permission::ask("deletes", "a person approves every delete");
    Always::new("no-silent-deletes", Capability::Destructive, ask)
}

/// The shop, its model reading `window` tokens per request.
fn shop(window: u32, checker: bool) -> Application {
    let router = ModelRouter::new()
        .route("*", "model", Arc::new(ScriptedModel::new([])), false)
        .context_window("test/model", window);
    let mut builder = Application::builder("shop")
        .workflow(Workflow::new("shop").agent::<Cashier>())
        .channel::<SpareInbox>()
        .router(router);
    if checker {
        builder = builder
            .permissions(no_silent_deletes())
            .check_in_role::<SpareApproval>();
    }
    builder.build().unwrap()
}

#[test]
fn each_finding_has_its_code_and_level_most_severe_first() {
    // 65,536 tokens hold about 256 KB: the export's 512 KB does not fit. The delete is governed,
    // the refund is not; the spare role is the check-in role, so it is used.
    let lints: Vec<_> = check(&shop(65_536, true))
        .into_iter()
        .map(|lint| (lint.level, lint.finding.to_string()))
        .collect();
    assert_eq!(
        lints,
        [
            (
                Level::Error,
                "[describe.unguarded] tool `refund-order-tool` declares `money`, and its calls run on the model's word alone: no role (`channel`), no `check_in`, and no permission checker governs `money`; add one of them".to_owned()
            ),
            (
                Level::Warning,
                "[describe.bound-over-window] tool `export-orders-tool` of agent `cashier` may return 512 KB (about 131072 tokens), and `test/model` reads 65536 tokens per request: lower the tool's `max_result_size`, or the agent's".to_owned()
            ),
        ]
    );
}

#[test]
fn a_role_nothing_asks_is_a_note_and_nothing_governs_the_delete_without_a_checker() {
    let lints: Vec<_> = check(&shop(1_000_000, false))
        .into_iter()
        .map(|lint| (lint.level, lint.finding.code.id()))
        .collect();
    assert_eq!(
        lints,
        [
            (Level::Error, "describe.unguarded"),
            (Level::Error, "describe.unguarded"),
            (Level::Note, "describe.unused-role"),
        ]
    );
}

#[tokio::test]
async fn the_command_fails_at_the_chosen_level_and_the_json_lists_the_findings() {
    let app = shop(1_000_000, true);
    let env = agboss::Env::process();
    let run = |args: &[&str]| {
        let mut all = vec!["shop", "describe"];
        all.extend_from_slice(args);
        command_from(all).unwrap().unwrap()
    };
    // One error: it fails at the default level (`warning`) and at `error`.
    assert_eq!(run(&["--check"]).run(&app).await, ExitCode::FAILURE);
    assert_eq!(
        run(&["--check", "--fail-on", "error"]).run(&app).await,
        ExitCode::FAILURE
    );
    let printed = run(&["--check"]).output(&app, &env).await;
    assert!(
        printed.starts_with("error[describe.unguarded] tool `refund-order-tool` declares `money`"),
        "{printed}"
    );
    assert!(
        printed.ends_with(
            "error: describe --check: 1 findings: 1 errors, 0 warnings, 0 notes; 1 at `warning` or above\n"
        ),
        "{printed}"
    );
    let out = run(&["--json", "--check"]).output(&app, &env).await;
    let (document, error) = out
        .split_once("error: ")
        .expect("the document, then the error");
    let json: serde_json::Value = serde_json::from_str(document).unwrap();
    assert_eq!(json["findings"][0]["level"], "error");
    assert_eq!(json["findings"][0]["code"], "describe.unguarded");
    assert!(error.starts_with("describe --check: 1 findings"), "{error}");
    assert!(command_from(["shop", "describe", "--check", "--fail-on", "loud"]).is_err());

    // Only a note is left: the check passes, unless notes fail it too.
    let exports = Application::builder("exports")
        .workflow(Workflow::new("exports").agent::<Exporter>())
        .channel::<SpareInbox>()
        .build()
        .unwrap();
    assert_eq!(run(&["--check"]).run(&exports).await, ExitCode::SUCCESS);
    assert_eq!(
        run(&["--check"]).output(&exports, &env).await,
        "note[describe.unused-role] role `spare-approval-channel` is answered by a channel, but no tool names it (`channel`), asks it (`asks`, an MCP server's `elicitation`), and it is not the check-in role: remove its channel, or name it where a person should decide\n\
         1 findings: 0 errors, 0 warnings, 1 notes; none at `warning` or above\n"
    );
    assert_eq!(
        run(&["--check", "--fail-on", "note"]).run(&exports).await,
        ExitCode::FAILURE
    );
}

/// Reports on a slow system: its timeout is longer than its agent's time budget.
#[tool(
    name = "slow-report-tool",
    description = "Reports slowly",
    read_only,
    timeout = agboss::units::minutes(2)
)]
pub struct SlowReport;

impl ToolHandler for SlowReport {
    type Input = Order;
    type Output = PlainText;

    async fn run(&self, _input: Order) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("reported"))
    }
}

/// Reports on orders within a minute a run; the export's 30 s timeout fits.
#[agent(
    name = "reporter",
    description = "Reports on orders",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [SlowReport, ExportOrders],
    max_duration = agboss::units::minutes(1)
)]
pub struct Reporter;

#[tokio::test]
async fn a_timeout_longer_than_the_agents_time_budget_is_a_warning() {
    let app = Application::builder("reports")
        .workflow(Workflow::new("reports").agent::<Reporter>())
        .build()
        .unwrap();
    let lints: Vec<_> = check(&app)
        .into_iter()
        .map(|lint| (lint.level, lint.finding.to_string()))
        .collect();
    assert_eq!(
        lints,
        [(
            Level::Warning,
            "[describe.timeout-over-budget] tool `slow-report-tool` of agent `reporter` times out after 2 min, longer than the agent's time budget of 1 min (own): one call of it may use the whole run; shorten the tool's `timeout`, or raise the agent's `max_duration`".to_owned()
        )]
    );
    // describe shows the budget, in text and in JSON.
    let env = agboss::Env::process();
    let run = |args: &[&str]| {
        let mut all = vec!["reports", "describe"];
        all.extend_from_slice(args);
        command_from(all).unwrap().unwrap()
    };
    let text = run(&[]).output(&app, &env).await;
    assert!(text.contains(" · time budget 1 min (own)"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&run(&["--json"]).output(&app, &env).await).unwrap();
    let agent = &json["workflows"][0]["agents"][0];
    assert_eq!(agent["maxDurationMs"], 60_000);
    assert_eq!(agent["maxDurationSource"], "own");
    assert_eq!(run(&["--check"]).run(&app).await, ExitCode::FAILURE);
}

/// A server never started here: describe reads its declaration only.
#[mcp_server(name = "ledger-mcp", command = "ledger-server", tools = ["balance"])]
pub struct LedgerServer;

/// The balance of the shop's ledger.
#[mcp_tool(name = "balance-tool", server = LedgerServer, calls = "balance", input = Order, output = PlainText, read_only = true)]
pub struct Balance;

#[tokio::test]
async fn an_mcp_tool_whose_definition_the_store_has_not_pinned_is_a_warning() {
    use agboss::store::{McpDefinitionSeen, MemoryStore, Store};

    let store = Arc::new(MemoryStore::new());
    let app = Application::builder("ledger")
        .workflow(Workflow::new("ledger").tool::<Balance>())
        .store(store.clone())
        .build()
        .unwrap();
    assert_eq!(check(&app), [], "the rules that read only the application");
    let lints: Vec<_> = agboss::describe::check_stored(&app)
        .await
        .into_iter()
        .map(|lint| lint.to_string())
        .collect();
    assert_eq!(
        lints,
        [
            "warning[describe.mcp-unpinned] tool `balance-tool` calls `balance` of server `ledger-mcp`, whose definition the application has not pinned yet: whatever the server first lists is trusted then; start the server where its definition can be reviewed (`start_mcp_servers`, then `mcp pins`) before the application runs unattended"
        ]
    );
    let out = command_from(["ledger", "describe", "--check", "--json"])
        .unwrap()
        .unwrap()
        .output(&app, &agboss::Env::process())
        .await;
    assert!(out.contains(r#""code": "describe.mcp-unpinned""#), "{out}");

    // Pinned (what its first start does), or pinned by another application: only its own pins
    // count.
    let seen = |application: &str| McpDefinitionSeen {
        application: application.into(),
        server: "ledger-mcp".into(),
        tool: "balance".into(),
        hash: "sha256:00".into(),
        definition: "{}".into(),
        at_ms: 0,
    };
    store.pins().see(&seen("another")).await.unwrap();
    assert_eq!(agboss::describe::check_stored(&app).await.len(), 1);
    store.pins().see(&seen("ledger")).await.unwrap();
    assert_eq!(agboss::describe::check_stored(&app).await, []);
}
