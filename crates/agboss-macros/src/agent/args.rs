//! The arguments of `#[agent(..)]`, as written.

use darling::FromMeta;
use darling::util::SpannedValue;
use proc_macro2::TokenStream;

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

/// `#[agent(..)]` as written; checked in `validate`.
#[derive(Debug, FromMeta)]
pub struct AgentArgs {
    pub name: Option<SpannedValue<String>>,
    pub description: Option<SpannedValue<String>>,
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
    #[darling(rename = "crate")]
    pub krate: Option<syn::Path>,
    /// Keys an unknown key was reported as a typo of.
    #[darling(skip)]
    pub mistyped: Vec<&'static str>,
}

/// Parses the attribute's arguments; problems go to `errors`.
pub fn parse(args: TokenStream, errors: &mut darling::error::Accumulator) -> Option<AgentArgs> {
    let (mut args, mistyped) = crate::attrs::parse_args::<AgentArgs>(args, KEYS, "agent", errors)?;
    args.mistyped = mistyped;
    Some(args)
}
