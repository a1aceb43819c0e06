//! The call contract: [`Invoker`] runs one tool call from JSON arguments to what the model reads.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::race::{Finish, Race, panic_message};
use super::schema::CompiledSchemas;
use super::{CallOutcome, Issues, Tool, ToolDescriptor, ToolFailure, ToolResult};
use crate::context::{AbortReason, Execution, Step};
use crate::deps::{Providers, Scope};
use crate::time::Clock;
use crate::units::{ByteSize, TimeSpan};

/// What tools are called in: the application's providers and clock. Cloning is cheap.
#[derive(Clone, Debug, Default)]
pub struct ToolEnv {
    providers: Arc<Providers>,
    clock: Clock,
}

impl ToolEnv {
    /// Tools calling into `providers` on `clock`.
    pub fn new(providers: Arc<Providers>, clock: Clock) -> ToolEnv {
        ToolEnv { providers, clock }
    }

    /// The providers.
    pub fn providers(&self) -> &Providers {
        &self.providers
    }

    /// The clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}

/// Which call this is: its execution and its step.
#[derive(Clone, Debug)]
pub struct CallFrame {
    execution: Execution,
    step: Step,
}

impl CallFrame {
    /// The call `step` in `execution`.
    pub fn new(execution: Execution, step: Step) -> CallFrame {
        CallFrame { execution, step }
    }

    /// The execution.
    pub fn execution(&self) -> &Execution {
        &self.execution
    }

    /// The step.
    pub fn step(&self) -> &Step {
        &self.step
    }
}

/// Runs calls of tool `T` through the contract.
///
/// [`invoke`](Self::invoke) takes the JSON arguments a model sent and returns the outcome the
/// model reads; [`call`](Self::call) takes a typed input and returns the typed output, with
/// the same validation, timeout, cancellation and panic handling.
pub struct Invoker<T> {
    env: ToolEnv,
    timeout: TimeSpan,
    bound: ByteSize,
    _tool: PhantomData<fn() -> T>,
}

impl<T> Clone for Invoker<T> {
    fn clone(&self) -> Self {
        Invoker {
            env: self.env.clone(),
            timeout: self.timeout,
            bound: self.bound,
            _tool: PhantomData,
        }
    }
}

impl<T: Tool> Invoker<T> {
    /// An invoker in `env` with the tool's own timeout and bound (else 128 KB).
    pub fn new(env: ToolEnv) -> Invoker<T> {
        let descriptor = T::DESCRIPTOR;
        Invoker {
            env,
            timeout: descriptor.timeout(),
            bound: descriptor
                .max_result_size()
                .unwrap_or(ByteSize::DEFAULT_RESULT_BOUND),
            _tool: PhantomData,
        }
    }

    /// Uses `timeout` instead of the tool's own.
    pub fn with_timeout(mut self, timeout: TimeSpan) -> Self {
        self.timeout = timeout;
        self
    }

    /// Bounds what the model reads to `bound` (the effective bound assembly computed).
    pub fn with_bound(mut self, bound: ByteSize) -> Self {
        self.bound = bound;
        self
    }

    /// The bound on what the model reads.
    pub fn bound(&self) -> ByteSize {
        self.bound
    }

    /// Runs one call from the model's JSON `arguments`; never fails, never panics.
    pub async fn invoke(&self, arguments: &str, frame: &CallFrame) -> CallOutcome {
        CallOutcome::render(self.invoke_value(arguments, frame).await, self.bound)
    }

    /// Runs one call from the model's JSON `arguments` and returns the output's JSON value,
    /// unbounded.
    pub async fn invoke_value(&self, arguments: &str, frame: &CallFrame) -> ToolResult {
        let schemas = schemas_of(T::DESCRIPTOR)?;
        let input = decode_input::<T::Input>(schemas, arguments)?;
        let output = self.execute(input, frame).await?;
        encode_output(schemas, &output)
    }

    /// Runs one call with a typed `input`, validated like the model's arguments, and returns
    /// the typed output (validated too), unbounded.
    pub async fn call(&self, input: T::Input, frame: &CallFrame) -> Result<T::Output, ToolFailure> {
        let schemas = schemas_of(T::DESCRIPTOR)?;
        check_typed_input(schemas, &input)?;
        let output = self.execute(input, frame).await?;
        encode_output(schemas, &output)?;
        Ok(output)
    }

