//! Checks `#[tool(..)]` and the struct under it, reporting every problem, into a
//! [`ResolvedTool`] that code generation can trust.

use agboss_rules::codes;
use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{ItemStruct, Path, Type, TypePath};

use super::allow::{AllowValue, check_allowlists};
use super::args::{Kind, ToolArgs};
use super::artifacts::{ResultKindValue, WantedValue, check_result_kind, check_wants};
use super::consent::{CapabilityValue, CheckInValue, check_capabilities, check_check_in};
use super::needs::check_needs;
use super::results::{
    CeilingValue, RetriesValue, check_ceiling, check_repeated_when, check_retries,
};
use crate::ctxt::Ctxt;
use crate::fields::{Field, fields_of, written_type};
use crate::header::{self, Describing, Header, Naming, private_path};
use crate::shape::{self, ListOf, list_of};
use crate::units::{ByteSizeValue, TimeSpanValue, byte_size, time_span};

/// The field `#[mcp_tool(.., input, output)]` adds to its struct: the server's client.
pub const MCP_FIELD: &str = "__agboss_mcp";

/// A tool attribute that passed every check.
pub struct ResolvedTool {
    /// Its name, description (`description = ".."`, else the struct's doc comment) and crate.
    pub header: Header,
    pub timeout: Option<TimeSpanValue>,
    pub max_result_size: Option<ByteSizeValue>,
    /// `result_ceiling = .., ceiling_hint = ".."`.
    pub result_ceiling: Option<CeilingValue>,
    /// `repeated_when = ..`: `Arguments` or `Never` (the variant's name); `None` for the default.
    pub repeated_when: Option<&'static str>,
    pub read_only: bool,
    /// `channel = Role`: the role its calls wait for.
    pub channel: Option<TypePath>,
    /// `asks = [Role, ..]`: the question roles its calls may ask, each spanned as written.
    pub asks: Vec<Path>,
    /// `capabilities = [..]`: what it touches.
    pub capabilities: Vec<CapabilityValue>,
    /// `untrusted_output`: its results carry content nobody vouches for.
    pub untrusted_output: bool,
    /// `check_in = ..`: when a person is asked before a call runs.
    pub check_in: Option<CheckInValue>,
    /// `check_in_evidence = ..`: what the person reads beside the call.
    pub check_in_evidence: Option<Path>,
    /// `server_claims = [..]`: what an MCP server says of the tool.
    pub server_claims: Vec<syn::LitStr>,
    /// `on_crash = ..`: `Rerun`, `Report` or `Ask` (the variant's name); `None` for the default.
    pub on_crash: Option<&'static str>,
    /// For `#[mcp_tool]`: the server and the server's tool it calls.
    pub mcp: Option<McpCall>,
    /// `allow_paths(..)`, `allow_urls(..)`: where its path and URL arguments may point.
    pub allowlists: Vec<AllowValue>,
    /// `max_argument_size = ..`: the longest arguments a call may send.
    pub max_argument_size: Option<ByteSizeValue>,
    /// The struct's fields, then the one the pass-through handler adds, if any.
    pub fields: Vec<Field>,
    /// `result_kind = "..", artifact_above = ..`.
    pub result_kind: Option<ResultKindValue>,
    /// `wants(argument = "kind", ..)`.
    pub wants: Vec<WantedValue>,
    /// `needs = [".."]`: the credentials its calls need, by name.
    pub needs: Vec<syn::LitStr>,
    /// `retries = .., retry_backoff = ..`.
    pub retries: Option<RetriesValue>,
}

impl ResolvedTool {
    /// For a pass-through `#[mcp_tool]`: its DTOs and the client field it calls through, the
    /// last of [`fields`](Self::fields).
    pub fn pass_through(&self) -> Option<(&PassThrough, &Field)> {
        let pass_through = self.mcp.as_ref()?.pass_through.as_ref()?;
        Some((pass_through, self.fields.last()?))
    }
}

/// What an `#[mcp_tool]` calls.
pub struct McpCall {
    /// The `#[mcp_server]` type.
    pub server: Path,
    /// The server's tool, by the server's name.
    pub calls: String,
    /// `input = .., output = ..`: the macro writes the handler that passes the input on.
    pub pass_through: Option<PassThrough>,
}

/// The DTOs of a generated pass-through handler.
pub struct PassThrough {
    pub input: TypePath,
    pub output: TypePath,
}

