//! [`Application`]: workflows, providers, defaults and the clock, checked as one.

use std::sync::Arc;

use super::provided::ProvidedList;
use super::{AgentDefaults, ToolDefaults, Workflow};
use agboss_rules::codes;

use super::drive::{ExecutionLocks, RunningExecutions};
use crate::agent::AppAgent;
use crate::base::{AssemblyError, Env, FromEnv, Problem, Setting};
use crate::channel::{Channel, ChannelRegistration};
#[cfg(feature = "config")]
use crate::config::Config;
use crate::deps::Providers;
use crate::journal::Store;
use crate::model::{ChatModel, ModelError, ModelRouter};
use crate::run::Approvals;
use crate::spend::Budgets;
use crate::time::Clock;
use crate::tool::{ToolDescriptor, ToolEnv};
use crate::units::{ByteSize, TimeSpan};

/// Builds an [`Application`].
///
/// ```
/// use agboss_core::app::{Application, ToolDefaults, Workflow};
/// use agboss_core::units::kilobytes;
///
/// let app = Application::builder("desk-application")
///     .workflow(Workflow::new("desk"))
///     .defaults(ToolDefaults::new().max_result_size(kilobytes(64)))
///     .build()
///     .unwrap();
/// assert_eq!(app.workflows()[0].name(), "desk");
/// ```
pub struct ApplicationBuilder {
    pub(crate) name: String,
    pub(crate) workflows: Vec<Workflow>,
    pub(crate) provided: ProvidedList,
    pub(crate) defaults: ToolDefaults,
    pub(crate) agent_defaults: AgentDefaults,
    pub(crate) clock: Clock,
    #[cfg(feature = "config")]
    pub(crate) config: Option<Config>,
    pub(crate) env: Env,
    pub(crate) router: Option<ModelRouter>,
    pub(crate) store: Option<Arc<dyn Store>>,
    pub(crate) budgets: Budgets,
    pub(crate) channels: Vec<ChannelRegistration>,
    pub(crate) instance: Option<String>,
    pub(crate) lease_ttl: TimeSpan,
}

impl ApplicationBuilder {
    /// Adds `workflow`.
    pub fn workflow(mut self, workflow: Workflow) -> Self {
        self.workflows.push(workflow);
        self
    }

    /// Provides `value` to every workflow's tools.
    pub fn provide<T: ?Sized + Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.provided.push_ready(value);
        self
    }

    /// Provides a `T` made from the environment on first use (see [`FromEnv`]).
    pub fn provide_from_env<T: FromEnv>(mut self) -> Self {
        self.provided.push_from_env::<T>();
        self
    }

    /// The application's `defaults.tools`.
    pub fn defaults(mut self, defaults: ToolDefaults) -> Self {
        self.defaults = defaults;
        self
    }

    /// The application's `defaults.agents`: the limits of its agents' runs (turns, answer
    /// retries), under each workflow's own.
    pub fn agent_defaults(mut self, defaults: AgentDefaults) -> Self {
        self.agent_defaults = defaults;
        self
    }

    /// The clock every timer runs on; the system clock unless set.
    pub fn clock(mut self, clock: impl Into<Clock>) -> Self {
        self.clock = clock.into();
        self
    }

    /// Configuration, usually from a TOML file: it overrides what the code declares. Called
    /// again, the new configuration is layered over the one given before, value by value
    /// ([`Config::layered_over`]): a file over what a program made from the environment.
    #[cfg(feature = "config")]
    pub fn config(mut self, config: Config) -> Self {
        self.config = Some(match self.config.take() {
            Some(below) => config.layered_over(below),
            None => config,
        });
        self
    }

    /// Where environment-backed providers read from; the process's environment unless set.
    pub fn env(mut self, env: Env) -> Self {
        self.env = env;
        self
    }

    /// The model router, instead of the one made from configuration on first use.
    pub fn router(mut self, router: ModelRouter) -> Self {
        self.router = Some(router);
        self
    }

    /// Sends every model id to `model` (a `ScriptedModel` in tests, one local server).
    pub fn chat_model(self, model: Arc<dyn ChatModel>) -> Self {
        self.router(ModelRouter::new().route("*", "model", model, false))
    }

    /// Where executions are journaled; a [`MemoryStore`](crate::journal::MemoryStore) unless set.
    pub fn store(mut self, store: Arc<dyn Store>) -> Self {
        self.store = Some(store);
        self
    }

    /// Lists channel `C`: it answers its role for every workflow's tools. Its fields are
    /// resolved from the application's providers for each ask.
    pub fn channel<C: Channel>(mut self) -> Self {
        self.channels.push(ChannelRegistration::of::<C>());
        self
    }

    /// Token and money limits of every execution (a run may set its own).
    pub fn budgets(mut self, budgets: Budgets) -> Self {
        self.budgets = budgets;
        self
    }

    /// Names this instance in the leases it holds (who drives which execution) and its logs;
    /// by default `<host>-<pid>-<random>`, unique per `Application`.
    pub fn instance(mut self, id: impl Into<String>) -> Self {
        self.instance = Some(id.into());
        self
    }

    /// How long a lease on an execution lasts without a renewal (30 s by default): the time
    /// another instance waits before it takes over an execution whose driver stopped
    /// answering. Renewals go every third of it.
    pub fn lease_ttl(mut self, ttl: TimeSpan) -> Self {
        self.lease_ttl = ttl;
        self
    }

    /// Checks everything (names, bounds, limits, providers, configuration) and reports every
    /// problem at once. Reads no environment variable and calls no model.
    pub fn build(self) -> Result<Application, AssemblyError> {
        super::assemble::assemble(self)
    }
}

