//! [`Workflow`]: agents, the tools of its `tools/` folder, its providers and its defaults.

use std::sync::Arc;

use super::provided::ProvidedList;
use super::{AgentDefaults, ToolDefaults};
use crate::agent::{Agent, AgentDescriptor};
use crate::base::FromEnv;
use crate::tool::{Tool, ToolRegistration};

/// A workflow as declared; `ApplicationBuilder::build` (in `app`)
/// checks it.
///
/// ```
/// use agboss_core::assembly::{ToolDefaults, Workflow};
/// use agboss_core::units::kilobytes;
///
/// let desk = Workflow::new("desk").defaults(ToolDefaults::new().max_result_size(kilobytes(64)));
/// assert_eq!(desk.name(), "desk");
/// ```
#[derive(Clone)]
pub struct Workflow {
    pub(crate) name: String,
    pub(crate) agents: Vec<&'static AgentDescriptor>,
    pub(crate) tools: Vec<ToolRegistration>,
    pub(crate) provided: ProvidedList,
    pub(crate) defaults: ToolDefaults,
    pub(crate) agent_defaults: AgentDefaults,
}

impl Workflow {
    /// An empty workflow named `name`.
    pub fn new(name: impl Into<String>) -> Workflow {
        Workflow {
            name: name.into(),
            agents: Vec::new(),
            tools: Vec::new(),
            provided: ProvidedList::default(),
            defaults: ToolDefaults::default(),
            agent_defaults: AgentDefaults::default(),
        }
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Adds agent `A`.
    pub fn agent<A: Agent>(self) -> Workflow {
        self.agent_descriptor(A::DESCRIPTOR)
    }

    /// Adds the agent `descriptor` describes (for agents made at run time).
    pub fn agent_descriptor(mut self, descriptor: &'static AgentDescriptor) -> Workflow {
        self.agents.push(descriptor);
        self
    }

    /// Adds tool `T` to the workflow's own tools (its `tools/` folder): checked with the rest,
    /// and listed by `describe` as unassigned while no agent uses it.
    pub fn tool<T: Tool>(self) -> Workflow {
        self.tool_registration(ToolRegistration::of::<T>())
    }

    /// Adds the tool `registration` describes.
    pub fn tool_registration(mut self, registration: ToolRegistration) -> Workflow {
        self.tools.push(registration);
        self
    }

    /// Provides `value` to this workflow's tools, before the application's.
    pub fn provide<T: ?Sized + Send + Sync + 'static>(mut self, value: Arc<T>) -> Workflow {
        self.provided.push_ready(value);
        self
    }

    /// Provides a `T` made from the environment on first use.
    pub fn provide_from_env<T: FromEnv>(mut self) -> Workflow {
        self.provided.push_from_env::<T>();
        self
    }

    /// Its `defaults.tools`.
    pub fn defaults(mut self, defaults: ToolDefaults) -> Workflow {
        self.defaults = defaults;
        self
    }

    /// Its `defaults.agents`: the limits of its agents' runs (turns, answer retries).
    pub fn agent_defaults(mut self, defaults: AgentDefaults) -> Workflow {
        self.agent_defaults = defaults;
        self
    }
}
