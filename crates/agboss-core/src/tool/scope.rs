//! [`Scope`]: what one call's dependencies are resolved from.

use std::cell::OnceCell;

use std::sync::Arc;

use super::{Asker, Credentials, ResultCut, ToolDescriptor};
use crate::context::{Execution, ProgressSink, Signal, Step};
use crate::deps::Providers;
use crate::time::Clock;

/// Everything one call's dependencies are resolved from: the application's providers and clock,
/// the execution, the call's step and its signal.
///
/// The call's signal is made only if a dependency asks for it, so tools without an
/// `ExecutionContext` pay nothing for it.
pub struct Scope<'a> {
    providers: &'a Providers,
    clock: &'a Clock,
    execution: &'a Execution,
    step: &'a Step,
    tool: &'static ToolDescriptor,
    asker: Option<&'a Arc<dyn Asker>>,
    credentials: Option<&'a Credentials>,
    call_signal: OnceCell<Signal>,
    result_cut: OnceCell<ResultCut>,
    progress: Option<&'a ProgressSink>,
}

impl<'a> Scope<'a> {
    /// The scope of call `step` of the tool `tool` describes, in `execution`.
    pub fn new(
        providers: &'a Providers,
        clock: &'a Clock,
        execution: &'a Execution,
        step: &'a Step,
        tool: &'static ToolDescriptor,
    ) -> Scope<'a> {
        Scope {
            providers,
            clock,
            execution,
            step,
            tool,
            asker: None,
            credentials: None,
            call_signal: OnceCell::new(),
            result_cut: OnceCell::new(),
            progress: None,
        }
    }

    /// The same scope, whose call reports its progress to `sink` (someone watches the run).
    pub fn with_progress(mut self, sink: Option<&'a ProgressSink>) -> Scope<'a> {
        self.progress = sink;
        self
    }

    /// Where the call reports its progress, when someone watches the run.
    pub fn progress(&self) -> Option<ProgressSink> {
        self.progress.cloned()
    }

    /// The same scope, whose call asks its questions through `asker` (none: the call is not
    /// part of a run that can pause, and its asks fail).
    pub fn with_asker(mut self, asker: Option<&'a Arc<dyn Asker>>) -> Scope<'a> {
        self.asker = asker;
        self
    }

    /// The same scope, with the credentials resolved for the call.
    pub fn with_credentials(mut self, credentials: Option<&'a Credentials>) -> Scope<'a> {
        self.credentials = credentials;
        self
    }

    /// The credentials resolved for the call, if its tool needs any.
    pub fn credentials(&self) -> Option<&'a Credentials> {
        self.credentials
    }

    /// What the call asks its questions through, if it is part of a run that can pause.
    pub fn asker(&self) -> Option<Arc<dyn Asker>> {
        self.asker.cloned()
    }

    /// The application's providers.
    pub fn providers(&self) -> &'a Providers {
        self.providers
    }

    /// The application's clock.
    pub fn clock(&self) -> &'a Clock {
        self.clock
    }

    /// The execution the call runs in.
    pub fn execution(&self) -> &'a Execution {
        self.execution
    }

    /// The call's step.
    pub fn step(&self) -> &'a Step {
        self.step
    }

    /// The tool being called.
    pub fn tool_name(&self) -> &'static str {
        self.tool.name()
    }

    /// The descriptor of the tool being called.
    pub fn descriptor(&self) -> &'static ToolDescriptor {
        self.tool
    }

    /// The call's signal: a child of the execution's, made on first use.
    pub fn call_signal(&self) -> Signal {
        self.call_signal
            .get_or_init(|| self.execution.signal().child())
            .clone()
    }

    /// Where a dependency that reads the call's result from elsewhere says it stopped reading
    /// it early (made on first use).
    pub fn result_cut(&self) -> ResultCut {
        self.result_cut.get_or_init(ResultCut::default).clone()
    }

    /// The call's signal and its result's cut, those a dependency asked for.
    pub(crate) fn into_call_parts(self) -> (Option<Signal>, Option<ResultCut>) {
        (self.call_signal.into_inner(), self.result_cut.into_inner())
    }
}
