//! The arguments of `#[agent(..)]`, as written.

use darling::FromMeta;
use darling::ast::NestedMeta;
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
    #[darling(rename = "crate")]
    pub krate: Option<syn::Path>,
    /// Keys an unknown key was reported as a typo of.
    #[darling(skip)]
    pub mistyped: Vec<&'static str>,
}

/// Parses the attribute's arguments; problems go to `errors`.
pub fn parse(args: TokenStream, errors: &mut darling::error::Accumulator) -> Option<AgentArgs> {
    let metas = errors.handle(NestedMeta::parse_meta_list(args).map_err(darling::Error::from))?;
    let known = crate::attrs::known_keys(metas, KEYS, "agent", errors);
    let mut args = errors.handle(AgentArgs::from_list(&known.metas))?;
    args.mistyped = known.mistyped;
    Some(args)
}