/// An application whose assembly succeeded.
pub struct Application {
    pub(crate) name: String,
    pub(crate) clock: Clock,
    pub(crate) workflows: Vec<AppWorkflow>,
    pub(crate) providers: Providers,
    pub(crate) max_result_size: Setting<ByteSize>,
    pub(crate) store: Arc<dyn Store>,
    pub(crate) budgets: Budgets,
    pub(crate) approvals: Arc<Approvals>,
    pub(crate) locks: Arc<ExecutionLocks>,
    pub(crate) running: Arc<RunningExecutions>,
    pub(crate) instance: String,
    pub(crate) lease_ttl: std::time::Duration,
}

impl Application {
    /// Starts building application `name`.
    pub fn builder(name: impl Into<String>) -> ApplicationBuilder {
        ApplicationBuilder {
            name: name.into(),
            workflows: Vec::new(),
            provided: ProvidedList::default(),
            defaults: ToolDefaults::default(),
            agent_defaults: AgentDefaults::default(),
            clock: Clock::system(),
            #[cfg(feature = "config")]
            config: None,
            env: Env::process(),
            router: None,
            store: None,
            budgets: Budgets::none(),
            channels: Vec::new(),
            instance: None,
            lease_ttl: Application::DEFAULT_LEASE_TTL,
        }
    }

    /// How long a lease lasts without renewal when the builder sets no other.
    pub const DEFAULT_LEASE_TTL: TimeSpan = crate::units::seconds(30);

    /// This instance's id, as its leases name it.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// How long its leases last without a renewal.
    pub fn lease_ttl(&self) -> std::time::Duration {
        self.lease_ttl
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Its workflows, in declaration order.
    pub fn workflows(&self) -> &[AppWorkflow] {
        &self.workflows
    }

    /// The workflow named `name`.
    pub fn workflow(&self, name: &str) -> Option<&AppWorkflow> {
        self.workflows.iter().find(|w| w.name == name)
    }

    /// The model router (made from configuration and the environment on first use).
    pub fn router(&self) -> Result<Arc<ModelRouter>, ModelError> {
        self.providers
            .get::<ModelRouter>()
            .map_err(|why| ModelError::NoRoute {
                model: "*".into(),
                reason: format!("the model router is not available: {why:?}"),
            })
    }

    /// Where executions are journaled.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Stops what the application started: every MCP server (a stdio server's whole process
    /// group). Calls after it start the servers again.
    pub async fn shutdown(&self) {
        #[cfg(feature = "mcp")]
        self.mcp().shutdown().await;
    }

    /// The application's bound for results, and where it came from.
    pub fn max_result_size(&self) -> &Setting<ByteSize> {
        &self.max_result_size
    }

    /// Makes every environment-backed provider now and checks the variables the MCP servers
    /// need, and reports each that cannot be made (`[config.env-missing] ... NOTES_FILE is not
    /// set`, `[mcp.env-missing] ...`), all at once; no server is started. Without this call they
    /// are made on first use and a failure is the error of the call that needed them.
    pub fn check_environment(&self) -> Result<(), AssemblyError> {
        let mut problems: Vec<Problem> = Vec::new();
        let mut seen = Vec::new();
        let scopes = std::iter::once(("the application", &self.providers)).chain(
            self.workflows
                .iter()
                .map(|w| (w.name.as_str(), &w.own_providers)),
        );
        for (scope, providers) in scopes {
            for (type_name, reason) in providers.make_all() {
                if seen.contains(&(type_name, reason.clone())) {
                    continue;
                }
                seen.push((type_name, reason.clone()));
                problems.push(
                    codes::CONFIG_ENV_MISSING
                        .finding(&[
                            ("type_name", &type_name),
                            ("scope", &scope),
                            ("reason", &reason),
                        ])
                        .into(),
                );
            }
        }
        #[cfg(feature = "mcp")]
        problems.extend(self.missing_mcp_env());
        if problems.is_empty() {
            Ok(())
        } else {
            Err(AssemblyError::new(self.name.clone(), problems))
        }
    }
}

/// A checked workflow.
pub struct AppWorkflow {
    pub(crate) name: String,
    pub(crate) agents: Vec<AppAgent>,
    pub(crate) unassigned: Vec<&'static ToolDescriptor>,
    #[cfg(feature = "mcp")]
    pub(crate) mcp_servers: Vec<&'static crate::mcp::McpServerDescriptor>,
    pub(crate) env: ToolEnv,
    pub(crate) own_providers: Providers,
    pub(crate) max_result_size: Setting<ByteSize>,
    pub(crate) max_tool_calls: Setting<u32>,
}

impl AppWorkflow {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its agents, in declaration order.
    pub fn agents(&self) -> &[AppAgent] {
        &self.agents
    }

    /// The agent named `name`.
    pub fn agent(&self, name: &str) -> Option<&AppAgent> {
        self.agents.iter().find(|a| a.name() == name)
    }

    /// The MCP servers its tools call.
    #[cfg(feature = "mcp")]
    pub fn mcp_servers(&self) -> &[&'static crate::mcp::McpServerDescriptor] {
        &self.mcp_servers
    }

    /// The workflow's own tools no agent of it uses.
    pub fn unassigned_tools(&self) -> &[&'static ToolDescriptor] {
        &self.unassigned
    }

    /// What its tools are called in: its providers over the application's, and the clock.
    pub(crate) fn tool_env(&self) -> &ToolEnv {
        &self.env
    }

    /// The bound of its tools without their own, and where it came from.
    pub fn max_result_size(&self) -> &Setting<ByteSize> {
        &self.max_result_size
    }

    /// The limit of tool calls of its agents without their own.
    pub fn max_tool_calls(&self) -> &Setting<u32> {
        &self.max_tool_calls
    }
}
