//! `describe`: who can use which tool, with what limits, read from an assembled application
//! without running anything (no API key, no network).
//!
//! [`text`] prints a tree for people; [`json`] a stable, versioned document for programs
//! (docs/describe.md). Both come from the application as assembly left it: the model in
//! effect, each limit with where it came from, each tool's dependencies with the environment
//! variables they are made from. [`check`] lists what is likely a mistake, each finding with
//! its code and [`Level`]; [`check_stored`] adds the findings that read the application's
//! store (`describe --check`).
//!
//! Files: `text.rs`, `json.rs`, `artifacts.rs` (a tool's result kind, artifact size and wants,
//! in both forms), `lint.rs` (the findings).

mod artifacts;
mod json;
mod lint;
mod text;

pub use json::{DESCRIBE_VERSION, json};
pub use lint::{Level, Lint, check, check_stored, findings_json};
pub use text::text;

use crate::channel::{PauseAnswerer, RoleDescriptor};
use crate::tool::ToolDescriptor;

/// `read` or `write`.
fn access(tool: &ToolDescriptor) -> &'static str {
    if tool.is_read_only() { "read" } else { "write" }
}

/// `local` for tools of this program, `mcp <server>` for MCP tools.
fn origin(tool: &ToolDescriptor) -> String {
    match tool.origin().remote() {
        Some(remote) => format!("{} {}", remote.protocol(), remote.server()),
        None => "local".to_owned(),
    }
}

/// The role a tool's calls wait for (`#[tool(channel = ..)]`), and who answers it; `None` for a
/// tool whose calls run at once.
/// What decides about `tool`'s calls beyond its role, as describe prints it: each declared
/// capability with the checker that governs it (if any), and its check-in.
struct Gating {
    capabilities: Vec<(&'static str, Option<String>)>,
    check_in: Option<&'static str>,
}

fn gating(tool: &ToolDescriptor, app: &crate::app::Application) -> Gating {
    let checker = app.assembly().approvals().permissions();
    let capabilities = tool
        .capabilities()
        .iter()
        .map(|capability| {
            let governed = checker
                .filter(|c| c.governs().contains(capability))
                .map(|c| c.name().to_owned());
            (capability.as_str(), governed)
        })
        .collect();
    Gating {
        capabilities,
        check_in: tool.check_in().map(|c| c.describe()),
    }
}

/// The question roles `tool` may ask while it runs, each with who answers it.
fn asks(tool: &ToolDescriptor) -> Vec<(&'static str, Option<PauseAnswerer>)> {
    tool.asks()
        .iter()
        .map(|role| {
            let answered_by = role
                .declaration::<crate::channel::RoleDescriptor>()
                .map(|r| r.answered_by());
            (role.role(), answered_by)
        })
        .collect()
}

fn approval(tool: &ToolDescriptor) -> Option<(&'static str, Option<PauseAnswerer>)> {
    let approval = tool.approval()?;
    let answered_by = approval
        .declaration::<RoleDescriptor>()
        .map(RoleDescriptor::answered_by);
    Some((approval.role(), answered_by))
}
