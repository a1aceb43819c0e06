//! [`Execution`] (one run of a workflow) and [`ExecutionContext`] (what a call sees of it).

use std::fmt;
use std::sync::{Arc, OnceLock};

use super::{Signal, Step};
use crate::spend::SpendLedger;

/// The tenant an execution runs for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Tenant {
    tenant_id: String,
}

impl Tenant {
    /// The tenant `tenant_id`.
    pub fn new(tenant_id: impl Into<String>) -> Tenant {
        Tenant {
            tenant_id: tenant_id.into(),
        }
    }

    /// Its id.
    pub fn tenant_id(&self) -> &str {
        &self.tenant_id
    }
}

/// One run of a workflow: its ids, its cancellation signal and its spend. Cloning shares it.
///
/// ```
/// use agboss_core::context::Execution;
/// let execution = Execution::builder("exec-1").thread("t-1").owner("u-1").build();
/// assert_eq!(execution.thread_id(), "t-1");
/// execution.cancel("the user left");
/// assert!(execution.signal().is_cancelled());
/// ```
#[derive(Clone)]
pub struct Execution {
    inner: Arc<Inner>,
}

struct Inner {
    execution_id: String,
    thread_id: String,
    owner_id: Option<String>,
    tenant: Option<Tenant>,
    workflow: String,
    signal: Signal,
    spend: SpendLedger,
}

/// Builds an [`Execution`].
#[derive(Debug)]
pub struct ExecutionBuilder {
    execution_id: String,
    thread_id: Option<String>,
    owner_id: Option<String>,
    tenant: Option<Tenant>,
    workflow: String,
    signal: Option<Signal>,
}

impl ExecutionBuilder {
    /// The conversation thread; defaults to the execution id.
    pub fn thread(mut self, thread_id: impl Into<String>) -> Self {
        self.thread_id = Some(thread_id.into());
        self
    }

    /// Who owns the thread.
    pub fn owner(mut self, owner_id: impl Into<String>) -> Self {
        self.owner_id = Some(owner_id.into());
        self
    }

    /// The tenant it runs for.
    pub fn tenant(mut self, tenant: Tenant) -> Self {
        self.tenant = Some(tenant);
        self
    }

    /// The workflow it runs; defaults to `""` for calls outside any workflow.
    pub fn workflow(mut self, workflow: impl Into<String>) -> Self {
        self.workflow = workflow.into();
        self
    }

    /// Uses `signal` as the execution's signal instead of a fresh one.
    pub fn signal(mut self, signal: Signal) -> Self {
        self.signal = Some(signal);
        self
    }

    /// The execution.
    pub fn build(self) -> Execution {
        Execution {
            inner: Arc::new(Inner {
                thread_id: self.thread_id.unwrap_or_else(|| self.execution_id.clone()),
                execution_id: self.execution_id,
                owner_id: self.owner_id,
                tenant: self.tenant,
                workflow: self.workflow,
                signal: self.signal.unwrap_or_default(),
                spend: SpendLedger::new(),
            }),
        }
    }
}

impl Execution {
    /// Starts building execution `execution_id`.
    pub fn builder(execution_id: impl Into<String>) -> ExecutionBuilder {
        ExecutionBuilder {
            execution_id: execution_id.into(),
            thread_id: None,
            owner_id: None,
            tenant: None,
            workflow: String::new(),
            signal: None,
        }
    }

    /// Its id.
    pub fn execution_id(&self) -> &str {
        &self.inner.execution_id
    }

    /// Its thread.
    pub fn thread_id(&self) -> &str {
        &self.inner.thread_id
    }

    /// Who owns its thread.
    pub fn owner_id(&self) -> Option<&str> {
        self.inner.owner_id.as_deref()
    }

    /// Its tenant.
    pub fn tenant(&self) -> Option<&Tenant> {
        self.inner.tenant.as_ref()
    }

