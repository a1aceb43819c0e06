//! The assembly check of artifacts: every kind an agent's tool `wants` is the `result_kind` of
//! some tool of the application, else no reference of it could ever be redeemed
//! (`[agent.wants-unproduced]`).

use std::collections::BTreeSet;

use agboss_rules::codes;

use super::AppWorkflow;
use crate::base::Problem;
use crate::tool::ToolDescriptor;

/// One problem per argument of an agent's tool that wants a kind no tool of `workflows` makes.
pub(super) fn check_wants(workflows: &[AppWorkflow], problems: &mut Vec<Problem>) {
    let tools = || {
        workflows.iter().flat_map(|w| {
            let of_agents = w
                .agents
                .iter()
                .flat_map(|a| a.tools().iter().map(|t| t.descriptor()));
            of_agents.chain(w.unassigned.iter().copied())
        })
    };
    let made: BTreeSet<&str> = tools()
        .filter_map(|t: &ToolDescriptor| t.result_kind().map(|k| k.kind))
        .collect();
    for workflow in workflows {
        for agent in &workflow.agents {
            for tool in agent.tools() {
                let descriptor = tool.descriptor();
                for wanted in descriptor.wants() {
                    if made.contains(wanted.kind) {
                        continue;
                    }
                    let kinds = if made.is_empty() {
                        "none".to_owned()
                    } else {
                        made.iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    problems.push(
                        codes::AGENT_WANTS_UNPRODUCED
                            .finding(&[
                                ("agent", &agent.name()),
                                ("workflow", &workflow.name()),
                                ("tool", &descriptor.name()),
                                ("argument", &wanted.argument),
                                ("kind", &wanted.kind),
                                ("made", &kinds),
                            ])
                            .into(),
                    );
                }
            }
        }
    }
}
