//! [`Declarations`]: everything an application declares that assembly checks.

use std::sync::Arc;

use super::provided::ProvidedList;
use super::{AgentDefaults, ToolDefaults, Workflow};
use crate::base::Env;
use crate::channel::{ChannelRegistration, RoleDescriptor};
#[cfg(feature = "config")]
use crate::config::Config;
use crate::masking::MaskingPolicy;
use crate::model::ModelRouter;
use crate::policy::PermissionChecker;
use crate::time::Clock;
use crate::tool::CredentialProvider;
use crate::units::TimeSpan;

/// What an application declares, as the application's builder collected it: its workflows,
/// providers, defaults, channels, configuration, clock and lease ttl. [`assemble`](super::assemble)
/// checks it as one.
pub struct Declarations {
    pub(crate) name: String,
    pub(crate) workflows: Vec<Workflow>,
    pub(crate) provided: ProvidedList,
    /// Values that take the place of every provider of their type (tests' doubles).
    pub(crate) replacements: ProvidedList,
    pub(crate) defaults: ToolDefaults,
    pub(crate) agent_defaults: AgentDefaults,
    /// What its agents' tool results and approval questions are masked with, under each
    /// workflow's and agent's own.
    pub(crate) masking: Option<MaskingPolicy>,
    pub(crate) clock: Clock,
    #[cfg(feature = "config")]
    pub(crate) config: Option<Config>,
    pub(crate) env: Env,
    pub(crate) router: Option<ModelRouter>,
    pub(crate) channels: Vec<ChannelRegistration>,
    pub(crate) lease_ttl: TimeSpan,
    /// What the application decides about calls of tools that declare capabilities.
    pub(crate) permissions: Option<Arc<dyn PermissionChecker>>,
    /// The role asked when a tool that must ask a person names none.
    pub(crate) check_in_role: Option<&'static RoleDescriptor>,
    /// What resolves the credentials tools and MCP servers need (credentials' part).
    pub(crate) credentials: Option<Arc<dyn CredentialProvider>>,
    /// Who approves the OAuth authorization code grants of its MCP servers.
    #[cfg(feature = "mcp")]
    pub(crate) authorizer: Option<Arc<dyn crate::mcp::Authorizer>>,
    /// What resuming an execution under another configuration hash does, in the workflows
    /// that do not say.
    pub(crate) on_config_change: super::OnConfigChange,
    /// Where knowledge bases' indexes are kept; `.agboss/knowledge` unless set.
    pub(crate) knowledge_dir: Option<std::path::PathBuf>,
    /// Folders read in the place of those knowledge bases' declarations name, by base.
    pub(crate) knowledge_folders: Vec<(String, std::path::PathBuf)>,
    /// The application's own stages of the call pipeline, in the order added: each for every
    /// tool's calls, or for those of the tool named.
    pub(crate) middleware: Vec<DeclaredMiddleware>,
}

/// A middleware the application added, and the tool whose calls it sees (`None`: every tool's).
#[derive(Clone)]
pub(crate) struct DeclaredMiddleware {
    pub(crate) middleware: Arc<dyn crate::tool::Middleware>,
    pub(crate) tool: Option<&'static crate::tool::ToolDescriptor>,
}

impl Declarations {
    /// Nothing declared yet for application `name`: the system clock, the process's
    /// environment and a lease ttl of `lease_ttl`.
    pub fn new(name: impl Into<String>, lease_ttl: TimeSpan) -> Declarations {
        Declarations {
            name: name.into(),
            workflows: Vec::new(),
            provided: ProvidedList::default(),
            replacements: ProvidedList::default(),
            defaults: ToolDefaults::default(),
            agent_defaults: AgentDefaults::default(),
            masking: None,
            clock: Clock::system(),
            #[cfg(feature = "config")]
            config: None,
            env: Env::process(),
            router: None,
            channels: Vec::new(),
            permissions: None,
            check_in_role: None,
            credentials: None,
            #[cfg(feature = "mcp")]
            authorizer: None,
            knowledge_dir: None,
            knowledge_folders: Vec::new(),
            middleware: Vec::new(),
            on_config_change: super::OnConfigChange::Warn,
            lease_ttl,
        }
    }

    /// The application's name as declared (configuration may rename it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The clock the application's timers run on.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}
