//! What goes to a model and what comes back.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{Message, ToolCall, ToolDefinition};

/// How hard a model is asked to think, where the model supports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Thinking {
    /// The model's own default.
    #[default]
    Default,
    /// No thinking.
    Off,
    /// A little.
    Low,
    /// More.
    Medium,
    /// As much as the model offers.
    High,
}

impl fmt::Display for Thinking {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Thinking::Default => "default",
            Thinking::Off => "off",
            Thinking::Low => "low",
            Thinking::Medium => "medium",
            Thinking::High => "high",
        })
    }
}

/// Which tools the model may or must call on a turn.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "name")]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// It must call some tool.
    Required,
    /// It may not call tools.
    None,
    /// It must call this tool (small local models often need this to call one at all).
    Tool(String),
}

impl ToolChoice {
    /// The choice `text` names, as `#[agent(tool_choice = ..)]` and configuration write it:
    /// `auto`, `required`, `none`, or a tool's name.
    ///
    /// ```
    /// use agboss_core::model::ToolChoice;
    ///
    /// assert_eq!(ToolChoice::named("required"), ToolChoice::Required);
    /// assert_eq!(ToolChoice::named("search-tool"), ToolChoice::Tool("search-tool".into()));
    /// ```
    pub fn named(text: &str) -> ToolChoice {
        match text {
            "auto" => ToolChoice::Auto,
            "required" => ToolChoice::Required,
            "none" => ToolChoice::None,
            tool => ToolChoice::Tool(tool.to_owned()),
        }
    }
}

/// One request to a model.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRequest {
    /// The model's name as its provider knows it (`gpt-5-mini`, `moonshotai/kimi-k2.6` for
    /// OpenRouter).
    pub model: String,
    /// The system prompt.
    pub system: String,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// The tools it may call.
    pub tools: Vec<ToolDefinition>,
    /// Which of them it may or must call.
    pub tool_choice: ToolChoice,
    /// How hard it should think, where the API has a setting for it.
    pub thinking: Thinking,
    /// A cap on the answer's tokens.
    pub max_output_tokens: Option<u32>,
}

/// Tokens a model call used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens read (prompt, history, tool results).
    pub input_tokens: u64,
    /// Tokens written (text, tool calls, thinking).
    pub output_tokens: u64,
}

impl Usage {
    /// Whether no token was used.
    pub fn is_zero(&self) -> bool {
        self.total() == 0
    }

    /// Both together.
    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// Why the model stopped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// It finished its answer.
    #[default]
    Stop,
    /// It asked for tool calls.
    ToolCalls,
    /// It hit the output limit.
    Length,
    /// The provider filtered the answer.
    ContentFilter,
    /// Something the provider says that has no name here.
    Other(String),
}

/// A model's answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatResponse {
    /// Its text, if any.
    pub text: Option<String>,
    /// The tool calls it asked for, in its order.
    pub tool_calls: Vec<ToolCall>,
    /// Tokens used.
    pub usage: Usage,
    /// Why it stopped.
    pub finish: FinishReason,
    /// What it reasoned, when its provider wants that back in the next request of a tool loop
    /// ([`Reasoning`](super::Reasoning)); the agent loop keeps it on the assistant message.
    pub reasoning: Vec<super::Reasoning>,
}
