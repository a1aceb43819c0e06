//! `describe --check`'s rule on time: a tool whose timeout is longer than the time budget of an
//! agent that has it (`describe.timeout-over-budget`, a warning): one call of it may use the
//! whole run, and the run then fails with `agents.<name>.limits.duration` instead of the model
//! reading the tool's timeout.

use agboss_rules::codes;

use super::lint::{Level, Lint};
use crate::app::Application;

/// Tools whose timeout exceeds the time budget of an agent that has them.
pub(super) fn timeouts_over_budgets(app: &Application, lints: &mut Vec<Lint>) {
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
