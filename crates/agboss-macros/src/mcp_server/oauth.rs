//! `#[mcp_server]`'s OAuth keys (`oauth_client_id`, `oauth_client_secret`, `oauth_scopes`):
//! checked into an [`OAuth`], and generated as the descriptor's `with_oauth`.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, LitStr};

use agboss_rules::codes;
use agboss_rules::vars::variables_in;

use crate::ctxt::Ctxt;
use crate::emit::hidden_static;

/// `oauth_client_id`, `oauth_client_secret` and `oauth_scopes`, checked.
pub(super) struct OAuth {
    pub(super) client_id: LitStr,
    pub(super) client_secret: LitStr,
    pub(super) scopes: Vec<LitStr>,
}

/// The OAuth keys: the id and the secret together, on an HTTP server, the secret a variable
/// alone (a secret written in the program would be in its binary).
pub(super) fn check_oauth(
    client_id: Option<LitStr>,
    client_secret: Option<LitStr>,
    scopes: Option<Vec<LitStr>>,
    is_http: bool,
    cx: &mut Ctxt,
) -> Option<OAuth> {
    let (client_id, client_secret) = match (client_id, client_secret) {
        (None, None) => {
            if let Some(scope) = scopes.iter().flatten().next() {
                cx.finding_at(
                    &problem("`oauth_scopes` go with `oauth_client_id` and `oauth_client_secret`"),
                    scope,
                );
            }
            return None;
        }
        (Some(id), None) => {
            cx.finding_at(&problem("`oauth_client_id` goes with `oauth_client_secret = \"${VAR}\"`, the variable that holds the client's secret"), &id);
            return None;
        }
        (None, Some(secret)) => {
            cx.finding_at(
                &problem("`oauth_client_secret` goes with `oauth_client_id`"),
                &secret,
            );
            return None;
        }
        (Some(id), Some(secret)) => (id, secret),
    };
    let value = client_secret.value();
    let alone = variables_in(&value)
        .first()
        .is_some_and(|variable| value == format!("${{{variable}}}"));
    if !alone {
        cx.finding_at(&problem("`oauth_client_secret` names the variable that holds the secret, alone: `\"${NOTES_CLIENT_SECRET}\"` (a secret written here would be in the program)"), &client_secret);
    }
    if !is_http {
        cx.finding_at(
            &problem("OAuth is for a streamable-HTTP server: `oauth_client_id` goes with `url`"),
            &client_id,
        );
    }
    (alone && is_http).then(|| OAuth {
        client_id,
        client_secret,
        scopes: scopes.unwrap_or_default(),
    })
}

/// A problem with the OAuth keys, `[mcp.oauth-invalid]`.
fn problem(detail: &str) -> agboss_rules::Finding {
    codes::MCP_OAUTH_INVALID.finding(&[("detail", &detail)])
}

/// The statics `oauth` needs and `value` (the descriptor) with `.with_oauth(..)`; nothing and
/// `value` as it is without OAuth.
pub(super) fn emit(
    oauth: Option<&OAuth>,
    private: &TokenStream,
    value: TokenStream,
) -> (TokenStream, TokenStream) {
    match oauth {
        None => (TokenStream::new(), value),
        Some(OAuth {
            client_id,
            client_secret,
            scopes,
        }) => {
            let count = scopes.len();
            let scopes = hidden_static(
                &Ident::new("__AGBOSS_OAUTH_SCOPES", Span::call_site()),
                quote!([&str; #count]),
                quote!([#(#scopes),*]),
            );
            let oauth = hidden_static(
                &Ident::new("__AGBOSS_OAUTH", Span::call_site()),
                quote!(#private::McpOAuth),
                quote!(#private::McpOAuth::client_credentials(
                    #client_id,
                    #client_secret,
                    &__AGBOSS_OAUTH_SCOPES,
                )),
            );
            (
                quote!(#scopes #oauth),
                quote!(#value.with_oauth(&__AGBOSS_OAUTH)),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::super::MCP_SERVER;
    use super::*;

    fn values(texts: &[LitStr]) -> Vec<String> {
        texts.iter().map(LitStr::value).collect()
    }

    #[test]
    fn an_http_server_may_authorize_with_client_credentials_from_variables() {
        let server = MCP_SERVER.resolve(
            quote!(
                name = "tickets",
                url = "https://tickets.example/mcp",
                tools = ["search"],
                env = ["TICKETS_ID", "TICKETS_SECRET"],
                oauth_client_id = "${TICKETS_ID}",
                oauth_client_secret = "${TICKETS_SECRET}",
                oauth_scopes = ["tickets:read"]
            ),
            quote!(
                pub struct Tickets;
            ),
        );
        let oauth = server.oauth.as_ref().expect("client credentials");
        assert_eq!(oauth.client_id.value(), "${TICKETS_ID}");
        assert_eq!(oauth.client_secret.value(), "${TICKETS_SECRET}");
        assert_eq!(values(&oauth.scopes), ["tickets:read"]);
    }

    /// What `#[mcp_server(args)] pub struct Tickets;` is refused for.
    fn problems_of(args: proc_macro2::TokenStream) -> String {
        MCP_SERVER.problems(
            args,
            quote!(
                pub struct Tickets;
            ),
        )
    }

    #[test]
    fn a_written_secret_a_lone_key_or_oauth_over_stdio_is_refused() {
        let problems = problems_of(quote!(
            name = "tickets",
            url = "https://tickets.example/mcp",
            tools = ["search"],
            env = ["TICKETS_ID"],
            oauth_client_id = "${TICKETS_ID}",
            oauth_client_secret = "hunter2"
        ));
        assert!(
            problems.starts_with(
                "[mcp.oauth-invalid] `oauth_client_secret` names the variable that holds the secret"
            ),
            "{problems}"
        );
        let problems = problems_of(quote!(
            name = "tickets",
            command = "tickets-mcp",
            tools = ["search"],
            env = ["ID", "SECRET"],
            oauth_client_id = "${ID}",
            oauth_client_secret = "${SECRET}"
        ));
        assert!(
            problems.starts_with("[mcp.oauth-invalid] OAuth is for a streamable-HTTP server"),
            "{problems}"
        );
        let problems = problems_of(quote!(
            name = "tickets",
            url = "https://tickets.example/mcp",
            tools = ["search"],
            env = ["SECRET"],
            oauth_client_secret = "${SECRET}",
            oauth_scopes = ["a"]
        ));
        assert_eq!(
            problems, "[mcp.oauth-invalid] `oauth_client_secret` goes with `oauth_client_id`",
            "{problems}"
        );
        let problems = problems_of(quote!(
            name = "tickets",
            url = "https://tickets.example/mcp",
            tools = ["search"],
            oauth_client_id = "${ID}",
            oauth_client_secret = "${SECRET}"
        ));
        assert!(
            problems.contains("[mcp.env-undeclared] `${ID}`"),
            "{problems}"
        );
        assert!(
            problems.contains("[mcp.env-undeclared] `${SECRET}`"),
            "{problems}"
        );
    }
}
