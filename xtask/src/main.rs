//! `cargo xtask <task>`: the one entry point for people and CI.
//!
//! - `test`: starts what the tests need, then runs the whole test suite (unit, behaviour,
//!   compile-fail, doc tests). The README's test command; `.ci/run` runs it too.
//! - `ci`: formatting, clippy with warnings denied, rustdoc with warnings denied, then `test`.
//! - `bless`: rewrites the trybuild `.stderr` and insta snapshots; review the diff after.
//! - `bench`: runs the criterion benches whose figures docs/performance.md records.
//! - `services`: only installs what the tests need (the MCP servers), then prints the
//!   environment `test` hands the tests, as `NAME=value` lines.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod services;

fn main() -> ExitCode {
    let task = env::args().nth(1).unwrap_or_default();
    let result = match task.as_str() {
        "test" => test(),
        "ci" => ci(),
        "bless" => bless(),
        "bench" => bench(),
        "services" => print_services(),
        _ => {
            eprintln!("usage: cargo xtask <test | ci | bless | bench | services>");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask {task}: {message}");
            ExitCode::FAILURE
        }
    }
}

fn test() -> Result<(), String> {
    let services = services::prepare(&root())?;
    let envs: Vec<(&str, &str)> = services.iter().map(|(k, v)| (*k, v.as_str())).collect();
    cargo(
        &["test", "--workspace", "--all-features", "--no-fail-fast"],
        &envs,
    )
}

fn print_services() -> Result<(), String> {
    for (name, value) in services::prepare(&root())? {
        println!("{name}={value}");
    }
    Ok(())
}

fn ci() -> Result<(), String> {
    cargo(&["fmt", "--all", "--check"], &[])?;
    cargo(
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )?;
    cargo(
        &["doc", "--workspace", "--no-deps", "--all-features"],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    test()
}

fn bless() -> Result<(), String> {
    // The generator's snapshot lists a real server's tools.
    let services = services::prepare(&root())?;
    let mut envs: Vec<(&str, &str)> = services.iter().map(|(k, v)| (*k, v.as_str())).collect();
    envs.extend([("TRYBUILD", "overwrite"), ("INSTA_UPDATE", "always")]);
    cargo(
        &[
            "test",
            "-p",
            "agboss-tests",
            "--test",
            "ui",
            "--test",
            "definition",
            "--test",
            "describe",
            "--test",
            "mcp-generate",
        ],
        &envs,
    )
}

fn bench() -> Result<(), String> {
    cargo(&["bench", "-p", "agboss"], &[])?;
    // The MCP bench calls the reference servers the tests use.
    let services = services::prepare(&root())?;
    let envs: Vec<(&str, &str)> = services.iter().map(|(k, v)| (*k, v.as_str())).collect();
    cargo(&["bench", "-p", "agboss-tests", "--bench", "mcp"], &envs)
}

fn cargo(args: &[&str], envs: &[(&str, &str)]) -> Result<(), String> {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("$ cargo {}", args.join(" "));
    let status = Command::new(cargo)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(root())
        .status()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}
