//! The [`Dependency`] trait: the types a tool (or a channel) can take as a field, and how each
//! is resolved for a call.

use std::any::TypeId;
use std::sync::Arc;

use super::Scope;
use crate::component::Requirement;
use crate::context::ExecutionContext;
use crate::deps::Unresolved;
use crate::spend::SpendRecorder;
use crate::time::Clock;

/// A type a tool can declare as a field; agboss resolves it for each call.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a dependency of a tool",
    label = "not something agboss can give a tool",
    note = "a tool's fields are its dependencies: `ExecutionContext`, `SpendRecorder`, `Credentials`, `ModelClient`, `Clock`, `McpClient<Server>`, or an `Arc<T>` / `Arc<dyn Trait>` the application provides"
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
        )
        .with_progress(scope.progress()))
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

impl Dependency for super::Credentials {
    fn requirement() -> Requirement {
        Requirement::Builtin
    }

    /// The credentials resolved for the call (none for a tool that needs none).
    fn resolve(scope: &Scope<'_>) -> Result<Self, Unresolved> {
        Ok(scope.credentials().cloned().unwrap_or_default())
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
