//! `#[mcp_server]`: an MCP server's declaration, checked into a [`ResolvedServer`] and
//! generated as `impl McpServer` with its static descriptor, and its registration.

use agboss_rules::codes::{self, Finding};
use agboss_rules::vars::{check_variable_name, variables_in};
use darling::FromMeta;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident, ItemStruct, LitStr};

use crate::ctxt::Ctxt;
use crate::emit::{self, Descriptor, Members, hidden_static, submit};
use crate::header::{self, Header, HeaderArgs, Naming, source_location};
use crate::pipeline::{Attribute, Misplaced, keep_nothing};
use crate::shape::{self, ListOf, list_of, unit_struct};

mod credential;
mod oauth;

use credential::{Credential, CredentialKeys, check_credential_keys};
use oauth::{OAuth, OAuthKeys, check_oauth};

const KEYS: &[&str] = &[
    "name",
    "command",
    "args",
    "url",
    "tools",
    "env",
    "elicitation",
    "oauth_client_id",
    "oauth_client_secret",
    "oauth_private_key",
    "oauth_scopes",
    "oauth_redirect",
    "oauth_client_metadata_url",
    "crate",
    "credential",
    "credential_header",
    "credential_env",
];

/// How servers are named: kebab-case only, its name being the `source` of its tools; no
/// `description` key, the doc of the struct says its name and tools.
const SERVER: header::Kind = header::Kind {
    naming: Naming::Source,
    describing: None,
};

/// `#[mcp_server]`: a unit struct, its settings all in the attribute.
pub const MCP_SERVER: Attribute<ItemStruct, ServerArgs, ResolvedServer> = Attribute {
    name: "mcp_server",
    keys: KEYS,
    misplaced: Misplaced::AtName("#[mcp_server] goes on a unit struct: `pub struct NotesServer;`"),
    check,
    check_shape: |item, cx| {
        unit_struct(
            item,
            "an MCP server is a unit struct (`pub struct NotesServer;`): its settings are in the attribute",
            cx,
        );
    },
    generate,
    keep_on_error: keep_nothing,
};

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
    elicitation: Option<Expr>,
    oauth_client_id: Option<LitStr>,
    oauth_client_secret: Option<LitStr>,
    oauth_private_key: Option<LitStr>,
    oauth_scopes: Option<Expr>,
    oauth_redirect: Option<LitStr>,
    oauth_client_metadata_url: Option<LitStr>,
    credential: Option<LitStr>,
    credential_header: Option<LitStr>,
    credential_env: Option<LitStr>,
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
    /// The question role its requests for input during a call are asked through.
    elicitation: Option<syn::Path>,
    /// The OAuth grant an HTTP server's client authorizes itself with.
    oauth: Option<OAuth>,
    /// Its own credential, resolved through the application's provider as it starts.
    credential: Option<Credential>,
}

/// How the server is reached.
enum Transport {
    /// A program speaking MCP on stdio.
    Stdio { command: LitStr },
    /// A streamable-HTTP endpoint.
    Http { url: LitStr },
}