    /// The workflow it runs.
    pub fn workflow(&self) -> &str {
        &self.inner.workflow
    }

    /// Its signal: every call's signal is a child of it.
    pub fn signal(&self) -> &Signal {
        &self.inner.signal
    }

    /// Cancels it: running calls see their signal fire, calls not yet started do not start.
    pub fn cancel(&self, reason: impl Into<super::AbortReason>) {
        self.inner.signal.cancel(reason);
    }

    /// What it has spent so far.
    pub fn spend(&self) -> &SpendLedger {
        &self.inner.spend
    }
}

impl fmt::Debug for Execution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Execution")
            .field("execution_id", &self.execution_id())
            .field("thread_id", &self.thread_id())
            .field("owner_id", &self.owner_id())
            .field("workflow", &self.workflow())
            .finish_non_exhaustive()
    }
}

/// What a tool sees of the call it runs in: a dependency like any other, declared as a field.
///
/// Its [`signal`](Self::signal) is the call's own: it fires when the execution is cancelled and
/// when the tool's timeout passes, so a request given this signal stops in both cases.
#[derive(Clone)]
pub struct ExecutionContext {
    execution: Execution,
    step: Step,
    signal: Signal,
    idempotency_key: OnceLock<String>,
    progress: Option<super::ProgressSink>,
}

impl ExecutionContext {
    /// The context of the call `step` in `execution`, with the call's own `signal`.
    pub fn new(execution: Execution, step: Step, signal: Signal) -> ExecutionContext {
        ExecutionContext {
            execution,
            step,
            signal,
            idempotency_key: OnceLock::new(),
            progress: None,
        }
    }

    /// The same context, whose [`report_progress`](Self::report_progress) goes to `sink`.
    pub fn with_progress(mut self, sink: Option<super::ProgressSink>) -> ExecutionContext {
        self.progress = sink;
        self
    }

    /// Tells whoever watches the run (`app.run(..).stream()`) how far the call has got. Costs
    /// nothing when nobody watches; never journaled (a resumed run does not see it again).
    pub fn report_progress(&self, progress: super::Progress) {
        if let Some(sink) = &self.progress {
            sink(&progress);
        }
    }

    /// The execution's id.
    pub fn execution_id(&self) -> &str {
        self.execution.execution_id()
    }

    /// The conversation thread's id.
    pub fn thread_id(&self) -> &str {
        self.execution.thread_id()
    }

    /// Who owns the thread.
    pub fn owner_id(&self) -> Option<&str> {
        self.execution.owner_id()
    }

    /// The tenant the execution runs for.
    pub fn tenant(&self) -> Option<&Tenant> {
        self.execution.tenant()
    }

    /// The workflow the execution runs.
    pub fn workflow(&self) -> &str {
        self.execution.workflow()
    }

    /// The call's signal: the execution's cancellation combined with the tool's timeout.
    pub fn signal(&self) -> &Signal {
        &self.signal
    }

    /// The call's step: node, visit, item and call id.
    pub fn step(&self) -> &Step {
        &self.step
    }

    /// The call's id.
    pub fn call_id(&self) -> &str {
        self.step.call_id()
    }

    /// Which start of the call this is, from 1: more than 1 when a crash interrupted it and
    /// recovery runs it again (with the same call id and idempotency key).
    pub fn attempt(&self) -> u32 {
        self.step.attempt()
    }

    /// The key a tool with side effects passes to the service it changes (see [`Step`]).
    pub fn idempotency_key(&self) -> &str {
        self.idempotency_key
            .get_or_init(|| self.step.idempotency_key(self.execution.execution_id()))
    }

    /// The execution itself.
    pub fn execution(&self) -> &Execution {
        &self.execution
    }
}

impl fmt::Debug for ExecutionContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecutionContext")
            .field("execution_id", &self.execution_id())
            .field("step", &self.step)
            .field("cancelled", &self.signal.is_cancelled())
            .finish()
    }
}
