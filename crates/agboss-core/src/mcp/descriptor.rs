//! [`McpServerDescriptor`]: an MCP server as `#[mcp_server]` declares it.

use std::fmt;

use super::McpCredential;
use crate::base::Env;
use crate::component::{Component, ComponentKind, SourceLocation, derefs_to_component, registry};
use crate::tool::{RemoteTool, RoleRef};

/// How to reach a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process speaking MCP on its stdin and stdout.
    Stdio {
        /// The program, such as `npx` or `node`; `${VAR}` is replaced by the variable's value.
        command: &'static str,
        /// Its arguments, with `${VAR}` replaced likewise.
        args: &'static [&'static str],
    },
    /// A streamable-HTTP endpoint, such as `http://127.0.0.1:3001/mcp`; `${VAR}` is replaced.
    Http {
        /// The endpoint.
        url: &'static str,
    },
}

/// How an HTTP server's client authorizes itself, per MCP's authorization (OAuth 2.1). Two
/// grants:
///
/// - the client-credentials grant ([`client_credentials`](Self::client_credentials)), for a
///   server a program reaches on its own behalf, with a client id and secret;
/// - the authorization code grant with PKCE ([`authorization_code`](Self::authorization_code)),
///   for a server a person lets the application use: a person approves in a browser, which
///   comes back to the redirect address (the application's `Authorizer` listens there). The
///   client is pre-registered ([`with_client`](Self::with_client)), identified by a metadata
///   document ([`with_client_metadata_url`](Self::with_client_metadata_url)) where the
///   authorization server accepts one, or else registered dynamically.
///
/// Its texts may name environment variables (`${VAR}`), expanded when the server starts; a
/// secret is a variable alone, never written in the declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct McpOAuth {
    client_id: Option<&'static str>,
    client_secret: Option<&'static str>,
    /// The variable holding the PEM of the key the client-credentials grant signs its JWT
    /// assertion with (`private_key_jwt`), instead of a secret.
    private_key: Option<&'static str>,
    scopes: &'static [&'static str],
    /// Where the person's browser is sent back: `Some` for the authorization code grant.
    redirect: Option<&'static str>,
    client_metadata_url: Option<&'static str>,
}

/// Which OAuth grant an [`McpOAuth`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpGrant {
    /// The client-credentials grant: the program is the client, with its id and secret.
    ClientCredentials,
    /// The authorization code grant with PKCE: a person approves, the browser comes back to
    /// this redirect address.
    AuthorizationCode {
        /// The redirect address, as declared (`${VAR}`s not expanded).
        redirect: &'static str,
    },
}

