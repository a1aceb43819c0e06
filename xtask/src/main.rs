//! `cargo xtask <task>`: the one entry point for people and CI.
//!
//! - `test`: the whole test suite, `cargo test --workspace --all-features` (the README's test
//!   command, which `.ci/run` runs). The tests install what they need themselves on first use
//!   (the MCP servers: see docs/mcp-servers.md; the MCP conformance suite and its Node.js 22:
//!   see docs/mcp.md).
//! - `ci`: formatting, clippy with warnings denied, rustdoc with warnings denied, then `test`:
//!   what `.ci/run` does.
//! - `features`: clippy and the facade's tests with no features, then with each feature alone
//!   (`.ci/run` runs it after `ci`'s cheap gates).
//! - `bless`: rewrites the trybuild `.stderr` and insta snapshots; review the diff after.
//! - `bench`: runs the criterion benches whose figures docs/performance.md records.
//! - `faults [--long]`: the fault plan's tests (docs/durability.md): the short lane the test
//!   command runs too, or with `--long` the long lane (T1 with 100 kills per boundary, T5's
//!   storm for ten minutes, the differential tests with ten times the sequences). Their figures
//!   land in `target/faults/`.

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
        "faults" => faults(env::args().any(|a| a == "--long")),
        _ => {
            eprintln!(
                "usage: cargo xtask <test | ci | features | bless | bench | faults [--long]>"
            );
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
    "mcp-oauth",
    "openai",
    "anthropic",
    "gemini",
    "config",
    "cli",
    "sqlite",
    "postgres",
    "knowledge",
    "testing",
    "failpoints",
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

fn faults(long: bool) -> Result<(), String> {
    let tests = [
        "durability",
        "faults",
        "recovery",
        "journal-replay",
        "store-conformance",
        "postgres-group-commit",
        "hostile-arguments",
        "tool-timeouts",
        "mcp-faults",
        "mcp-pins",
        "masking",
        "hostile-bytes",
        "huge-results",
    ];
    let mut args = vec!["test", "-p", "agboss-tests", "--all-features"];
    for test in tests {
        args.extend(["--test", test]);
    }
    args.extend(["--", "--nocapture"]);
    let envs: &[(&str, &str)] = if long {
        &[("AGBOSS_FAULTS_LONG", "1")]
    } else {
        &[]
    };
    cargo(&args, envs)
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
