//! The call contract's steps, which do not depend on a tool's types and are compiled once for
//! every tool: [`Invoker<T>`](crate::tool::Invoker) is instantiated for each `#[tool]` of a
//! program, so what it keeps generic is what touches `T` (reading the input, building the tool
//! and starting `run`, writing the output: [`Typed`]), and the rest (the frame, the gates of the
//! call's own task, the race against the timeout and the signal, the failures) is here, behind
//! `&self` of a non-generic [`Contract`]. What the rules make of the result is the pipeline's.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use super::{CallFrame, ToolEnv, Typed, schemas_of};
use crate::base::Setting;
use crate::context::{AbortReason, Signal};
use crate::tool::pipeline::{self, CallEnd, GateCall, Pipeline, Ruled, Stage, Verdict};
use crate::tool::race::{Finish, Race, panic_message};
use crate::tool::schema::CompiledSchemas;
use crate::tool::{
    CallOutcome, Credentials, Scope, TextStream, ToolDescriptor, ToolError, ToolFailure, ToolOutput,
};
use crate::units::{ByteSize, TimeSpan};

/// One tool's calls, whatever its types: its descriptor, what it is called in, its timeout and
/// its bound.
#[derive(Clone)]
pub(super) struct Contract {
    pub(super) descriptor: &'static ToolDescriptor,
    pub(super) env: ToolEnv,
    pub(super) timeout: TimeSpan,
    pub(super) bound: ByteSize,
    /// Whether the output type is [`TextStream`], read after `run` returns.
    pub(super) streams: bool,
}

impl Contract {
    /// The calls of a tool under `descriptor` (its name, timeout and bound) in `env`, whose
    /// output is a [`TextStream`] if `streams`.
    pub(super) fn described_by(
        descriptor: &'static ToolDescriptor,
        env: ToolEnv,
        streams: bool,
    ) -> Contract {
        Contract {
            descriptor,
            env,
            timeout: descriptor.timeout(),
            bound: crate::tool::bound::effective_bound(
                descriptor.max_result_size(),
                Setting::built_in(ByteSize::DEFAULT_RESULT_BOUND),
            )
            .value,
            streams,
        }
    }

