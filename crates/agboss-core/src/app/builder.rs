//! [`ApplicationBuilder`]: what an application declares, and where it keeps and runs its
//! executions; [`build`](ApplicationBuilder::build) assembles it.

use std::sync::Arc;

use super::Application;
use crate::assembly::{
    AgentDefaults, Declarations, DeclaredMiddleware, ToolDefaults, Workflow, assemble,
};
use crate::base::{AssemblyError, Env, FromEnv};
use crate::channel::{Approves, Channel, ChannelRegistration};
#[cfg(feature = "config")]
use crate::config::Config;
use crate::model::{ChatModel, ModelRouter};
use crate::policy::PermissionChecker;
use crate::spend::Budgets;
use crate::store::{MemoryStore, Store};
use crate::time::Clock;
use crate::tool::CredentialProvider;
use crate::units::TimeSpan;

/// Builds an [`Application`].
///
/// ```
/// use agboss_core::app::Application;
/// use agboss_core::assembly::{ToolDefaults, Workflow};
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
    declarations: Declarations,
    store: Option<Arc<dyn Store>>,
    budgets: Budgets,
    instance: Option<String>,
    artifact_retention: crate::run::ArtifactRetention,
    trace_content: bool,
}

impl Application {
    /// Starts building application `name`.
    pub fn builder(name: impl Into<String>) -> ApplicationBuilder {
        ApplicationBuilder {
            declarations: Declarations::new(name, Application::DEFAULT_LEASE_TTL),
            store: None,
            budgets: Budgets::none(),
            instance: None,
            artifact_retention: Default::default(),
            trace_content: false,
        }
    }
}

impl ApplicationBuilder {
    /// Adds `workflow`.
    pub fn workflow(mut self, workflow: Workflow) -> Self {
        self.declarations.workflows.push(workflow);
        self
    }

