//! The command line a user's binary exposes: `describe` today, more subcommands later.
//!
//! ```no_run
//! use std::process::ExitCode;
//! use agboss::prelude::*;
//!
//! fn main() -> ExitCode {
//!     let app = match Application::builder("desk-application").build() {
//!         Ok(app) => app,
//!         Err(problems) => {
//!             eprintln!("{problems}");
//!             return ExitCode::FAILURE;
//!         }
//!     };
//!     match agboss::cli::command() {
//!         Some(command) => command.run(&app),
//!         None => ExitCode::SUCCESS, // no subcommand: the program's own work
//!     }
//! }
//! ```
//!
//! `describe` needs no API key and no network: it reads the assembled application.

use std::ffi::OsString;
use std::process::ExitCode;

use agboss_core::app::Application;
use clap::{Parser, Subcommand};

/// A subcommand of agboss's command line.
#[derive(Clone, Debug, PartialEq, Eq, Subcommand)]
pub enum Command {
    /// Print who can use which tool, with what limits, and where each came from.
    Describe {
        /// Print the stable JSON document (docs/describe.md) instead of the tree.
        #[arg(long)]
        json: bool,
    },
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
    /// Runs the subcommand on `app`, printing to standard output.
    pub fn run(&self, app: &Application) -> ExitCode {
        print!("{}", self.output(app));
        ExitCode::SUCCESS
    }

    /// What the subcommand prints.
    pub fn output(&self, app: &Application) -> String {
        match self {
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
