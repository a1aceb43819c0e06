//! An agent's time budget per run: configuration's `max_duration_seconds`, else its own
//! `max_duration`, else none; zero is refused (`[agent.max-duration-invalid]`).

use agboss_rules::codes;

use crate::agent::{AgentDescriptor, AgentSettings};
use crate::base::{Problem, Setting, Source};
use crate::units::{TimeSpan, seconds};

/// The time budget of `descriptor`'s agent in workflow `workflow`, if it has one.
pub(super) fn time_budget(
    workflow: &str,
    descriptor: &'static AgentDescriptor,
    settings: Option<&AgentSettings>,
    problems: &mut Vec<Problem>,
) -> Option<Setting<TimeSpan>> {
    let budget = match settings.and_then(|s| s.max_duration_seconds) {
        Some(n) => Setting {
            value: seconds(n),
            source: Source::Configuration,
        },
        None => Setting {
            value: descriptor.max_duration()?,
            source: Source::Own,
        },
    };
    if budget.value.as_duration().is_zero() {
        problems.push(
            codes::AGENT_MAX_DURATION_INVALID
                .finding(&[
                    (
                        "subject",
                        &format!("agent `{}` (workflow `{workflow}`)", descriptor.name()),
                    ),
                    ("from", &format!(" ({})", budget.source)),
                ])
                .into(),
        );
        return None;
    }
    Some(budget)
}