impl McpOAuth {
    /// The client-credentials grant: the client's id and secret (each a text with `${VAR}`s,
    /// the secret a variable alone) and the scopes to ask for (none: the server's default).
    pub const fn client_credentials(
        client_id: &'static str,
        client_secret: &'static str,
        scopes: &'static [&'static str],
    ) -> McpOAuth {
        McpOAuth {
            client_id: Some(client_id),
            client_secret: Some(client_secret),
            private_key: None,
            scopes,
            redirect: None,
            client_metadata_url: None,
        }
    }

    /// The client-credentials grant with a signed JWT assertion (`private_key_jwt`) instead of
    /// a secret: the client's id and the variable holding its private key's PEM (PKCS#8,
    /// P-256 for ES256 or RSA for RS256), and the scopes to ask for.
    pub const fn client_credentials_jwt(
        client_id: &'static str,
        private_key: &'static str,
        scopes: &'static [&'static str],
    ) -> McpOAuth {
        McpOAuth {
            client_id: Some(client_id),
            client_secret: None,
            private_key: Some(private_key),
            scopes,
            redirect: None,
            client_metadata_url: None,
        }
    }

    /// The authorization code grant with PKCE, the browser sent back to `redirect` (an
    /// `http` address on the loopback interface, or an `https` one), asking for `scopes`
    /// (none: those the server's challenge or metadata names). Without a client, the client
    /// registers itself dynamically.
    pub const fn authorization_code(
        redirect: &'static str,
        scopes: &'static [&'static str],
    ) -> McpOAuth {
        McpOAuth {
            client_id: None,
            client_secret: None,
            private_key: None,
            scopes,
            redirect: Some(redirect),
            client_metadata_url: None,
        }
    }

    /// The same grant with a client registered ahead: its id, and its secret's variable for
    /// a confidential client (`None`: a public client).
    pub const fn with_client(
        mut self,
        client_id: &'static str,
        client_secret: Option<&'static str>,
    ) -> McpOAuth {
        self.client_id = Some(client_id);
        self.client_secret = client_secret;
        self
    }

    /// The same grant, the client identified by the `https` address of its metadata document
    /// where the authorization server accepts one (else it registers itself dynamically).
    pub const fn with_client_metadata_url(mut self, url: &'static str) -> McpOAuth {
        self.client_metadata_url = Some(url);
        self
    }

    /// Which grant it uses.
    pub fn grant(&self) -> McpGrant {
        match self.redirect {
            None => McpGrant::ClientCredentials,
            Some(redirect) => McpGrant::AuthorizationCode { redirect },
        }
    }

    /// The client's id, as declared (`${VAR}`s not expanded); `None` for a client that
    /// registers itself or is identified by its metadata document.
    pub fn client_id(&self) -> Option<&'static str> {
        self.client_id
    }

    /// The client's secret, as declared: the variable that holds it (`${VAR}`); `None` for a
    /// public client.
    pub fn client_secret(&self) -> Option<&'static str> {
        self.client_secret
    }

    /// The variable holding the client's private key (`${VAR}`), for the client-credentials
    /// grant with a JWT assertion.
    pub fn private_key(&self) -> Option<&'static str> {
        self.private_key
    }

    /// The address of the client's metadata document, if declared.
    pub fn client_metadata_url(&self) -> Option<&'static str> {
        self.client_metadata_url
    }

    /// The scopes to ask for.
    pub fn scopes(&self) -> &'static [&'static str] {
        self.scopes
    }
}

/// An MCP server: its name, how to reach it, the tools of it the application uses and the
/// environment variables (names) it needs. It derefs to its [`Component`] header: `name()`,
/// `rust_type()`, `location()` (its description is empty: a server's tools describe themselves).
#[derive(Debug)]
pub struct McpServerDescriptor {
    component: Component,
    transport: McpTransport,
    tools: &'static [&'static str],
    env: &'static [&'static str],
    /// The question role its elicitations are asked through, as a one-element list (the
    /// `asks` of its `#[mcp_tool]`s), or none.
    elicitation: &'static [RoleRef],
    /// How an HTTP server's client authorizes itself, if it must.
    oauth: Option<&'static McpOAuth>,
    /// Its own credential, resolved through the application's provider as it starts.
    credential: Option<&'static McpCredential>,
}

