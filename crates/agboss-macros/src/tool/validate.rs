//! Checks `#[tool(..)]` and the struct under it, collecting every problem, into a
//! [`ResolvedTool`] that code generation can trust.

use agboss_rules::names;
use syn::{ItemStruct, Path, Type};

use super::args::{Kind, ToolArgs};
use crate::attrs::{doc_text, finding_at};
use crate::units::{ByteSizeValue, TimeSpanValue, byte_size, time_span};

/// A tool attribute that passed every check.
pub struct ResolvedTool {
    pub name: String,
    /// `description = ".."`, else the struct's doc comment.
    pub description: String,
    pub timeout: Option<TimeSpanValue>,
    pub max_result_size: Option<ByteSizeValue>,
    pub read_only: bool,
    /// For `#[mcp_tool]`: the server type and the server's tool it calls.
    pub mcp: Option<(Path, String)>,
    pub krate: Option<Path>,
    pub fields: Vec<Field>,
}

/// One field of the tool struct: a dependency.
pub struct Field {
    /// `None` for a tuple struct's field.
    pub ident: Option<syn::Ident>,
    /// The name descriptors and messages use (`"0"` for a tuple field).
    pub name: String,
    pub ty: Type,
}

/// Resolves `args` on `item`, pushing every problem into `errors`; `None` if any.
pub fn resolve(
    args: ToolArgs,
    kind: Kind,
    item: &ItemStruct,
    errors: &mut darling::error::Accumulator,
) -> Option<ResolvedTool> {
    let mut problems = Vec::new();
    let mcp = match kind {
        Kind::Tool => None,
        Kind::Mcp => resolve_mcp(&args, &mut problems),
    };
    let name = match &args.name {
        Some(name) => {
            for finding in names::check_tool(name) {
                problems.push(finding_at(&finding, name.span()));
            }
            Some((**name).clone())
        }
        None => {
            if !args.mistyped.contains(&"name") {
                problems.push(darling::Error::custom(format!(
                    "#[{}] needs `name`: add `name = {:?}`",
                    kind.attribute(),
                    names::suggest(&item.ident.to_string(), "tool")
                )));
            }
            None
        }
    };
    let description = resolve_description(&args, kind, item, &mut problems);
    let timeout = args.timeout.as_ref().and_then(|t| {
        time_span(t, "timeout")
            .map_err(|e| problems.push(e.into()))
            .ok()
    });
    let max_result_size = args.max_result_size.as_ref().and_then(|m| {
        byte_size(m, "max_result_size")
            .map_err(|e| problems.push(e.into()))
            .ok()
    });
    if !item.generics.params.is_empty() {
        problems.push(
            darling::Error::custom(
                "a tool cannot be generic: each tool is one registered type with one name; make a struct per tool",
            )
            .with_span(&item.generics),
        );
    }
    let fields = item
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| Field {
            ident: f.ident.clone(),
            name: f
                .ident
                .as_ref()
                .map_or_else(|| i.to_string(), ToString::to_string),
            ty: f.ty.clone(),
        })
        .collect();
    if !problems.is_empty()
        || name.is_none()
        || description.is_none()
        || (kind == Kind::Mcp && mcp.is_none())
    {
        for problem in problems {
            errors.push(problem);
        }
        return None;
    }
    Some(ResolvedTool {
        name: name?,
        description: description?,
        timeout,
        max_result_size,
        read_only: args.read_only,
        mcp,
        krate: args.krate,
        fields,
    })
}

/// `server` and `calls`.
fn resolve_mcp(args: &ToolArgs, problems: &mut Vec<darling::Error>) -> Option<(Path, String)> {
    match (&args.server, &args.calls) {
        (Some(server), Some(calls)) => {
            if calls.trim().is_empty() {
                problems.push(
                    darling::Error::custom(
                        "`calls` names the server's tool this tool calls; it is empty",
                    )
                    .with_span(&calls.span()),
                );
            }
            Some((server.clone(), (**calls).clone()))
        }
        (server, calls) => {
            if server.is_none() && !args.mistyped.contains(&"server") {
                problems.push(darling::Error::custom(
                    "#[mcp_tool] needs `server`: add `server = NotesServer`, the #[mcp_server] type it calls",
                ));
            }
            if calls.is_none() && !args.mistyped.contains(&"calls") {
                problems.push(darling::Error::custom(
                    "#[mcp_tool] needs `calls`: add `calls = \"read_text_file\"`, the server's tool it calls",
                ));
            }
            None
        }
    }
}

/// `description = ".."` when given (not blank), else the struct's doc comment; neither is an
/// error on the struct's name.
fn resolve_description(
    args: &ToolArgs,
    kind: Kind,
    item: &ItemStruct,
    problems: &mut Vec<darling::Error>,
) -> Option<String> {
    if let Some(description) = &args.description {
        if description.trim().is_empty() {
            problems.push(
                darling::Error::custom(
                    "the description is empty: say what the tool does, the model reads it to decide when to call it",
                )
                .with_span(&description.span()),
            );
        }
        return Some((**description).clone());
    }
    let doc = doc_text(&item.attrs);
    // Already said: an unknown key was reported as a typo of `description`.
    if doc.is_none() && !args.mistyped.contains(&"description") {
        problems.push(
            darling::Error::custom(format!(
                "#[{}] needs a description, which the model reads to decide when to call the tool: add a doc comment (`/// Searches the team's issues`) or `description = \"...\"`",
                kind.attribute()
            ))
            .with_span(&item.ident),
        );
    }
    doc
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;

    use super::*;
    use crate::tool::args;

    /// The resolved tool, or every problem's message.
    fn resolve_on(
        kind: Kind,
        args: TokenStream,
        item: TokenStream,
    ) -> Result<ResolvedTool, String> {
        let item: ItemStruct = syn::parse2(item).unwrap();
        let mut errors = darling::Error::accumulator();
        let resolved = args::parse(args, kind, &mut errors)
            .and_then(|args| resolve(args, kind, &item, &mut errors));
        match errors.finish_with(resolved) {
            Ok(resolved) => Ok(resolved.expect("no problem reported, so resolved")),
            Err(e) => Err(e
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")),
        }
    }

    #[test]
    fn the_doc_comment_is_the_description_when_none_is_given() {
        let tool = resolve_on(
            Kind::Tool,
            quote!(name = "search-issues-tool"),
            quote! {
                /// Searches the team's issues.
                ///
                /// Call it before filing one.
                pub struct SearchIssues;
            },
        )
        .unwrap();
        assert_eq!(
            tool.description,
            "Searches the team's issues.\n\nCall it before filing one."
        );
    }

    #[test]
    fn a_given_description_wins_over_the_doc_comment() {
        let tool = resolve_on(
            Kind::Tool,
            quote!(name = "search-issues-tool", description = "Search"),
            quote! {
                /// For the reader of the code.
                pub struct SearchIssues;
            },
        )
        .unwrap();
        assert_eq!(tool.description, "Search");
    }

    #[test]
    fn neither_a_doc_nor_a_description_says_both_ways_to_give_one() {
        let problems = resolve_on(
            Kind::Mcp,
            quote!(
                name = "read-note-tool",
                server = NotesFs,
                calls = "read_text_file"
            ),
            quote! {
                ///
                pub struct ReadNote;
            },
        )
        .err()
        .unwrap();
        assert_eq!(
            problems,
            "#[mcp_tool] needs a description, which the model reads to decide when to call the tool: add a doc comment (`/// Searches the team's issues`) or `description = \"...\"`"
        );
    }
}