/// Checks `args`, reporting every problem into `cx`: the name, the lists, the variables the
/// texts use, the transport.
fn check(args: ServerArgs, item: &ItemStruct, cx: &mut Ctxt) -> Option<ResolvedServer> {
    let header = SERVER.check(args.header, item, cx);
    let texts_of = |key: &Option<Expr>, name: &str, cx: &mut Ctxt| -> Vec<LitStr> {
        let messages = ListOf {
            not_a_list: &format!("`{name}` takes a list: `{name} = [\"..\"]`"),
            not_an_element: &format!("`{name}` holds texts in quotes"),
        };
        key.as_ref()
            .map_or_else(Vec::new, |list| list_of(list, &messages, shape::text, cx))
    };
    let tools = texts_of(&args.tools, "tools", cx);
    let server_args = texts_of(&args.args, "args", cx);
    let env = texts_of(&args.env, "env", cx);
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
    let scopes = texts_of(&args.oauth_scopes, "oauth_scopes", cx);
    let texts = args.command.iter().chain(&args.url).chain(&server_args);
    let oauth_texts = args
        .oauth_client_id
        .iter()
        .chain(&args.oauth_client_secret)
        .chain(&args.oauth_private_key)
        .chain(&args.oauth_redirect)
        .chain(&args.oauth_client_metadata_url);
    check_variables_declared(texts.chain(oauth_texts).chain(&scopes), &env, cx);
    let oauth_keys = OAuthKeys {
        client_id: args.oauth_client_id,
        client_secret: args.oauth_client_secret,
        private_key: args.oauth_private_key,
        scopes: args.oauth_scopes.is_some().then_some(scopes),
        redirect: args.oauth_redirect,
        client_metadata_url: args.oauth_client_metadata_url,
        is_http: args.url.is_some(),
    };
    let credential = check_credential_keys(
        CredentialKeys {
            name: args.credential,
            header: args.credential_header,
            env: args.credential_env,
            is_http: args.url.is_some(),
            has_oauth: oauth_keys.declared(),
        },
        cx,
    );
    let oauth = check_oauth(oauth_keys, cx);
    let transport = check_transport(args.command, args.url, args.args.is_some(), cx);
    let elicitation = args.elicitation.as_ref().and_then(|role| {
        let path = shape::path(role);
        if path.is_none() {
            cx.error_at(
                role,
                "`elicitation` names a question role by its type: `elicitation = ServerQuestionRole`",
            );
        }
        path
    });
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
        elicitation,
        oauth,
        credential,
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
fn generate(server: &ResolvedServer, item: &ItemStruct, _: &TokenStream) -> TokenStream {
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
    let value = quote! {
        #private::McpServerDescriptor::new(
            #name,
            #rust_type,
            #location,
            #private::McpTransport::#transport,
            &__AGBOSS_TOOLS,
        )
        .with_env(&__AGBOSS_ENV)
    };
    let (elicitation, value) = match &server.elicitation {
        None => (TokenStream::new(), value),
        Some(role) => {
            // Spanned on the role: one that does not ask MCP's elicitations fails there.
            let role_ref = quote_spanned!(role.span()=> #private::mcp_elicitation_of::<#role>());
            let list = hidden_static(
                &Ident::new("__AGBOSS_ELICITATION", Span::call_site()),
                quote!([#private::RoleRef; 1]),
                role_ref,
            );
            (list, quote!(#value.with_elicitation(&__AGBOSS_ELICITATION)))
        }
    };
    let (oauth, value) = oauth::emit(server.oauth.as_ref(), &private, value);
    let (credential, value) = credential::emit(server.credential.as_ref(), &private, value);
    let descriptor = descriptor.emit(value, ident, Members::default());
    let registration = submit(
        &private,
        quote!(#private::McpServerRegistration::of::<#ident>()),
    );
    let items = [
        tools,
        args,
        env,
        elicitation,
        oauth,
        credential,
        descriptor,
        registration,
    ];
    emit::component(server.header.doc(item), item, &items)
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn values(texts: &[LitStr]) -> Vec<String> {
        texts.iter().map(LitStr::value).collect()
    }

    #[test]
    fn a_stdio_server_is_resolved_with_its_lists_and_doc() {
        let server = MCP_SERVER.resolve(
            quote!(
                name = "notes-fs",
                command = "npx",
                args = ["-y", "${NOTES_DIR}"],
                tools = ["read_text_file", "write_file"],
                env = ["NOTES_DIR"]
            ),
            quote!(
                pub struct NotesServer;
            ),
        );
        assert_eq!(server.header.name, "notes-fs");
        assert_eq!(
            server.header.description,
            " The MCP server `notes-fs`, with the tools `read_text_file`, `write_file`."
        );
        let Transport::Stdio { command } = &server.transport else {
            panic!("a program on stdio")
        };
        assert_eq!(command.value(), "npx");
        assert_eq!(values(&server.args), ["-y", "${NOTES_DIR}"]);
        assert_eq!(values(&server.tools), ["read_text_file", "write_file"]);
        assert_eq!(values(&server.env), ["NOTES_DIR"]);
    }

    #[test]
    fn an_http_server_needs_no_args() {
        let server = MCP_SERVER.resolve(
            quote!(
                name = "notes",
                url = "http://127.0.0.1:3001/mcp",
                tools = []
            ),
            quote!(
                pub struct NotesServer;
            ),
        );
        assert!(matches!(server.transport, Transport::Http { .. }));
        assert!(server.args.is_empty() && server.tools.is_empty());
    }

    #[test]
    fn every_problem_of_a_server_is_reported_at_once() {
        let problems = MCP_SERVER.problems(
            quote!(
                name = "Notes FS",
                url = "http://${HOST}/mcp",
                args = ["x"],
                tools = ["a", "a", 3],
                env = ["notes dir"]
            ),
            quote!(
                pub struct NotesServer(u8);
            ),
        );
        let lines: Vec<&str> = problems.lines().collect();
        assert_eq!(lines.len(), 7, "{problems}");
        assert!(lines[0].starts_with("[name.kebab-case] server name \"Notes FS\""));
        assert_eq!(lines[1], "`tools` holds texts in quotes");
        assert_eq!(lines[2], "`a` is listed twice");
        assert!(
            lines[3].starts_with("[config.env-name-invalid]"),
            "{problems}"
        );
        assert!(
            lines[4].starts_with("[mcp.env-undeclared] `${HOST}`"),
            "{problems}"
        );
        assert_eq!(lines[5], "`args` go with `command`, not with `url`");
        assert!(lines[6].starts_with("an MCP server is a unit struct"));
    }
}
