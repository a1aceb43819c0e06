//! Checks `#[tool(..)]` and the struct under it, collecting every problem, into a
//! [`ResolvedTool`] that code generation can trust.

use agboss_rules::names;
use darling::util::SpannedValue;
use proc_macro2::Span;
use syn::{ItemStruct, Path, Type};

use super::args::{Kind, ToolArgs};
use crate::attrs::finding_at;
use crate::units::{ByteSizeValue, TimeSpanValue, byte_size, time_span};

/// A tool attribute that passed every check.
pub struct ResolvedTool {
    pub name: String,
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
    let mcp = match (kind, &args.server, &args.calls) {
        (Kind::Tool, _, _) => None,
        (Kind::Mcp, Some(server), Some(calls)) => {
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
        (Kind::Mcp, server, calls) => {
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
    };
    let suggested_name = format!(
        "add `name = {:?}`",
        names::suggest(&item.ident.to_string(), "tool")
    );
    let name = required(
        args.name,
        "name",
        &suggested_name,
        &args.mistyped,
        &mut problems,
    );
    if let Some((name, span)) = &name {
        for finding in names::check_tool(name) {
            problems.push(finding_at(&finding, *span));
        }
    }
    let description = required(
        args.description,
        "description",
        "add `description = \"...\"`: what the tool does and when to call it, which the model reads",
        &args.mistyped,
        &mut problems,
    );
    if let Some((description, span)) = &description
        && description.trim().is_empty()
    {
        problems.push(
            darling::Error::custom(
                "the description is empty: say what the tool does, the model reads it to decide when to call it",
            )
            .with_span(span),
        );
    }
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
        name: name?.0,
        description: description?.0,
        timeout,
        max_result_size,
        read_only: args.read_only,
        mcp,
        krate: args.krate,
        fields,
    })
}

fn required(
    value: Option<SpannedValue<String>>,
    key: &'static str,
    hint: &str,
    mistyped: &[&'static str],
    problems: &mut Vec<darling::Error>,
) -> Option<(String, Span)> {
    match value {
        Some(value) => {
            let span = value.span();
            Some((value.into_inner(), span))
        }
        // Already said: the unknown key next to it was reported as a typo of this one.
        None if mistyped.contains(&key) => None,
        None => {
            problems.push(darling::Error::custom(format!(
                "#[tool] needs `{key}`: {hint}"
            )));
            None
        }
    }
}