    /// One call of a tool alone (outside an agent's run), with `typed`'s types: `own`'s gates
    /// before `run`, its rules after, then what the model reads. Not generic, so compiled once.
    pub(super) fn invoke_own<'a>(
        &'a self,
        typed: &'a dyn Typed,
        arguments: &'a str,
        frame: &'a CallFrame,
        own: &'a Pipeline,
    ) -> impl Future<Output = CallOutcome> + Send + 'a {
        self.invoke(typed, arguments, frame, own.in_call(), move |output| {
            self.ruled(own, output, arguments, frame)
        })
    }

    /// The rules of `own` on `output`, then what the model reads of it; or, when a rule keeps
    /// the result aside (only a tool with a `result_kind`), the rest of the rules as a future
    /// of its own, which costs the other tools nothing.
    fn ruled<'a>(
        &'a self,
        own: &'a Pipeline,
        mut output: ToolOutput,
        arguments: &'a str,
        frame: &'a CallFrame,
    ) -> Next<'a, CallOutcome> {
        let end = CallEnd::new(
            self.descriptor,
            frame.step.call_id(),
            arguments,
            &frame.execution,
        );
        let mut ends = None;
        match own.rule(0, &end, &mut output, &mut ends) {
            Ruled::Done | Ruled::Retry(..) => Next::Ready(output.render()),
            stopped @ Ruled::KeepAside(..) => Next::Later(Box::pin(async move {
                let shelf = frame.artifacts.as_deref();
                let rest = own.finish_from(stopped, 0, &end, output, shelf, ends);
                match rest.await {
                    pipeline::Finish::Done { output, .. } | pipeline::Finish::Retry(output, _) => {
                        output.render()
                    }
                }
            })),
        }
    }

    /// One call from the model's JSON `arguments` to its result, before any rule shapes it
    /// (see [`Invoker::invoke`](super::Invoker::invoke)), with `typed`'s types, passing `gates`
    /// (those of the call's own task) just before `run`; then what `then` makes of that result,
    /// in the same future, so that the result is not moved through one more.
    pub(super) async fn invoke<'a, R>(
        &'a self,
        typed: &'a dyn Typed,
        arguments: &'a str,
        frame: &'a CallFrame,
        gates: &'a [Arc<dyn Stage>],
        then: impl FnOnce(ToolOutput) -> Next<'a, R>,
    ) -> R {
        // Only a stream is read after `run` returns, within what is left of the timeout: only
        // then is the start needed.
        let clock = &self.env.clock;
        let started = self.streams.then(|| clock.now());
        let output = match self
            .run_checked(typed, arguments, frame, false, gates)
            .await
        {
            Ok((Done::Text(Ok(text)), None)) => ToolOutput::answered(text),
            Ok((Done::Text(Ok(text)), Some(bytes_read))) => ToolOutput::stopped(text, bytes_read),
            Ok((Done::Text(Err(failure)), _)) => ToolOutput::failed(failure),
            Ok((Done::Stream(stream), _)) => {
                let started = started.unwrap_or_else(|| clock.now());
                Box::pin(self.read_stream(stream, frame, started)).await
            }
            Ok((Done::Value(_), _)) => ToolOutput::failed(not_started()),
            Err(failure) => ToolOutput::failed(failure),
        };
        match then(output) {
            Next::Ready(ready) => ready,
            Next::Later(later) => later.await,
        }
    }

    /// The first three steps, up to an output (and where a dependency cut it); the output is
    /// rendered (step 4) as the run returns it, or kept as a value if `keep`.
    pub(super) async fn run_checked(
        &self,
        typed: &dyn Typed,
        arguments: &str,
        frame: &CallFrame,
        keep: bool,
        gates: &[Arc<dyn Stage>],
    ) -> Result<(Done, Option<u64>), ToolFailure> {
        let schemas = schemas_of(self.descriptor)?;
        self.descriptor
            .check_argument_size(arguments)
            .map_err(ToolFailure::InvalidInput)?;
        let call = if self.descriptor.wants().is_empty() {
            typed.decode(schemas, arguments, keep)
        } else {
            // Boxed, as every path only some tools take: the call's future stays small (one
            // allocation from the thread's cache) for the tools that do not.
            let value = Box::pin(self.redeemed(schemas, arguments, frame)).await?;
            typed.decode_redeemed(&value, keep)
        };
        let call = call.map_err(ToolFailure::InvalidInput)?;
        self.execute(call, frame, arguments, gates).await
    }

    /// Steps 2 and 3 of the contract: not started when aborted; the gates of the call's own
    /// task (its credentials); `run` under the timeout and the signal, panics caught (its output
    /// rendered by `call` itself, step 4); with how many bytes a dependency read of the result
    /// before it cut it, if it did ([`ResultCut`](crate::tool::ResultCut)).
    pub(super) async fn execute(
        &self,
        mut call: Call,
        frame: &CallFrame,
        arguments: &str,
        gates: &[Arc<dyn Stage>],
    ) -> Result<(Done, Option<u64>), ToolFailure> {
        let signal = frame.execution.signal();
        if let Some(reason) = signal.reason() {
            return Err(ToolFailure::Aborted(reason));
        }
        // After every gate of the gatekeeper, just before `run`: nothing to pass (and nothing
        // allocated) for a tool that needs no credential.
        let credentials = match gates.is_empty() {
            true => None,
            false => Box::pin(self.pass(gates, frame, arguments)).await?,
        };
        let scope = self.scope(frame, credentials.as_ref());
        call.as_mut().start(&scope)?;
        let (call_signal, cut) = scope.into_call_parts();
        if let Some(watch) = &frame.watch {
            (watch.started)();
        }
        let race = Race::new(call, &self.env.clock, self.timeout.as_duration(), signal);
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
        match finish.into_output() {
            Ok(done) => Ok((done, cut.and_then(|cut| cut.bytes_read()))),
            Err(ended) => Err(self.failure(ended, signal)),
        }
    }

    /// The gates of the call's own task, in order: the credentials they resolved, or the
    /// failure of the first that refused.
    async fn pass(
        &self,
        gates: &[Arc<dyn Stage>],
        frame: &CallFrame,
        arguments: &str,
    ) -> Result<Option<Credentials>, ToolFailure> {
        let mut call =
            GateCall::new(self.descriptor, arguments, &frame.execution, &frame.step).accepted();
        for gate in gates {
            match gate.before(&mut call).verdict().await {
                Verdict::Pass => {}
                Verdict::Refuse(failure) => return Err(failure),
                // Only the gatekeeper's gates may ask a person: one here cannot, and fails
                // closed.
                Verdict::Ask(_) => {
                    return Err(ToolFailure::Refused(format!(
                        "the gate `{}` asked for a person inside the call, where nobody can be asked",
                        gate.name()
                    )));
                }
            }
        }
        Ok(call.credentials.take())
    }

    /// Step 1 alone, as [`DynTool::check_input`](super::DynTool::check_input) gives it: the
    /// arguments as the `arguments` gate accepts them, parsed.
    pub(super) fn check_input(&self, arguments: &str) -> Result<Value, ToolFailure> {
        let accepted = crate::tool::gates::accept(self.descriptor, arguments)?;
        serde_json::from_str(&accepted)
            .map_err(|e| ToolFailure::InvalidInput(crate::tool::Issues::one(None, e.to_string())))
    }

    /// Step 1 for a tool that `wants` artifacts: the arguments checked, with their references
    /// redeemed, as the JSON text the input is read from.
    pub(super) async fn redeemed(
        &self,
        schemas: &CompiledSchemas,
        arguments: &str,
        frame: &CallFrame,
    ) -> Result<Value, ToolFailure> {
        let mut value = schemas
            .input
            .decode::<Value>(arguments)
            .map_err(ToolFailure::InvalidInput)?;
        crate::tool::artifacts::artifact_call::redeem(
            self.descriptor.wants(),
            &mut value,
            frame.artifacts.as_deref(),
        )
        .await?;
        Ok(value)
    }

    /// What a call's tool is built from: the application's providers and clock, the call's
    /// execution, step and what it asks through, its credentials and where its progress goes.
    pub(super) fn scope<'a>(
        &'a self,
        frame: &'a CallFrame,
        credentials: Option<&'a Credentials>,
    ) -> Scope<'a> {
        Scope::new(
            &self.env.providers,
            &self.env.clock,
            &frame.execution,
            &frame.step,
            self.descriptor,
        )
        .with_asker(frame.asker.as_ref())
        .with_credentials(credentials)
        .with_progress(frame.watch.as_ref().map(|watch| &watch.progress))
    }

    /// The failure of a run that did not return its output (`finish` holds its error, or its
    /// panic). A tool that gives up because the execution was cancelled reports the
    /// cancellation, which says more than its own "stopped".
    pub(super) fn failure(&self, finish: Finish<ToolError>, signal: &Signal) -> ToolFailure {
        match finish {
            Finish::Done(Ok(error)) => match signal.reason() {
                Some(reason) => ToolFailure::Aborted(reason),
                None => ToolFailure::Raised(error),
            },
            Finish::Done(Err(payload)) => ToolFailure::Panicked(panic_message(&*payload)),
            Finish::TimedOut => ToolFailure::TimedOut(self.timeout),
            Finish::Aborted => ToolFailure::Aborted(
                signal
                    .reason()
                    .unwrap_or_else(|| AbortReason::cancelled("execution cancelled")),
            ),
        }
    }

    /// A [`TextStream`] output read up to the bound within what is left of the call's timeout
    /// (it started at `started`) and under the execution's signal; the stream is dropped when
    /// the read ends, which stops its producer.
    pub(super) async fn read_stream(
        &self,
        stream: TextStream,
        frame: &CallFrame,
        started: crate::time::ClockTime,
    ) -> ToolOutput {
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
                let bounded = read.bounded;
                return ToolOutput::read(bounded.text, bounded.truncated, read.bytes_read);
            }
            Finish::Done(Ok(Err(error))) => ToolFailure::Raised(ToolError::new(error.to_string())),
            Finish::Done(Err(payload)) => ToolFailure::Panicked(panic_message(&*payload)),
            Finish::TimedOut => ToolFailure::TimedOut(self.timeout),
            Finish::Aborted => ToolFailure::Aborted(
                signal
                    .reason()
                    .unwrap_or_else(|| AbortReason::cancelled("execution cancelled")),
            ),
        };
        ToolOutput::failed(failure)
    }
}

