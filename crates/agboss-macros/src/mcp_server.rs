//! `#[mcp_server]`: an MCP server's declaration, checked into a [`ResolvedServer`] and
//! generated as `impl McpServer` with its static descriptor, and its registration.

use agboss_rules::codes::{self, Finding};
use agboss_rules::vars::{check_variable_name, variables_in};
use darling::FromMeta;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Expr, Ident, ItemStruct, LitStr};

use crate::ctxt::Ctxt;
use crate::emit::{self, Descriptor, hidden_static, submit};
use crate::header::{self, Header, HeaderArgs, Naming, source_location};
use crate::pipeline::{Attribute, Misplaced};
use crate::shape::{self, ListOf, list_of, unit_struct};

const KEYS: &[&str] = &["name", "command", "args", "url", "tools", "env", "crate"];

/// How servers are named: kebab-case only, its name being the `source` of its tools; no
/// `description` key, the doc of the struct says its name and tools.
const SERVER: header::Kind = header::Kind {
    naming: Naming::Source,
    describing: None,
};

/// The `#[mcp_server]` attribute.
pub struct McpServer;

/// `#[mcp_server(..)]` as written.
#[derive(Debug, FromMeta)]
pub struct ServerArgs {
    #[darling(flatten)]
    header: HeaderArgs,
    command: Option<LitStr>,
    args: Option<Expr>,
    url: Option<LitStr>,
    tools: Option<Expr>,
    env: Option<Expr>,
}

/// A server declaration that passed every check.
pub struct ResolvedServer {
    /// Its name and crate; its description is the doc of a struct without one.
    header: Header,
    transport: Transport,
    /// The server's tools the application calls, by the server's names.
    tools: Vec<LitStr>,
    /// The program's arguments (none for HTTP).
    args: Vec<LitStr>,
    /// The names of the environment variables it needs.
    env: Vec<LitStr>,
}

/// How the server is reached.
enum Transport {
    /// A program speaking MCP on stdio.
    Stdio { command: LitStr },
    /// A streamable-HTTP endpoint.
    Http { url: LitStr },
}

impl Attribute for McpServer {
    type Item = ItemStruct;
    type Args = ServerArgs;
    type Resolved = ResolvedServer;

    fn name(&self) -> &'static str {
        "mcp_server"
    }

    fn keys(&self) -> &'static [&'static str] {
        KEYS
    }

    fn misplaced(&self) -> Misplaced {
        Misplaced::AtName("#[mcp_server] goes on a unit struct: `pub struct NotesServer;`".into())
    }

    fn check(&self, args: ServerArgs, item: &ItemStruct, cx: &mut Ctxt) -> Option<ResolvedServer> {
        check(args, item, cx)
    }

    fn check_shape(&self, item: &ItemStruct, cx: &mut Ctxt) {
        unit_struct(
            item,
            "an MCP server is a unit struct (`pub struct NotesServer;`): its settings are in the attribute",
            cx,
        );
    }

    fn generate(&self, server: ResolvedServer, item: &ItemStruct) -> TokenStream {
        generate(&server, item)
    }
}

