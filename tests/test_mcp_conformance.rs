//! agboss's MCP client against the official MCP conformance suite (npm
//! `@modelcontextprotocol/conformance`, run on the Node.js 22 that `services/conformance`
//! pins; installed on first use). The suite starts a scenario server, runs
//! `bin/mcp_conformance_client.rs` (an application written through the facade) with its URL,
//! and checks what the server saw. The scenarios agboss supports must pass; the `auth/*`
//! scenarios must be exactly those docs/mcp.md lists, each doing what the docs say: passing
//! (both OAuth grants, feature `mcp-oauth`) or failing (the JWT extensions, and one whose
//! metadata a client must refuse), each failure with its reason. A scenario that starts or
//! stops passing is to be moved in the docs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Mutex;

use mcp_servers::conformance::{ScenarioRun, client_scenarios, run_client_scenario};

/// The client scenarios agboss passes, as docs/mcp.md says.
const PASSING: [&str; 4] = [
    "initialize",
    "tools_call",
    "sse-retry",
    "elicitation-sep1034-client-defaults",
];

/// One scenario at a time: `sse-retry` measures how long the client waits before reconnecting.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn run(scenario: &str) -> ScenarioRun {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let client = Path::new(env!("CARGO_BIN_EXE_mcp-conformance-client"));
    let run = run_client_scenario(client, scenario);
    println!("{}", run.summary());
    run
}

fn passes(scenario: &str) {
    let run = run(scenario);
    assert!(
        run.passed(),
        "conformance scenario {scenario} did not pass ({}); the suite printed:\n{}",
        run.reason(),
        run.output
    );
}

#[test]
fn initialize() {
    passes("initialize");
}

#[test]
fn tools_call() {
    passes("tools_call");
}

#[test]
fn sse_retry() {
    passes("sse-retry");
}

#[test]
fn elicitation_defaults_are_sent_when_the_role_accepts_with_no_fields() {
    passes("elicitation-sep1034-client-defaults");
}

#[test]
fn the_suite_still_has_the_scenarios_this_file_runs() {
    let listed = client_scenarios();
    for scenario in PASSING {
        assert!(
            listed.iter().any(|s| s == scenario),
            "{scenario} not in {listed:?}"
        );
    }
}

/// Whether docs/mcp.md says each `auth/*` scenario passes, from its table's rows
/// (`` | `auth/...` | passes | .. | `` or `fails`).
fn documented_auth() -> BTreeMap<String, bool> {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/mcp.md"))
        .expect("docs/mcp.md");
    docs.lines()
        .filter_map(|line| line.strip_prefix("| `auth/"))
        .filter_map(|rest| {
            let (name, rest) = rest.split_once('`')?;
            let said = rest.trim_start_matches([' ', '|']);
            let passes = said.starts_with("passes");
            (passes || said.starts_with("fails")).then(|| (format!("auth/{name}"), passes))
        })
        .collect()
}

#[test]
fn the_auth_scenarios_do_what_the_docs_say() {
    let auth: BTreeSet<String> = client_scenarios()
        .into_iter()
        .filter(|s| s.starts_with("auth/"))
        .collect();
    let documented = documented_auth();
    let mut table = vec![format!("{:<48} result", "scenario")];
    let mut unexpected = Vec::new();
    for scenario in &auth {
        let run = run(scenario);
        let result = if run.passed() {
            "passes".to_owned()
        } else {
            format!("does not pass: {}", run.reason())
        };
        if documented
            .get(scenario)
            .is_some_and(|&passes| passes != run.passed())
        {
            unexpected.push(format!("{scenario}: {result}"));
        }
        table.push(format!("{scenario:<48} {result}"));
    }
    println!("{}", table.join("\n"));
    assert_eq!(
        auth,
        documented.keys().cloned().collect::<BTreeSet<_>>(),
        "the suite's auth scenarios (left) are not the ones docs/mcp.md lists (right)"
    );
    assert!(
        unexpected.is_empty(),
        "these auth scenarios no longer do what docs/mcp.md says: {unexpected:#?}"
    );
}
