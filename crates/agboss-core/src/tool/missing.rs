//! Finding the dependencies nobody provides, before any call.

use std::fmt;

use super::{Requirement, ToolDescriptor};
use crate::deps::Providers;

/// A tool field whose type the application does not provide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingDependency {
    /// The tool's name.
    pub tool: &'static str,
    /// The field's name.
    pub field: &'static str,
    /// The field's type as written: `Arc<dyn IssuesApi>`.
    pub type_written: &'static str,
    /// The type that must be provided: `dyn my_crate::IssuesApi`.
    pub provided_type: &'static str,
}

impl MissingDependency {
    /// The error code, as assembly reports it.
    pub const CODE: &'static str = agboss_rules::codes::DI_MISSING_IMPLEMENTATION.id();
}

impl fmt::Display for MissingDependency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] tool `{}` field `{}`: nothing provides `{}` (`{}`)",
            Self::CODE,
            self.tool,
            self.field,
            self.type_written,
            self.provided_type
        )
    }
}

impl std::error::Error for MissingDependency {}

/// Why a tool could not be built for a call: a field nothing provides, or a provider that
/// could not make its value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DependencyError {
    /// Nothing provides the field's type.
    #[error("{0}")]
    Missing(MissingDependency),
    /// The provider failed.
    #[error("tool `{tool}` field `{field}`: `{provided_type}` is unavailable: {reason}")]
    Unavailable {
        /// The tool.
        tool: &'static str,
        /// The field.
        field: &'static str,
        /// The type that is provided.
        provided_type: &'static str,
        /// What its provider said.
        reason: String,
    },
}

/// The fields of `tool` that `providers` cannot fill, in field order.
pub fn missing_dependencies(
    tool: &'static ToolDescriptor,
    providers: &Providers,
) -> Vec<MissingDependency> {
    tool.dependencies()
        .iter()
        .filter_map(|dep| match dep.requirement() {
            Requirement::Builtin => None,
            Requirement::Provided { type_id, .. } if providers.contains(type_id) => None,
            Requirement::Provided { type_name, .. } => Some(MissingDependency {
                tool: tool.name(),
                field: dep.field(),
                type_written: dep.type_written(),
                provided_type: type_name,
            }),
        })
        .collect()
}