/// Checks `args`, reporting every problem into `cx`: the name, the lists, the variables the
/// texts use, the transport.
fn check(args: ServerArgs, item: &ItemStruct, cx: &mut Ctxt) -> Option<ResolvedServer> {
    let header = SERVER.check(args.header, item, cx);
    let texts = |key: &Option<Expr>, name: &str, cx: &mut Ctxt| -> Vec<LitStr> {
        let messages = ListOf {
            not_a_list: &format!("`{name}` takes a list: `{name} = [\"..\"]`"),
            not_an_element: &format!("`{name}` holds texts in quotes"),
        };
        key.as_ref()
            .map_or_else(Vec::new, |list| list_of(list, &messages, shape::text, cx))
    };
    let tools = texts(&args.tools, "tools", cx);
    let server_args = texts(&args.args, "args", cx);
    let env = texts(&args.env, "env", cx);
    if args.tools.is_none() {
        cx.needs(
            "tools",
            "the server's tools the application calls, by the server's names: `tools = [\"read_text_file\"]`",
        );
    }
    for (i, tool) in tools.iter().enumerate() {
        if tools[..i].iter().any(|t| t.value() == tool.value()) {
            cx.error_at(tool, format!("`{}` is listed twice", tool.value()));
        }
    }
    for variable in &env {
        if let Err(finding) = check_variable_name(&variable.value()) {
            cx.finding_at(&finding, &variable.span());
        }
    }
    let texts = args.command.iter().chain(&args.url).chain(&server_args);
    check_variables_declared(texts, &env, cx);
    let transport = check_transport(args.command, args.url, args.args.is_some(), cx);
    let mut header = header.finish()?;
    header.description = format!(
        " The MCP server `{}`, with the tools {}.",
        header.name,
        tools
            .iter()
            .map(|t| format!("`{}`", t.value()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Some(ResolvedServer {
        header,
        transport: transport?,
        tools,
        args: server_args,
        env,
    })
}

/// Each `${VAR}` of `texts` must be one of the `env` the server declares.
fn check_variables_declared<'a>(
    texts: impl Iterator<Item = &'a LitStr>,
    env: &[LitStr],
    cx: &mut Ctxt,
) {
    let declared: Vec<String> = env.iter().map(LitStr::value).collect();
    for text in texts {
        let value = text.value();
        for variable in variables_in(&value) {
            if !declared.iter().any(|d| d == variable) {
                let finding = codes::MCP_ENV_UNDECLARED.finding(&[("variable", &variable)]);
                cx.finding_at(&finding, &text.span());
            }
        }
    }
}

/// `command` (with its `args`) or `url`: one of them.
fn check_transport(
    command: Option<LitStr>,
    url: Option<LitStr>,
    has_args: bool,
    cx: &mut Ctxt,
) -> Option<Transport> {
    match (command, url) {
        (Some(_), Some(url)) => {
            let detail = "give `command` (stdio) or `url` (streamable HTTP), not both";
            cx.finding_at(&transport(detail), &url.span());
            None
        }
        (None, None) => {
            let detail = "#[mcp_server] needs `command = \"..\"` (a program speaking MCP on stdio) or `url = \"..\"` (a streamable-HTTP endpoint)";
            cx.finding_at(&transport(detail), &Span::call_site());
            None
        }
        (None, Some(url)) if has_args => {
            cx.error_at(&url, "`args` go with `command`, not with `url`");
            None
        }
        (Some(command), None) => Some(Transport::Stdio { command }),
        (None, Some(url)) => Some(Transport::Http { url }),
    }
}

/// `[mcp.transport]` saying `detail`.
fn transport(detail: &str) -> Finding {
    codes::MCP_TRANSPORT.finding(&[("detail", &detail)])
}

/// The struct, and in an anonymous constant its lists, its descriptor, `impl McpServer` and
/// its registration.
fn generate(server: &ResolvedServer, item: &ItemStruct) -> TokenStream {
    let private = server.header.private();
    let ident = &item.ident;
    let name = &server.header.name;
    let rust_type = ident.to_string();
    let location = source_location(&private);
    let list = |static_name: &str, texts: &[LitStr]| {
        let count = texts.len();
        hidden_static(
            &Ident::new(static_name, Span::call_site()),
            quote!([&str; #count]),
            quote!([#(#texts),*]),
        )
    };
    let tools = list("__AGBOSS_TOOLS", &server.tools);
    let args = list("__AGBOSS_ARGS", &server.args);
    let env = list("__AGBOSS_ENV", &server.env);
    let transport = match &server.transport {
        Transport::Stdio { command } => quote!(Stdio { command: #command, args: &__AGBOSS_ARGS }),
        Transport::Http { url } => quote!(Http { url: #url }),
    };
    let descriptor = Descriptor::new(
        &private,
        "__AGBOSS_SERVER",
        "McpServerDescriptor",
        "McpServer",
    );
    let descriptor_static = descriptor.to_static(quote! {
        #private::McpServerDescriptor::new(
            #name,
            #rust_type,
            #location,
            #private::McpTransport::#transport,
            &__AGBOSS_TOOLS,
        )
        .with_env(&__AGBOSS_ENV)
    });
    let implementation = descriptor.implement(ident, false, TokenStream::new(), TokenStream::new());
    let registration = submit(
        &private,
        quote!(#private::McpServerRegistration::of::<#ident>()),
    );
    emit::component(
        server.header.doc(item),
        item,
        quote! {
            #tools
            #args
            #env
            #descriptor_static

            #implementation

            #registration
        },
    )
}
