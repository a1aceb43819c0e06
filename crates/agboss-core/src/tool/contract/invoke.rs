//! The call contract: [`Invoker`] runs one tool call from JSON arguments to what the model reads.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use super::dyn_tool::DynTool;
use super::frame::{CallFrame, ToolEnv};
use crate::tool::pipeline::{Pipeline, Stage, ToolOutput};
use crate::tool::schema::conform::Checks;
use crate::tool::schema::{CompiledSchemas, unwritable};
use crate::tool::{CallOutcome, Issues, Tool, ToolDescriptor, ToolFailure, ToolResult};
use crate::units::{ByteSize, TimeSpan};

/// Runs calls of tool `T` through the contract.
///
/// [`invoke`](Self::invoke) takes the JSON arguments a model sent and returns the outcome the
/// model reads; [`call`](Self::call) takes a typed input and returns the typed output, with
/// the same validation, timeout, cancellation and panic handling.
///
/// The contract's steps are not generic: they are compiled once, and an invoker lends them
/// its types (reading the input, building the tool and starting `run`, writing the output), so
/// that a program of many tools compiles those per tool and nothing else.
pub struct Invoker<T: Tool> {
    /// Everything but the types: what is not generic is compiled once for every tool.
    core: Contract,
    /// The stages its calls pass on their own.
    own: Pipeline,
    /// The generated validators of the tool's DTOs, asked once.
    checks: Checks<T::Input, T::Output>,
    _tool: PhantomData<fn() -> T>,
}

impl<T: Tool> Clone for Invoker<T> {
    fn clone(&self) -> Self {
        Invoker {
            core: self.core.clone(),
            own: self.own.clone(),
            checks: self.checks,
            _tool: PhantomData,
        }
    }
}

impl<T: Tool> Invoker<T> {
    /// An invoker in `env` with the tool's own timeout and bound (else 128 KB).
    pub fn new(env: ToolEnv) -> Invoker<T> {
        Invoker::described_by(T::DESCRIPTOR, env)
    }

    /// An invoker of `T`'s code under `descriptor` (its name, timeout and bound), which must
    /// have `T`'s schemas.
    pub(super) fn described_by(descriptor: &'static ToolDescriptor, env: ToolEnv) -> Invoker<T> {
        let streams = crate::tool::io::text_stream::is_text_stream::<T::Output>();
        let core = Contract::described_by(descriptor, env, streams);
        Invoker {
            own: own_of(descriptor, &core),
            core,
            checks: T::checks(),
            _tool: PhantomData,
        }
    }

    /// Uses `timeout` instead of the tool's own.
    pub fn with_timeout(mut self, timeout: TimeSpan) -> Self {
        self.core.timeout = timeout;
        self.own = own_of(self.core.descriptor, &self.core);
        self
    }

    /// Bounds what the model reads to `bound` (the effective bound assembly computed).
    pub fn with_bound(mut self, bound: ByteSize) -> Self {
        self.core.bound = bound;
        self.own = own_of(self.core.descriptor, &self.core);
        self
    }

    /// The stages its calls pass on their own (outside an agent's run).
    pub fn pipeline(&self) -> &Pipeline {
        &self.own
    }

    /// The bound on what the model reads.
    pub fn bound(&self) -> ByteSize {
        self.core.bound
    }

    /// Runs one call from the model's JSON `arguments`; never fails, never panics.
    ///
    /// What the model reads of a validated output is its JSON text, refused over the ceiling,
    /// kept aside over the artifact threshold, else bounded; a
    /// [`TextStream`](crate::tool::TextStream) output is read up to the bound within what is left
    /// of the call's timeout.
    pub fn invoke<'a>(
        &'a self,
        arguments: &'a str,
        frame: &'a CallFrame,
    ) -> impl Future<Output = CallOutcome> + Send + 'a {
        self.core.invoke_own(self, arguments, frame, &self.own)
    }

    /// Runs one call from the model's JSON `arguments` and returns the output as a JSON value,
    /// unbounded: the `ok | error` result of the contract.
    pub async fn invoke_value(&self, arguments: &str, frame: &CallFrame) -> ToolResult {
        let gates = self.own.in_call();
        let (done, _) = self
            .core
            .run_checked(self, arguments, frame, true, gates)
            .await?;
        self.output_value(&self.kept(done)?)
    }

    /// Runs one call with a typed `input`, validated like the model's arguments, and returns
    /// the typed output (validated too), unbounded.
    pub async fn call(&self, input: T::Input, frame: &CallFrame) -> Result<T::Output, ToolFailure> {
        let schemas = schemas_of(self.core.descriptor)?;
        schemas
            .input
            .check_value(&input)
            .map_err(ToolFailure::InvalidInput)?;
        let gates = self.own.in_call();
        // Only a gate of the call's own task reads the arguments here: written only for one.
        let arguments = match gates.is_empty() {
            true => String::new(),
            false => serde_json::to_string(&input).unwrap_or_default(),
        };
        let (done, _) = self
            .core
            .execute(self.call_of(input, true), frame, &arguments, gates)
            .await?;
        let output = self.kept(done)?;
        // A stream is text by construction, and reading it is the caller's.
        if !self.core.streams {
            self.output_value(&output)?;
        }
        Ok(output)
    }

    /// The output a call kept as a value.
    fn kept(&self, done: Done) -> Result<T::Output, ToolFailure> {
        match done {
            Done::Value(output) => match output.downcast::<T::Output>() {
                Ok(output) => Ok(*output),
                Err(_) => Err(shared::not_started()),
            },
            _ => Err(shared::not_started()),
        }
    }

    /// The output as a JSON value, checked against the output schema (the generated validator
    /// where it covers the type, else the value).
    fn output_value(&self, output: &T::Output) -> ToolResult {
        let value = match serde_json::to_value(output) {
            Ok(value) => value,
            Err(e) => return Err(ToolFailure::InvalidOutput(unwritable(output, &e))),
        };
        if let Some(schema) =
            typed::unless_covered(self.checks.output, self.core.descriptor, output)?
        {
            schema
                .check_value(&value)
                .map_err(ToolFailure::InvalidOutput)?;
        }
        Ok(value)
    }
}

