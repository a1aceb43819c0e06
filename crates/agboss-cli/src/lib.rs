//! The command line of agboss: the subcommands a program mounts in its own command line
//! (`describe`; `g mcp`, which generates the `#[mcp_tool]`s of an MCP server; `pending`,
//! `approve`, `refuse`, `reply`, `answer`, `cancel`, which list and answer pauses; and `worker`,
//! which drives the store's executions that can go on), and the `agboss` program (`g mcp`,
//! `new`) for what needs no application.
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
//! #[tokio::main]
//! async fn main() -> ExitCode {
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
//!         MyCommand::Agboss(command) => command.run(&app).await,
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
//! The pause subcommands read the application's store, so a second process answers what the
//! first one left waiting (docs/pauses.md), and the run goes on in the process that answers:
//!
//! ```text
//! myapp pending                        # the pauses you answer as a thread's owner ($AGBOSS_USER, $USER)
//! myapp pending --all --json           # every open pause, as JSON
//! myapp approve 3f9c0a...              # run the call; the run goes on here
//! myapp refuse 3f9c0a... "not today"   # the model reads the reason
//! myapp reply 3f9c0a... "yes, go on"   # read by the role's reply interpreter
//! myapp answer 3f9c0a... '{"date": "2026-12-01"}' --as alice
//! ```
//!
//! `mcp pins` lists the pinned definitions of the application's MCP server tools, and `mcp
//! approve <server> <tool>` approves one its server changed (docs/mcp.md, "Pinned definitions"):
//!
//! ```text
//! myapp mcp pins
//! myapp mcp approve notes-fs read_text_file --as alice
//! ```
//!
//! An answer says first that it was taken and journaled, then each call that ran after it,
//! then how the run went on, each on its own line; a run that fails after the answer prints
//! its own code on standard error (the answer stays taken). While the run goes on, standard
//! error shows its calls as `worker` does (a spinner on a terminal, plain lines elsewhere):
//!
//! ```text
//! pause 3f9c0a...: approved by alice; the answer is journaled in execution 0193...
//!   · note-save-tool -> {"total":1}
//! error: the run went on and failed: [answer.empty] agent `notes`: the model ...
//! ```
//!
//! A program whose user, when the environment names none, is one of its own runs the
//! subcommands for that user ([`Command::run_as`], with [`current_user_or`] deciding for both).
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
#[cfg(feature = "knowledge")]
pub use knowledge::KnowledgeCommand;
pub use new::{AgbossSource, New, NewError};
pub use pauses::{
    Answerer, PauseCommand, USER_VARIABLES, current_user, current_user_or, render as render_pause,
};
#[cfg(feature = "mcp")]
pub use pins::McpCommand;
pub use worker::WorkerArgs;

mod describe;
#[cfg(feature = "knowledge")]
mod knowledge;
mod new;
mod pauses;
#[cfg(feature = "mcp")]
mod pins;
mod progress;
mod worker;

use std::ffi::OsString;
use std::process::ExitCode;

