//! `cargo xtask <task>`: the one entry point for people and CI.
//!
//! - `test`: the whole test suite, `cargo test --workspace --all-features` (the README's test
//!   command, which `.ci/run` runs). The tests install what they need themselves on first use
//!   (the MCP servers: see docs/mcp-servers.md).
//! - `ci`: formatting, clippy with warnings denied, rustdoc with warnings denied, then `test`:
//!   what `.ci/run` does.
//! - `features`: clippy and the facade's tests with no features, then with each feature alone
//!   (`.ci/run` runs it after `ci`'s cheap gates).
//! - `bless`: rewrites the trybuild `.stderr` and insta snapshots; review the diff after.
//! - `bench`: runs the criterion benches whose figures docs/performance.md records.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let task = env::args().nth(1).unwrap_or_default();
    let result = match task.as_str() {
        "test" => test(),
        "ci" => ci(),
        "bless" => bless(),
        "bench" => bench(),
        "features" => features(),
        _ => {
            eprintln!("usage: cargo xtask <test | ci | features | bless | bench>");
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
    cargo(&["test", "--workspace", "--all-features"], &[])
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

/// The facade's features; each must build, pass clippy and pass the facade's tests alone.
const FEATURES: &[&str] = &[
    "mcp",
    "openai",
    "anthropic",
    "gemini",
    "config",
    "cli",
    "sqlite",
    "postgres",
    "testing",
];

fn features() -> Result<(), String> {
    let sets = std::iter::once(None).chain(FEATURES.iter().map(Some));
    for feature in sets {
        let mut args = vec!["-p", "agboss", "--no-default-features"];
        if let Some(feature) = feature {
            args.extend(["--features", feature]);
        }
        let clippy: Vec<&str> = ["clippy"]
            .into_iter()
            .chain(args.iter().copied())
            .chain(["--all-targets", "--", "-D", "warnings"])
            .collect();
        cargo(&clippy, &[])?;
        let test: Vec<&str> = ["test"].into_iter().chain(args.iter().copied()).collect();
        cargo(&test, &[])?;
    }
    Ok(())
}

fn bless() -> Result<(), String> {
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
        &[("TRYBUILD", "overwrite"), ("INSTA_UPDATE", "always")],
    )
}

fn bench() -> Result<(), String> {
    cargo(&["bench", "-p", "agboss"], &[])?;
    // The MCP bench calls the reference servers the tests use (installed on first use).
    cargo(&["bench", "-p", "agboss-tests", "--bench", "mcp"], &[])
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
