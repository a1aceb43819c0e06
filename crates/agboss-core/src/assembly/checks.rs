//! Checks that do not depend on where they are asked: defaults, what a scope provides, and
//! finding a tool by the name configuration gives.

use agboss_rules::{codes, distance};

use super::ToolDefaults;
use super::defaults::SizeSetting;
use super::provided::ProvidedList;
use crate::base::{Problem, Source};
use crate::deps::infrastructure_type;
use crate::tool::{ToolRegistration, registered_tools};
use crate::units::ByteSize;

/// `[tools.max-result-size-invalid]` for a configured bound that keeps nothing or is not one.
pub(super) fn check_defaults(defaults: &ToolDefaults, owner: &str, problems: &mut Vec<Problem>) {
    if let Some(SizeSetting { written, value }) = &defaults.max_result_size {
        let reason = match value {
            Ok(bound) if bound.get() == 0 => Some(format!(
                "{written} keeps nothing: a bound keeps at least 1 byte"
            )),
            Ok(_) => None,
            Err(reason) => Some(reason.clone()),
        };
        if let Some(reason) = reason {
            problems.push(
                codes::TOOLS_MAX_RESULT_SIZE_INVALID
                    .finding(&[
                        ("owner", &owner),
                        (
                            "reason",
                            &format!("defaults.tools.max_result_size: {reason}"),
                        ),
                    ])
                    .into(),
            );
        }
    }
}

/// A type provided twice in one scope is ambiguous; infrastructure belongs to the application.
pub(super) fn check_provided(
    provided: &ProvidedList,
    workflow: Option<&str>,
    problems: &mut Vec<Problem>,
) {
    let scope = workflow.map_or_else(
        || "the application".to_owned(),
        |w| format!("workflow `{w}`"),
    );
    for (i, entry) in provided.entries.iter().enumerate() {
        let earlier = provided.entries[..i]
            .iter()
            .filter(|e| e.type_id == entry.type_id)
            .count();
        if earlier == 1 {
            problems.push(
                codes::DI_AMBIGUOUS_IMPLEMENTATION
                    .finding(&[
                        ("scope", &scope),
                        ("what", &format!("`{}`", entry.type_name)),
                        ("fix", &"keep one, or give a workflow its own"),
                    ])
                    .into(),
            );
        }
        if let (Some(workflow), Some(infrastructure)) =
            (workflow, infrastructure_type(entry.type_id))
        {
            problems.push(
                codes::DI_INFRASTRUCTURE_IN_WORKFLOW
                    .finding(&[
                        ("workflow", &workflow),
                        ("type_name", &entry.type_name),
                        ("what", &infrastructure.what()),
                    ])
                    .into(),
            );
        }
    }
}

/// The registered tool named `name`, or a registered name close to it.
pub(super) fn find_registered(name: &str) -> Result<ToolRegistration, Option<String>> {
    let all = registered_tools();
    match all.binary_search_by(|r| r.descriptor().name().cmp(name)) {
        Ok(i) => Ok(*all[i]),
        Err(_) => Err(
            distance::nearest(name, all.iter().map(|r| r.descriptor().name()), 3)
                .map(str::to_owned),
        ),
    }
}

/// Each level's value of one default, with where it came from, for [`Setting::first_of`].
///
/// [`Setting::first_of`]: crate::base::Setting::first_of
pub(super) fn levels<T>(
    defaults: &[(&ToolDefaults, Source)],
    read: fn(&ToolDefaults) -> Option<T>,
) -> Vec<(Option<T>, Source)> {
    defaults
        .iter()
        .map(|(defaults, source)| (read(defaults), source.clone()))
        .collect()
}

/// A level's bound, if it sets a usable one.
pub(super) fn size_of(defaults: &ToolDefaults) -> Option<ByteSize> {
    defaults
        .max_result_size
        .as_ref()
        .and_then(|s| s.value.clone().ok())
        .filter(|b| b.get() > 0)
}

/// A level's limit of tool calls.
pub(super) fn calls_of(defaults: &ToolDefaults) -> Option<u32> {
    defaults.max_tool_calls
}
