//! Starting and resuming runs: [`RunBuilder`] (`app.run("desk", input)`) and
//! [`Application::resume`], the application's entry points into the loop.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;

use super::Application;
use agboss_rules::codes;

use super::hosting::Begin;
use crate::agent::{Agent, AgentDescriptor, AppAgent};
use crate::assembly::AppWorkflow;
use crate::context::{Execution, Signal, Tenant};
use crate::journal::{LoopEvent, STATE_VERSION};
use crate::model::ToolChoice;
use crate::run::{RunError, RunOptions, RunOutcome, ToolEnd, ToolEndHook};
use crate::spend::Budgets;

/// A run being set up; `.await` it to run.
#[must_use = "a run does nothing until it is awaited"]
pub struct RunBuilder<'a> {
    app: &'a Application,
    /// The workflow named; `None` for the first workflow that has the typed agent.
    workflow: Option<String>,
    agent: Option<String>,
    /// The agent by type (`run_agent::<Scout>`), matched by its descriptor, not its name.
    typed: Option<&'static AgentDescriptor>,
    input: String,
    execution_id: Option<String>,
    thread: Option<String>,
    owner: Option<String>,
    tenant: Option<Tenant>,
    signal: Option<Signal>,
    options: RunOptions,
}

impl<'a> RunBuilder<'a> {
    pub(crate) fn new(
        app: &'a Application,
        workflow: Option<&str>,
        typed: Option<&'static AgentDescriptor>,
        input: String,
    ) -> RunBuilder<'a> {
        RunBuilder {
            app,
            workflow: workflow.map(str::to_owned),
            agent: None,
            typed,
            input,
            execution_id: None,
            thread: None,
            owner: None,
            tenant: None,
            signal: None,
            options: RunOptions::default(),
        }
    }

    /// Runs it in workflow `name`: for an agent given by type that several workflows have.
    pub fn in_workflow(mut self, name: &str) -> Self {
        self.workflow = Some(name.into());
        self
    }

    /// Runs agent `name` of the workflow instead of its first.
    pub fn agent(mut self, name: &str) -> Self {
        self.agent = Some(name.into());
        self
    }

    /// The conversation thread.
    pub fn thread(mut self, thread: &str) -> Self {
        self.thread = Some(thread.into());
        self
    }

    /// Who owns the thread.
    pub fn owner(mut self, owner: &str) -> Self {
        self.owner = Some(owner.into());
        self
    }

    /// The tenant.
    pub fn tenant(mut self, tenant: Tenant) -> Self {
        self.tenant = Some(tenant);
        self
    }

    /// The execution's id (else one is made).
    pub fn execution_id(mut self, id: &str) -> Self {
        self.execution_id = Some(id.into());
        self
    }

    /// The execution's signal: cancel it to stop the run.
    pub fn signal(mut self, signal: Signal) -> Self {
        self.signal = Some(signal);
        self
    }

    /// This run's budgets instead of the application's.
    pub fn budgets(mut self, budgets: Budgets) -> Self {
        self.options.budgets = Some(budgets);
        self
    }

    /// Called as each tool call ends.
    pub fn on_tool_end(mut self, hook: impl Fn(&ToolEnd<'_>) + Send + Sync + 'static) -> Self {
        self.options.on_tool_end = Some(Arc::new(hook) as ToolEndHook);
        self
    }

    /// The tool choice of turn `n` (from 1): `Some` overrides the agent's for that turn.
    pub fn tool_choice(
        mut self,
        choose: impl Fn(u32) -> Option<ToolChoice> + Send + Sync + 'static,
    ) -> Self {
        self.options.tool_choice = Some(Arc::new(choose));
        self
    }

    /// The workflow and agent to run: by name, or by the agent's type.
    fn target(&self) -> Result<(&'a AppWorkflow, &'a AppAgent), RunError> {
        let app = self.app;
        if let Some(descriptor) = self.typed {
            let is_it = |agent: &&AppAgent| std::ptr::eq(agent.descriptor(), descriptor);
            let found = app
                .workflows()
                .iter()
                .filter(|w| self.workflow.as_deref().is_none_or(|name| w.name() == name))
                .find_map(|w| w.agents().iter().find(is_it).map(|a| (w, a)));
            return found.ok_or_else(|| {
                RunError::NotFound(match &self.workflow {
                    Some(name) => format!(
                        "workflow `{name}` has no agent `{}` ({})",
                        descriptor.name(),
                        descriptor.rust_type()
                    ),
                    None => format!(
                        "no workflow of application `{}` has agent `{}` ({}): add it with `Workflow::agent::<{}>()`",
                        app.name(),
                        descriptor.name(),
                        descriptor.rust_type(),
                        descriptor.rust_type()
                    ),
                })
            });
        }
        let name = self.workflow.as_deref().unwrap_or_default();
        let workflow = app
            .workflow(name)
            .ok_or_else(|| RunError::NotFound(format!("no workflow named `{name}`")))?;
        let agent = match &self.agent {
            Some(agent) => workflow.agent(agent),
            None => workflow.agents().first(),
        }
        .ok_or_else(|| {
            RunError::NotFound(format!(
                "workflow `{name}` has no agent {}",
                self.agent.as_deref().unwrap_or("at all")
            ))
        })?;
        Ok((workflow, agent))
    }

    /// The run's execution and its first event.
    async fn prepare(self) -> Result<Prepared<'a>, RunError> {
        let (workflow, agent) = self.target()?;
        if self.owner.is_none() && agent.needs_owner() {
            let roles = agent.owner_roles().join("`, `");
            return Err(RunError::Refused(
                codes::RUN_OWNER_REQUIRED
                    .finding(&[("agent", &agent.name()), ("roles", &format!("`{roles}`"))])
                    .into(),
            ));
        }
        let execution_id = match self.execution_id {
            Some(id) => id,
            None => {
                super::identifiers::new_execution_id(self.app.clock()).map_err(RunError::Refused)?
            }
        };
        let mut builder = Execution::builder(&execution_id).workflow(workflow.name());
        if let Some(thread) = &self.thread {
            builder = builder.thread(thread);
        }
        if let Some(owner) = &self.owner {
            builder = builder.owner(owner);
        }
        if let Some(tenant) = self.tenant {
            builder = builder.tenant(tenant);
        }
        let signal = self.signal.unwrap_or_default();
        let execution = builder.signal(signal.clone()).build();
        // A run in a thread remembers it (its last turns, and summaries of older ones), once
        // the thread is known to be its owner's.
        let history = match &self.thread {
            Some(thread) => {
                self.app.admit(thread, self.owner.as_deref()).await?;
                self.app.history(agent, thread, execution.signal()).await?
            }
            None => super::threads::History::default(),
        };
        if !history.cost.is_zero() {
            execution.spend().push(crate::spend::SpendEntry {
                service: agent.model().to_owned(),
                cost: history.cost,
                tool: None,
                call_id: None,
            });
        }
        let start = LoopEvent::Started {
            version: STATE_VERSION,
            execution_id,
            workflow: workflow.name().into(),
            agent: agent.name().into(),
            visit: 1,
            input: self.input,
            thread: self.thread,
            owner: self.owner,
            tenant: execution.tenant().map(|t| t.tenant_id().to_owned()),
            budgets: self.options.budgets.unwrap_or(self.app.budgets),
            history: history.messages,
            history_usage: history.usage,
            history_cost: history.cost,
            config_hash: Some(workflow.config_hash().to_owned()),
        };
        Ok(Prepared {
            app: self.app,
            agent,
            execution,
            signal,
            start,
            options: self.options,
        })
    }

    async fn run(self) -> Result<RunOutcome, RunError> {
        let prepared = self.prepare().await?;
        let app = prepared.app;
        let execution_id = prepared.execution.execution_id().to_owned();
        let _driver = app.locks.lock(&execution_id).await;
        let claimed_at = app.clock().now();
        let Some(lease) = app.claim(&execution_id).await? else {
            return app.elsewhere(&execution_id).await;
        };
        let begin = Begin::New {
            agent: prepared.agent,
            execution: prepared.execution,
            start: Box::new(prepared.start),
            options: prepared.options,
        };
        app.drive_claimed(lease, claimed_at, prepared.signal, begin)
            .await
    }

    /// Journals the run's start and leaves it to the application's workers (`agboss worker`,
    /// [`Application::worker`]), which claim it from the store: for work handed from one process
    /// to the instances that share its store. Returns the execution's id. Hooks and a tool
    /// choice function set on this builder stay here: they are code, not journaled.
    pub async fn submit(self) -> Result<String, RunError> {
        let prepared = self.prepare().await?;
        let execution_id = prepared.execution.execution_id().to_owned();
        prepared
            .app
            .store
            .append(&execution_id, 0, &prepared.start)
            .await
            .map_err(RunError::from_store)?;
        Ok(execution_id)
    }
}