/// How tools are named and described.
const TOOL: header::Kind = header::Kind {
    naming: Naming::Suffixed("tool"),
    describing: Some(Describing {
        says: "what the tool does, the model reads it to decide when to call it",
        which: "the model reads to decide when to call the tool",
        example: "Searches the team's issues",
    }),
};

/// Checks `args` on `item`, reporting every problem into `cx`: what an `#[mcp_tool]` calls
/// first, then the header, the bounds and the crash policy.
pub fn check(args: ToolArgs, kind: Kind, item: &ItemStruct, cx: &mut Ctxt) -> Option<ResolvedTool> {
    let mcp = match kind {
        Kind::Tool => None,
        Kind::Mcp => check_mcp(&args, cx),
    };
    let header = TOOL.check(args.header, item, cx);
    let timeout = args
        .timeout
        .as_ref()
        .and_then(|t| cx.handle(time_span(t, "timeout")));
    let max_result_size = args
        .max_result_size
        .as_ref()
        .and_then(|m| cx.handle(byte_size(m, "max_result_size")));
    let result_ceiling =
        check_ceiling(args.result_ceiling.as_ref(), args.ceiling_hint.as_ref(), cx);
    let repeated_when = check_repeated_when(args.repeated_when.as_ref(), cx);
    let allowlists = check_allowlists(&args.allow_paths, &args.allow_urls, cx);
    let max_argument_size = args
        .max_argument_size
        .as_ref()
        .and_then(|m| cx.handle(byte_size(m, "max_argument_size")));
    let result_kind =
        check_result_kind(args.result_kind.as_ref(), args.artifact_above.as_ref(), cx);
    let wants = check_wants(args.wants.as_ref(), cx);
    let on_crash = check_on_crash(args.on_crash.as_ref(), args.channel.is_some(), cx);
    let asks = check_asks(args.asks.as_ref(), kind, cx);
    let capabilities = check_capabilities(args.capabilities.as_ref(), cx);
    let check_in = check_check_in(args.check_in.as_ref(), cx);
    let server_claims = args.server_claims.as_ref().map_or_else(Vec::new, |list| {
        let messages = ListOf {
            not_a_list: "`server_claims` takes a list of texts: `server_claims = [\"readOnlyHint=true\"]`",
            not_an_element: "each of `server_claims` is a text: `\"readOnlyHint=true\"`",
        };
        list_of(list, &messages, shape::text, cx)
    });
    let needs = check_needs(args.needs.as_ref(), cx);
    let retries = check_retries(args.retries.as_ref(), args.retry_backoff.as_ref(), cx);
    let mut fields = fields_of(item);
    if let Some(call) = mcp.as_ref().filter(|call| call.pass_through.is_some()) {
        fields.push(client_field(item, &call.server, header.krate.as_ref()));
    }
    if kind == Kind::Mcp && mcp.is_none() {
        return None;
    }
    Some(ResolvedTool {
        header: header.finish()?,
        timeout,
        max_result_size,
        result_ceiling,
        repeated_when,
        read_only: args.read_only,
        channel: args.channel,
        asks,
        capabilities,
        untrusted_output: args.untrusted_output,
        check_in,
        check_in_evidence: args.check_in_evidence,
        server_claims,
        on_crash,
        mcp,
        allowlists,
        max_argument_size,
        fields,
        result_kind,
        wants,
        needs,
        retries,
    })
}

/// `asks = [Role, ..]`: role types, on a `#[tool]` (an `#[mcp_tool]`'s server asks through
/// its own role).
fn check_asks(list: Option<&syn::Expr>, kind: Kind, cx: &mut Ctxt) -> Vec<Path> {
    let Some(list) = list else {
        return Vec::new();
    };
    let finding = |detail: &str| codes::TOOL_ASKS_INVALID.finding(&[("detail", &detail)]);
    if kind == Kind::Mcp {
        let why = "an `#[mcp_tool]` asks nothing itself: it passes each call to its server's tool, whose requests for input go to the role its `#[mcp_server(.., elicitation = Role)]` names";
        cx.finding_at(&finding(why), list);
        return Vec::new();
    }
    let not_a_list =
        finding("`asks` takes a list of question roles: `asks = [ShippingAddressRole]`");
    let not_an_element =
        finding("`asks` names each question role by its type: `asks = [ShippingAddressRole]`");
    let messages = ListOf {
        not_a_list: &not_a_list.to_string(),
        not_an_element: &not_an_element.to_string(),
    };
    list_of(list, &messages, shape::path, cx)
}

