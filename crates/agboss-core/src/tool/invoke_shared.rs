//! The parts of the call contract that do not depend on a tool's types, compiled once for every
//! tool: [`Invoker<T>`](super::Invoker) is instantiated for each `#[tool]` of a program, so what
//! it keeps generic (reading its input, running it, writing its output) is kept to what touches
//! `T`, and the rest (the frame, the gates, the failures, what the model reads of a result) is
//! here, behind `&self` of a non-generic [`Contract`].

use serde_json::Value;

use super::{CallFrame, ToolEnv, schemas_of};
use crate::base::Setting;
use crate::context::{AbortReason, Signal};
use crate::tool::race::{Finish, Race, panic_message};
use crate::tool::schema::CompiledSchemas;
use crate::tool::{
    ArtifactShelf, CallOutcome, Credentials, ResultCeiling, ResultKind, Scope, TextStream,
    ToolDescriptor, ToolError, ToolFailure,
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
}

impl Contract {
    /// The calls of a tool under `descriptor` (its name, timeout and bound) in `env`.
    pub(super) fn described_by(descriptor: &'static ToolDescriptor, env: ToolEnv) -> Contract {
        Contract {
            descriptor,
            env,
            timeout: descriptor.timeout(),
            bound: crate::tool::bound::effective_bound(
                descriptor.max_result_size(),
                Setting::built_in(ByteSize::DEFAULT_RESULT_BOUND),
            )
            .value,
        }
    }

    /// Step 1 alone, as [`DynTool::check_input`](super::DynTool::check_input) gives it.
    pub(super) fn check_input(&self, arguments: &str) -> Result<Value, ToolFailure> {
        self.descriptor
            .check_argument_size(arguments)
            .map_err(ToolFailure::InvalidInput)?;
        schemas_of(self.descriptor)?
            .input
            .decode::<Value>(arguments)
            .map_err(ToolFailure::InvalidInput)
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
        crate::tool::artifact_call::redeem(
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

    /// What the model reads of a validated output rendered as `text`: the text, refused over
    /// the ceiling, kept aside over the artifact threshold, else bounded (as a stopped
    /// producer's when a dependency cut it after `cut` bytes).
    pub(super) async fn rendered(
        &self,
        text: Result<String, ToolFailure>,
        cut: Option<u64>,
        frame: &CallFrame,
    ) -> CallOutcome {
        match text {
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

    /// A [`TextStream`] output read up to the bound within what is left of the call's timeout
    /// (it started at `started`) and under the execution's signal; the stream is dropped when
    /// the read ends, which stops its producer.
    pub(super) async fn read_stream(
        &self,
        stream: TextStream,
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
            Finish::Done(Ok(Err(error))) => ToolFailure::Raised(ToolError::new(error.to_string())),
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
    fn over_ceiling(&self, text: String, ceiling: &ResultCeiling) -> CallOutcome {
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
        kind: &ResultKind,
        text: String,
        frame: &CallFrame,
        shelf: &dyn ArtifactShelf,
    ) -> CallOutcome {
        let call_id = frame.step().call_id();
        match crate::tool::artifact_call::mint(self.descriptor, kind, text, call_id, shelf).await {
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
}
