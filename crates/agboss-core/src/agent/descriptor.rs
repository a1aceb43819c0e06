//! [`AgentDescriptor`]: everything `#[agent]` declares, registered for assembly and `describe`.

use std::fmt;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde_json::Value;

use crate::component::{Component, ComponentKind, SourceLocation, derefs_to_component, registry};
use crate::knowledge::KnowledgeRegistration;
use crate::model::Thinking;
use crate::tool::{ToolRegistration, input_schema_of};
use crate::units::{ByteSize, TimeSpan};

/// One prompt file, read at compile time.
#[derive(Clone, Copy, Debug)]
pub struct PromptFile {
    path: &'static str,
    text: &'static str,
}

impl PromptFile {
    /// The file at `path` (as written in the attribute) with its `text`.
    pub const fn new(path: &'static str, text: &'static str) -> PromptFile {
        PromptFile { path, text }
    }

    /// The path as written, relative to the agent's source file.
    pub fn path(&self) -> &'static str {
        self.path
    }

    /// The file's text.
    pub fn text(&self) -> &'static str {
        self.text
    }
}

/// What an agent remembers of its thread: the last turns as they were, older ones summarized.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct History {
    turns: u32,
    summaries: u32,
}

impl History {
    /// The last `turns` turns verbatim and `summaries` summaries of older ones.
    pub const fn new(turns: u32, summaries: u32) -> History {
        History { turns, summaries }
    }

    /// Turns kept verbatim.
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// Summaries kept of older turns.
    pub fn summaries(&self) -> u32 {
        self.summaries
    }
}

/// Five turns verbatim and ten summaries.
const DEFAULT_HISTORY: History = History::new(5, 10);

impl Default for History {
    fn default() -> History {
        DEFAULT_HISTORY
    }
}

impl fmt::Display for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} turns + {} summaries", self.turns, self.summaries)
    }
}

/// An agent's structured answer: the framework tool `answer-<dto>` whose input is the DTO.
#[derive(Clone, Copy)]
pub struct AnswerSpec {
    tool_name: &'static str,
    schema: fn() -> Value,
}

impl AnswerSpec {
    /// The answer tool `tool_name` taking a `T`.
    pub const fn of<T: JsonSchema>(tool_name: &'static str) -> AnswerSpec {
        AnswerSpec {
            tool_name,
            schema: input_schema_of::<T>,
        }
    }

    /// `answer-<dto>`.
    pub fn tool_name(&self) -> &'static str {
        self.tool_name
    }

    /// The JSON Schema of the answer.
    pub fn schema(&self) -> Value {
        (self.schema)()
    }

    /// The schema with its validator; why it does not compile, if it does not (assembly
    /// reports that as `[agent.answer-schema-invalid]`).
    pub(crate) fn compile(&self) -> Result<crate::tool::SchemaCheck, String> {
        crate::tool::SchemaCheck::compile(self.schema()).map_err(|e| e.to_string())
    }
}

impl fmt::Debug for AnswerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("AnswerSpec").field(&self.tool_name).finish()
    }
}

/// An agent as `#[agent]` declares it. It derefs to its [`Component`] header: `name()`,
/// `description()`, `rust_type()`, `location()`.
#[derive(Debug)]
pub struct AgentDescriptor {
    component: Component,
    model: &'static str,
    prompts: &'static [PromptFile],
    tools: &'static [ToolRegistration],
    knowledge: &'static [KnowledgeRegistration],
    max_tool_calls: Option<u32>,
    thinking: Thinking,
    history: History,
    history_max_size: Option<ByteSize>,
    answer: Option<AnswerSpec>,
    tool_choice: Option<&'static str>,
    first_turn_tool_choice: Option<&'static str>,
    max_turns: Option<u32>,
    answer_retries: Option<u32>,
    prompt: OnceLock<String>,
    max_duration: Option<TimeSpan>,
}