/// What follows a call's result: ready now, or a future of its own (boxed, as only some calls
/// wait after their run: those whose result is kept aside).
pub(super) enum Next<'a, R> {
    /// Ready.
    Ready(R),
    /// Still to come.
    Later(Pin<Box<dyn Future<Output = R> + Send + 'a>>),
}

/// A call of one tool on its input, read and not yet started, then its run: one allocation
/// holds both (`TypedCall`, in `invoke_typed.rs`).
pub(super) type Call = Pin<Box<dyn Pending>>;

/// A call the contract starts once every gate has passed, and then polls under its timeout and
/// the execution's signal.
pub(super) trait Pending: Future<Output = Result<Done, ToolError>> + Send {
    /// Builds the tool in `scope` and starts its run on the input, which the next poll drives.
    fn start(self: Pin<&mut Self>, scope: &Scope<'_>) -> Result<(), ToolFailure>;
}

/// What a call's run returned, made ready for whoever asked: the rendered text (step 4, or why
/// it could not be written), a [`TextStream`] to read, or the output kept as a value.
pub(super) enum Done {
    /// The output's JSON text, checked, or why it is not valid.
    Text(Result<String, ToolFailure>),
    /// The output, a stream the contract reads up to the bound.
    Stream(TextStream),
    /// The output as a value of the output type (for `call` and `invoke_value`).
    Value(Box<dyn Any + Send>),
}

/// What a call says when driven out of order (polled before it started, started twice) or
/// handed a value of another type: never, since only the contract drives its calls, each
/// once; a failure, not a panic, if it did.
#[cold]
pub(super) fn not_started() -> ToolFailure {
    ToolFailure::Raised(out_of_order())
}

/// [`not_started`] as the error of a run.
#[cold]
pub(super) fn out_of_order() -> ToolError {
    ToolError::new("agboss: a call was driven out of order (a bug of agboss)")
}
