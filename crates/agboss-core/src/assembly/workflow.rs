//! [`Workflow`]: agents, the tools of its `tools/` folder, its providers, its defaults and the
//! workflows it includes.

use std::sync::Arc;

use super::provided::ProvidedList;
use super::{AgentDefaults, OnConfigChange, ToolDefaults};
use crate::agent::{Agent, AgentDescriptor};
use crate::base::FromEnv;
use crate::masking::MaskingPolicy;
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
///
/// A workflow may include others ([`include`](Self::include)): they are assembled with the same
/// application and checked as any workflow, each keeping its own providers and defaults.
#[derive(Clone)]
pub struct Workflow {
    pub(crate) name: String,
    pub(crate) agents: Vec<&'static AgentDescriptor>,
    pub(crate) tools: Vec<ToolRegistration>,
    pub(crate) provided: ProvidedList,
    pub(crate) defaults: ToolDefaults,
    pub(crate) agent_defaults: AgentDefaults,
    /// The workflows it includes, as declared; assembly flattens them (`includes.rs`).
    pub(crate) includes: Vec<Workflow>,
    /// What resuming one of its executions does under another configuration hash; `None`:
    /// the application's.
    pub(crate) on_config_change: Option<OnConfigChange>,
    /// What its agents' results and questions are masked with; `None`: the application's.
    pub(crate) masking: Option<MaskingPolicy>,
    /// Its agents' own masking, by agent name, over the workflow's.
    pub(crate) agent_masking: Vec<(&'static str, MaskingPolicy)>,
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
            includes: Vec::new(),
            on_config_change: None,
            masking: None,
            agent_masking: Vec::new(),
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

    /// What resuming one of its executions does when its configuration hash is not the one the
    /// execution's journal recorded (docs/durability.md, "Configuration hash"): over the
    /// application's (`ApplicationBuilder::on_config_change`), else [`OnConfigChange::Warn`].
    pub fn on_config_change(mut self, on_change: OnConfigChange) -> Workflow {
        self.on_config_change = Some(on_change);
        self
    }

    /// What its agents' tool results and approval questions are masked with (docs/privacy.md),
    /// over the application's ([`ApplicationBuilder::masking`](crate::app::ApplicationBuilder::masking));
    /// an agent's own ([`agent_masking`](Self::agent_masking)) is over this one.
    ///
    /// ```
    /// use agboss_core::assembly::Workflow;
    /// use agboss_core::masking::{Entity, MaskingPolicy};
    ///
    /// let desk = Workflow::new("desk").masking(MaskingPolicy::standard().without(Entity::Phone));
    /// # let _ = desk;
    /// ```
    pub fn masking(mut self, policy: MaskingPolicy) -> Workflow {
        self.masking = Some(policy);
        self
    }

    /// What agent `A`'s tool results and approval questions are masked with in this workflow,
    /// over the workflow's and the application's: the most specific policy is the one in
    /// effect, whole (policies are not merged).
    pub fn agent_masking<A: Agent>(mut self, policy: MaskingPolicy) -> Workflow {
        let name = A::DESCRIPTOR.name();
        self.agent_masking.retain(|(agent, _)| *agent != name);
        self.agent_masking.push((name, policy));
        self
    }

    /// Includes `child`: its agents and tools become part of the application this workflow is
    /// in, checked as any workflow's; the roles its tools wait for need a channel listed on that
    /// application. The child keeps its name (`app.run("billing", ..)` runs it), its providers
    /// and its defaults: where it sets none, the application's apply, not this workflow's, so a
    /// child behaves the same whoever includes it. Its tools do not see this workflow's
    /// providers.
    ///
    /// A workflow reached again under the same name (by another parent, or also listed on the
    /// application) is one workflow, assembled once, if it declares the same agents, tools,
    /// includes, defaults and provided types; otherwise that is `[workflow.duplicate-name]`. A
    /// workflow that includes itself, directly or through its children, is
    /// `[workflow.include-cycle]`.
    ///
    /// ```
    /// use agboss_core::app::Application;
    /// use agboss_core::assembly::Workflow;
    ///
    /// let billing = Workflow::new("billing");
    /// let app = Application::builder("desk-application")
    ///     .workflow(Workflow::new("support").include(billing))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(app.workflow("support").unwrap().includes(), ["billing"]);
    /// assert_eq!(app.workflow("billing").unwrap().included_by(), ["support"]);
    /// ```
    pub fn include(mut self, child: Workflow) -> Workflow {
        self.includes.push(child);
        self
    }
}
