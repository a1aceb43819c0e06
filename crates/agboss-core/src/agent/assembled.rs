//! [`AppAgent`] and [`AppTool`]: an agent and its tools as assembly left them, with the model,
//! limits and bounds in effect and where each came from. The loop runs them; `describe` prints
//! them.

use std::sync::Arc;

use super::AgentDescriptor;
use crate::base::Setting;
use crate::masking::MaskingPolicy;
use crate::model::ToolChoice;
use crate::tool::{DynTool, Pipeline, ToolDescriptor};
use crate::units::{ByteSize, TimeSpan};

/// A checked agent: its model, limits and tools as they are in effect.
pub struct AppAgent {
    descriptor: &'static AgentDescriptor,
    model: String,
    max_tool_calls: Setting<u32>,
    max_result_size: Setting<ByteSize>,
    tools: Vec<AppTool>,
    context_knowledge: Vec<AppTool>,
    rules: RunRules,
}

/// How an agent's runs go beyond its tools, as assembly resolved it: tool choices, the turn cap
/// and answer retries, each with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RunRules {
    pub(crate) tool_choice: Option<ToolChoice>,
    pub(crate) first_turn_tool_choice: Option<ToolChoice>,
    pub(crate) max_turns: Setting<u32>,
    pub(crate) answer_retries: Setting<u32>,
    /// The bound on the history of its thread it reads.
    pub(crate) history_max_size: Setting<ByteSize>,
    /// The roles its tools wait for that the thread's owner answers, by name.
    pub(crate) owner_roles: Vec<&'static str>,
    /// Its time budget per run, if it has one (configuration's, else its own).
    pub(crate) max_duration: Option<Setting<TimeSpan>>,
    /// What its tool results and approval questions are masked with, if anything.
    pub(crate) masking: Option<Setting<MaskingPolicy>>,
}

impl AppAgent {
    /// Agent `descriptor` as assembly checked it: the model, limit and bound in effect, its
    /// tools ready to be called, and its tool choices and run limits.
    pub(crate) fn new(
        descriptor: &'static AgentDescriptor,
        model: String,
        max_tool_calls: Setting<u32>,
        max_result_size: Setting<ByteSize>,
        tools: Vec<AppTool>,
        rules: RunRules,
    ) -> AppAgent {
        AppAgent {
            descriptor,
            model,
            max_tool_calls,
            max_result_size,
            tools,
            context_knowledge: Vec::new(),
            rules,
        }
    }

    /// The same agent, searching the knowledge bases `searches` (their search tools, bound to
    /// nothing: the block is bounded whole) before each model call: its bases in context mode.
    pub(crate) fn with_context_knowledge(mut self, searches: Vec<AppTool>) -> AppAgent {
        self.context_knowledge = searches;
        self
    }

    /// The search tools of its knowledge bases in context mode, searched with the run's input
    /// before each model call; what they find is added to the input message, each base's
    /// block bounded by [`max_result_size`](Self::max_result_size).
    pub fn context_knowledge(&self) -> &[AppTool] {
        &self.context_knowledge
    }

    /// Its tool choice on every turn (configuration's over the declared one), if it has one;
    /// without, the loop uses `required` for an agent with an answer DTO and `auto` otherwise.
    pub fn tool_choice(&self) -> Option<&ToolChoice> {
        self.rules.tool_choice.as_ref()
    }

    /// The roles its runs may wait for whose pauses the thread's owner answers, by name: its
    /// tools' approval roles, the roles they ask questions of, and the application's check-in
    /// role for a tool that may ask a person through it. A run of an agent that has any states
    /// its owner (`RunBuilder::owner`), or it is refused before the first model call
    /// (`[run.owner-required]`): nobody could answer those pauses.
    pub fn owner_roles(&self) -> &[&'static str] {
        &self.rules.owner_roles
    }

    /// Whether its runs need an owner: some of its tools wait for the thread's owner.
    pub fn needs_owner(&self) -> bool {
        !self.rules.owner_roles.is_empty()
    }

    /// Its tool choice on the first turn only, over [`tool_choice`](Self::tool_choice).
    pub fn first_turn_tool_choice(&self) -> Option<&ToolChoice> {
        self.rules.first_turn_tool_choice.as_ref()
    }

    /// Its cap of model turns per run, and where it came from.
    pub fn max_turns(&self) -> &Setting<u32> {
        &self.rules.max_turns
    }

    /// Its time budget per run and where it came from, if it has one: how long a run may take
    /// on the application's clock from its start or resume (`agents.<name>.limits.duration`).
    pub fn max_duration(&self) -> Option<&Setting<TimeSpan>> {
        self.rules.max_duration.as_ref()
    }

    /// How many invalid structured answers go back to the model before the run fails, and
    /// where that came from.
    pub fn answer_retries(&self) -> &Setting<u32> {
        &self.rules.answer_retries
    }

    /// The bound on what it reads of its thread's history (its earlier turns and the summaries
    /// of older ones), and where it came from: configuration, its own `history_max_size`, a
    /// quarter of its model's context window, or the built-in 32 KB.
    pub fn history_max_size(&self) -> &Setting<ByteSize> {
        &self.rules.history_max_size
    }

    /// What its tool results and approval questions are masked with, and where that was set
    /// (its own in its workflow, its workflow's, its application's); `None`: nothing is.
    pub fn masking(&self) -> Option<&Setting<MaskingPolicy>> {
        self.rules.masking.as_ref()
    }

    /// Sets the masking in effect (assembly decides it after the agent's other rules).
    pub(crate) fn set_masking(&mut self, masking: Option<Setting<MaskingPolicy>>) {
        self.rules.masking = masking;
    }

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

    /// Its tools, for assembly to set their pipelines.
    pub(crate) fn tools_mut(&mut self) -> &mut [AppTool] {
        &mut self.tools
    }

    /// Sets the roles its runs may wait for that the thread's owner answers.
    pub(crate) fn set_owner_roles(&mut self, roles: Vec<&'static str>) {
        self.rules.owner_roles = roles;
    }

    /// The tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&AppTool> {
        self.tools.iter().find(|t| t.descriptor.name() == name)
    }
}

/// A tool as one agent has it: its effective bound, the callable tool, and the pipeline its
/// calls pass in the agent's runs.
pub struct AppTool {
    descriptor: &'static ToolDescriptor,
    bound: Setting<ByteSize>,
    env_vars: Vec<&'static str>,
    tool: Arc<dyn DynTool>,
    pipeline: Pipeline,
}

impl AppTool {
    /// Tool `descriptor` as one agent has it: its bound in effect, the environment variables its
    /// dependencies are made from, and the tool ready to be called.
    pub(crate) fn new(
        descriptor: &'static ToolDescriptor,
        bound: Setting<ByteSize>,
        env_vars: Vec<&'static str>,
        tool: Arc<dyn DynTool>,
    ) -> AppTool {
        AppTool {
            pipeline: tool.pipeline().clone(),
            descriptor,
            bound,
            env_vars,
            tool,
        }
    }

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
    pub(crate) fn tool(&self) -> &Arc<dyn DynTool> {
        &self.tool
    }

    /// The stages its calls pass in the agent's runs, in their order (docs/tools.md, "The
    /// call's pipeline"): its own, and those the agent and the application add.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// Sets the pipeline (assembly decides it once the application's roles and policies are
    /// known).
    pub(crate) fn set_pipeline(&mut self, pipeline: Pipeline) {
        self.pipeline = pipeline;
    }
}
