//! `describe --check`: what in an application that assembles and runs is likely a mistake, each
//! finding with its code and a level, so CI can refuse an application at or above one.

use std::collections::BTreeSet;
use std::fmt;

use agboss_rules::codes::{self, Finding};
use serde::Serialize;

use crate::app::Application;
use crate::assembly::{tokens_in, window_bytes_below};
use crate::tool::{Capability, ToolDescriptor};

/// How much a finding matters, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Worth a look: nothing goes wrong because of it.
    Note,
    /// Something will go wrong in some runs.
    Warning,
    /// A person or a checker is missing where the application can lose money or data.
    Error,
}

impl Level {
    /// `note`, `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }

    /// The level named `name` (`note`, `warning`, `error`).
    pub fn parse(name: &str) -> Option<Level> {
        [Level::Note, Level::Warning, Level::Error]
            .into_iter()
            .find(|level| level.as_str() == name)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding of [`check`]: its level, and its code with the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lint {
    /// How much it matters.
    pub level: Level,
    /// The code and what is wrong, with the fix.
    pub finding: Finding,
}

impl fmt::Display for Lint {
    /// `warning[describe.unused-role] role `x` ...`, as compilers print theirs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.level, self.finding)
    }
}

/// What `describe --check` finds in `app`, most severe first, then by code and message (the
/// same order on every run).
///
/// It reads the application only; [`check_stored`] adds what needs its store.
pub fn check(app: &Application) -> Vec<Lint> {
    let mut lints = Vec::new();
    let tools = tools(app);
    unguarded(app, &tools, &mut lints);
    unused_roles(app, &tools, &mut lints);
    bounds_over_windows(app, &mut lints);
    timeouts_over_budgets(app, &mut lints);
    sort(&mut lints);
    lints
}

/// [`check`], and the findings that read the application's store: an MCP tool whose server
/// tool's definition the store holds no pin of yet (`describe.mcp-unpinned`). What
/// `describe --check` prints. A store that cannot be read is a finding of its own (`store`).
pub async fn check_stored(app: &Application) -> Vec<Lint> {
    let mut lints = check(app);
    unpinned(app, &tools(app), &mut lints).await;
    sort(&mut lints);
    lints
}

/// Most severe first, then by code and message.
fn sort(lints: &mut [Lint]) {
    lints.sort_by(|a, b| {
        b.level
            .cmp(&a.level)
            .then_with(|| a.finding.code.id().cmp(b.finding.code.id()))
            .then_with(|| a.finding.message.cmp(&b.finding.message))
    });
}

/// MCP tools whose server tool has no pinned definition in the application's store: the
/// first definition its server lists will be trusted as it is, whoever is watching then.
async fn unpinned(app: &Application, tools: &[&'static ToolDescriptor], lints: &mut Vec<Lint>) {
    let mcp_tools: Vec<_> = tools
        .iter()
        .filter_map(|tool| {
            let remote = tool.origin().remote().filter(|r| r.protocol() == "mcp")?;
            Some((tool.name(), remote.server(), remote.tool()))
        })
        .collect();
    if mcp_tools.is_empty() {
        return;
    }
    let pins = match app.store().pins().list(app.name()).await {
        Ok(pins) => pins,
        Err(e) => {
            let detail = format!("the MCP pins could not be read, so none is checked: {e}");
            lints.push(Lint {
                level: Level::Error,
                finding: codes::STORE.finding(&[("detail", &detail)]),
            });
            return;
        }
    };
    for (tool, server, server_tool) in mcp_tools {
        if pins
            .iter()
            .any(|pin| pin.server == server && pin.tool == server_tool)
        {
            continue;
        }
        let finding = codes::DESCRIBE_MCP_UNPINNED.finding(&[
            ("tool", &tool),
            ("server", &server),
            ("server_tool", &server_tool),
        ]);
        lints.push(Lint {
            level: Level::Warning,
            finding,
        });
    }
}

/// The findings as the JSON document lists them (`findings`, docs/describe.md).
pub fn findings_json(lints: &[Lint]) -> serde_json::Value {
    lints
        .iter()
        .map(|lint| {
            serde_json::json!({
                "level": lint.level,
                "code": lint.finding.code.id(),
                "message": lint.finding.message,
            })
        })
        .collect()
}

/// Every tool of the application, once.
fn tools(app: &Application) -> Vec<&'static ToolDescriptor> {
    let mut seen = BTreeSet::new();
    let mut tools = Vec::new();
    for workflow in app.workflows() {
        let of_agents = workflow
            .agents()
            .iter()
            .flat_map(|agent| agent.tools().iter().map(|tool| tool.descriptor()));
        for tool in of_agents.chain(workflow.unassigned_tools().iter().copied()) {
            if seen.insert(tool.name()) {
                tools.push(tool);
            }
        }
    }
    tools
}

/// `Money` and `Destructive` tools that nothing guards.
fn unguarded(app: &Application, tools: &[&'static ToolDescriptor], lints: &mut Vec<Lint>) {
    let approvals = app.assembly().approvals();
    for tool in tools {
        if tool.approval().is_some() || tool.check_in().is_some() {
            continue;
        }
        for capability in tool.capabilities() {
            let high_impact = matches!(capability, Capability::Money | Capability::Destructive);
            if high_impact && !approvals.governs_any(std::slice::from_ref(capability)) {
                let finding = codes::DESCRIBE_UNGUARDED
                    .finding(&[("tool", &tool.name()), ("capability", capability)]);
                lints.push(Lint {
                    level: Level::Error,
                    finding,
                });
            }
        }
    }
}

/// Roles a channel answers that nothing asks.
fn unused_roles(app: &Application, tools: &[&'static ToolDescriptor], lints: &mut Vec<Lint>) {
    let approvals = app.assembly().approvals();
    let mut named: BTreeSet<&str> = approvals.check_in_role().into_iter().collect();
    for tool in tools {
        named.extend(tool.approval().map(|role| role.role()));
        named.extend(tool.asks().iter().map(|role| role.role()));
    }
    #[cfg(feature = "mcp")]
    for workflow in app.workflows() {
        for server in workflow.mcp_servers() {
            named.extend(server.elicitation().map(|role| role.role()));
        }
    }
    let mut unused: Vec<&str> = app
        .assembly()
        .channels()
        .iter()
        .map(|channel| channel.descriptor().role().name())
        .filter(|role| !named.contains(role))
        .collect();
    unused.sort_unstable();
    unused.dedup();
    for role in unused {
        lints.push(Lint {
            level: Level::Note,
            finding: codes::DESCRIBE_UNUSED_ROLE.finding(&[("role", &role)]),
        });
    }
}

/// Tools whose result bound exceeds what their agent's model reads per request, where the
/// model's context window is known (configuration or the router).
fn bounds_over_windows(app: &Application, lints: &mut Vec<Lint>) {
    let Ok(router) = app.router() else {
        return;
    };
    for workflow in app.workflows() {
        for agent in workflow.agents() {
            let Some(window) = router.context_window_of(agent.model()) else {
                continue;
            };
            for tool in agent.tools() {
                let bound = tool.bound().value;
                if window_bytes_below(window, bound) {
                    let finding = codes::DESCRIBE_BOUND_OVER_WINDOW.finding(&[
                        ("tool", &tool.descriptor().name()),
                        ("agent", &agent.name()),
                        ("bound", &bound),
                        ("tokens", &tokens_in(bound)),
                        ("model", &agent.model()),
                        ("window", &window),
                    ]);
                    lints.push(Lint {
                        level: Level::Warning,
                        finding,
                    });
                }
            }
        }
    }
}

/// Tools whose timeout exceeds the time budget of an agent that has them: one call of such a
/// tool may use the whole run, which then fails with `agents.<name>.limits.duration` instead
/// of the model reading the tool's timeout.
fn timeouts_over_budgets(app: &Application, lints: &mut Vec<Lint>) {
    for workflow in app.workflows() {
        for agent in workflow.agents() {
            let Some(budget) = agent.max_duration() else {
                continue;
            };
            for tool in agent.tools() {
                let timeout = tool.tool().timeout();
                if timeout.as_duration() > budget.value.as_duration() {
                    let finding = codes::DESCRIBE_TIMEOUT_OVER_BUDGET.finding(&[
                        ("tool", &tool.descriptor().name()),
                        ("agent", &agent.name()),
                        ("timeout", &timeout),
                        ("budget", budget),
                    ]);
                    lints.push(Lint {
                        level: Level::Warning,
                        finding,
                    });
                }
            }
        }
    }
}
