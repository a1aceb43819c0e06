//! The examples run as users run them: their own processes, their standard input piped.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `cargo run -q -p agboss --example <name> -- <args>` with `stdin` piped in; its
/// standard output, and whether it succeeded.
fn example(name: &str, args: &[&str], stdin: &str) -> (String, bool) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut child = Command::new(cargo)
        .args(["run", "-q", "-p", "agboss", "--example", name, "--"])
        .args(args)
        .current_dir(workspace)
        .env("AGBOSS_FORBID_REAL_MODELS", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cargo runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success() || !stdout.is_empty(),
        "the example did not run: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (stdout, output.status.success())
}

#[test]
fn refunds_at_the_terminal_follow_the_answer_typed() {
    let (out, ok) = example("refunds", &["terminal"], "y\n");
    assert!(ok, "{out}");
    assert!(out.contains("Approve `refund-card-at-terminal-tool` with {\"order_id\":\"A-1001\",\"amount_cents\":4200}?"), "{out}");
    assert!(
        out.contains(
            "· refund-card-at-terminal-tool -> {\"status\":\"refunded 4200 cents for A-1001\"}"
        ),
        "{out}"
    );

    let (out, ok) = example("refunds", &["terminal"], "n not this month\n");
    assert!(ok, "{out}");
    assert!(
        out.contains(
            "· refund-card-at-terminal-tool -> Tool error: the call was refused: not this month"
        ),
        "{out}"
    );
}

#[test]
fn refunds_through_the_inbox_complete_when_the_manager_approves() {
    let (out, ok) = example("refunds", &[], "");
    assert!(ok, "{out}");
    assert!(
        out.contains("pending for the thread's owner: 0"),
        "a channel's pause is not listed: {out}"
    );
    assert!(
        out.contains("finance inbox: Refund 4200 cents for order A-1001? (pause "),
        "{out}"
    );
    assert!(
        out.contains("cashier -> Done: the refund of 42.00 for order A-1001 went through."),
        "{out}"
    );
}
