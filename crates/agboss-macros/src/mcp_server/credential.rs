//! `#[mcp_server]`'s credential keys (`credential`, `credential_header`, `credential_env`):
//! checked into a [`Credential`], and generated as the descriptor's `with_credential`.

use agboss_rules::codes;
use agboss_rules::names::check_credential;
use agboss_rules::vars::check_variable_name;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, LitStr};

use crate::ctxt::Ctxt;
use crate::emit::hidden_static;

/// The server's own credential: its name, and the header or variable that carries it.
pub(super) struct Credential {
    name: LitStr,
    /// `credential_header` (HTTP; `Authorization` when not given) or `credential_env` (stdio).
    carrier: Carrier,
}

enum Carrier {
    Header(LitStr),
    Env(LitStr),
}

/// What the credential keys say, as written.
pub(super) struct CredentialKeys {
    pub(super) name: Option<LitStr>,
    pub(super) header: Option<LitStr>,
    pub(super) env: Option<LitStr>,
    pub(super) is_http: bool,
    pub(super) has_oauth: bool,
}

/// `[mcp.credential-invalid]` saying `detail`, at `node`.
fn invalid(node: &LitStr, detail: &str, cx: &mut Ctxt) {
    let finding = codes::MCP_CREDENTIAL_INVALID.finding(&[("detail", &detail)]);
    cx.finding_at(&finding, node);
}

/// The credential keys: a kebab-case name; a header only on an HTTP server, a variable only
/// (and always) on a stdio one; not beside OAuth, which signs in another way.
pub(super) fn check_credential_keys(keys: CredentialKeys, cx: &mut Ctxt) -> Option<Credential> {
    let Some(name) = keys.name else {
        for key in keys.header.iter().chain(&keys.env) {
            invalid(
                key,
                "`credential_header` and `credential_env` go with `credential = \"tickets-api\"`, the name of the server's credential",
                cx,
            );
        }
        return None;
    };
    let mut ok = true;
    for problem in check_credential(&name.value()) {
        cx.finding_at(&problem, &name);
        ok = false;
    }
    if keys.has_oauth {
        invalid(
            &name,
            "`credential` and OAuth are two ways for the server's client to sign in: give one of them",
            cx,
        );
        ok = false;
    }
    let carrier = match (keys.is_http, keys.header, keys.env) {
        (true, header, None) => Carrier::Header(
            header.unwrap_or_else(|| LitStr::new("Authorization", Span::call_site())),
        ),
        (true, _, Some(env)) => {
            invalid(
                &env,
                "`credential_env` is for a stdio server (`command`); an HTTP server gets its credential in a header: `credential_header = \"X-Api-Key\"` (or none: `Authorization: Bearer ..`)",
                cx,
            );
            return None;
        }
        (false, Some(header), _) => {
            invalid(
                &header,
                "`credential_header` is for an HTTP server (`url`); a stdio server gets its credential in a variable: `credential_env = \"TICKETS_TOKEN\"`",
                cx,
            );
            return None;
        }
        (false, None, None) => {
            invalid(
                &name,
                "a stdio server gets its credential in a variable of its process: add `credential_env = \"TICKETS_TOKEN\"`",
                cx,
            );
            return None;
        }
        (false, None, Some(env)) => {
            if let Err(finding) = check_variable_name(&env.value()) {
                cx.finding_at(&finding, &env);
                return None;
            }
            Carrier::Env(env)
        }
    };
    if let Carrier::Header(header) = &carrier {
        let value = header.value();
        let token = !value.is_empty()
            && value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !token {
            invalid(
                header,
                &format!(
                    "`{value}` cannot name an HTTP header: use letters, digits and `-`, such as `X-Api-Key`"
                ),
                cx,
            );
            return None;
        }
    }
    ok.then_some(Credential { name, carrier })
}

/// The static the credential needs and `value` (the descriptor) with `.with_credential(..)`;
/// nothing and `value` as it is without one.
pub(super) fn emit(
    credential: Option<&Credential>,
    private: &TokenStream,
    value: TokenStream,
) -> (TokenStream, TokenStream) {
    let Some(Credential { name, carrier }) = credential else {
        return (TokenStream::new(), value);
    };
    let carrier = match carrier {
        Carrier::Header(header) => quote!(#private::McpCredentialCarrier::Header(#header)),
        Carrier::Env(env) => quote!(#private::McpCredentialCarrier::Env(#env)),
    };
    let credential = hidden_static(
        &Ident::new("__AGBOSS_CREDENTIAL", Span::call_site()),
        quote!(#private::McpCredential),
        quote!(#private::McpCredential::new(#name, #carrier)),
    );
    (
        credential,
        quote!(#value.with_credential(&__AGBOSS_CREDENTIAL)),
    )
}
