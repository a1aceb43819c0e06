//! The arguments of `#[agent(..)]`, as written.

use darling::FromMeta;
use darling::util::SpannedValue;
use proc_macro2::TokenStream;

use crate::header::HeaderArgs;
use crate::units::keep_unit_import;

/// The keys `#[agent]` accepts.
pub const KEYS: &[&str] = &[
    "name",
    "description",
    "prompt",
    "prompts",
    "model",
    "tools",
    "knowledge",
    "max_tool_calls",
    "thinking",
    "history_turns",
    "history_summaries",
    "history_max_size",
    "output",
    "tool_choice",
    "first_turn_tool_choice",
    "max_turns",
    "answer_retries",
    "max_duration",
    "crate",
];

/// `#[agent(..)]` as written; checked in `check`.
#[derive(Debug, FromMeta)]
pub struct AgentArgs {
    #[darling(flatten)]
    pub header: HeaderArgs,
    /// One prompt file, next to the source file.
    pub prompt: Option<syn::LitStr>,
    /// Or several: a list of file names.
    pub prompts: Option<syn::Expr>,
    /// `vendor/model`.
    pub model: Option<SpannedValue<String>>,
    /// A list of `#[tool]` types.
    pub tools: Option<syn::Expr>,
    /// A list of `#[knowledge]` types.
    pub knowledge: Option<syn::Expr>,
    /// Tool calls per run.
    pub max_tool_calls: Option<syn::LitInt>,
    /// One of [`THINKING`](super::check::THINKING).
    pub thinking: Option<SpannedValue<String>>,
    /// What the agent remembers of its thread: turns, then summaries.
    pub history_turns: Option<syn::LitInt>,
    pub history_summaries: Option<syn::LitInt>,
    /// A byte size: `kilobytes(8)`, the bound on the history it reads.
    pub history_max_size: Option<syn::Expr>,
    /// The DTO it answers with.
    pub output: Option<syn::Path>,
    /// `"auto"`, `"required"`, `"none"` or one of its tools; for every turn, then the first.
    pub tool_choice: Option<syn::LitStr>,
    pub first_turn_tool_choice: Option<syn::LitStr>,
    /// Model turns per run.
    pub max_turns: Option<syn::LitInt>,
    /// With `output`: invalid answers sent back before the run fails.
    pub answer_retries: Option<syn::LitInt>,
    /// A time span: `minutes(2)`, the longest a run may take.
    pub max_duration: Option<syn::Expr>,
}

impl AgentArgs {
    /// After a failed expansion: a use of the unit functions `history_max_size` and
    /// `max_duration` name (see [`keep_unit_import`]).
    pub fn keep_unit_imports(&self) -> TokenStream {
        let mut kept = self
            .history_max_size
            .as_ref()
            .map(|size| keep_unit_import(size, &["bytes", "kilobytes", "megabytes"]))
            .unwrap_or_default();
        if let Some(budget) = &self.max_duration {
            kept.extend(keep_unit_import(
                budget,
                // A unit of size given by mistake is the user's import too.
                &[
                    "millis",
                    "seconds",
                    "minutes",
                    "hours",
                    "days",
                    "bytes",
                    "kilobytes",
                    "megabytes",
                ],
            ));
        }
        kept
    }
}
