//! The arguments of `#[tool(..)]` and `#[mcp_tool(..)]`, as written.

use darling::FromMeta;
use darling::util::SpannedValue;
use proc_macro2::TokenStream;

use super::allow::AllowArgs;
use crate::header::HeaderArgs;
use crate::units::keep_unit_import;

/// Which attribute is being expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `#[tool]`.
    Tool,
    /// `#[mcp_tool]`: a tool bound to a tool of an MCP server.
    Mcp,
}

/// The keys `#[mcp_tool]` accepts.
pub const MCP_KEYS: &[&str] = &[
    "name",
    "description",
    "server",
    "calls",
    "input",
    "output",
    "timeout",
    "max_result_size",
    "result_ceiling",
    "ceiling_hint",
    "repeated_when",
    "read_only",
    "channel",
    "asks",
    "capabilities",
    "check_in",
    "check_in_evidence",
    "server_claims",
    "on_crash",
    "allow_paths",
    "allow_urls",
    "max_argument_size",
    "crate",
    "result_kind",
    "artifact_above",
    "needs",
    "retries",
    "retry_backoff",
];

/// The keys `#[tool]` accepts.
pub const KEYS: &[&str] = &[
    "name",
    "description",
    "timeout",
    "max_result_size",
    "result_ceiling",
    "ceiling_hint",
    "repeated_when",
    "read_only",
    "channel",
    "asks",
    "capabilities",
    "untrusted_output",
    "check_in",
    "check_in_evidence",
    "on_crash",
    "allow_paths",
    "allow_urls",
    "max_argument_size",
    "crate",
    "result_kind",
    "artifact_above",
    "wants",
    "needs",
    "retries",
    "retry_backoff",
];

/// `#[tool(..)]` as written; checked in `check`.
#[derive(Debug, FromMeta)]
pub struct ToolArgs {
    #[darling(flatten)]
    pub header: HeaderArgs,
    /// A time span: `seconds(10)`.
    pub timeout: Option<syn::Expr>,
    /// A byte size: `kilobytes(256)`.
    pub max_result_size: Option<syn::Expr>,
    /// A byte size over which a result is refused: `kilobytes(64)`.
    pub result_ceiling: Option<syn::Expr>,
    /// What the model reads to narrow a call whose result was over the ceiling.
    pub ceiling_hint: Option<syn::LitStr>,
    /// When a call counts as a repetition: `arguments_and_result`, `arguments` or `never`.
    pub repeated_when: Option<syn::Path>,
    /// `true` if the tool changes nothing.
    #[darling(default)]
    pub read_only: bool,
    /// The role its calls wait for: a `#[channel_role]`, or a built-in channel.
    pub channel: Option<syn::TypePath>,
    /// The question roles its calls may ask while they run: `asks = [ShippingAddressRole]`.
    pub asks: Option<syn::Expr>,
    /// What it touches: `capabilities = [ExternalNet, Money, Custom("prod-db")]`.
    pub capabilities: Option<syn::Expr>,
    /// Its results carry content nobody vouches for.
    #[darling(default)]
    pub untrusted_output: bool,
    /// `check_in = always`, or the path of a predicate `fn(&Input, &ExecutionContext) -> bool`.
    pub check_in: Option<syn::Expr>,
    /// The path of `fn(&Input) -> String`: the evidence a person reads beside the call.
    pub check_in_evidence: Option<syn::Path>,
    /// For `#[mcp_tool]`: what its server says of it (`["readOnlyHint=true"]`), shown only.
    pub server_claims: Option<syn::Expr>,
    /// What recovery does with a call a crash interrupted: `rerun`, `report` or `ask`.
    pub on_crash: Option<syn::Path>,
    /// For `#[mcp_tool]`: the `#[mcp_server]` type, and the server's tool it calls.
    pub server: Option<syn::Path>,
    pub calls: Option<SpannedValue<String>>,
    /// For `#[mcp_tool]`: with `output`, the macro writes the pass-through handler.
    pub input: Option<syn::TypePath>,
    pub output: Option<syn::TypePath>,
    /// Where a path argument may point: `allow_paths(field = "file", within = ["/srv"])`.
    #[darling(multiple)]
    pub allow_paths: Vec<AllowArgs>,
    /// Where a URL argument may point: `allow_urls(field = "url", within = ["https://.."])`.
    #[darling(multiple)]
    pub allow_urls: Vec<AllowArgs>,
    /// A byte size: the longest arguments a call may send, `megabytes(4)`.
    pub max_argument_size: Option<syn::Expr>,
    /// The kind of artifact its results are kept as: `result_kind = "dataset/rows"`.
    pub result_kind: Option<syn::LitStr>,
    /// A byte size over which a result becomes an artifact: `kilobytes(16)`.
    pub artifact_above: Option<syn::Expr>,
    /// The arguments that take artifact references: `wants(dataset = "dataset/rows")`.
    pub wants: Option<syn::Meta>,
    /// The credentials its calls need, by name: `needs = ["github"]`.
    pub needs: Option<syn::Expr>,
    /// How many times a call runs again after a transient error: `retries = 2`.
    pub retries: Option<syn::Expr>,
    /// A time span: the wait before the first retry, `retry_backoff = millis(500)`.
    pub retry_backoff: Option<syn::Expr>,
}

impl ToolArgs {
    /// After a failed expansion: uses of the unit functions the attribute names (see
    /// [`keep_unit_import`]).
    pub fn keep_unit_imports(&self) -> TokenStream {
        let mut kept = TokenStream::new();
        for span in [&self.timeout, &self.retry_backoff].into_iter().flatten() {
            kept.extend(keep_unit_import(span, &["millis", "seconds", "minutes"]));
        }
        for size in [
            &self.max_result_size,
            &self.result_ceiling,
            &self.max_argument_size,
            &self.artifact_above,
        ]
        .into_iter()
        .flatten()
        {
            kept.extend(keep_unit_import(size, &["bytes", "kilobytes", "megabytes"]));
        }
        kept
    }
}
