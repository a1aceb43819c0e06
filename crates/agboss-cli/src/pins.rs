//! `mcp pins` and `mcp approve`: the pinned definitions of the application's MCP server tools,
//! listed, and a changed one approved so that its calls are sent again (fault plan T20,
//! docs/mcp.md "Pinned definitions").

use agboss_core::app::Application;
use agboss_core::store::McpPin;
use clap::Subcommand;

use crate::pauses::{Answerer, Printed};

/// The subcommands about the pinned definitions of MCP server tools.
#[derive(Clone, Debug, PartialEq, Eq, Subcommand)]
pub enum McpCommand {
    /// List the pinned definitions of the application's MCP server tools: approved, or
    /// changed since (those are not called until approved), with both definitions.
    Pins {
        /// Print the pins as JSON, one array.
        #[arg(long)]
        json: bool,
    },
    /// Approve the definition a server gives now of its tool (as `mcp pins` shows it), so that
    /// the tool's calls are sent again.
    Approve {
        /// The server, as its `#[mcp_server]` names it.
        server: String,
        /// The server's tool, by the server's name.
        tool: String,
        /// Who approves.
        #[command(flatten)]
        answerer: Answerer,
    },
}

impl McpCommand {
    /// Runs the subcommand; `user` is the current user, who approves unless `--as` names another.
    pub(crate) async fn run(&self, app: &Application, user: Option<&str>) -> Printed {
        match self {
            McpCommand::Pins { json } => match app.mcp_pins().await {
                Ok(pins) if *json => {
                    let mut text = serde_json::to_string_pretty(&pins).unwrap_or_default();
                    text.push('\n');
                    Printed::ok(text)
                }
                Ok(pins) => Printed::ok(listing(&pins)),
                Err(problem) => Printed::error(problem),
            },
            McpCommand::Approve {
                server,
                tool,
                answerer,
            } => {
                let Some(by) = answerer.who.clone().or_else(|| user.map(str::to_owned)) else {
                    return Printed::error(
                        "who approves? Set AGBOSS_USER or USER, or say --as <who>",
                    );
                };
                match app.approve_mcp_definition(server, tool, &by).await {
                    Ok(pin) => Printed::ok(format!(
                        "tool `{tool}` of server `{server}`: definition {} approved by {by}; its calls are sent again\n",
                        pin.approved_hash
                    )),
                    Err(problem) => Printed::error(problem),
                }
            }
        }
    }
}

/// One line per pin; a changed one adds both definitions, for review.
fn listing(pins: &[McpPin]) -> String {
    if pins.is_empty() {
        return "no pinned MCP definitions yet: a tool is pinned when its server first lists it\n"
            .to_owned();
    }
    let mut text = String::new();
    for pin in pins {
        let by = pin.approved_by.as_deref().unwrap_or("first sight");
        if pin.is_approved() {
            text.push_str(&format!(
                "{} {}: approved ({}, by {by})\n",
                pin.server, pin.tool, pin.approved_hash
            ));
        } else {
            text.push_str(&format!(
                "{} {}: CHANGED since it was approved, not called until approved: `mcp approve {} {}`\n  approved ({}, by {by}): {}\n  now ({}): {}\n",
                pin.server,
                pin.tool,
                pin.server,
                pin.tool,
                pin.approved_hash,
                pin.approved_definition,
                pin.seen_hash,
                pin.seen_definition
            ));
        }
    }
    text
}
