//! A component's fields: what each needs from the application ([`DependencySpec`],
//! [`Requirement`]), and what is said when one has no value.

use std::any::TypeId;
use std::fmt;

use super::kind::ComponentKind;

/// What a dependency needs from the application.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Requirement {
    /// Given by the runtime to every call (the context, the spend recorder, the clock).
    Builtin,
    /// An `Arc<T>` the application must provide.
    Provided {
        /// `TypeId::of::<T>()`.
        type_id: TypeId,
        /// `std::any::type_name::<T>()`.
        type_name: &'static str,
    },
}

/// One field of a component, as its descriptor lists it.
#[derive(Clone, Copy, Debug)]
pub struct DependencySpec {
    field: &'static str,
    type_written: &'static str,
    requirement: fn() -> Requirement,
}

impl DependencySpec {
    /// The field `field` of the type written `type_written`, whose requirement `requirement`
    /// gives.
    pub const fn new(
        field: &'static str,
        type_written: &'static str,
        requirement: fn() -> Requirement,
    ) -> DependencySpec {
        DependencySpec {
            field,
            type_written,
            requirement,
        }
    }

    /// The field's name (`"0"` for the first field of a tuple struct).
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// The field's type as the source writes it: `Arc<dyn IssuesApi>`.
    pub fn type_written(&self) -> &'static str {
        self.type_written
    }

    /// What the application must supply.
    pub fn requirement(&self) -> Requirement {
        (self.requirement)()
    }

    /// The type that must be provided (`dyn my_crate::IssuesApi`), or the type as written
    /// for one the runtime gives.
    pub fn provided_type(&self) -> &'static str {
        match self.requirement() {
            Requirement::Provided { type_name, .. } => type_name,
            Requirement::Builtin => self.type_written,
        }
    }
}

/// A field of a component (a tool's, a channel's) whose type the application does not provide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingDependency {
    /// The kind of component whose field it is.
    pub kind: ComponentKind,
    /// The component's name.
    pub component: &'static str,
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
            "[{}] {} `{}` field `{}`: nothing provides `{}` (`{}`)",
            Self::CODE,
            self.kind,
            self.component,
            self.field,
            self.type_written,
            self.provided_type
        )
    }
}

impl std::error::Error for MissingDependency {}

/// Why a component (a tool, a channel) could not be built for a use: a field nothing provides,
/// or a provider that could not make its value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DependencyError {
    /// Nothing provides the field's type.
    #[error("{0}")]
    Missing(MissingDependency),
    /// The provider failed.
    #[error("{kind} `{component}` field `{field}`: `{provided_type}` is unavailable: {reason}")]
    Unavailable {
        /// The kind of component whose field it is.
        kind: ComponentKind,
        /// The component's name.
        component: &'static str,
        /// The field.
        field: &'static str,
        /// The type that is provided.
        provided_type: &'static str,
        /// What its provider said.
        reason: String,
    },
}