    /// Provides `value` to every workflow's tools.
    pub fn provide<T: ?Sized + Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.declarations.provided.push_ready(value);
        self
    }

    /// Puts `value` in the place of every provider of `T`, the application's and each
    /// workflow's (included ones too), or provides it to every workflow's tools when nothing
    /// does: a test replaces a service by a double in one line, on the application a program
    /// builds.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use agboss_core::app::Application;
    /// use agboss_core::assembly::Workflow;
    ///
    /// trait Mailer: Send + Sync {}
    /// struct Smtp;
    /// impl Mailer for Smtp {}
    /// struct NoMail;
    /// impl Mailer for NoMail {}
    ///
    /// let desk = || Workflow::new("desk").provide::<dyn Mailer>(Arc::new(Smtp));
    /// let app = Application::builder("desk-application")
    ///     .workflow(desk())
    ///     .replace::<dyn Mailer>(Arc::new(NoMail))
    ///     .build()
    ///     .unwrap();
    /// # let _ = app;
    /// ```
    pub fn replace<T: ?Sized + Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.declarations.replacements.push_ready(value);
        self
    }

    /// Provides a `T` made from the environment on first use (see [`FromEnv`]).
    pub fn provide_from_env<T: FromEnv>(mut self) -> Self {
        self.declarations.provided.push_from_env::<T>();
        self
    }

    /// The application's `defaults.tools`.
    pub fn defaults(mut self, defaults: ToolDefaults) -> Self {
        self.declarations.defaults = defaults;
        self
    }

    /// The application's `defaults.agents`: the limits of its agents' runs (turns, answer
    /// retries), under each workflow's own.
    pub fn agent_defaults(mut self, defaults: AgentDefaults) -> Self {
        self.declarations.agent_defaults = defaults;
        self
    }

    /// What every agent's tool results and approval questions are masked with (docs/privacy.md),
    /// under each workflow's ([`Workflow::masking`]) and each agent's
    /// ([`Workflow::agent_masking`]): the most specific policy is the one in effect. Without
    /// any, nothing is masked.
    pub fn masking(mut self, policy: crate::masking::MaskingPolicy) -> Self {
        self.declarations.masking = Some(policy);
        self
    }

    /// The clock every timer runs on; the system clock unless set.
    pub fn clock(mut self, clock: impl Into<Clock>) -> Self {
        self.declarations.clock = clock.into();
        self
    }

    /// Configuration, usually from a TOML file: it overrides what the code declares. Called
    /// again, the new configuration is layered over the one given before, value by value
    /// ([`Config::layered_over`]): a file over what a program made from the environment.
    #[cfg(feature = "config")]
    pub fn config(mut self, config: Config) -> Self {
        self.declarations.config = Some(match self.declarations.config.take() {
            Some(below) => config.layered_over(below),
            None => config,
        });
        self
    }

    /// Where environment-backed providers read from; the process's environment unless set.
    pub fn env(mut self, env: Env) -> Self {
        self.declarations.env = env;
        self
    }

    /// The model router, instead of the one made from configuration on first use.
    pub fn router(mut self, router: ModelRouter) -> Self {
        self.declarations.router = Some(router);
        self
    }

    /// Sends every model id to `model` (a `ScriptedModel` in tests, one local server).
    pub fn chat_model(self, model: Arc<dyn ChatModel>) -> Self {
        self.router(ModelRouter::new().route("*", "model", model, false))
    }

    /// Where executions are journaled; a [`MemoryStore`] unless set.
    pub fn store(mut self, store: Arc<dyn Store>) -> Self {
        self.store = Some(store);
        self
    }

    /// Lists channel `C`: it answers its role for every workflow's tools. Its fields are
    /// resolved from the application's providers for each ask.
    pub fn channel<C: Channel>(mut self) -> Self {
        self.declarations
            .channels
            .push(ChannelRegistration::of::<C>());
        self
    }

    /// Decides about calls of tools that declare capabilities `checker` governs, before they
    /// run (docs/policies.md): run, refuse, or ask a person.
    pub fn permissions(mut self, checker: impl PermissionChecker) -> Self {
        self.declarations.permissions = Some(Arc::new(checker));
        self
    }

    /// Adds `middleware` to the call pipeline of every tool of the application: it sees each
    /// call the gates before it admitted (and may refuse it), and what each call gave
    /// (docs/tools.md, "Middleware"). Several run in the order they were added.
    pub fn middleware(mut self, middleware: impl crate::tool::Middleware) -> Self {
        self.declarations.middleware.push(DeclaredMiddleware {
            middleware: Arc::new(middleware),
            tool: None,
        });
        self
    }

    /// Adds `middleware` to the call pipeline of tool `T` only, in the place
    /// [`middleware`](Self::middleware) takes.
    pub fn tool_middleware<T: crate::tool::Tool>(
        mut self,
        middleware: impl crate::tool::Middleware,
    ) -> Self {
        self.declarations.middleware.push(DeclaredMiddleware {
            middleware: Arc::new(middleware),
            tool: Some(T::DESCRIPTOR),
        });
        self
    }

    /// The approval role asked when a tool must ask a person (its check-in, or a permission's
    /// `Ask`) and names no role of its own. It approves calls of any tool, so it is a role
    /// declared `approves = Value` (or a built-in channel); list its channel too.
    pub fn check_in_role<R: Approves<serde_json::Value>>(mut self) -> Self {
        self.declarations.check_in_role = Some(R::DESCRIPTOR);
        self
    }

    /// Resolves the credentials its tools `need` (for each call, from the call's execution) and
    /// its MCP servers declare (as each starts), by name (docs/policies.md, "Credentials").
    /// Assembly refuses a needed name `provider` does not know (`[credentials.unknown]`), and
    /// tools or servers that need credentials in an application without a provider
    /// (`[credentials.no-provider]`).
    pub fn credentials(mut self, provider: impl CredentialProvider) -> Self {
        self.declarations.credentials = Some(Arc::new(provider));
        self
    }

    /// Has a person approve the MCP servers declared with OAuth's authorization code grant
    /// (`#[mcp_server(.., oauth_redirect = ..)]`) through `authorizer`: it gets the page to
    /// approve on and returns the address the browser came back to. Without one, a
    /// [`LoopbackAuthorizer`](crate::mcp::LoopbackAuthorizer) prints the page on standard
    /// error and listens on the redirect (docs/mcp.md, "OAuth").
    #[cfg(feature = "mcp")]
    pub fn authorizer(mut self, authorizer: impl crate::mcp::Authorizer) -> Self {
        self.declarations.authorizer = Some(Arc::new(authorizer));
        self
    }

    /// Where the indexes of knowledge bases over a folder are kept: one folder per base, named
    /// as the base. `.agboss/knowledge` under the working directory unless set.
    pub fn knowledge_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.declarations.knowledge_dir = Some(dir.into());
        self
    }

    /// Knowledge base `name` reads its documents from `folder`, not from the folder its
    /// declaration names: a deployment's own place, or a test's.
    pub fn knowledge_folder(
        mut self,
        name: impl Into<String>,
        folder: impl Into<std::path::PathBuf>,
    ) -> Self {
        self.declarations
            .knowledge_folders
            .push((name.into(), folder.into()));
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
        self.declarations.lease_ttl = ttl;
        self
    }

    /// What resuming an execution does when its workflow's configuration hash is not the one
    /// its journal recorded, in the workflows that do not say (`Workflow::on_config_change`):
    /// [`OnConfigChange::Warn`](crate::assembly::OnConfigChange::Warn) by default, or `Refuse`
    /// (`[resume.config-changed]`; docs/durability.md, "Configuration hash").
    pub fn on_config_change(mut self, on_change: crate::assembly::OnConfigChange) -> Self {
        self.declarations.on_config_change = on_change;
        self
    }

    /// How long an execution's artifacts (results its tools' `result_kind` kept aside) stay in
    /// the store: by default until its run ends ([`ArtifactRetention`](crate::run::ArtifactRetention)).
    pub fn artifact_retention(mut self, retention: crate::run::ArtifactRetention) -> Self {
        self.artifact_retention = retention;
        self
    }

    /// Whether the spans of runs record the texts themselves (off by default): each model
    /// call's input and output messages (`gen_ai.input.messages`, `gen_ai.output.messages`)
    /// and each tool call's arguments and result (`gen_ai.tool.call.arguments`,
    /// `gen_ai.tool.call.result`), as JSON, masked by the agent's masking policy when it has
    /// one. Off, no span carries any of them (docs/observability.md).
    pub fn trace_content(mut self, record: bool) -> Self {
        self.trace_content = record;
        self
    }

    /// Checks everything (names, bounds, limits, providers, configuration) and reports every
    /// problem at once. Reads no environment variable and calls no model.
    pub fn build(self) -> Result<Application, AssemblyError> {
        let clock = self.declarations.clock().clone();
        let assembly = assemble(self.declarations)?;
        let store = match self.store {
            // A store waits (its retries, its timeouts) on the application's clock.
            Some(store) => {
                store.use_clock(&clock);
                store
            }
            None => Arc::new(MemoryStore::with_clock(clock)),
        };
        let instance = match self.instance {
            Some(instance) => instance,
            None => super::identifiers::new_instance_id()
                .map_err(|problem| AssemblyError::new(assembly.name().to_owned(), vec![problem]))?,
        };
        let mut app = Application::host(assembly, store, self.budgets, instance);
        app.artifact_retention = self.artifact_retention;
        app.trace_content = self.trace_content;
        // The MCP servers' tool definitions are pinned in the application's store.
        #[cfg(feature = "mcp")]
        app.keep_mcp_pins();
        Ok(app)
    }
}