/// A run ready to start: its execution and its first event.
struct Prepared<'a> {
    app: &'a Application,
    agent: &'a AppAgent,
    execution: Execution,
    signal: Signal,
    start: LoopEvent,
    options: RunOptions,
}

impl<'a> IntoFuture for RunBuilder<'a> {
    type Output = Result<RunOutcome, RunError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        self.into_future_boxed()
    }
}

impl<'a> RunBuilder<'a> {
    /// The same run, its events sent to `sink` (see [`RunBuilder::stream`]).
    pub(super) fn watched_by(mut self, sink: crate::run::EventSink) -> Self {
        self.options.events = Some(sink);
        self
    }

    /// The run, as a boxed future.
    pub(super) fn into_future_boxed(
        self,
    ) -> Pin<Box<dyn Future<Output = RunOutcomeResult> + Send + 'a>> {
        Box::pin(self.run())
    }
}

type RunOutcomeResult = Result<RunOutcome, RunError>;

impl Application {
    /// Runs `input` through workflow `workflow`; set the run up, then `.await` it.
    pub fn run(&self, workflow: &str, input: impl Into<String>) -> RunBuilder<'_> {
        RunBuilder::new(self, Some(workflow), None, input.into())
    }

    /// Runs `input` through agent `A`, in the first workflow that has it
    /// ([`in_workflow`](RunBuilder::in_workflow) picks another); set the run up, then `.await`
    /// it. The compiler checks that `A` is an agent; which workflow has it is checked when the
    /// run starts.
    pub fn run_agent<A: Agent>(&self, input: impl Into<String>) -> RunBuilder<'_> {
        RunBuilder::new(self, None, Some(A::DESCRIPTOR), input.into())
    }
}
