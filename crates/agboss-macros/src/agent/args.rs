//! The arguments of `#[agent(..)]`, as written.

use darling::FromMeta;
use darling::util::SpannedValue;

use crate::header::HeaderArgs;

/// The keys `#[agent]` accepts.
pub const KEYS: &[&str] = &[
    "name",
    "description",
    "prompt",
    "prompts",
    "model",
    "tools",
    "max_tool_calls",
    "thinking",
    "history_turns",
    "history_summaries",
    "output",
    "tool_choice",
    "first_turn_tool_choice",
    "max_turns",
    "answer_retries",
    "crate",
];

/// `#[agent(..)]` as written; checked in `check`.
#[derive(Debug, FromMeta)]
pub struct AgentArgs {
    #[darling(flatten)]
    pub header: HeaderArgs,
    pub prompt: Option<syn::LitStr>,
    pub prompts: Option<syn::Expr>,
    pub model: Option<SpannedValue<String>>,
    pub tools: Option<syn::Expr>,
    pub max_tool_calls: Option<syn::LitInt>,
    pub thinking: Option<SpannedValue<String>>,
    pub history_turns: Option<syn::LitInt>,
    pub history_summaries: Option<syn::LitInt>,
    pub output: Option<syn::Path>,
    pub tool_choice: Option<syn::LitStr>,
    pub first_turn_tool_choice: Option<syn::LitStr>,
    pub max_turns: Option<syn::LitInt>,
    pub answer_retries: Option<syn::LitInt>,
}