    /// Steps 2 and 3 of the contract: not started when aborted; `run` under the timeout and
    /// the signal, panics caught.
    async fn execute(&self, input: T::Input, frame: &CallFrame) -> Result<T::Output, ToolFailure> {
        let signal = frame.execution.signal();
        if let Some(reason) = signal.reason() {
            return Err(ToolFailure::Aborted(reason));
        }
        let scope = Scope::new(
            &self.env.providers,
            &self.env.clock,
            &frame.execution,
            &frame.step,
            T::DESCRIPTOR.name(),
        );
        let tool = T::build(&scope).map_err(ToolFailure::MissingDependency)?;
        let call_signal = scope.into_call_signal();
        let finish = Race::new(
            tool.run(input),
            &self.env.clock,
            self.timeout.as_duration(),
            signal,
        )
        .await;
        match finish {
            Finish::Done(Ok(Ok(output))) => Ok(output),
            Finish::Done(Ok(Err(error))) => Err(ToolFailure::Raised(error)),
            Finish::Done(Err(payload)) => Err(ToolFailure::Panicked(panic_message(&*payload))),
            Finish::TimedOut => {
                // The run is dropped; whatever it handed the call's signal stops too.
                if let Some(call_signal) = call_signal {
                    call_signal.cancel(AbortReason::timed_out(self.timeout));
                }
                Err(ToolFailure::TimedOut(self.timeout))
            }
            Finish::Aborted => {
                Err(ToolFailure::Aborted(signal.reason().unwrap_or_else(|| {
                    AbortReason::cancelled("execution cancelled")
                })))
            }
        }
    }
}

fn schemas_of(
    descriptor: &'static ToolDescriptor,
) -> Result<&'static CompiledSchemas, ToolFailure> {
    descriptor
        .schemas()
        .map(|s| &**s)
        .map_err(|e| ToolFailure::Schema(e.clone()))
}

/// Step 1: JSON text to a validated input. Empty arguments mean `{}` (some providers send
/// nothing for a tool without parameters).
fn decode_input<I: DeserializeOwned>(
    schemas: &CompiledSchemas,
    arguments: &str,
) -> Result<I, ToolFailure> {
    // Positions in a parse error count in the text the model sent, so parse it untrimmed.
    let value = if arguments.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_str::<Value>(arguments)
            .map_err(|e| ToolFailure::InvalidInput(Issues::malformed(&e)))?
    };
    if !schemas.input_validator.is_valid(&value) {
        return Err(ToolFailure::InvalidInput(Issues::of(
            &schemas.input_validator,
            &schemas.input,
            &value,
        )));
    }
    I::deserialize(&value).map_err(|_| {
        // The schema accepted what serde refuses (a hand-written schema, or a serde attribute
        // schemars does not model); find where, for the message.
        let error = serde_path_to_error::deserialize::<_, I>(&value)
            .err()
            .map_or_else(
                || Issues::one(None, "does not match the input type"),
                Issues::serde,
            );
        ToolFailure::InvalidInput(error)
    })
}

fn check_typed_input<I: serde::Serialize>(
    schemas: &CompiledSchemas,
    input: &I,
) -> Result<(), ToolFailure> {
    let value = serde_json::to_value(input)
        .map_err(|e| ToolFailure::InvalidInput(Issues::one(None, e.to_string())))?;
    if schemas.input_validator.is_valid(&value) {
        Ok(())
    } else {
        Err(ToolFailure::InvalidInput(Issues::of(
            &schemas.input_validator,
            &schemas.input,
            &value,
        )))
    }
}

/// Step 4: the output to its validated JSON value.
fn encode_output<O: serde::Serialize>(schemas: &CompiledSchemas, output: &O) -> ToolResult {
    let value = serde_json::to_value(output).map_err(|_| {
        let mut sink = serde_json::Serializer::new(std::io::sink());
        let issues = serde_path_to_error::serialize(output, &mut sink)
            .err()
            .map_or_else(
                || Issues::one(None, "cannot be written as JSON"),
                Issues::serde,
            );
        ToolFailure::InvalidOutput(issues)
    })?;
    if schemas.output_validator.is_valid(&value) {
        Ok(value)
    } else {
        Err(ToolFailure::InvalidOutput(Issues::of(
            &schemas.output_validator,
            &schemas.output,
            &value,
        )))
    }
}

/// A tool of any type, as the agent loop holds it.
pub trait DynTool: Send + Sync {
    /// The tool's descriptor.
    fn descriptor(&self) -> &'static ToolDescriptor;

    /// The bound on what the model reads.
    fn bound(&self) -> ByteSize;

    /// Runs one call from the model's JSON `arguments` (see [`Invoker::invoke`]).
    fn invoke<'a>(
        &'a self,
        arguments: &'a str,
        frame: &'a CallFrame,
    ) -> Pin<Box<dyn Future<Output = CallOutcome> + Send + 'a>>;
}

impl<T: Tool> DynTool for Invoker<T> {
    fn descriptor(&self) -> &'static ToolDescriptor {
        T::DESCRIPTOR
    }

    fn bound(&self) -> ByteSize {
        self.bound
    }

    fn invoke<'a>(
        &'a self,
        arguments: &'a str,
        frame: &'a CallFrame,
    ) -> Pin<Box<dyn Future<Output = CallOutcome> + Send + 'a>> {
        Box::pin(Invoker::invoke(self, arguments, frame))
    }
}

pub(super) fn erase<T: Tool>(env: ToolEnv) -> Arc<dyn DynTool> {
    Arc::new(Invoker::<T>::new(env))
}
