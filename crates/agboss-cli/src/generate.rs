//! `g`: code generators. `g mcp` writes a module of `#[mcp_tool]`s for an MCP server's tools
//! (docs/mcp-generate.md).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::mcp::{
    DEFAULT_START_TIMEOUT, GenerateError, Generated, Request, ServerSpec, ServerTransport,
    from_server_blocking,
};
use agboss_core::base::Env;
use clap::{Args, Subcommand};

/// What `g` generates.
#[derive(Clone, Debug, PartialEq, Eq, Subcommand)]
pub enum Generate {
    /// Write a Rust module with an `#[mcp_server]` and one `#[mcp_tool]` per tool of an MCP
    /// server, with input DTOs from the tools' JSON Schemas. The server is started (or its URL
    /// reached) to list its tools; none is called.
    Mcp(GenerateMcp),
}

/// The options of `g mcp`.
#[derive(Clone, Debug, PartialEq, Eq, Args)]
#[command(group = clap::ArgGroup::new("transport").required(true).args(["command", "url"]))]
pub struct GenerateMcp {
    /// The server's name in the generated `#[mcp_server]`, kebab-case: `everything`.
    #[arg(long)]
    pub name: String,
    /// The program speaking MCP on stdio; `${VAR}`s are kept in the code and expanded from the
    /// environment to list the tools.
    #[arg(long)]
    pub command: Option<String>,
    /// An argument of the command (repeat for each, in order; `--arg -y` works).
    #[arg(
        long = "arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        conflicts_with = "url"
    )]
    pub args: Vec<String>,
    /// The streamable-HTTP endpoint of the server, instead of `--command`.
    #[arg(long)]
    pub url: Option<String>,
    /// The NAME of an environment variable the server needs (repeatable); never a value.
    #[arg(long = "env", value_name = "NAME")]
    pub env: Vec<String>,
    /// A server tool to generate, by the server's name (repeatable; default: all of them).
    #[arg(long = "tool", value_name = "SERVER_TOOL")]
    pub tools: Vec<String>,
    /// A server tool to leave out (repeatable).
    #[arg(long = "exclude", value_name = "SERVER_TOOL")]
    pub exclude: Vec<String>,
    /// The file to write (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The Rust type of the server (default: PascalCase of the name + `Server`).
    #[arg(long, value_name = "RUST_NAME")]
    pub server_type: Option<String>,
    /// How many seconds the server may take to start and list its tools.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_START_TIMEOUT.as_secs())]
    pub timeout: u64,
}

impl GenerateMcp {
    /// What the options ask the generator for.
    pub fn request(&self) -> Request {
        let transport = match (&self.command, &self.url) {
            (Some(command), _) => ServerTransport::Stdio {
                command: command.clone(),
                args: self.args.clone(),
            },
            (None, url) => ServerTransport::Http {
                url: url.clone().unwrap_or_default(),
            },
        };
        Request {
            spec: ServerSpec {
                name: self.name.clone(),
                transport,
                env: self.env.clone(),
                server_type: self.server_type.clone(),
            },
            tools: self.tools.clone(),
            exclude: self.exclude.clone(),
            timeout: Duration::from_secs(self.timeout.max(1)),
        }
    }

    /// Lists the server's tools and generates the module, reading `${VAR}`s from `env`.
    pub fn generate(&self, env: &Env) -> Result<Generated, GenerateError> {
        from_server_blocking(&self.request(), env)
    }

    /// Generates the module and writes it to `--out` (saying so on standard error) or to
    /// standard output; a failure is said on standard error.
    pub fn run(&self) -> ExitCode {
        let generated = match self.generate(&Env::process()) {
            Ok(generated) => generated,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let Some(out) = &self.out else {
            print!("{}", generated.code);
            return ExitCode::SUCCESS;
        };
        let written = out
            .parent()
            .filter(|dir| !dir.as_os_str().is_empty())
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(out, &generated.code));
        match written {
            Ok(()) => {
                let count = generated.tools.len();
                eprintln!(
                    "wrote {count} tool{} of server `{}` to {}{}",
                    if count == 1 { "" } else { "s" },
                    self.name,
                    out.display(),
                    if generated.formatted {
                        ""
                    } else {
                        " (rustfmt was not found: the code is not formatted)"
                    },
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: could not write {}: {e}", out.display());
                ExitCode::FAILURE
            }
        }
    }
}
