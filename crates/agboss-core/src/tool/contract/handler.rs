//! [`ToolHandler`] (what a user implements) and [`Tool`] (what `#[tool]` implements).

use std::future::Future;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::component::DependencyError;
use crate::tool::Scope;
use crate::tool::schema::conform::Checks;
use crate::tool::schema::{input_schema_of, output_schema_of};
use crate::tool::{ToolDescriptor, ToolError};

/// The code of a tool: its input and output DTOs and what it does with them.
///
/// `run` gets only its input; everything else (the execution, services, the clock) comes
/// through the struct's fields. Implement it with `async fn`:
///
/// ```
/// # use agboss_core::tool::{ToolError, ToolHandler};
/// # #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
/// # struct Query { query: String }
/// # #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
/// # struct Count { count: usize }
/// struct CountWords;
///
/// impl ToolHandler for CountWords {
///     type Input = Query;
///     type Output = Count;
///
///     async fn run(&self, input: Query) -> Result<Count, ToolError> {
///         Ok(Count { count: input.query.split_whitespace().count() })
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `ToolHandler` impl",
    label = "a `#[tool]` needs a handler",
    note = "add `impl ToolHandler for {Self} {{ type Input = ..; type Output = ..; async fn run(&self, input: Self::Input) -> Result<Self::Output, ToolError> {{ .. }} }}`"
)]
pub trait ToolHandler: Send + Sync + 'static {
    /// What the model sends: a DTO whose JSON Schema the model reads.
    type Input: DeserializeOwned + Serialize + JsonSchema + Send + 'static;
    /// What the tool answers: a DTO, validated against its schema after each call.
    type Output: Serialize + JsonSchema + Send + 'static;

    /// Does the work. A returned error is what the model reads after `Tool error: `.
    fn run(
        &self,
        input: Self::Input,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;
}

/// A tool: a [`ToolHandler`] with a registered [`ToolDescriptor`]. Implemented by `#[tool]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an agboss tool",
    label = "not a `#[tool]`",
    note = "put `#[tool(name = \"...-tool\", description = \"...\")]` on the struct"
)]
pub trait Tool: ToolHandler + Sized {
    /// The tool's static description: name, description, timeout, bound, fields, schemas.
    const DESCRIPTOR: &'static ToolDescriptor;

    /// Builds the tool for one call from `scope`, resolving each field.
    #[doc(hidden)]
    fn build(scope: &Scope<'_>) -> Result<Self, DependencyError>;

    /// The generated validators of the input and output (see [`conform`](super::conform)),
    /// asked by `#[tool]` where the handler's types are known; none by default.
    #[doc(hidden)]
    fn checks() -> Checks<Self::Input, Self::Output> {
        Checks::NONE
    }
}

/// The input schema of tool `T` (what `#[tool]` registers).
#[doc(hidden)]
pub fn tool_input_schema<T: Tool>() -> Value {
    input_schema_of::<T::Input>()
}

/// The output schema of tool `T` (what `#[tool]` registers).
#[doc(hidden)]
pub fn tool_output_schema<T: Tool>() -> Value {
    output_schema_of::<T::Output>()
}
