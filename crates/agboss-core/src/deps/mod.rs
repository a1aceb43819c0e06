//! Dependencies: a tool's fields, resolved per call.
//!
//! A field is an [`ExecutionContext`](crate::context::ExecutionContext) (the call's own), a
//! [`SpendRecorder`](crate::spend::SpendRecorder), the application's
//! [`Clock`](crate::time::Clock), an [`McpClient`](crate::mcp::McpClient) of a declared MCP
//! server, or an `Arc<T>` / `Arc<dyn Trait>` the application [provides](Providers::provide). What a tool needs is known from its descriptor, so a missing
//! provider is reported before any call.

mod dependency;
mod missing;
mod providers;
mod scope;

pub use dependency::{Dependency, DependencySpec, Requirement, Unresolved};
pub use missing::{DependencyError, MissingDependency, missing_dependencies};
pub use providers::{ErasedValue, MakeValue, Providers};
pub use scope::Scope;