/// What the contract's steps need of a tool's types, lent by [`Invoker<T>`] (its one
/// implementation): each method is compiled once per tool, and the steps around them once.
trait Typed: Sync {
    /// Step 1's reading: `arguments`, which the input schema accepts, read as the input type
    /// (by the generated validator where it covers the type and no field has an allowlist),
    /// into a call not yet started whose output is kept as a value if `keep`, else rendered as
    /// the model reads it.
    fn decode(
        &self,
        schemas: &CompiledSchemas,
        arguments: &str,
        keep: bool,
    ) -> Result<Call, Issues>;

    /// The same of a `wants` tool's arguments with their references redeemed.
    fn decode_redeemed(&self, arguments: &Value, keep: bool) -> Result<Call, Issues>;
}

impl<T: Tool> Typed for Invoker<T> {
    fn decode(
        &self,
        schemas: &CompiledSchemas,
        arguments: &str,
        keep: bool,
    ) -> Result<Call, Issues> {
        match self.read_input(schemas, arguments) {
            Ok(input) => Ok(self.call_of(input, keep)),
            Err(issues) => Err(issues),
        }
    }

    fn decode_redeemed(&self, arguments: &Value, keep: bool) -> Result<Call, Issues> {
        match crate::tool::schema::read_redeemed::<T::Input>(arguments) {
            Ok(input) => Ok(self.call_of(input, keep)),
            Err(issues) => Err(issues),
        }
    }
}

impl<T: Tool> Invoker<T> {
    /// `arguments`, which the input schema accepts, read as the input type.
    fn read_input(&self, schemas: &CompiledSchemas, arguments: &str) -> Result<T::Input, Issues> {
        match self.checks.input {
            Some(check) if schemas.input.is_plain() => {
                schemas.input.decode_checked::<T::Input>(arguments, check)
            }
            _ => schemas.input.decode::<T::Input>(arguments),
        }
    }

    /// A call of the tool on `input`, not yet started; its output kept as a value if `keep`,
    /// else rendered as the model reads it.
    fn call_of(&self, input: T::Input, keep: bool) -> Call {
        typed::typed_call::<T, _>(
            input,
            typed::run_owned::<T>,
            self.checks,
            self.core.descriptor,
            keep,
        )
    }
}

/// The stages the calls of `descriptor` under `core` pass on their own.
fn own_of(descriptor: &'static ToolDescriptor, core: &Contract) -> Pipeline {
    let env = &core.env;
    own_pipeline(
        descriptor,
        env.credentials(),
        env.clock(),
        core.timeout,
        core.bound,
    )
}

fn schemas_of(
    descriptor: &'static ToolDescriptor,
) -> Result<&'static CompiledSchemas, ToolFailure> {
    descriptor
        .schemas()
        .map(|s| &**s)
        .map_err(|e| ToolFailure::Schema(e.clone()))
}

impl<T: Tool> DynTool for Invoker<T> {
    fn descriptor(&self) -> &'static ToolDescriptor {
        self.core.descriptor
    }

    fn bound(&self) -> ByteSize {
        self.core.bound
    }

    fn timeout(&self) -> TimeSpan {
        self.core.timeout
    }

    fn check_input(&self, arguments: &str) -> Result<serde_json::Value, ToolFailure> {
        self.core.check_input(arguments)
    }

    fn invoke<'a>(
        &'a self,
        arguments: &'a str,
        frame: &'a CallFrame,
    ) -> Pin<Box<dyn Future<Output = CallOutcome> + Send + 'a>> {
        Box::pin(Invoker::invoke(self, arguments, frame))
    }

    fn pipeline(&self) -> &Pipeline {
        &self.own
    }

    fn run_call<'a>(
        &'a self,
        arguments: &'a str,
        frame: &'a CallFrame,
        gates: &'a [Arc<dyn Stage>],
    ) -> Pin<Box<dyn Future<Output = ToolOutput> + Send + 'a>> {
        Box::pin(self.core.invoke(self, arguments, frame, gates, Next::Ready))
    }
}

/// `T`'s calls under `descriptor` in `env`, bounded by `bound`, as an agent holds them.
pub(crate) fn erase<T: Tool>(
    descriptor: &'static ToolDescriptor,
    env: ToolEnv,
    bound: ByteSize,
) -> Arc<dyn DynTool> {
    Arc::new(Invoker::<T>::described_by(descriptor, env).with_bound(bound))
}

#[path = "steps.rs"]
mod shared;
use super::own::own_pipeline;
use shared::{Call, Contract, Done, Next};

#[path = "typed.rs"]
mod typed;

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
