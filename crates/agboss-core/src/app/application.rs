//! [`Application`]: an assembled application hosting executions: its store, its instance, and
//! what its executions are driven with.

use std::sync::Arc;

use agboss_rules::codes;

use super::in_flight::{ExecutionLocks, RunningExecutions};
use crate::assembly::{AppWorkflow, Assembly};
use crate::base::{AssemblyError, Problem, Setting};
use crate::model::{ModelError, ModelRouter};
use crate::spend::Budgets;
use crate::store::Store;
use crate::time::Clock;
use crate::units::{ByteSize, TimeSpan};

/// An application whose assembly succeeded, hosting its executions: they are journaled in its
/// store, and this instance drives those it holds the lease of.
pub struct Application {
    pub(crate) assembly: Assembly,
    pub(crate) store: Arc<dyn Store>,
    pub(crate) budgets: Budgets,
    pub(crate) locks: Arc<ExecutionLocks>,
    pub(crate) running: Arc<RunningExecutions>,
    pub(crate) instance: String,
    /// How long executions' artifacts are kept once their run ends.
    pub(crate) artifact_retention: crate::run::ArtifactRetention,
    /// Whether runs' spans record the texts models and tools read and wrote (masked).
    pub(crate) trace_content: bool,
}

impl Application {
    /// How long a lease lasts without renewal when the builder sets no other.
    pub const DEFAULT_LEASE_TTL: TimeSpan = crate::units::seconds(30);

    /// `assembly` hosted by instance `instance`, its executions journaled in `store`.
    pub(crate) fn host(
        assembly: Assembly,
        store: Arc<dyn Store>,
        budgets: Budgets,
        instance: String,
    ) -> Application {
        Application {
            assembly,
            store,
            budgets,
            locks: Arc::default(),
            running: Arc::default(),
            instance,
            artifact_retention: Default::default(),
            trace_content: false,
        }
    }

    /// What assembly made of its declarations.
    pub(crate) fn assembly(&self) -> &Assembly {
        &self.assembly
    }

    /// This instance's id, as its leases name it.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// How long its leases last without a renewal.
    pub fn lease_ttl(&self) -> std::time::Duration {
        self.assembly.lease_ttl()
    }

    /// Its name.
    pub fn name(&self) -> &str {
        self.assembly.name()
    }

    /// Its clock.
    pub fn clock(&self) -> &Clock {
        self.assembly.clock()
    }

    /// Its workflows, in declaration order.
    pub fn workflows(&self) -> &[AppWorkflow] {
        self.assembly.workflows()
    }

    /// The workflow named `name`.
    pub fn workflow(&self, name: &str) -> Option<&AppWorkflow> {
        self.assembly.workflow(name)
    }

    /// The model router (made from configuration and the environment on first use).
    pub fn router(&self) -> Result<Arc<ModelRouter>, ModelError> {
        self.assembly
            .providers()
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
        self.assembly.max_result_size()
    }

    /// Makes every environment-backed provider now and checks the variables the MCP servers
    /// need, and reports each that cannot be made (`[config.env-missing] ... NOTES_FILE is not
    /// set`, `[mcp.env-missing] ...`), all at once; no server is started. Without this call they
    /// are made on first use and a failure is the error of the call that needed them.
    pub fn check_environment(&self) -> Result<(), AssemblyError> {
        let mut problems: Vec<Problem> = Vec::new();
        let mut seen = Vec::new();
        let scopes = std::iter::once(("the application", self.assembly.providers())).chain(
            self.workflows()
                .iter()
                .map(|w| (w.name(), w.own_providers())),
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
            Err(AssemblyError::new(self.name().to_owned(), problems))
        }
    }
}
