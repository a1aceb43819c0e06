//! The call contract: [`Invoker`] runs one tool call from JSON arguments to what the model reads.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use super::conform::Checks;
use super::needs::resolve_needs;
use super::race::{Finish, Race};
use super::schema::{CompiledSchemas, SchemaCheck, unwritable};
use super::{
    ArtifactShelf, Asker, CallOutcome, CredentialProvider, Credentials, Tool, ToolDescriptor,
    ToolFailure, ToolResult,
};
use crate::context::{AbortReason, Execution, ProgressSink, Step};
use crate::deps::Providers;
use crate::time::Clock;
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
pub struct Invoker<T: Tool> {
    /// Everything but the types: what is not generic is compiled once for every tool.
    core: Contract,
    /// The generated validators of the tool's DTOs, asked once.
    checks: Checks<T::Input, T::Output>,
    _tool: PhantomData<fn() -> T>,
}

impl<T: Tool> Clone for Invoker<T> {
    fn clone(&self) -> Self {
        Invoker {
            core: self.core.clone(),
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
        Invoker {
            core: Contract::described_by(descriptor, env),
            checks: T::checks(),
            _tool: PhantomData,
        }
    }

    /// Uses `timeout` instead of the tool's own.
    pub fn with_timeout(mut self, timeout: TimeSpan) -> Self {
        self.core.timeout = timeout;
        self
    }

    /// Bounds what the model reads to `bound` (the effective bound assembly computed).
    pub fn with_bound(mut self, bound: ByteSize) -> Self {
        self.core.bound = bound;
        self
    }

    /// The bound on what the model reads.
    pub fn bound(&self) -> ByteSize {
        self.core.bound
    }

    /// Runs one call from the model's JSON `arguments`; never fails, never panics.
    ///
    /// What the model reads of a validated output is its JSON text, refused over the ceiling,
    /// kept aside over the artifact threshold, else bounded; a
    /// [`TextStream`](super::TextStream) output is read up to the bound within what is left
    /// of the call's timeout.
    pub async fn invoke(&self, arguments: &str, frame: &CallFrame) -> CallOutcome {
        // Only a stream is read after `run` returns, within what is left of the timeout: only
        // then is the start needed (the check is on types, decided at compile time).
        let clock = &self.core.env.clock;
        let started = super::text_stream::is_text_stream::<T::Output>().then(|| clock.now());
        match self.run_checked(arguments, frame).await {
            Ok((output, cut)) => match super::text_stream::as_text_stream(output) {
                Ok(stream) => {
                    let started = started.unwrap_or_else(|| clock.now());
                    self.core.read_stream(stream, frame, started).await
                }
                Err(output) => {
                    let text = self.rendered_checked(&output);
                    self.core.rendered(text, cut, frame).await
                }
            },
            Err(failure) => CallOutcome::failed(failure, self.core.bound),
        }
    }

    /// Runs one call from the model's JSON `arguments` and returns the output as a JSON value,
    /// unbounded: the `ok | error` result of the contract.
    pub async fn invoke_value(&self, arguments: &str, frame: &CallFrame) -> ToolResult {
        let (output, _) = self.run_checked(arguments, frame).await?;
        self.output_value(&output)
    }

    /// Runs one call with a typed `input`, validated like the model's arguments, and returns
    /// the typed output (validated too), unbounded.
    pub async fn call(&self, input: T::Input, frame: &CallFrame) -> Result<T::Output, ToolFailure> {
        let schemas = schemas_of(self.core.descriptor)?;
        schemas
            .input
            .check_value(&input)
            .map_err(ToolFailure::InvalidInput)?;
        let (output, _) = self.execute(input, frame).await?;
        if !super::text_stream::is_text_stream::<T::Output>() {
            self.output_value(&output)?;
        }
        Ok(output)
    }

    /// The output's JSON text, as the model reads it, checked against the output schema: by the
    /// generated validator on the value where it covers the type, else on the text just
    /// written. So the output is serialized once, and by one serializer compiled per tool.
    fn rendered_checked(&self, output: &T::Output) -> Result<String, ToolFailure> {
        let text = serde_json::to_string(output)
            .map_err(|e| ToolFailure::InvalidOutput(unwritable(output, &e)))?;
        if let Some(schema) = self.output_schema_unless_covered(output)? {
            schema
                .check_text(&text)
                .map_err(ToolFailure::InvalidOutput)?;
        }
        Ok(text)
    }

    /// The output as a JSON value, checked against the output schema (the generated validator
    /// where it covers the type, else the value).
    fn output_value(&self, output: &T::Output) -> ToolResult {
        let value = serde_json::to_value(output)
            .map_err(|e| ToolFailure::InvalidOutput(unwritable(output, &e)))?;
        if let Some(schema) = self.output_schema_unless_covered(output)? {
            schema
                .check_value(&value)
                .map_err(ToolFailure::InvalidOutput)?;
        }
        Ok(value)
    }

    /// The output schema's checker, unless the generated validator covers the output's type
    /// and `output` conforms: then there is nothing left to check.
    fn output_schema_unless_covered(
        &self,
        output: &T::Output,
    ) -> Result<Option<&'static SchemaCheck>, ToolFailure> {
        if self.checks.output.is_some_and(|check| check(output)) {
            return Ok(None);
        }
        Ok(Some(&schemas_of(self.core.descriptor)?.output))
    }