/// `on_crash = rerun | report | ask`; `ask` needs the role a `channel` names, which it asks.
fn check_on_crash(path: Option<&Path>, has_channel: bool, cx: &mut Ctxt) -> Option<&'static str> {
    let path = path?;
    let written = path.to_token_stream().to_string().replace(' ', "");
    let variant = match written.as_str() {
        "rerun" => "Rerun",
        "report" => "Report",
        "ask" => "Ask",
        _ => {
            let finding = codes::TOOL_ON_CRASH_INVALID.finding(&[("value", &written)]);
            cx.finding_at(&finding, &path.span());
            return None;
        }
    };
    if variant == "Ask" && !has_channel {
        let finding = codes::TOOL_ON_CRASH_NEEDS_CHANNEL.finding(&[]);
        cx.finding_at(&finding, &path.span());
        return None;
    }
    Some(variant)
}

/// `server`, `calls`, and `input` with `output`: both or neither.
fn check_mcp(args: &ToolArgs, cx: &mut Ctxt) -> Option<McpCall> {
    let pass_through = match (&args.input, &args.output) {
        (Some(input), Some(output)) => Some(PassThrough {
            input: input.clone(),
            output: output.clone(),
        }),
        (None, None) => None,
        (given, _) => {
            let (key, other, ty) = match given {
                Some(input) => ("input", "output", input.to_token_stream()),
                None => ("output", "input", args.output.to_token_stream()),
            };
            cx.error_at(
                &ty,
                format!(
                    "`{key}` without `{other}`: give both and #[mcp_tool] writes the handler that passes the input to the server's tool, or give neither and write `impl ToolHandler`"
                ),
            );
            None
        }
    };
    let (Some(server), Some(calls)) = (&args.server, &args.calls) else {
        if args.server.is_none() {
            cx.needs(
                "server",
                "add `server = NotesServer`, the #[mcp_server] type it calls",
            );
        }
        if args.calls.is_none() {
            cx.needs(
                "calls",
                "add `calls = \"read_text_file\"`, the server's tool it calls",
            );
        }
        return None;
    };
    if calls.trim().is_empty() {
        cx.error_at(
            &calls.span(),
            "`calls` names the server's tool this tool calls; it is empty",
        );
    }
    Some(McpCall {
        server: server.clone(),
        calls: (**calls).clone(),
        pass_through,
    })
}

