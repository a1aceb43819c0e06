//! The call contract: [`Invoker`] runs one tool call from JSON arguments to what the model reads.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use jsonschema::Validator;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::race::{Finish, Race, panic_message};
use super::schema::CompiledSchemas;
use super::tape::{TapeJson, fill_from_serialize, fill_from_text, with_tape};
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
    descriptor: &'static ToolDescriptor,
    env: ToolEnv,
    timeout: TimeSpan,
    bound: ByteSize,
    _tool: PhantomData<fn() -> T>,
}

impl<T> Clone for Invoker<T> {
    fn clone(&self) -> Self {
        Invoker {
            descriptor: self.descriptor,
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
            descriptor,
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
        match self.run_checked(arguments, frame).await {
            Ok(output) => match render(&output) {
                Ok(text) => CallOutcome::succeeded(text, self.bound),
                Err(failure) => CallOutcome::failed(failure, self.bound),
            },
            Err(failure) => CallOutcome::failed(failure, self.bound),
        }
    }

    /// Runs one call from the model's JSON `arguments` and returns the output as a JSON value,
    /// unbounded: the `ok | error` result of the contract.
    pub async fn invoke_value(&self, arguments: &str, frame: &CallFrame) -> ToolResult {
        let output = self.run_checked(arguments, frame).await?;
        serde_json::to_value(&output)
            .map_err(|e| ToolFailure::InvalidOutput(Issues::one(None, e.to_string())))
    }

    /// Runs one call with a typed `input`, validated like the model's arguments, and returns
    /// the typed output (validated too), unbounded.
    pub async fn call(&self, input: T::Input, frame: &CallFrame) -> Result<T::Output, ToolFailure> {
        let schemas = schemas_of(self.descriptor)?;
        check(
            &schemas.input_validator,
            &schemas.input,
            &input,
            ToolFailure::InvalidInput,
        )?;
        let output = self.execute(input, frame).await?;
        check(
            &schemas.output_validator,
            &schemas.output,
            &output,
            ToolFailure::InvalidOutput,
        )?;
        Ok(output)
    }

    /// The four steps, up to a validated output.
    async fn run_checked(
        &self,
        arguments: &str,
        frame: &CallFrame,
    ) -> Result<T::Output, ToolFailure> {
        let schemas = schemas_of(self.descriptor)?;
        let input = decode_input::<T::Input>(schemas, arguments)?;
        let output = self.execute(input, frame).await?;
        check(
            &schemas.output_validator,
            &schemas.output,
            &output,
            ToolFailure::InvalidOutput,
        )?;
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
            self.descriptor,
        );
        let tool = T::build(&scope).map_err(ToolFailure::Dependency)?;
        let call_signal = scope.into_call_signal();
        let race = Race::new(
            tool.run(input),
            &self.env.clock,
            self.timeout.as_duration(),
            signal,
        );
        let finish = {
            let mut race = std::pin::pin!(race);
            let finish = race.as_mut().await;
            // The call's signal fires before the run is dropped (at the end of this block), so
            // that what the run drops (an MCP request's cancel notification) can say why.
            if let (Finish::TimedOut, Some(call_signal)) = (&finish, &call_signal) {
                call_signal.cancel(AbortReason::timed_out(self.timeout));
            }
            finish
        };
        match finish {
            Finish::Done(Ok(Ok(output))) => Ok(output),
            // A tool that gives up because the execution was cancelled reports the cancellation,
            // which says more than its own "stopped".
            Finish::Done(Ok(Err(error))) => match signal.reason() {
                Some(reason) => Err(ToolFailure::Aborted(reason)),
                None => Err(ToolFailure::Raised(error)),
            },
            Finish::Done(Err(payload)) => Err(ToolFailure::Panicked(panic_message(&*payload))),
            Finish::TimedOut => Err(ToolFailure::TimedOut(self.timeout)),
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
///
/// The text is validated on a pooled tape, then parsed into the input type; the second parse
/// costs less than building and dropping a `serde_json::Value`.
fn decode_input<I: DeserializeOwned>(
    schemas: &CompiledSchemas,
    arguments: &str,
) -> Result<I, ToolFailure> {
    let text = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    with_tape(|tape| {
        // Positions in a parse error count in the text the model sent, so it is not trimmed.
        fill_from_text(tape, text).map_err(|e| ToolFailure::InvalidInput(Issues::malformed(&e)))?;
        if schemas.input_validator.is_valid(tape.root()) {
            Ok(())
        } else {
            Err(ToolFailure::InvalidInput(Issues::of(
                &schemas.input_validator,
                &schemas.input,
                tape.root(),
            )))
        }
    })?;
    serde_json::from_str::<I>(text).map_err(|_| {
        // The schema accepted what serde refuses (a hand-written schema, a duplicate key, or a
        // serde attribute schemars does not model); find where, for the message.
        let issues =
            serde_path_to_error::deserialize::<_, I>(&mut serde_json::Deserializer::from_str(text))
                .err()
                .map_or_else(
                    || Issues::one(None, "does not match the input type"),
                    Issues::serde,
                );
        ToolFailure::InvalidInput(issues)
    })
}

/// Validates a typed value (a test's input, a tool's output) against `validator`.
fn check<V: serde::Serialize>(
    validator: &Validator<TapeJson>,
    schema: &Value,
    value: &V,
    failure: fn(Issues) -> ToolFailure,
) -> Result<(), ToolFailure> {
    with_tape(|tape| {
        if let Err(error) = fill_from_serialize(tape, value) {
            let mut sink = serde_json::Serializer::new(std::io::sink());
            let issues = serde_path_to_error::serialize(value, &mut sink)
                .err()
                .map_or_else(|| Issues::one(None, error.to_string()), Issues::serde);
            return Err(failure(issues));
        }
        if validator.is_valid(tape.root()) {
            Ok(())
        } else {
            Err(failure(Issues::of(validator, schema, tape.root())))
        }
    })
}

/// What the model reads of an output: its JSON text, fields in declaration order.
fn render<O: serde::Serialize>(output: &O) -> Result<String, ToolFailure> {
    serde_json::to_string(output)
        .map_err(|e| ToolFailure::InvalidOutput(Issues::one(None, e.to_string())))
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
        self.descriptor
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

pub(super) fn erase<T: Tool>(
    descriptor: &'static ToolDescriptor,
    env: ToolEnv,
    bound: ByteSize,
) -> Arc<dyn DynTool> {
    let mut invoker = Invoker::<T>::new(env).with_bound(bound);
    invoker.descriptor = descriptor;
    invoker.timeout = descriptor.timeout();
    Arc::new(invoker)
}