    /// The first three steps, up to an output (and where a dependency cut it); the caller checks
    /// the output as it writes it.
    async fn run_checked(
        &self,
        arguments: &str,
        frame: &CallFrame,
    ) -> Result<(T::Output, Option<u64>), ToolFailure> {
        let schemas = schemas_of(self.core.descriptor)?;
        self.core
            .descriptor
            .check_argument_size(arguments)
            .map_err(ToolFailure::InvalidInput)?;
        let input = if self.core.descriptor.wants().is_empty() {
            match self.checks.input.filter(|_| schemas.input.is_plain()) {
                Some(check) => schemas.input.decode_checked::<T::Input>(arguments, check),
                None => schemas.input.decode::<T::Input>(arguments),
            }
            .map_err(ToolFailure::InvalidInput)?
        } else {
            let value = self.core.redeemed(schemas, arguments, frame).await?;
            super::schema::read_redeemed::<T::Input>(&value).map_err(ToolFailure::InvalidInput)?
        };
        self.execute(input, frame).await
    }

    /// Steps 2 and 3 of the contract: not started when aborted; `run` under the timeout and
    /// the signal, panics caught (the output is validated by the caller, step 4); with how many bytes a dependency read
    /// of the result before it cut it, if it did ([`ResultCut`](super::ResultCut)).
    async fn execute(
        &self,
        input: T::Input,
        frame: &CallFrame,
    ) -> Result<(T::Output, Option<u64>), ToolFailure> {
        let signal = frame.execution.signal();
        if let Some(reason) = signal.reason() {
            return Err(ToolFailure::Aborted(reason));
        }
        let core = &self.core;
        // After every gate, just before `run`: nothing to resolve (and nothing allocated) for a
        // tool that needs no credential.
        let credentials: Option<Credentials> = if core.descriptor.needs().is_empty() {
            None
        } else {
            Some(
                resolve_needs(
                    core.env.credentials.as_ref(),
                    core.descriptor,
                    &frame.execution,
                    &core.env.clock,
                    core.timeout,
                )
                .await?,
            )
        };
        let scope = core.scope(frame, credentials.as_ref());
        let tool = T::build(&scope).map_err(ToolFailure::Dependency)?;
        let (call_signal, cut) = scope.into_call_parts();
        if let Some(watch) = &frame.watch {
            (watch.started)();
        }
        let race = Race::new(
            tool.run(input),
            &core.env.clock,
            core.timeout.as_duration(),
            signal,
        );
        let finish = {
            let mut race = std::pin::pin!(race);
            let finish = race.as_mut().await;
            // The call's signal fires before the run is dropped (at the end of this block), so
            // that what the run drops (an MCP request's cancel notification) can say why.
            if let (Finish::TimedOut, Some(call_signal)) = (&finish, &call_signal) {
                call_signal.cancel(AbortReason::timed_out(core.timeout));
            }
            finish
        };
        let output = match finish.into_output() {
            Ok(output) => output,
            Err(ended) => return Err(core.failure(ended, signal)),
        };
        // A stream is text by construction, and reading it is the caller's (`invoke` reads it
        // up to the bound): validating would read it whole.
        Ok((output, cut.and_then(|cut| cut.bytes_read())))
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
}

pub(super) fn erase<T: Tool>(
    descriptor: &'static ToolDescriptor,
    env: ToolEnv,
    bound: ByteSize,
) -> Arc<dyn DynTool> {
    Arc::new(Invoker::<T>::described_by(descriptor, env).with_bound(bound))
}

#[path = "invoke_shared.rs"]
mod shared;
use shared::Contract;

#[cfg(test)]
#[path = "invoke_tests.rs"]
mod tests;
