//! [`DynTool`]: a tool of any type, as an agent holds it (`invoke.rs` makes one: `erase`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::frame::CallFrame;
use crate::tool::pipeline::{Pipeline, Stage, ToolOutput};
use crate::tool::{CallOutcome, ToolDescriptor, ToolFailure};
use crate::units::{ByteSize, TimeSpan};

/// A tool of any type, as the agent loop holds it.
///
/// [`Invoker<T>`](super::Invoker) is its one implementation.
pub trait DynTool: Send + Sync {
    /// The tool's descriptor.
    fn descriptor(&self) -> &'static ToolDescriptor;

    /// The bound on what the model reads.
    fn bound(&self) -> ByteSize;

    /// The call's timeout (the tool's own unless the invoker was given another).
    fn timeout(&self) -> TimeSpan {
        self.descriptor().timeout()
    }

    /// Step 1 of the contract alone: the arguments as the input schema accepts them, or why
    /// not. A call that waits for approval is checked first, so nobody is asked to approve
    /// arguments the tool would refuse.
    fn check_input(&self, arguments: &str) -> Result<serde_json::Value, ToolFailure>;

    /// Runs one call from the model's JSON `arguments` (see [`Invoker::invoke`](super::Invoker::invoke)).
    fn invoke<'a>(
        &'a self,
        arguments: &'a str,
        frame: &'a CallFrame,
    ) -> Pin<Box<dyn Future<Output = CallOutcome> + Send + 'a>>;

    /// The stages its calls pass on their own (outside an agent's run): what
    /// [`invoke`](Self::invoke) runs, and what an agent's pipeline for it starts from.
    fn pipeline(&self) -> &Pipeline;

    /// Runs one call from `arguments` through the contract alone, passing `gates` (those of
    /// the call's own task) just before `run`: its result before any rule shapes it, for the
    /// rules of an agent's pipeline.
    fn run_call<'a>(
        &'a self,
        arguments: &'a str,
        frame: &'a CallFrame,
        gates: &'a [Arc<dyn Stage>],
    ) -> Pin<Box<dyn Future<Output = ToolOutput> + Send + 'a>>;
}
