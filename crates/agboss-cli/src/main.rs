//! `agboss`: the command line for what needs no application. `agboss g mcp` writes the
//! `#[mcp_tool]`s of an MCP server's tools (docs/mcp-generate.md); `agboss new <name>` creates a
//! project with one tool, one agent and a test that passes (docs/getting-started.md).
//!
//! A program's own subcommands (`describe`) read its application; they are mounted in that
//! program's command line (`agboss::cli`).

use std::process::ExitCode;

use agboss_cli::{Generate, New};
use clap::Parser;

#[derive(Debug, Parser)]
#[command(name = "agboss", about = "The agboss command line", version)]
enum Cli {
    /// Generate code: `g mcp` writes the `#[mcp_tool]`s of an MCP server's tools.
    #[command(subcommand, alias = "generate")]
    G(Generate),
    /// Create a project: one tool, one agent, a configuration for a local model server, and a
    /// test that passes without one.
    New(New),
}

fn main() -> ExitCode {
    match Cli::parse() {
        Cli::G(Generate::Mcp(mcp)) => mcp.run(),
        Cli::New(new) => new.run(),
    }
}
