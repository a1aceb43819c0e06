//! What a call runs in: [`ToolEnv`] (the application's providers, clock and credentials) and
//! [`CallFrame`] (which call this is, and what it asks and keeps through).

use std::sync::Arc;

use crate::context::{Execution, ProgressSink, Step};
use crate::deps::Providers;
use crate::time::Clock;
use crate::tool::{ArtifactShelf, Asker, CredentialProvider};

/// What tools are called in: the application's providers, clock and credential provider.
/// Cloning is cheap.
#[derive(Clone, Default)]
pub struct ToolEnv {
    pub(super) providers: Arc<Providers>,
    pub(super) clock: Clock,
    pub(super) credentials: Option<Arc<dyn CredentialProvider>>,
}

impl std::fmt::Debug for ToolEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEnv")
            .field("providers", &self.providers)
            .field("clock", &self.clock)
            .field("credentials", &self.credentials.is_some())
            .finish()
    }
}

impl ToolEnv {
    /// Tools calling into `providers` on `clock`.
    pub fn new(providers: Arc<Providers>, clock: Clock) -> ToolEnv {
        ToolEnv {
            providers,
            clock,
            credentials: None,
        }
    }

    /// The same, resolving the credentials tools need through `provider`.
    pub fn with_credentials(mut self, provider: Option<Arc<dyn CredentialProvider>>) -> ToolEnv {
        self.credentials = provider;
        self
    }

    /// What resolves the credentials tools need, if the application has one.
    pub fn credentials(&self) -> Option<&Arc<dyn CredentialProvider>> {
        self.credentials.as_ref()
    }

    /// The providers.
    pub fn providers(&self) -> &Providers {
        &self.providers
    }

    /// The clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}

/// Which call this is: its execution and its step (and, in a run, what it asks through).
#[derive(Clone)]
pub struct CallFrame {
    pub(super) execution: Execution,
    pub(super) step: Step,
    pub(super) asker: Option<Arc<dyn Asker>>,
    pub(super) artifacts: Option<Arc<dyn ArtifactShelf>>,
    pub(super) watch: Option<CallWatch>,
}

/// What someone watching a run is told of a call: that it starts (its arguments accepted,
/// every gate passed, just before `run`), and the progress it reports.
#[derive(Clone)]
pub struct CallWatch {
    /// Called once, as the call starts.
    pub started: Arc<dyn Fn() + Send + Sync>,
    /// Where its progress goes.
    pub progress: ProgressSink,
}

impl CallFrame {
    /// The call `step` in `execution`.
    pub fn new(execution: Execution, step: Step) -> CallFrame {
        CallFrame {
            execution,
            step,
            asker: None,
            artifacts: None,
            watch: None,
        }
    }

    /// The same call, watched: `watch` hears when it starts and how far it gets.
    pub fn with_watch(mut self, watch: CallWatch) -> CallFrame {
        self.watch = Some(watch);
        self
    }

    /// The same call, keeping and redeeming artifacts on `shelf` (the execution's; what the
    /// loop gives a call of a tool with a `result_kind` or `wants`). Without one, results are
    /// never kept aside and every reference is refused.
    pub fn with_artifacts(mut self, shelf: Arc<dyn ArtifactShelf>) -> CallFrame {
        self.artifacts = Some(shelf);
        self
    }

    /// The same call, asking its questions through `asker`.
    pub fn with_asker(mut self, asker: Arc<dyn Asker>) -> CallFrame {
        self.asker = Some(asker);
        self
    }

    /// The execution.
    pub fn execution(&self) -> &Execution {
        &self.execution
    }

    /// The step.
    pub fn step(&self) -> &Step {
        &self.step
    }
}

impl std::fmt::Debug for CallFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallFrame")
            .field("execution", &self.execution)
            .field("step", &self.step)
            .field("asks", &self.asker.is_some())
            .field("artifacts", &self.artifacts.is_some())
            .finish()
    }
}
