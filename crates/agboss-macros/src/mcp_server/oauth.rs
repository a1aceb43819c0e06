//! `#[mcp_server]`'s OAuth keys: `oauth_client_id`, `oauth_client_secret`,
//! `oauth_private_key`, `oauth_scopes`, `oauth_redirect` and `oauth_client_metadata_url`,
//! checked into an [`OAuth`], and generated as the descriptor's `with_oauth`. Without
//! `oauth_redirect` the client-credentials grant (the id, and the secret or the private key a
//! JWT assertion is signed with); with it the authorization code grant (a client id, and its
//! secret, optional).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, LitStr};

use agboss_rules::codes;
use agboss_rules::oauth::{client_metadata_url_problem, redirect_problem};
use agboss_rules::vars::variables_in;

use crate::ctxt::Ctxt;
use crate::emit::hidden_static;

/// The OAuth keys as written.
pub(super) struct OAuthKeys {
    pub(super) client_id: Option<LitStr>,
    pub(super) client_secret: Option<LitStr>,
    pub(super) private_key: Option<LitStr>,
    pub(super) scopes: Option<Vec<LitStr>>,
    pub(super) redirect: Option<LitStr>,
    pub(super) client_metadata_url: Option<LitStr>,
    pub(super) is_http: bool,
}

impl OAuthKeys {
    /// Whether any key declares OAuth.
    pub(super) fn declared(&self) -> bool {
        self.client_id.is_some() || self.redirect.is_some() || self.private_key.is_some()
    }
}

/// The OAuth keys, checked.
pub(super) struct OAuth {
    pub(super) client_id: Option<LitStr>,
    pub(super) client_secret: Option<LitStr>,
    /// For the client-credentials grant with a JWT assertion, instead of the secret.
    pub(super) private_key: Option<LitStr>,
    pub(super) scopes: Vec<LitStr>,
    /// `Some` for the authorization code grant.
    pub(super) redirect: Option<LitStr>,
    pub(super) client_metadata_url: Option<LitStr>,
}

