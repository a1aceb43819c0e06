//! The command line a user's binary exposes: `describe`, and `g mcp`, which generates the
//! `#[mcp_tool]`s of an MCP server (docs/mcp-generate.md).
//!
//! ```no_run
//! use std::process::ExitCode;
//! use agboss::Application;
//!
//! fn main() -> ExitCode {
//!     let command = agboss::cli::command();
//!     // `g mcp` needs no application: it runs before the application is built.
//!     if let Some(code) = command.as_ref().and_then(|c| c.run_without_application()) {
//!         return code;
//!     }
//!     let app = match Application::builder("desk-application").build() {
//!         Ok(app) => app,
//!         Err(problems) => {
//!             eprintln!("{problems}");
//!             return ExitCode::FAILURE;
//!         }
//!     };
//!     match command {
//!         Some(command) => command.run(&app),
//!         None => ExitCode::SUCCESS, // no subcommand: the program's own work
//!     }
//! }
//! ```
//!
//! `describe` needs no API key and no network: it reads the assembled application.
//!
//! `g mcp` starts the server (or reaches its URL), lists its tools and writes the module:
//!
//! ```text
//! my-binary g mcp --name everything --command npx --arg -y \
//!     --arg @modelcontextprotocol/server-everything@2026.8.31 --arg stdio --out src/everything.rs
//! my-binary g mcp --name search --url 'https://search.example.com/mcp' --tool query
//! ```

#[cfg(feature = "mcp")]
mod generate;
#[cfg(feature = "mcp")]
pub mod mcp;

#[cfg(feature = "mcp")]
pub use generate::{Generate, GenerateMcp};

use std::ffi::OsString;
use std::process::ExitCode;

use agboss_core::app::Application;
use clap::{Parser, Subcommand};

/// A subcommand of agboss's command line.
// Parsed once per process: the size of `g mcp`'s options does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq, Subcommand)]
pub enum Command {
    /// Print who can use which tool, with what limits, and where each came from.
    Describe {
        /// Print the stable JSON document (docs/describe.md) instead of the tree.
        #[arg(long)]
        json: bool,
    },
    /// Generate code: `g mcp` writes the `#[mcp_tool]`s of an MCP server's tools.
    #[cfg(feature = "mcp")]
    #[command(subcommand, alias = "generate")]
    G(Generate),
}

#[derive(Debug, Parser)]
#[command(about = "An agboss application", disable_version_flag = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// The subcommand in the process's arguments, or `None` when there is none. Prints help or
/// the parse error and exits, as command lines do, when the arguments are wrong.
pub fn command() -> Option<Command> {
    Cli::parse().command
}

/// The subcommand in `args` (the first being the program's name).
pub fn command_from<I, T>(args: I) -> Result<Option<Command>, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    Cli::try_parse_from(args).map(|cli| cli.command)
}

impl Command {
    /// Whether the subcommand reads the application: `describe` does, `g mcp` does not.
    pub fn needs_application(&self) -> bool {
        match self {
            Command::Describe { .. } => true,
            #[cfg(feature = "mcp")]
            Command::G(_) => false,
        }
    }

    /// Runs a subcommand that needs no application (`g mcp`), before one is built; `None` for
    /// one that does (`describe`), which [`run`](Self::run) runs.
    pub fn run_without_application(&self) -> Option<ExitCode> {
        match self {
            Command::Describe { .. } => None,
            #[cfg(feature = "mcp")]
            Command::G(Generate::Mcp(mcp)) => Some(mcp.run()),
        }
    }

    /// Runs the subcommand on `app`, printing to standard output. `g mcp` does not touch `app`:
    /// it writes its module to `--out` or standard output, and its errors to standard error.
    pub fn run(&self, app: &Application) -> ExitCode {
        if let Some(code) = self.run_without_application() {
            return code;
        }
        print!("{}", self.output(app));
        ExitCode::SUCCESS
    }

    /// What the subcommand prints. For `g mcp`, the generated module (whatever `--out` says)
    /// or `error: ..` when it could not be generated.
    pub fn output(&self, app: &Application) -> String {
        match self {
            #[cfg(feature = "mcp")]
            Command::G(Generate::Mcp(mcp)) => {
                match mcp.generate(&agboss_core::base::Env::process()) {
                    Ok(generated) => generated.code,
                    Err(e) => format!("error: {e}\n"),
                }
            }
            Command::Describe { json: false } => agboss_core::describe::text(app),
            Command::Describe { json: true } => {
                let mut text = serde_json::to_string_pretty(&agboss_core::describe::json(app))
                    .unwrap_or_default();
                text.push('\n');
                text
            }
        }
    }
}
