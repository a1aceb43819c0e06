//! The checks of one tool that do not depend on the agent that lists it: made once per
//! workflow, for its agents' tools and its unassigned ones alike.

use agboss_rules::codes;

use super::WorkflowScope;
use crate::base::Problem;
use crate::component::MissingDependency;
use crate::tool::ToolDescriptor;

impl WorkflowScope<'_> {
    /// The checks of one tool that do not depend on the agent: where it forwards to, its own
    /// bound and its dependencies, once per workflow.
    pub(in crate::assembly) fn tool_checks(
        &mut self,
        tool: &'static ToolDescriptor,
        problems: &mut Vec<Problem>,
    ) {
        if self.checked.iter().any(|t| std::ptr::eq(*t, tool)) {
            return;
        }
        self.checked.push(tool);
        #[cfg(feature = "mcp")]
        self.mcp_checks(tool, problems);
        if tool.max_result_size().is_some_and(|b| b.get() == 0) {
            problems.push(
                codes::TOOLS_MAX_RESULT_SIZE_INVALID
                    .finding(&[
                        ("owner", &format!("tool `{}`", tool.name())),
                        (
                            "reason",
                            &"max_result_size 0 bytes keeps nothing: give at least 1 byte",
                        ),
                    ])
                    .into(),
            );
        }
        // A schema that does not compile (a hand-written `JsonSchema`, an allowlist naming no
        // field of text) would fail every call: say so now, once.
        if let Err(error) = tool.schemas() {
            problems.push(Problem::new(
                &codes::TOOL_SCHEMA_INVALID,
                codes::TOOL_SCHEMA_INVALID.fill(&[
                    ("tool", &error.tool),
                    ("which", &error.which),
                    ("reason", &error.reason),
                ]),
            ));
        }
        for missing in tool.missing(self.env.providers()) {
            problems.push(missing_implementation(self.name, &self.place, &missing));
        }
    }

    /// An `#[mcp_tool]`'s server must declare the tool it calls; the server is started with the
    /// application's others.
    #[cfg(feature = "mcp")]
    fn mcp_checks(&mut self, tool: &'static ToolDescriptor, problems: &mut Vec<Problem>) {
        use crate::mcp::McpServerDescriptor;
        let Some(remote) = tool.origin().remote() else {
            return;
        };
        let Some(server) = remote.declaration::<McpServerDescriptor>() else {
            return;
        };
        if !server.declares(remote.tool()) {
            problems.push(
                codes::MCP_UNDECLARED_TOOL
                    .finding(&[
                        ("subject", &format!("tool `{}`", tool.name())),
                        ("tool", &remote.tool()),
                        ("server", &server.name()),
                    ])
                    .into(),
            );
        }
        self.servers.push(server);
    }
}

/// `[di.missing-implementation]`: a field of a tool that nothing in its workflow provides
/// (`place` says which workflows include that one).
fn missing_implementation(workflow: &str, place: &str, missing: &MissingDependency) -> Problem {
    codes::DI_MISSING_IMPLEMENTATION
        .finding(&[
            (
                "subject",
                &format!(
                    "workflow `{workflow}`{place}: tool `{}` field `{}`",
                    missing.component, missing.field
                ),
            ),
            ("needed", &format!("`{}`", missing.type_written)),
            ("scope", &"neither the workflow nor the application"),
            ("fix", &format!("provide `{}`", missing.provided_type)),
        ])
        .into()
}