impl McpServerDescriptor {
    /// Server `name` reached through `transport`, of which the application uses `tools`.
    pub const fn new(
        name: &'static str,
        rust_type: &'static str,
        location: SourceLocation,
        transport: McpTransport,
        tools: &'static [&'static str],
    ) -> McpServerDescriptor {
        McpServerDescriptor {
            component: Component::new(ComponentKind::McpServer, name, "", rust_type, location),
            transport,
            tools,
            env: &[],
            elicitation: &[],
            oauth: None,
            credential: None,
        }
    }

    /// With its own credential (`credential = ".."`): resolved through the application's
    /// credential provider as it starts, and sent to it alone (a header, or a variable).
    pub const fn with_credential(
        mut self,
        credential: &'static McpCredential,
    ) -> McpServerDescriptor {
        self.credential = Some(credential);
        self
    }

    /// Its own credential, if it declares one.
    pub fn credential(&self) -> Option<&'static McpCredential> {
        self.credential
    }

    /// With the OAuth its client authorizes itself with (an HTTP server).
    pub const fn with_oauth(mut self, oauth: &'static McpOAuth) -> McpServerDescriptor {
        self.oauth = Some(oauth);
        self
    }

    /// How its client authorizes itself, if it must.
    pub fn oauth(&self) -> Option<&'static McpOAuth> {
        self.oauth
    }

    /// With the names of the environment variables it needs (passed to a child process).
    pub const fn with_env(mut self, env: &'static [&'static str]) -> McpServerDescriptor {
        self.env = env;
        self
    }

    /// With the question role its requests for input during a call (MCP's elicitation) are
    /// asked through: `role` is a one-element list, which its `#[mcp_tool]`s declare they ask.
    pub const fn with_elicitation(mut self, role: &'static [RoleRef; 1]) -> McpServerDescriptor {
        self.elicitation = role;
        self
    }

    /// The question role its elicitations are asked through, if it has one; without one, the
    /// client offers no elicitation and declines every request for input.
    pub fn elicitation(&self) -> Option<&'static RoleRef> {
        self.elicitation.first()
    }

    /// The roles a call of its tools may ask: its elicitation role, or none (what an
    /// `#[mcp_tool]` declares it asks).
    pub const fn elicitation_asks(&self) -> &'static [RoleRef] {
        self.elicitation
    }

    /// How to reach it.
    pub fn transport(&self) -> McpTransport {
        self.transport
    }

    /// The server's tools the application uses, by the server's names.
    pub fn tools(&self) -> &'static [&'static str] {
        self.tools
    }

    /// The environment variables it needs.
    pub fn env(&self) -> &'static [&'static str] {
        self.env
    }

    /// Whether it declares the tool `name`.
    pub fn declares(&self, name: &str) -> bool {
        self.tools.contains(&name)
    }
}

/// The origin of an `#[mcp_tool]`: tool `tool` of `server`, which must declare it.
pub const fn remote_tool(server: &'static McpServerDescriptor, tool: &'static str) -> RemoteTool {
    RemoteTool::new("mcp", server.component.name(), tool, server)
}

/// Whether `server` declares the tool `name`, in a `const` (the check `#[mcp_tool]` emits).
#[doc(hidden)]
pub const fn declares(server: &McpServerDescriptor, name: &str) -> bool {
    let mut i = 0;
    while i < server.tools.len() {
        if str_eq(server.tools[i], name) {
            return true;
        }
        i += 1;
    }
    false
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

derefs_to_component!(McpServerDescriptor);

/// An MCP server: a unit struct under `#[mcp_server]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MCP server",
    label = "not an `#[mcp_server]`",
    note = "put `#[mcp_server(name = \"...\", command = \"...\", tools = [\"...\"])]` on a unit struct"
)]
pub trait McpServer: Send + Sync + 'static {
    /// What `#[mcp_server]` declared.
    const DESCRIPTOR: &'static McpServerDescriptor;
}

registry! {
    /// A server's entry in the program-wide registry.
    pub type McpServerRegistration = Registration<McpServerDescriptor> of McpServer;
    /// Every `#[mcp_server]` linked into the program, sorted by name.
    pub fn registered_mcp_servers();
}

/// `text` with every `${VAR}` replaced by the variable's value from `env`; the name of the first
/// variable that is not set, if one is not.
pub(crate) fn expand(text: &str, env: &Env) -> Result<String, String> {
    agboss_rules::vars::expand(text, |name| env.get(name))
}

impl fmt::Display for McpTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpTransport::Stdio { command, args } => write!(f, "{command} {}", args.join(" ")),
            McpTransport::Http { url } => f.write_str(url),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_expanded_from_the_environment() {
        let env = Env::from_pairs([("ROOT", "/srv/notes"), ("PORT", "3001")]);
        assert_eq!(expand("${ROOT}/a", &env), Ok("/srv/notes/a".into()));
        assert_eq!(
            expand("http://127.0.0.1:${PORT}/mcp", &env),
            Ok("http://127.0.0.1:3001/mcp".into())
        );
        assert_eq!(expand("plain", &env), Ok("plain".into()));
        assert_eq!(expand("${MISSING}", &env), Err("MISSING".into()));
        assert_eq!(expand("${unclosed", &env), Ok("${unclosed".into()));
    }
}