/// The OAuth keys: for the client-credentials grant, the id and the secret together; for the
/// authorization code grant, a redirect and maybe a client. Either on an HTTP server, the
/// secret a variable alone (a secret written in the program would be in its binary).
pub(super) fn check_oauth(keys: OAuthKeys, cx: &mut Ctxt) -> Option<OAuth> {
    if keys.redirect.is_some() {
        if let Some(key) = &keys.private_key {
            cx.finding_at(&problem("`oauth_private_key` goes with the client-credentials grant (`oauth_client_id` without `oauth_redirect`)"), key);
        }
        return check_code_grant(keys, cx);
    }
    if let Some(key) = keys.private_key {
        return check_jwt_grant(
            keys.client_id,
            keys.client_secret,
            key,
            keys.scopes,
            keys.is_http,
            cx,
        );
    }
    if let Some(document) = &keys.client_metadata_url {
        cx.finding_at(&problem("`oauth_client_metadata_url` goes with `oauth_redirect`, OAuth's authorization code grant"), document);
    }
    let (client_id, client_secret) = match (keys.client_id, keys.client_secret) {
        (None, None) => {
            if let Some(scope) = keys.scopes.iter().flatten().next() {
                cx.finding_at(
                    &problem("`oauth_scopes` go with `oauth_client_id` and `oauth_client_secret`, or with `oauth_redirect`"),
                    scope,
                );
            }
            return None;
        }
        (Some(id), None) => {
            cx.finding_at(&problem("`oauth_client_id` goes with `oauth_client_secret = \"${VAR}\"`, the variable that holds the client's secret (the client-credentials grant), or with `oauth_redirect` (the authorization code grant)"), &id);
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
    let alone = secret_alone(&client_secret, "oauth_client_secret", cx);
    let http = http_only(keys.is_http, &client_id, cx);
    (alone && http).then(|| OAuth {
        client_id: Some(client_id),
        client_secret: Some(client_secret),
        private_key: None,
        scopes: keys.scopes.unwrap_or_default(),
        redirect: None,
        client_metadata_url: None,
    })
}

/// The client-credentials grant with a JWT assertion: an id, the key a variable alone, no
/// secret beside it.
fn check_jwt_grant(
    client_id: Option<LitStr>,
    client_secret: Option<LitStr>,
    private_key: LitStr,
    scopes: Option<Vec<LitStr>>,
    is_http: bool,
    cx: &mut Ctxt,
) -> Option<OAuth> {
    let mut ok = secret_alone(&private_key, "oauth_private_key", cx);
    ok &= http_only(is_http, &private_key, cx);
    if let Some(secret) = &client_secret {
        cx.finding_at(&problem("`oauth_client_secret` and `oauth_private_key` are two ways for the client to prove itself: give one of them"), secret);
        ok = false;
    }
    if client_id.is_none() {
        cx.finding_at(&problem("`oauth_private_key` goes with `oauth_client_id`, the client the key is registered for"), &private_key);
        ok = false;
    }
    ok.then(|| OAuth {
        client_id,
        client_secret: None,
        private_key: Some(private_key),
        scopes: scopes.unwrap_or_default(),
        redirect: None,
        client_metadata_url: None,
    })
}

/// The authorization code grant's keys: the redirect and the document's addresses well
/// formed, a secret only with a client id.
fn check_code_grant(keys: OAuthKeys, cx: &mut Ctxt) -> Option<OAuth> {
    let redirect = keys.redirect?;
    let mut ok = http_only(keys.is_http, &redirect, cx);
    let written = |text: &LitStr| variables_in(&text.value()).is_empty();
    if let Some(why) = written(&redirect)
        .then(|| redirect_problem(&redirect.value()))
        .flatten()
    {
        cx.finding_at(&problem(&format!("`oauth_redirect` {why}: it is an `http` address on the loopback interface (`\"http://127.0.0.1:8765/callback\"`), where the application listens, or an `https` one")), &redirect);
        ok = false;
    }
    if let Some(document) = &keys.client_metadata_url
        && let Some(why) = written(document)
            .then(|| client_metadata_url_problem(&document.value()))
            .flatten()
    {
        cx.finding_at(&problem(&format!("`oauth_client_metadata_url` {why}: it is the `https` address of the client's metadata document (`\"https://desk.example/oauth/client.json\"`)")), document);
        ok = false;
    }
    match (&keys.client_id, &keys.client_secret) {
        (None, Some(secret)) => {
            cx.finding_at(&problem("`oauth_client_secret` goes with `oauth_client_id`, the client registered ahead"), secret);
            ok = false;
        }
        (Some(_), Some(secret)) => ok &= secret_alone(secret, "oauth_client_secret", cx),
        _ => {}
    }
    ok.then(|| OAuth {
        client_id: keys.client_id,
        client_secret: keys.client_secret,
        private_key: None,
        scopes: keys.scopes.unwrap_or_default(),
        redirect: Some(redirect),
        client_metadata_url: keys.client_metadata_url,
    })
}

/// Whether the secret (of `key`) is a variable alone; a problem at it when not.
fn secret_alone(secret: &LitStr, key: &str, cx: &mut Ctxt) -> bool {
    let value = secret.value();
    let alone = variables_in(&value)
        .first()
        .is_some_and(|variable| value == format!("${{{variable}}}"));
    if !alone {
        let example = if key == "oauth_private_key" {
            "NOTES_PRIVATE_KEY"
        } else {
            "NOTES_CLIENT_SECRET"
        };
        cx.finding_at(&problem(&format!("`{key}` names the variable that holds the secret, alone: `\"${{{example}}}\"` (a secret written here would be in the program)")), secret);
    }
    alone
}

/// Whether the server is reached over HTTP; a problem at `key` when not.
fn http_only(is_http: bool, key: &LitStr, cx: &mut Ctxt) -> bool {
    if !is_http {
        cx.finding_at(
            &problem("OAuth is for a streamable-HTTP server: it goes with `url`"),
            key,
        );
    }
    is_http
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
    let Some(oauth) = oauth else {
        return (TokenStream::new(), value);
    };
    let OAuth {
        client_id,
        client_secret,
        private_key,
        scopes,
        redirect,
        client_metadata_url,
    } = oauth;
    let count = scopes.len();
    let scopes = hidden_static(
        &Ident::new("__AGBOSS_OAUTH_SCOPES", Span::call_site()),
        quote!([&str; #count]),
        quote!([#(#scopes),*]),
    );
    let grant = match (redirect, client_id, client_secret) {
        (None, Some(id), _) if private_key.is_some() => {
            quote!(#private::McpOAuth::client_credentials_jwt(
                #id,
                #private_key,
                &__AGBOSS_OAUTH_SCOPES,
            ))
        }
        (None, Some(id), Some(secret)) => quote!(#private::McpOAuth::client_credentials(
            #id,
            #secret,
            &__AGBOSS_OAUTH_SCOPES,
        )),
        (Some(redirect), id, secret) => {
            let mut grant = quote!(#private::McpOAuth::authorization_code(
                #redirect,
                &__AGBOSS_OAUTH_SCOPES,
            ));
            if let Some(id) = id {
                let secret = match secret {
                    Some(secret) => quote!(::core::option::Option::Some(#secret)),
                    None => quote!(::core::option::Option::None),
                };
                grant = quote!(#grant.with_client(#id, #secret));
            }
            if let Some(document) = client_metadata_url {
                grant = quote!(#grant.with_client_metadata_url(#document));
            }
            grant
        }
        _ => unreachable!("checked: the client-credentials grant has an id and a secret"),
    };
    let oauth = hidden_static(
        &Ident::new("__AGBOSS_OAUTH", Span::call_site()),
        quote!(#private::McpOAuth),
        grant,
    );
    (
        quote!(#scopes #oauth),
        quote!(#value.with_oauth(&__AGBOSS_OAUTH)),
    )
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
        assert_eq!(oauth.client_id.as_ref().unwrap().value(), "${TICKETS_ID}");
        assert_eq!(
            oauth.client_secret.as_ref().unwrap().value(),
            "${TICKETS_SECRET}"
        );
        assert_eq!(values(&oauth.scopes), ["tickets:read"]);
    }

    #[test]
    fn an_http_server_may_authorize_with_a_person_s_approval() {
        let server = MCP_SERVER.resolve(
            quote!(
                name = "tickets",
                url = "https://tickets.example/mcp",
                tools = ["search"],
                oauth_redirect = "http://127.0.0.1:8765/callback",
                oauth_client_metadata_url = "https://desk.example/oauth/client.json"
            ),
            quote!(
                pub struct Tickets;
            ),
        );
        let oauth = server.oauth.as_ref().expect("the authorization code grant");
        assert_eq!(
            oauth.redirect.as_ref().unwrap().value(),
            "http://127.0.0.1:8765/callback"
        );
        assert!(oauth.client_id.is_none() && oauth.client_secret.is_none());
        assert_eq!(
            oauth.client_metadata_url.as_ref().unwrap().value(),
            "https://desk.example/oauth/client.json"
        );
    }

    #[test]
    fn a_client_may_prove_itself_with_a_private_key_instead_of_a_secret() {
        let server = MCP_SERVER.resolve(
            quote!(
                name = "tickets",
                url = "https://tickets.example/mcp",
                tools = ["search"],
                env = ["ID", "KEY"],
                oauth_client_id = "${ID}",
                oauth_private_key = "${KEY}"
            ),
            quote!(
                pub struct Tickets;
            ),
        );
        let oauth = server.oauth.as_ref().expect("the JWT grant");
        assert_eq!(oauth.private_key.as_ref().unwrap().value(), "${KEY}");
        assert!(oauth.client_secret.is_none());
        let problems = problems_of(quote!(
            name = "tickets",
            url = "https://tickets.example/mcp",
            tools = ["search"],
            env = ["ID", "KEY", "SECRET"],
            oauth_client_id = "${ID}",
            oauth_client_secret = "${SECRET}",
            oauth_private_key = "-----BEGIN PRIVATE KEY-----"
        ));
        for expected in [
            "`oauth_private_key` names the variable that holds the secret, alone",
            "`oauth_client_secret` and `oauth_private_key` are two ways",
        ] {
            assert!(problems.contains(expected), "{expected}: {problems}");
        }
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
            oauth_redirect = "http://tickets.example/cb",
            oauth_client_secret = "${SECRET}",
            oauth_client_metadata_url = "http://tickets.example/client.json"
        ));
        for expected in [
            "`oauth_redirect` is `http` on a host other than the loopback interface",
            "`oauth_client_metadata_url` is not an `https` address",
            "`oauth_client_secret` goes with `oauth_client_id`, the client registered ahead",
        ] {
            assert!(problems.contains(expected), "{expected}: {problems}");
        }
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