/// The `McpClient<Server>` field the pass-through handler calls through, named for a struct
/// with named fields or none, the next position for a tuple struct.
fn client_field(item: &ItemStruct, server: &Path, krate: Option<&Path>) -> Field {
    let private = private_path(krate);
    let ty: Type = syn::parse_quote_spanned!(server.span()=> #private::McpClient<#server>);
    let server_written = written_type(&syn::parse_quote!(#server));
    let (ident, name) = match &item.fields {
        syn::Fields::Unnamed(fields) => (None, fields.unnamed.len().to_string()),
        _ => (
            Some(syn::Ident::new(MCP_FIELD, Span::call_site())),
            MCP_FIELD.to_owned(),
        ),
    };
    Field {
        ident,
        name,
        ty,
        written: format!("McpClient<{server_written}>"),
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;
    use crate::fields::named;
    use crate::tool::{MCP_TOOL, TOOL};

    #[test]
    fn the_doc_comment_is_the_description_when_none_is_given() {
        let tool = TOOL.resolve(
            quote!(name = "search-issues-tool"),
            quote! {
                /// Searches the team's issues.
                ///
                /// Call it before filing one.
                pub struct SearchIssues;
            },
        );
        assert_eq!(
            tool.header.description,
            "Searches the team's issues.\n\nCall it before filing one."
        );
    }

    #[test]
    fn a_given_description_wins_over_the_doc_comment() {
        let tool = TOOL.resolve(
            quote!(name = "search-issues-tool", description = "Search"),
            quote! {
                /// For the reader of the code.
                pub struct SearchIssues;
            },
        );
        assert_eq!(tool.header.description, "Search");
    }

    #[test]
    fn neither_a_doc_nor_a_description_says_both_ways_to_give_one() {
        let problems = MCP_TOOL.problems(
            quote!(
                name = "read-note-tool",
                server = NotesFs,
                calls = "read_text_file"
            ),
            quote! {
                ///
                pub struct ReadNote;
            },
        );
        assert_eq!(
            problems,
            "#[mcp_tool] needs a description, which the model reads to decide when to call the tool: add a doc comment (`/// Searches the team's issues`) or `description = \"...\"`"
        );
    }

    #[test]
    fn input_and_output_add_the_servers_client_as_a_dependency() {
        let tool = MCP_TOOL.resolve(
            quote!(
                name = "read-note-tool",
                server = fs::NotesFs,
                calls = "read_text_file",
                input = NotePath,
                output = PlainText
            ),
            quote! {
                /// Reads a note.
                pub struct ReadNote { clock: Clock }
            },
        );
        let (_, client) = tool.pass_through().unwrap();
        assert_eq!(client.name, MCP_FIELD);
        let call = tool.mcp.unwrap();
        assert_eq!(call.calls, "read_text_file");
        let pass_through = call.pass_through.unwrap();
        assert!(pass_through.input.path.is_ident("NotePath"));
        assert!(pass_through.output.path.is_ident("PlainText"));
        assert_eq!(
            named(&tool.fields),
            [("clock", "Clock"), (MCP_FIELD, "McpClient<fs::NotesFs>")]
        );
        assert_eq!(tool.fields[1].ident.as_ref().unwrap(), MCP_FIELD);

        let tuple = MCP_TOOL.resolve(
            quote!(
                name = "read-note-tool",
                server = NotesFs,
                calls = "read_text_file",
                input = NotePath,
                output = PlainText
            ),
            quote! {
                /// Reads a note.
                pub struct ReadNote(Clock);
            },
        );
        assert_eq!(tuple.fields[1].name, "1", "a tuple struct's next position");
        assert!(tuple.fields[1].ident.is_none());
    }

    #[test]
    fn input_without_output_is_refused_and_adds_no_field() {
        let problems = MCP_TOOL.problems(
            quote!(
                name = "read-note-tool",
                server = NotesFs,
                calls = "read_text_file",
                input = NotePath
            ),
            quote! {
                /// Reads a note.
                pub struct ReadNote;
            },
        );
        assert!(
            problems.starts_with("`input` without `output`: give both"),
            "{problems}"
        );
    }

    #[test]
    fn a_plain_tool_has_no_client_field() {
        let tool = MCP_TOOL.resolve(
            quote!(
                name = "read-note-tool",
                description = "Reads",
                server = NotesFs,
                calls = "read_text_file"
            ),
            quote!(
                pub struct ReadNote {
                    fs: McpClient<NotesFs>,
                }
            ),
        );
        assert!(tool.pass_through().is_none());
        assert!(tool.mcp.unwrap().pass_through.is_none());
        assert_eq!(tool.fields.len(), 1);
        assert_eq!(tool.fields[0].written, "McpClient<NotesFs>");
    }

    #[test]
    fn bounds_and_the_crash_policy_are_resolved() {
        let tool = TOOL.resolve(
            quote!(
                name = "refund-card-tool",
                description = "Refunds",
                timeout = seconds(10),
                max_result_size = kilobytes(64),
                read_only = true,
                channel = RefundApproval,
                on_crash = ask,
                crate = my::agboss
            ),
            quote!(
                pub struct RefundCard(Clock);
            ),
        );
        assert_eq!(tool.header.name, "refund-card-tool");
        assert!(tool.header.krate.is_some());
        assert_eq!(
            tool.timeout.unwrap().to_tokens().to_string(),
            "seconds (10u64)"
        );
        assert!(tool.max_result_size.is_some());
        assert!(tool.read_only);
        assert!(tool.channel.unwrap().path.is_ident("RefundApproval"));
        assert_eq!(tool.on_crash, Some("Ask"));
        assert!(tool.mcp.is_none());
        assert_eq!(named(&tool.fields), [("0", "Clock")]);
    }

    #[test]
    fn every_problem_of_a_tool_is_reported_at_once_in_the_keys_order() {
        let problems = MCP_TOOL.problems(
            quote!(input = NotePath, calls = " ", timeout = 10, on_crash = ask),
            quote!(
                pub struct ReadNote<T>(T);
            ),
        );
        let firsts: Vec<&str> = problems
            .lines()
            .map(|line| line.split([':', ' ']).next().unwrap_or_default())
            .collect();
        assert_eq!(
            firsts,
            [
                "`input`",
                "#[mcp_tool]",
                "#[mcp_tool]",
                "#[mcp_tool]",
                "a",
                "[tool.on-crash-needs-channel]",
                "a"
            ],
            "{problems}"
        );
    }
}