impl AgentDescriptor {
    /// An agent with the default thinking and history, no limit of its own and no answer DTO.
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        name: &'static str,
        description: &'static str,
        rust_type: &'static str,
        location: SourceLocation,
        model: &'static str,
        prompts: &'static [PromptFile],
        tools: &'static [ToolRegistration],
    ) -> AgentDescriptor {
        AgentDescriptor {
            component: Component::new(ComponentKind::Agent, name, description, rust_type, location),
            model,
            prompts,
            tools,
            knowledge: &[],
            max_tool_calls: None,
            thinking: Thinking::Default,
            history: DEFAULT_HISTORY,
            history_max_size: None,
            answer: None,
            tool_choice: None,
            first_turn_tool_choice: None,
            max_turns: None,
            answer_retries: None,
            prompt: OnceLock::new(),
            max_duration: None,
        }
    }

    /// Reading the knowledge bases `knowledge`.
    pub const fn with_knowledge(
        mut self,
        knowledge: &'static [KnowledgeRegistration],
    ) -> AgentDescriptor {
        self.knowledge = knowledge;
        self
    }

    /// With its own limit of tool calls per run.
    pub const fn with_max_tool_calls(mut self, n: u32) -> AgentDescriptor {
        self.max_tool_calls = Some(n);
        self
    }

    /// With a thinking level.
    pub const fn with_thinking(mut self, thinking: Thinking) -> AgentDescriptor {
        self.thinking = thinking;
        self
    }

    /// With a history setting.
    pub const fn with_history(mut self, history: History) -> AgentDescriptor {
        self.history = history;
        self
    }

    /// With its own bound on the history of its thread it reads (its turns and summaries of
    /// them): over its model's context window and the built-in default, under configuration's
    /// `history_max_size`.
    pub const fn with_history_max_size(mut self, bound: ByteSize) -> AgentDescriptor {
        self.history_max_size = Some(bound);
        self
    }

    /// With a structured answer.
    pub const fn with_answer(mut self, answer: AnswerSpec) -> AgentDescriptor {
        self.answer = Some(answer);
        self
    }

    /// With a tool choice: `"auto"`, `"required"`, `"none"`, or a tool's name.
    pub const fn with_tool_choice(mut self, choice: &'static str) -> AgentDescriptor {
        self.tool_choice = Some(choice);
        self
    }

    /// With a tool choice for its first turn only (`"required"`, or a tool's name: what a
    /// small local model needs to call a tool at all), over [`tool_choice`](Self::tool_choice).
    pub const fn with_first_turn_tool_choice(mut self, choice: &'static str) -> AgentDescriptor {
        self.first_turn_tool_choice = Some(choice);
        self
    }

    /// With its own cap of model turns per run.
    pub const fn with_max_turns(mut self, n: u32) -> AgentDescriptor {
        self.max_turns = Some(n);
        self
    }

    /// With its own number of invalid structured answers sent back to the model before the run
    /// fails (`[answer.invalid]`).
    pub const fn with_answer_retries(mut self, n: u32) -> AgentDescriptor {
        self.answer_retries = Some(n);
        self
    }

    /// With its own time budget: the longest a run of it may take on the application's clock,
    /// counted from its start or resume (`agents.<name>.limits.duration`).
    pub const fn with_max_duration(mut self, budget: TimeSpan) -> AgentDescriptor {
        self.max_duration = Some(budget);
        self
    }

    /// Its own time budget per run, if it sets one.
    pub fn max_duration(&self) -> Option<TimeSpan> {
        self.max_duration
    }

    /// Its own tool choice, if it sets one (else: required with an answer DTO, auto without).
    pub fn tool_choice(&self) -> Option<crate::model::ToolChoice> {
        self.tool_choice.map(crate::model::ToolChoice::named)
    }

    /// Its own tool choice for the first turn, if it sets one.
    pub fn first_turn_tool_choice(&self) -> Option<crate::model::ToolChoice> {
        self.first_turn_tool_choice
            .map(crate::model::ToolChoice::named)
    }

    /// Its own cap of model turns per run, if it sets one.
    pub fn max_turns(&self) -> Option<u32> {
        self.max_turns
    }

    /// Its own number of answer retries, if it sets one.
    pub fn answer_retries(&self) -> Option<u32> {
        self.answer_retries
    }

    /// The model id, `vendor/model`.
    pub fn model(&self) -> &'static str {
        self.model
    }

    /// Its prompt files, in order.
    pub fn prompt_files(&self) -> &'static [PromptFile] {
        self.prompts
    }

    /// Its system prompt: the prompt files' texts joined by a blank line.
    pub fn prompt(&self) -> &str {
        self.prompt.get_or_init(|| {
            self.prompts
                .iter()
                .map(|p| p.text.trim_end())
                .collect::<Vec<_>>()
                .join("\n\n")
        })
    }

    /// The tools it lists.
    pub fn tools(&self) -> &'static [ToolRegistration] {
        self.tools
    }

    /// The knowledge bases it lists.
    pub fn knowledge(&self) -> &'static [KnowledgeRegistration] {
        self.knowledge
    }

    /// Its own limit of tool calls per run, if it sets one.
    pub fn max_tool_calls(&self) -> Option<u32> {
        self.max_tool_calls
    }

    /// Its thinking level.
    pub fn thinking(&self) -> Thinking {
        self.thinking
    }

    /// Its history setting.
    pub fn history(&self) -> History {
        self.history
    }

    /// Its own bound on the history it reads, if it sets one.
    pub fn history_max_size(&self) -> Option<ByteSize> {
        self.history_max_size
    }

    /// Its structured answer, if it has one.
    pub fn answer(&self) -> Option<&AnswerSpec> {
        self.answer.as_ref()
    }
}

derefs_to_component!(AgentDescriptor);

/// An agent: a unit struct under `#[agent]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an agboss agent",
    label = "not an `#[agent]`",
    note = "put `#[agent(name = \"...\", description = \"...\", prompt = \"...\", model = \"vendor/model\")]` on a unit struct"
)]
pub trait Agent {
    /// What `#[agent]` declared.
    const DESCRIPTOR: &'static AgentDescriptor;
}

registry! {
    /// An agent's entry in the program-wide registry.
    pub type AgentRegistration = Registration<AgentDescriptor> of Agent;
    /// Every `#[agent]` linked into the program, sorted by name, then by Rust type.
    pub fn registered_agents();
}
