//! The call contract: [`Invoker`] runs one tool call from JSON arguments to what the model reads.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use super::Scope;
use super::needs::resolve_needs;
use super::race::{Finish, Race, panic_message};
use super::schema::CompiledSchemas;
use super::{
    ArtifactShelf, Asker, CallOutcome, CredentialProvider, Credentials, Issues, Tool,
    ToolDescriptor, ToolFailure, ToolResult,
};
use crate::base::Setting;
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
        Invoker::described_by(T::DESCRIPTOR, env)
    }

    /// An invoker of `T`'s code under `descriptor` (its name, timeout and bound), which must
    /// have `T`'s schemas.
    fn described_by(descriptor: &'static ToolDescriptor, env: ToolEnv) -> Invoker<T> {
        Invoker {
            descriptor,
            env,
            timeout: descriptor.timeout(),
            bound: super::bound::effective_bound(
                descriptor.max_result_size(),
                Setting::built_in(ByteSize::DEFAULT_RESULT_BOUND),
            )
            .value,
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
        // Only a stream is read after `run` returns, within what is left of the timeout: only
        // then is the start needed (the check is on types, decided at compile time).
        let started =
            super::text_stream::is_text_stream::<T::Output>().then(|| self.env.clock.now());
        match self.run_checked(arguments, frame).await {
            Ok((output, cut)) => match (super::text_stream::as_text_stream(output), started) {
                (Ok(stream), Some(started)) => self.read_stream(stream, frame, started).await,
                (Ok(stream), None) => self.read_stream(stream, frame, self.env.clock.now()).await,
                (Err(output), _) => self.rendered(output, cut, frame).await,
            },
            Err(failure) => CallOutcome::failed(failure, self.bound),
        }
    }

    /// What the model reads of a validated output: its JSON text, refused over the ceiling,
    /// kept aside over the artifact threshold, else bounded (as a stopped producer's when a
    /// dependency cut it after `cut` bytes).
    async fn rendered(
        &self,
        output: T::Output,
        cut: Option<u64>,
        frame: &CallFrame,
    ) -> CallOutcome {
        match render(&output) {
            Ok(text) => match self.descriptor.result_ceiling() {
                Some(ceiling) if ceiling.refuses(text.len()) => self.over_ceiling(text, ceiling),
                _ => match (self.descriptor.result_kind(), &frame.artifacts) {
                    (Some(kind), Some(shelf))
                        if text.len() as u64 > kind.threshold(self.bound).get() =>
                    {
                        self.kept_aside(kind, text, frame, &**shelf).await
                    }
                    _ => match cut {
                        Some(bytes_read) => CallOutcome::cut(text, self.bound, bytes_read),
                        None => CallOutcome::succeeded(text, self.bound),
                    },
                },
            },
            Err(failure) => CallOutcome::failed(failure, self.bound),
        }
    }

    /// A [`TextStream`](super::TextStream) output read up to the bound within what is left of
    /// the call's timeout (it started at `started`) and under the execution's signal; the
    /// stream is dropped when the read ends, which stops its producer.
    async fn read_stream(
        &self,
        stream: super::TextStream,
        frame: &CallFrame,
        started: crate::time::ClockTime,
    ) -> CallOutcome {
        let signal = frame.execution.signal();
        let spent = self.env.clock.now().saturating_since(started);
        let left = self.timeout.as_duration().saturating_sub(spent);
        let race = Race::new(
            stream.read_bounded(self.bound),
            &self.env.clock,
            left,
            signal,
        );
        let failure = match race.await {
            Finish::Done(Ok(Ok(read))) => {
                return CallOutcome {
                    content: read.bounded.text,
                    is_result_truncated: read.bounded.truncated,
                    result_bytes: read.bytes_read as usize,
                    failure: None,
                };
            }
            Finish::Done(Ok(Err(error))) => {
                ToolFailure::Raised(super::ToolError::new(error.to_string()))
            }
            Finish::Done(Err(payload)) => ToolFailure::Panicked(panic_message(&*payload)),
            Finish::TimedOut => ToolFailure::TimedOut(self.timeout),
            Finish::Aborted => ToolFailure::Aborted(
                signal
                    .reason()
                    .unwrap_or_else(|| AbortReason::cancelled("execution cancelled")),
            ),
        };
        CallOutcome::failed(failure, self.bound)
    }

    /// A rendered output over the tool's ceiling: the model reads the refusal, and `text` is
    /// dropped here, before anything journals, traces or hands it on.
    #[cold]
    fn over_ceiling(&self, text: String, ceiling: &super::ResultCeiling) -> CallOutcome {
        let bytes = text.len();
        drop(text);
        let failure = ToolFailure::OverCeiling {
            bytes,
            ceiling: *ceiling,
        };
        let mut outcome = CallOutcome::failed(failure, self.bound);
        outcome.result_bytes = bytes;
        outcome
    }

    /// A rendered output over the tool's artifact size: kept on `shelf`, and the model reads
    /// its reference.
    async fn kept_aside(
        &self,
        kind: &super::ResultKind,
        text: String,
        frame: &CallFrame,
        shelf: &dyn ArtifactShelf,
    ) -> CallOutcome {
        let call_id = frame.step().call_id();
        match super::artifact_call::mint(self.descriptor, kind, text, call_id, shelf).await {
            // The reference is never cut: a bound shorter than it would lose the artifact.
            Ok(reference) => CallOutcome {
                result_bytes: reference.len(),
                content: reference,
                is_result_truncated: false,
                failure: None,
            },
            Err(failure) => CallOutcome::failed(failure, self.bound),
        }
    }

    /// Runs one call from the model's JSON `arguments` and returns the output as a JSON value,
    /// unbounded: the `ok | error` result of the contract.
    pub async fn invoke_value(&self, arguments: &str, frame: &CallFrame) -> ToolResult {
        let (output, _) = self.run_checked(arguments, frame).await?;
        serde_json::to_value(&output)
            .map_err(|e| ToolFailure::InvalidOutput(Issues::one(None, e.to_string())))
    }

    /// Runs one call with a typed `input`, validated like the model's arguments, and returns
    /// the typed output (validated too), unbounded.
    pub async fn call(&self, input: T::Input, frame: &CallFrame) -> Result<T::Output, ToolFailure> {
        let schemas = schemas_of(self.descriptor)?;
        schemas
            .input
            .check_value(&input)
            .map_err(ToolFailure::InvalidInput)?;
        self.execute(schemas, input, frame)
            .await
            .map(|(output, _)| output)
    }

    /// The four steps, up to a validated output (and where a dependency cut it).
    async fn run_checked(
        &self,
        arguments: &str,
        frame: &CallFrame,
    ) -> Result<(T::Output, Option<u64>), ToolFailure> {
        let schemas = schemas_of(self.descriptor)?;
        self.descriptor
            .check_argument_size(arguments)
            .map_err(ToolFailure::InvalidInput)?;
        let wants = self.descriptor.wants();
        let input = if wants.is_empty() {
            schemas
                .input
                .decode::<T::Input>(arguments)
                .map_err(ToolFailure::InvalidInput)?
        } else {
            let mut value = schemas
                .input
                .decode::<serde_json::Value>(arguments)
                .map_err(ToolFailure::InvalidInput)?;
            super::artifact_call::redeem(wants, &mut value, frame.artifacts.as_deref()).await?;
            serde_path_to_error::deserialize::<_, T::Input>(value)
                .map_err(|e| ToolFailure::InvalidInput(Issues::serde(e)))?
        };
        self.execute(schemas, input, frame).await
    }

    /// Steps 2 to 4 of the contract: not started when aborted; `run` under the timeout and
    /// the signal, panics caught; the output validated; with how many bytes a dependency read
    /// of the result before it cut it, if it did ([`ResultCut`](super::ResultCut)).
    async fn execute(
        &self,
        schemas: &CompiledSchemas,
        input: T::Input,
        frame: &CallFrame,
    ) -> Result<(T::Output, Option<u64>), ToolFailure> {
        let signal = frame.execution.signal();
        if let Some(reason) = signal.reason() {
            return Err(ToolFailure::Aborted(reason));
        }
        // After every gate, just before `run`: nothing to resolve (and nothing allocated) for a
        // tool that needs no credential.
        let credentials: Option<Credentials> = if self.descriptor.needs().is_empty() {
            None
        } else {
            Some(
                resolve_needs(
                    self.env.credentials.as_ref(),
                    self.descriptor,
                    &frame.execution,
                    &self.env.clock,
                    self.timeout,
                )
                .await?,
            )
        };
        let scope = Scope::new(
            &self.env.providers,
            &self.env.clock,
            &frame.execution,
            &frame.step,
            self.descriptor,
        )
        .with_asker(frame.asker.as_ref())
        .with_credentials(credentials.as_ref())
        .with_progress(frame.watch.as_ref().map(|watch| &watch.progress));
        let tool = T::build(&scope).map_err(ToolFailure::Dependency)?;
        let (call_signal, cut) = scope.into_call_parts();
        if let Some(watch) = &frame.watch {
            (watch.started)();
        }
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
        let output = match finish {
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
        }?;
        // A stream is text by construction, and reading it is the caller's (`invoke` reads it
        // up to the bound): validating would read it whole.
        if !super::text_stream::is_text_stream::<T::Output>() {
            schemas
                .output
                .check_value(&output)
                .map_err(ToolFailure::InvalidOutput)?;
        }
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
        self.descriptor
    }

    fn bound(&self) -> ByteSize {
        self.bound
    }

    fn timeout(&self) -> TimeSpan {
        self.timeout
    }

    fn check_input(&self, arguments: &str) -> Result<serde_json::Value, ToolFailure> {
        self.descriptor
            .check_argument_size(arguments)
            .map_err(ToolFailure::InvalidInput)?;
        schemas_of(self.descriptor)?
            .input
            .decode::<serde_json::Value>(arguments)
            .map_err(ToolFailure::InvalidInput)
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

#[cfg(test)]
#[path = "invoke_tests.rs"]
mod tests;
