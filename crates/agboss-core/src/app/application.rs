//! [`Application`]: workflows, providers, defaults and the clock, checked as one.

use std::sync::Arc;

use super::provided::ProvidedList;
use super::{AssemblyError, Env, FromEnv, Problem, Setting, ToolDefaults, Workflow};
use crate::agent::AgentDescriptor;
use crate::config::Config;
use crate::deps::Providers;
use crate::model::{ChatModel, ModelError, ModelRouter};
use crate::run::Budgets;
use crate::store::Store;
use crate::time::Clock;
use crate::tool::{DynTool, ToolDescriptor, ToolEnv};
use crate::units::ByteSize;

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
    pub(crate) clock: Clock,
    pub(crate) config: Option<Config>,
    pub(crate) env: Env,
    pub(crate) router: Option<ModelRouter>,
    pub(crate) store: Option<Arc<dyn Store>>,
    pub(crate) budgets: Budgets,
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

    /// The clock every timer runs on; the system clock unless set.
    pub fn clock(mut self, clock: impl Into<Clock>) -> Self {
        self.clock = clock.into();
        self
    }

    /// Configuration, usually from a TOML file: it overrides what the code declares.
    pub fn config(mut self, config: Config) -> Self {
        self.config = Some(config);
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

    /// Where executions are journaled; a [`MemoryStore`](crate::store::MemoryStore) unless set.
    pub fn store(mut self, store: Arc<dyn Store>) -> Self {
        self.store = Some(store);
        self
    }

    /// Token and money limits of every execution (a run may set its own).
    pub fn budgets(mut self, budgets: Budgets) -> Self {
        self.budgets = budgets;
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
}

impl Application {
    /// Starts building application `name`.
    pub fn builder(name: impl Into<String>) -> ApplicationBuilder {
        ApplicationBuilder {
            name: name.into(),
            workflows: Vec::new(),
            provided: ProvidedList::default(),
            defaults: ToolDefaults::default(),
            clock: Clock::system(),
            config: None,
            env: Env::process(),
            router: None,
            store: None,
            budgets: Budgets::none(),
        }
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

    /// The MCP servers' connections.
    pub fn mcp(&self) -> Arc<crate::mcp::McpHub> {
        self.providers
            .get::<crate::mcp::McpHub>()
            .expect("assembly provides the MCP hub")
    }

    /// Starts every MCP server the application's tools call and checks that each offers the
    /// tools its declaration names; every problem at once (`[mcp.start-failed]`,
    /// `[mcp.tool-missing]`, `[mcp.env-missing]`). Without this call servers start on first use
    /// and a problem is the error of the call that needed them.
    pub async fn start_mcp_servers(&self) -> Result<(), AssemblyError> {
        let failures = self.mcp().start(self.used_mcp_servers()).await;
        if failures.is_empty() {
            return Ok(());
        }
        let problems = failures.iter().map(mcp_problem).collect();
        Err(AssemblyError::new(self.name.clone(), problems))
    }

    /// Every MCP server a workflow's tools call, each once, sorted by name.
    fn used_mcp_servers(&self) -> Vec<&'static crate::mcp::McpServerDescriptor> {
        let mut servers: Vec<_> = self
            .workflows
            .iter()
            .flat_map(|w| w.mcp_servers.iter().copied())
            .collect();
        servers.sort_by_key(|s| (s.name(), std::ptr::from_ref(*s) as usize));
        servers.dedup_by_key(|s| std::ptr::from_ref(*s) as usize);
        servers
    }

    /// Stops what the application started: every MCP server (a stdio server's whole process
    /// group). Calls after it start the servers again.
    pub async fn shutdown(&self) {
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
                problems.push(Problem::new(
                    "config.env-missing",
                    format!("`{type_name}` (provided by {scope}) cannot be made: {reason}"),
                ));
            }
        }
        problems.extend(
            self.mcp()
                .missing_env(self.used_mcp_servers())
                .iter()
                .map(mcp_problem),
        );
        if problems.is_empty() {
            Ok(())
        } else {
            Err(AssemblyError::new(self.name.clone(), problems))
        }
    }
}

/// An MCP failure as an assembly problem.
fn mcp_problem(error: &crate::mcp::McpError) -> Problem {
    Problem::new(error.code(), error.message())
}

/// A checked workflow.
pub struct AppWorkflow {
    pub(crate) name: String,
    pub(crate) agents: Vec<AppAgent>,
    pub(crate) unassigned: Vec<&'static ToolDescriptor>,
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
        self.agents.iter().find(|a| a.descriptor.name() == name)
    }

    /// The MCP servers its tools call.
    pub fn mcp_servers(&self) -> &[&'static crate::mcp::McpServerDescriptor] {
        &self.mcp_servers
    }

    /// The workflow's own tools no agent of it uses.
    pub fn unassigned_tools(&self) -> &[&'static ToolDescriptor] {
        &self.unassigned
    }

    /// What its tools are called in: its providers over the application's, and the clock.
    pub fn tool_env(&self) -> &ToolEnv {
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

/// A checked agent: its model, limits and tools as they are in effect.
pub struct AppAgent {
    pub(crate) descriptor: &'static AgentDescriptor,
    pub(crate) model: String,
    pub(crate) max_tool_calls: Setting<u32>,
    pub(crate) max_result_size: Setting<ByteSize>,
    pub(crate) tools: Vec<AppTool>,
}

impl AppAgent {
    /// What `#[agent]` declared.
    pub fn descriptor(&self) -> &'static AgentDescriptor {
        self.descriptor
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        self.descriptor.name()
    }

    /// The model in effect (configuration may override the declared one).
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Its limit of tool calls per run, and where it came from.
    pub fn max_tool_calls(&self) -> &Setting<u32> {
        &self.max_tool_calls
    }

    /// The bound for its context blocks and its tools without their own.
    pub fn max_result_size(&self) -> &Setting<ByteSize> {
        &self.max_result_size
    }

    /// Its tools, declared ones first, then those configuration adds.
    pub fn tools(&self) -> &[AppTool] {
        &self.tools
    }

    /// The tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&AppTool> {
        self.tools.iter().find(|t| t.descriptor.name() == name)
    }
}

/// A tool as one agent has it: its effective bound and the callable tool.
pub struct AppTool {
    pub(crate) descriptor: &'static ToolDescriptor,
    pub(crate) bound: Setting<ByteSize>,
    pub(crate) env_vars: Vec<&'static str>,
    pub(crate) tool: Arc<dyn DynTool>,
}

impl AppTool {
    /// The tool's descriptor.
    pub fn descriptor(&self) -> &'static ToolDescriptor {
        self.descriptor
    }

    /// The bound on what the model reads of its results, and where it came from.
    pub fn bound(&self) -> &Setting<ByteSize> {
        &self.bound
    }

    /// The environment variables its dependencies are made from.
    pub fn env_vars(&self) -> &[&'static str] {
        &self.env_vars
    }

    /// The tool, ready to be called.
    pub fn tool(&self) -> &Arc<dyn DynTool> {
        &self.tool
    }
}
