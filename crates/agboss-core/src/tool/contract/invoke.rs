//! The call contract: [`Invoker`] runs one tool call from JSON arguments to what the model reads.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::context::{Execution, ProgressSink, Step};
use crate::deps::Providers;
use crate::time::Clock;
use crate::tool::pipeline::{CallEnd, Finish, Pipeline, Stage, ToolOutput};
use crate::tool::schema::conform::Checks;
use crate::tool::schema::{CompiledSchemas, unwritable};
use crate::tool::{
    ArtifactShelf, Asker, CallOutcome, CredentialProvider, Issues, Tool, ToolDescriptor,
    ToolFailure, ToolResult,
};
use crate::units::{ByteSize, TimeSpan};

/// What tools are called in: the application's providers, clock and credential provider.
/// Cloning is cheap.
#[derive(Clone, Default)]
pub struct ToolEnv {
    providers: Arc<Providers>,
    clock: Clock,
    credentials: Option<Arc<dyn CredentialProvider>>,
}

impl std::fmt::Debug for ToolEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEnv")
            .field("providers", &self.providers)
            .field("clock", &self.clock)
            .field("credentials", &self.credentials.is_some())
            .finish()
    }
}

impl ToolEnv {
    /// Tools calling into `providers` on `clock`.
    pub fn new(providers: Arc<Providers>, clock: Clock) -> ToolEnv {
        ToolEnv {
            providers,
            clock,
            credentials: None,
        }
    }

    /// The same, resolving the credentials tools need through `provider`.
    pub fn with_credentials(mut self, provider: Option<Arc<dyn CredentialProvider>>) -> ToolEnv {
        self.credentials = provider;
        self
    }

    /// What resolves the credentials tools need, if the application has one.
    pub fn credentials(&self) -> Option<&Arc<dyn CredentialProvider>> {
        self.credentials.as_ref()
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

/// Which call this is: its execution and its step (and, in a run, what it asks through).
#[derive(Clone)]
pub struct CallFrame {
    execution: Execution,
    step: Step,
    asker: Option<Arc<dyn Asker>>,
    artifacts: Option<Arc<dyn ArtifactShelf>>,
    watch: Option<CallWatch>,
}

/// What someone watching a run is told of a call: that it starts (its arguments accepted,
/// every gate passed, just before `run`), and the progress it reports.
#[derive(Clone)]
pub struct CallWatch {
    /// Called once, as the call starts.
    pub started: Arc<dyn Fn() + Send + Sync>,
    /// Where its progress goes.
    pub progress: ProgressSink,
}

impl CallFrame {
    /// The call `step` in `execution`.
    pub fn new(execution: Execution, step: Step) -> CallFrame {
        CallFrame {
            execution,
            step,
            asker: None,
            artifacts: None,
            watch: None,
        }
    }

    /// The same call, watched: `watch` hears when it starts and how far it gets.
    pub fn with_watch(mut self, watch: CallWatch) -> CallFrame {
        self.watch = Some(watch);
        self
    }

    /// The same call, keeping and redeeming artifacts on `shelf` (the execution's; what the
    /// loop gives a call of a tool with a `result_kind` or `wants`). Without one, results are
    /// never kept aside and every reference is refused.
    pub fn with_artifacts(mut self, shelf: Arc<dyn ArtifactShelf>) -> CallFrame {
        self.artifacts = Some(shelf);
        self
    }

    /// The same call, asking its questions through `asker`.
    pub fn with_asker(mut self, asker: Arc<dyn Asker>) -> CallFrame {
        self.asker = Some(asker);
        self
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

impl std::fmt::Debug for CallFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallFrame")
            .field("execution", &self.execution)
            .field("step", &self.step)
            .field("asks", &self.asker.is_some())
            .field("artifacts", &self.artifacts.is_some())
            .finish()
    }
}

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
    fn described_by(descriptor: &'static ToolDescriptor, env: ToolEnv) -> Invoker<T> {
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
        async move {
            let output = self
                .core
                .invoke(self, arguments, frame, self.own.in_call())
                .await;
            let step = frame.step();
            let end = CallEnd::new(
                self.core.descriptor,
                step.call_id(),
                arguments,
                frame.execution(),
            );
            let shelf = frame.artifacts.as_deref();
            match self.own.finish(&end, output, shelf).await {
                Finish::Done { output, .. } | Finish::Retry(output, _) => output.render(),
            }
        }
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

/// A tool of any type, as the agent loop holds it.
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

    /// Runs one call from the model's JSON `arguments` (see [`Invoker::invoke`]).
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
        Box::pin(self.core.invoke(self, arguments, frame, gates))
    }
}

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
use shared::{Call, Contract, Done};

#[path = "typed.rs"]
mod typed;

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
