//! The [`Dependency`] trait and the static description of a tool's fields.

use std::any::TypeId;
use std::sync::Arc;

use super::Scope;
use crate::context::ExecutionContext;
use crate::deps::Unresolved;
use crate::spend::SpendRecorder;
use crate::time::Clock;

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

/// A type a tool can declare as a field; agboss resolves it for each call.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a dependency of a tool",
    label = "not something agboss can give a tool",
    note = "a tool's fields are its dependencies: `ExecutionContext`, `SpendRecorder`, `ModelClient`, `Clock`, `McpClient<Server>`, or an `Arc<T>` / `Arc<dyn Trait>` the application provides"
)]
pub trait Dependency: Sized + Send + Sync + 'static {
    /// What the application must supply for it.
    fn requirement() -> Requirement;

    /// The value for the call `scope` describes.
    fn resolve(scope: &Scope<'_>) -> Result<Self, Unresolved>;
}

impl Dependency for ExecutionContext {
    fn requirement() -> Requirement {
        Requirement::Builtin
    }

    fn resolve(scope: &Scope<'_>) -> Result<Self, Unresolved> {
        Ok(ExecutionContext::new(
            scope.execution().clone(),
            scope.step().clone(),
            scope.call_signal(),
        ))
    }
}

impl Dependency for SpendRecorder {
    fn requirement() -> Requirement {
        Requirement::Builtin
    }

    fn resolve(scope: &Scope<'_>) -> Result<Self, Unresolved> {
        Ok(SpendRecorder::new(
            scope.execution().spend().clone(),
            Some(scope.tool_name()),
            Some(scope.step().call_id().to_owned()),
        ))
    }
}

impl Dependency for Clock {
    fn requirement() -> Requirement {
        Requirement::Builtin
    }

    fn resolve(scope: &Scope<'_>) -> Result<Self, Unresolved> {
        Ok(scope.clock().clone())
    }
}

impl<T: ?Sized + Send + Sync + 'static> Dependency for Arc<T> {
    fn requirement() -> Requirement {
        Requirement::Provided {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
        }
    }

    fn resolve(scope: &Scope<'_>) -> Result<Self, Unresolved> {
        scope.providers().get::<T>()
    }
}

/// One field of a tool, as its descriptor lists it.
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
}