use agboss_core::app::Application;
use agboss_core::base::Env;
use agboss_core::describe::Level;
use clap::{Args, Parser, Subcommand};
use describe::{describe, level};
use pauses::Printed;

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
        /// Print what is likely a mistake, each finding with its code and level (with `--json`:
        /// the document, whose `findings` list them), and fail when one is at `--fail-on` or
        /// above.
        #[arg(long)]
        check: bool,
        /// With `--check`: the lowest level that fails the command: `note`, `warning` or
        /// `error`.
        #[arg(long, value_name = "LEVEL", default_value = "warning", value_parser = level)]
        fail_on: Level,
    },
    /// Generate code: `g mcp` writes the `#[mcp_tool]`s of an MCP server's tools.
    #[cfg(feature = "mcp")]
    #[command(subcommand, alias = "generate")]
    G(Generate),
    /// `pending`, `approve`, `refuse`, `reply`, `answer`, `cancel`: the pauses in the
    /// application's store, listed and answered from any process that opens it.
    #[command(flatten)]
    Pauses(PauseCommand),
    /// `mcp pins`, `mcp approve <server> <tool>`: the pinned definitions of the application's
    /// MCP server tools, listed, and a changed one approved.
    #[cfg(feature = "mcp")]
    #[command(subcommand)]
    Mcp(McpCommand),
    /// `knowledge index [NAMES..]`, `knowledge search NAME QUERY`: the indexes of the
    /// application's knowledge bases over a folder, brought up to date, and searched by hand.
    #[cfg(feature = "knowledge")]
    #[command(subcommand)]
    Knowledge(knowledge::KnowledgeCommand),
    /// Work on the store's executions: claim what can go on (new runs, answered pauses, what a
    /// stopped instance left) and drive it, until Ctrl-C. Several workers share one store.
    Worker(WorkerArgs),
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
    /// Whether the subcommand reads the application: `describe` and the pause subcommands do,
    /// `g mcp` does not.
    pub fn needs_application(&self) -> bool {
        match self {
            Command::Describe { .. } | Command::Pauses(_) | Command::Worker(_) => true,
            #[cfg(feature = "mcp")]
            Command::Mcp(_) => true,
            #[cfg(feature = "knowledge")]
            Command::Knowledge(_) => true,
            #[cfg(feature = "mcp")]
            Command::G(_) => false,
        }
    }

    /// Runs a subcommand that needs no application (`g mcp`), before one is built; `None` for
    /// one that does (`describe`, the pause subcommands), which [`run`](Self::run) runs.
    pub fn run_without_application(&self) -> Option<ExitCode> {
        match self {
            Command::Describe { .. } | Command::Pauses(_) | Command::Worker(_) => None,
            #[cfg(feature = "mcp")]
            Command::Mcp(_) => None,
            #[cfg(feature = "knowledge")]
            Command::Knowledge(_) => None,
            #[cfg(feature = "mcp")]
            Command::G(Generate::Mcp(mcp)) => Some(mcp.run()),
        }
    }

    /// Runs the subcommand on `app`: what it prints goes to standard output, an error to
    /// standard error with a failing exit code. `g mcp` does not touch `app`: it writes its
    /// module to `--out` or standard output. The pause subcommands answer as `--as` says, else
    /// as [`current_user`] finds in the process's environment.
    pub async fn run(&self, app: &Application) -> ExitCode {
        self.run_for(app, current_user(&Env::process())).await
    }

    /// [`run`](Self::run), the current user being `user`: for a program whose user, when the
    /// environment names none, is one of its own (`current_user_or(&env, "desk-user")`), so
    /// that `pending` lists the pauses of the runs it started and an answer comes from their
    /// owner.
    pub async fn run_as(&self, app: &Application, user: &str) -> ExitCode {
        self.run_for(app, Some(user.to_owned())).await
    }

    async fn run_for(&self, app: &Application, user: Option<String>) -> ExitCode {
        if let Some(code) = self.run_without_application() {
            return code;
        }
        // A worker prints as it goes, for as long as it runs.
        if let Command::Worker(worker) = self {
            let report = worker.run(app).await;
            return if report.failed.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
        let printed = self.printed(app, &Env::process(), user.as_deref()).await;
        print!("{}", printed.text);
        eprint!("{}", printed.error);
        if printed.failed {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }

    /// What the subcommand prints: its output, then its error as `error: ..` (an answer's
    /// subcommand says the answer was taken before how the run went on, failure included).
    /// For `g mcp`, the generated module (whatever `--out` says). `env` stands for the
    /// process's environment (the variables, and who the current user is).
    pub async fn output(&self, app: &Application, env: &Env) -> String {
        let printed = self.printed(app, env, current_user(env).as_deref()).await;
        printed.text + &printed.error
    }

    /// [`output`](Self::output), the current user being `user` (see [`run_as`](Self::run_as)).
    pub async fn output_as(&self, app: &Application, env: &Env, user: &str) -> String {
        let printed = self.printed(app, env, Some(user)).await;
        printed.text + &printed.error
    }

    async fn printed(&self, app: &Application, env: &Env, user: Option<&str>) -> Printed {
        // Only `g mcp` reads variables.
        #[cfg(not(feature = "mcp"))]
        let _ = env;
        match self {
            #[cfg(feature = "mcp")]
            Command::G(Generate::Mcp(mcp)) => match mcp.generate(env) {
                Ok(generated) => Printed::ok(generated.code),
                Err(e) => Printed::error(e),
            },
            Command::Describe {
                json,
                check,
                fail_on,
            } => describe(app, *json, check.then_some(*fail_on)).await,
            Command::Pauses(command) => command.run(app, user).await,
            #[cfg(feature = "mcp")]
            Command::Mcp(command) => command.run(app, user).await,
            #[cfg(feature = "knowledge")]
            Command::Knowledge(command) => command.run(app).await,
            Command::Worker(worker) => {
                let mut out = Vec::new();
                let report = worker.work(app, Default::default(), &mut out).await;
                let mut text = String::from_utf8_lossy(&out).into_owned();
                text.push_str(&worker::summary(&report));
                text.push('\n');
                if report.failed.is_empty() {
                    Printed::ok(text)
                } else {
                    // As before: a worker that saw failures prints its whole report as an error.
                    Printed {
                        text: String::new(),
                        error: text,
                        failed: true,
                    }
                }
            }
        }
    }
}
