//! The credentials an application's tools `need` and its MCP servers declare, against its
//! [`CredentialProvider`]: none without a provider (`[credentials.no-provider]`), and none the
//! provider does not know (`[credentials.unknown]`, with the names it knows).

use agboss_rules::codes;
use agboss_rules::distance::nearest;

use super::AppWorkflow;
use crate::base::Problem;
use crate::tool::{CredentialProvider, ToolDescriptor};

/// Who needs which credentials: a subject (`tool `x``) and its names.
struct Need {
    subject: String,
    names: Vec<&'static str>,
}

/// Every tool (each once, however many agents share it) and MCP server of `workflows` that needs
/// a credential, checked against `provider`.
pub(super) fn check(
    provider: Option<&dyn CredentialProvider>,
    workflows: &[AppWorkflow],
    problems: &mut Vec<Problem>,
) {
    let needs = needs_of(workflows);
    if needs.is_empty() {
        return;
    }
    let Some(provider) = provider else {
        for need in needs {
            let names = need
                .names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ");
            problems.push(
                codes::CREDENTIALS_NO_PROVIDER
                    .finding(&[("subject", &need.subject), ("names", &names)])
                    .into(),
            );
        }
        return;
    };
    let known = provider.names();
    let listed = if known.is_empty() {
        "no name".to_owned()
    } else {
        known
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for need in needs {
        for name in need.names.iter().filter(|name| !provider.knows(name)) {
            let hint = nearest(name, known.iter().map(String::as_str), 2)
                .map_or_else(String::new, |near| format!("; did you mean `{near}`?"));
            problems.push(
                codes::CREDENTIALS_UNKNOWN
                    .finding(&[
                        ("subject", &need.subject),
                        ("name", name),
                        ("known", &listed),
                        ("hint", &hint),
                    ])
                    .into(),
            );
        }
    }
}

/// The tools and servers that need credentials, in the order of the workflows.
fn needs_of(workflows: &[AppWorkflow]) -> Vec<Need> {
    let mut seen: Vec<&'static ToolDescriptor> = Vec::new();
    let mut needs = Vec::new();
    for workflow in workflows {
        let tools = workflow
            .agents()
            .iter()
            .flat_map(|agent| agent.tools().iter().map(|tool| tool.descriptor()))
            .chain(workflow.unassigned_tools().iter().copied());
        for tool in tools {
            if tool.needs().is_empty() || seen.iter().any(|s| std::ptr::eq(*s, tool)) {
                continue;
            }
            seen.push(tool);
            needs.push(Need {
                subject: format!("tool `{}`", tool.name()),
                names: tool.needs().to_vec(),
            });
        }
        #[cfg(feature = "mcp")]
        for server in workflow.mcp_servers() {
            if let Some(credential) = server.credential()
                && !needs
                    .iter()
                    .any(|n| n.subject == server_subject(server.name()))
            {
                needs.push(Need {
                    subject: server_subject(server.name()),
                    names: vec![credential.name()],
                });
            }
        }
    }
    needs
}

#[cfg(feature = "mcp")]
fn server_subject(name: &str) -> String {
    format!("MCP server `{name}`")
}
