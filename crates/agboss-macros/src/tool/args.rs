//! The arguments of `#[tool(..)]`, as written.

use darling::FromMeta;
use darling::util::SpannedValue;
use proc_macro2::TokenStream;

/// Which attribute is being expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `#[tool]`.
    Tool,
    /// `#[mcp_tool]`: a tool bound to a tool of an MCP server.
    Mcp,
}

impl Kind {
    /// The attribute's name, for messages.
    pub fn attribute(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Mcp => "mcp_tool",
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Kind::Tool => KEYS,
            Kind::Mcp => MCP_KEYS,
        }
    }
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
    "read_only",
    "channel",
    "on_crash",
    "crate",
];

/// The keys `#[tool]` accepts.
pub const KEYS: &[&str] = &[
    "name",
    "description",
    "timeout",
    "max_result_size",
    "read_only",
    "channel",
    "on_crash",
    "crate",
];

/// `#[tool(..)]` as written; checked in `validate`.
#[derive(Debug, FromMeta)]
pub struct ToolArgs {
    pub name: Option<SpannedValue<String>>,
    pub description: Option<SpannedValue<String>>,
    pub timeout: Option<syn::Expr>,
    pub max_result_size: Option<syn::Expr>,
    #[darling(default)]
    pub read_only: bool,
    /// The role its calls wait for: a `#[channel_role]`, or a built-in channel.
    pub channel: Option<syn::TypePath>,
    /// What recovery does with a call a crash interrupted: `rerun`, `report` or `ask`.
    pub on_crash: Option<syn::Path>,
    pub server: Option<syn::Path>,
    pub calls: Option<SpannedValue<String>>,
    /// For `#[mcp_tool]`: with `output`, the macro writes the pass-through handler.
    pub input: Option<syn::TypePath>,
    pub output: Option<syn::TypePath>,
    #[darling(rename = "crate")]
    pub krate: Option<syn::Path>,
    /// Keys an unknown key was reported as a typo of.
    #[darling(skip)]
    pub mistyped: Vec<&'static str>,
}

/// After a failed expansion: uses of the unit functions the attribute names (see
/// [`keep_unit_import`](crate::units::keep_unit_import)).
pub fn keep_unit_imports(args: &ToolArgs) -> TokenStream {
    use crate::units::keep_unit_import;
    let mut kept = TokenStream::new();
    if let Some(timeout) = &args.timeout {
        kept.extend(keep_unit_import(timeout, &["millis", "seconds", "minutes"]));
    }
    if let Some(bound) = &args.max_result_size {
        kept.extend(keep_unit_import(
            bound,
            &["bytes", "kilobytes", "megabytes"],
        ));
    }
    kept
}

/// Parses the attribute's arguments; unknown or repeated keys and malformed values go to
/// `errors`, and the keys that could be read are returned so that validation can report its
/// own problems in the same pass.
pub fn parse(
    args: TokenStream,
    kind: Kind,
    errors: &mut darling::error::Accumulator,
) -> Option<ToolArgs> {
    let (mut args, mistyped) =
        crate::attrs::parse_args::<ToolArgs>(args, kind.keys(), kind.attribute(), errors)?;
    args.mistyped = mistyped;
    Some(args)
}
