//! `#[mcp_server]`: an MCP server's declaration, checked and registered.

use agboss_rules::codes::{self, Finding};
use agboss_rules::names;
use agboss_rules::vars::{check_variable_name, variables_in};
use darling::FromMeta;
use darling::util::SpannedValue;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Expr, ItemStruct, LitStr};

use crate::attrs::{doc_unless_documented, finding_at, parse_args, private_path, source_location};

const KEYS: &[&str] = &["name", "command", "args", "url", "tools", "env", "crate"];

#[derive(Debug, FromMeta)]
struct ServerArgs {
    name: Option<SpannedValue<String>>,
    command: Option<LitStr>,
    args: Option<Expr>,
    url: Option<LitStr>,
    tools: Option<Expr>,
    env: Option<Expr>,
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
    #[darling(skip)]
    mistyped: Vec<&'static str>,
}

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let item_struct = match syn::parse2::<ItemStruct>(item.clone()) {
        Ok(item_struct) => item_struct,
        Err(_) => {
            return crate::tool::on_wrong_item(
                item,
                "#[mcp_server] goes on a unit struct: `pub struct NotesServer;`",
            );
        }
    };
    let mut errors = darling::Error::accumulator();
    let parsed = parse_args::<ServerArgs>(args, KEYS, "mcp_server", &mut errors).map(
        |(mut args, mistyped)| {
            args.mistyped = mistyped;
            args
        },
    );
    let generated = parsed.and_then(|args| generate(args, &item_struct, &mut errors));
    match errors.finish_with(generated) {
        Ok(Some(tokens)) => tokens,
        Ok(None) => quote!(#item_struct),
        Err(errors) => {
            let errors = errors.write_errors();
            quote!(#item_struct #errors)
        }
    }
}

fn generate(
    args: ServerArgs,
    item: &ItemStruct,
    errors: &mut darling::error::Accumulator,
) -> Option<TokenStream> {
    let mut failed = false;
    let mut fail = |error: darling::Error| {
        failed = true;
        errors.push(error);
    };
    let name = match &args.name {
        Some(name) => {
            // Kebab-case only: a server's name is the `source` of its tools, never sent to a
            // model, so the length of names models see does not bind it.
            if !names::is_kebab(name) {
                let finding = codes::NAME_KEBAB_CASE.finding(&[
                    ("kind", &"server"),
                    ("name", &format!("{:?}", name.as_str())),
                    ("suggestion", &format!("{:?}", names::kebab(name))),
                ]);
                fail(finding_at(&finding, name.span()));
            }
            Some((**name).clone())
        }
        None => {
            if !args.mistyped.contains(&"name") {
                fail(darling::Error::custom(format!(
                    "#[mcp_server] needs `name`: add `name = {:?}`",
                    names::kebab(item.ident.to_string().trim_end_matches("Server"))
                )));
            }
            None
        }
    };
    let list =
        |expr: &Option<Expr>, key: &str, fail: &mut dyn FnMut(darling::Error)| -> Vec<LitStr> {
            match expr {
                None => Vec::new(),
                Some(Expr::Array(array)) => array
                    .elems
                    .iter()
                    .filter_map(|e| match e {
                        Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        }) => Some(s.clone()),
                        other => {
                            fail(
                                darling::Error::custom(format!("`{key}` holds texts in quotes"))
                                    .with_span(other),
                            );
                            None
                        }
                    })
                    .collect(),
                Some(other) => {
                    fail(
                        darling::Error::custom(format!("`{key}` takes a list: `{key} = [\"..\"]`"))
                            .with_span(other),
                    );
                    Vec::new()
                }
            }
        };
    let tools = list(&args.tools, "tools", &mut fail);
    let server_args = list(&args.args, "args", &mut fail);
    let env = list(&args.env, "env", &mut fail);
    if args.tools.is_none() && !args.mistyped.contains(&"tools") {
        fail(darling::Error::custom(
            "#[mcp_server] needs `tools`: the server's tools the application calls, by the server's names: `tools = [\"read_text_file\"]`",
        ));
    }
    for (i, tool) in tools.iter().enumerate() {
        if tools[..i].iter().any(|t| t.value() == tool.value()) {
            fail(
                darling::Error::custom(format!("`{}` is listed twice", tool.value()))
                    .with_span(tool),
            );
        }
    }
    for variable in &env {
        if let Err(finding) = check_variable_name(&variable.value()) {
            fail(finding_at(&finding, variable.span()));
        }
    }
    let declared: Vec<String> = env.iter().map(LitStr::value).collect();
    let texts = args
        .command
        .iter()
        .chain(args.url.iter())
        .chain(server_args.iter());
    for text in texts {
        let value = text.value();
        for variable in variables_in(&value) {
            if !declared.iter().any(|d| d == variable) {
                let finding = codes::MCP_ENV_UNDECLARED.finding(&[("variable", &variable)]);
                fail(finding_at(&finding, text.span()));
            }
        }
    }
    let transport = match (&args.command, &args.url) {
        (Some(_), Some(url)) => {
            fail(finding_at(
                &transport("give `command` (stdio) or `url` (streamable HTTP), not both"),
                url.span(),
            ));
            None
        }
        (None, None) => {
            fail(finding_at(
                &transport(
                    "#[mcp_server] needs `command = \"..\"` (a program speaking MCP on stdio) or `url = \"..\"` (a streamable-HTTP endpoint)",
                ),
                Span::call_site(),
            ));
            None
        }
        (None, Some(url)) if args.args.is_some() => {
            fail(darling::Error::custom("`args` go with `command`, not with `url`").with_span(url));
            None
        }
        (Some(command), None) => Some(quote!(Stdio { command: #command, args: &__AGBOSS_ARGS })),
        (None, Some(url)) => Some(quote!(Http { url: #url })),
    };
    if !matches!(item.fields, syn::Fields::Unit) {
        fail(darling::Error::custom("an MCP server is a unit struct (`pub struct NotesServer;`): its settings are in the attribute").with_span(&item.fields));
    }
    if failed {
        return None;
    }
    let (name, transport) = (name?, transport?);
    let private = private_path(args.krate.as_ref());
    let ident = &item.ident;
    let rust_type = ident.to_string();
    let (n_tools, n_args, n_env) = (tools.len(), server_args.len(), env.len());
    let doc = doc_unless_documented(
        item,
        &format!(
            " The MCP server `{name}`, with the tools {}.",
            tools
                .iter()
                .map(|t| format!("`{}`", t.value()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    let location = source_location(&private);
    Some(quote! {
        #doc
        #item

        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #[doc(hidden)]
            static __AGBOSS_TOOLS: [&str; #n_tools] = [#(#tools),*];
            #[doc(hidden)]
            static __AGBOSS_ARGS: [&str; #n_args] = [#(#server_args),*];
            #[doc(hidden)]
            static __AGBOSS_ENV: [&str; #n_env] = [#(#env),*];
            #[doc(hidden)]
            static __AGBOSS_SERVER: #private::McpServerDescriptor = #private::McpServerDescriptor::new(
                #name,
                #rust_type,
                #location,
                #private::McpTransport::#transport,
                &__AGBOSS_TOOLS,
            )
            .with_env(&__AGBOSS_ENV);

            #[automatically_derived]
            impl #private::McpServer for #ident {
                const DESCRIPTOR: &'static #private::McpServerDescriptor = &__AGBOSS_SERVER;
            }

            #private::inventory::submit! {
                #private::McpServerRegistration::of::<#ident>()
            }
        };
    })
}

/// `[mcp.transport]` saying `detail`.
fn transport(detail: &str) -> Finding {
    codes::MCP_TRANSPORT.finding(&[("detail", &detail)])
}
