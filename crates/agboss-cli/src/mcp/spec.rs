//! [`ServerSpec`]: the server the generated `#[mcp_server]` declares, checked as the macro
//! checks it.

use super::GenerateError;
use super::names::{self, pascal};
use agboss_rules::vars::is_variable_name;
use agboss_rules::vars::variables_in;

/// The server the generated `#[mcp_server]` declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSpec {
    /// Its kebab-case name.
    pub name: String,
    /// How it is reached; `${VAR}`s are written as they are and expanded when listing.
    pub transport: ServerTransport,
    /// The NAMES of the environment variables it needs; those `${VAR}`s name are added.
    pub env: Vec<String>,
    /// The Rust type of the server; `None` for PascalCase of the name + `Server`.
    pub server_type: Option<String>,
}

/// How a server is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerTransport {
    /// A program speaking MCP on its stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A streamable-HTTP endpoint.
    Http {
        /// The endpoint's URL.
        url: String,
    },
}

impl ServerSpec {
    /// A server named `name` reached through `transport`, with no environment variables and
    /// the default type name.
    pub fn new(name: impl Into<String>, transport: ServerTransport) -> ServerSpec {
        ServerSpec {
            name: name.into(),
            transport,
            env: Vec::new(),
            server_type: None,
        }
    }

    /// The variables the generated `env = [..]` lists: [`env`](Self::env), then every other
    /// `${VAR}` of the command, its arguments or the URL, in order (the macro requires them).
    pub fn env_names(&self) -> Vec<String> {
        let texts: Vec<&str> = match &self.transport {
            ServerTransport::Stdio { command, args } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect(),
            ServerTransport::Http { url } => vec![url.as_str()],
        };
        let mut names = self.env.clone();
        for variable in texts.into_iter().flat_map(variables_in) {
            if !names.iter().any(|n| n == variable) {
                names.push(variable.to_owned());
            }
        }
        names
    }

    /// The Rust type name of the server: the one given, else `EverythingServer` for
    /// `everything`.
    pub fn server_type(&self) -> String {
        self.server_type
            .clone()
            .unwrap_or_else(|| format!("{}Server", pascal(&self.name)))
    }
}

/// Whether the spec can be written as an `#[mcp_server]` the macro accepts.
pub(crate) fn check_spec(spec: &ServerSpec) -> Result<(), GenerateError> {
    let invalid = |message: String| Err(GenerateError::Invalid(message));
    // A kebab-case name is its own kebab form; any other name changes.
    let suggestion = names::kebab(&spec.name);
    if suggestion.is_empty() || suggestion != spec.name {
        return invalid(format!(
            "the server name {:?} must be kebab-case{}",
            spec.name,
            if suggestion.is_empty() {
                String::new()
            } else {
                format!(": name it {suggestion:?}")
            }
        ));
    }
    let server_type = spec.server_type();
    let pascal_ident = server_type.starts_with(|c: char| c.is_ascii_uppercase())
        && server_type.chars().all(|c| c.is_ascii_alphanumeric());
    if !pascal_ident || server_type == "Self" {
        return invalid(format!(
            "the server type {server_type:?} must be a PascalCase Rust name such as `NotesServer`"
        ));
    }
    for variable in &spec.env_names() {
        if !is_variable_name(variable) {
            return invalid(format!(
                "{variable:?} is not the name of an environment variable: `--env` takes NAMES, such as NOTES_DIR, never values"
            ));
        }
    }
    match &spec.transport {
        ServerTransport::Stdio { command, .. } if command.trim().is_empty() => {
            invalid("the command is empty".into())
        }
        ServerTransport::Http { url } if url.trim().is_empty() => {
            invalid("the URL is empty".into())
        }
        _ => Ok(()),
    }
}
