//! The arguments of `#[tool(..)]`, as written.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::SpannedValue;
use proc_macro2::TokenStream;

/// The keys `#[tool]` accepts.
pub const KEYS: &[&str] = &[
    "name",
    "description",
    "timeout",
    "max_result_size",
    "read_only",
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
pub fn parse(args: TokenStream, errors: &mut darling::error::Accumulator) -> Option<ToolArgs> {
    let metas = errors.handle(NestedMeta::parse_meta_list(args).map_err(darling::Error::from))?;
    let known = crate::attrs::known_keys(metas, KEYS, "tool", errors);
    let mut args = errors.handle(ToolArgs::from_list(&known.metas))?;
    args.mistyped = known.mistyped;
    Some(args)
}
