//! The command line of agboss: the subcommands a program mounts in its own command line
//! (`describe`, and `g mcp`, which generates the `#[mcp_tool]`s of an MCP server), and the
//! `agboss` program (`g mcp`, `new`) for what needs no application.
//!
//! A program with a command line of its own mounts [`Command`] (a clap `Subcommand`) or
//! [`AgbossArgs`] (clap `Args`) under a name of its choosing, so that `myapp agboss describe`
//! reaches agboss and `myapp forced` stays the program's:
//!
//! ```no_run
//! use std::process::ExitCode;
//! use agboss::Application;
//! use clap::{Args, Parser, Subcommand};
//!
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(subcommand)]
//!     command: MyCommand,
//! }
//!
//! #[derive(Subcommand)]
//! enum MyCommand {
//!     /// The program's own work.
//!     Forced { times: u32 },
//!     /// agboss's subcommands: `myapp agboss describe`, `myapp agboss g mcp ...`.
//!     #[command(subcommand)]
//!     Agboss(agboss::cli::Command),
//! }
//!
//! fn main() -> ExitCode {
//!     let cli = Cli::parse();
//!     // `g mcp` needs no application: it runs before the application is built.
//!     if let MyCommand::Agboss(command) = &cli.command
//!         && let Some(code) = command.run_without_application()
//!     {
//!         return code;
//!     }
//!     let app = match Application::builder("desk-application").build() {
//!         Ok(app) => app,
//!         Err(problems) => {
//!             eprintln!("{problems}");
//!             return ExitCode::FAILURE;
//!         }
//!     };
//!     match cli.command {
//!         MyCommand::Agboss(command) => command.run(&app),
//!         MyCommand::Forced { times } => ExitCode::SUCCESS, // the program's own work
//!     }
//! }
//! ```
//!
//! A program without a command line of its own (the examples) can let agboss read the process's
//! arguments instead: [`command`] returns the subcommand given, or `None` when there is none,
//! and refuses any other argument.
//!
//! `describe` needs no API key and no network: it reads the assembled application.
//!
//! `g mcp` starts the server (or reaches its URL), lists its tools and writes the module:
//!
//! ```text
//! myapp agboss g mcp --name everything --command npx --arg -y \
//!     --arg @modelcontextprotocol/server-everything@2026.8.31 --arg stdio --out src/everything.rs
//! agboss g mcp --name search --url 'https://search.example.com/mcp' --tool query
//! ```

#[cfg(feature = "mcp")]
mod generate;
#[cfg(feature = "mcp")]
pub mod mcp;

#[cfg(feature = "mcp")]
pub use generate::{Generate, GenerateMcp};
pub use new::{AgbossSource, New, NewError};

mod new;

use std::ffi::OsString;
use std::process::ExitCode;

use agboss_core::app::Application;
use clap::{Args, Parser, Subcommand};

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

/// agboss's subcommands as clap `Args`, for a program that mounts them as a variant holding
/// arguments (`Agboss(agboss::cli::AgbossArgs)`) rather than as a subcommand enum.
#[derive(Clone, Debug, PartialEq, Eq, Args)]
pub struct AgbossArgs {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Parser)]
#[command(about = "An agboss application", disable_version_flag = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// The subcommand in the process's arguments, or `None` when there is none: the standalone
/// form, for a program whose whole command line is agboss's (the examples). Prints help or the
/// parse error and exits, as command lines do, when the arguments are wrong, the program's own
/// included: a program with arguments of its own mounts [`Command`] or [`AgbossArgs`] instead
/// (see the crate docs).
pub fn command() -> Option<Command> {
    Cli::parse().command
}

/// The subcommand in `args` (the first being the program's name), in the standalone form.
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
