//! What the tests need beside cargo, installed by `cargo xtask test` before the suite runs.
//!
//! - The real MCP servers (npm, pinned in `services/mcp/package-lock.json`): installed into
//!   `services/mcp/node_modules` with `npm ci` when missing or older than the lock file, and
//!   announced to the tests as `AGBOSS_MCP_SERVERS`. The tests start them themselves, through the
//!   `mcp-servers` support crate; see docs/mcp-servers.md.
//!
//! PostgreSQL joins here with the issue that needs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

/// The variable that tells the tests where the MCP servers are installed.
pub const MCP_SERVERS_VAR: &str = "AGBOSS_MCP_SERVERS";

/// The oldest Node.js major version the pinned servers support (their dependencies ask for 20).
const NODE_MIN_MAJOR: u32 = 20;

/// The entry scripts the tests run, relative to `services/mcp`.
const ENTRY_SCRIPTS: [&str; 2] = [
    "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
];

/// Installs what the tests need and returns the environment variables to hand the test
/// processes.
pub fn prepare(root: &Path) -> Result<Vec<(&'static str, String)>, String> {
    let mcp = mcp_servers(root)?;
    let mcp = mcp
        .to_str()
        .ok_or_else(|| format!("the MCP servers' path is not UTF-8: {}", mcp.display()))?
        .to_owned();
    Ok(vec![(MCP_SERVERS_VAR, mcp)])
}

/// Installs the MCP servers into `services/mcp/node_modules` unless they are there and up to
/// date, and returns the absolute path of `services/mcp`.
fn mcp_servers(root: &Path) -> Result<PathBuf, String> {
    let dir = root.join("services").join("mcp");
    let lock = dir.join("package-lock.json");
    if !lock.is_file() {
        return Err(format!("{} is missing", lock.display()));
    }
    // The tests run node, so it is checked even when nothing needs installing.
    check_node()?;
    if installed(&dir)? {
        return Ok(dir);
    }

    version_of("npm")?;
    eprintln!("$ npm ci --no-audit --no-fund    (in services/mcp)");
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&dir)
        .stdin(Stdio::null())
        // npm's report goes with the xtask's own messages, so that stdout holds only what
        // `cargo xtask services` prints.
        .stdout(std::io::stderr())
        .status()
        .map_err(|e| format!("could not run npm: {e}; {NODE_HINT}"))?;
    if !status.success() {
        return Err(format!(
            "`npm ci` in services/mcp failed ({status}): see npm's output above; the MCP test \
             servers need the npm registry (run `npm ci --prefix services/mcp` to retry)"
        ));
    }
    if !installed(&dir)? {
        return Err(format!(
            "`npm ci` in services/mcp succeeded but {} is still missing: is \
             services/mcp/package-lock.json up to date with package.json?",
            missing_entry(&dir).unwrap_or_default()
        ));
    }
    Ok(dir)
}

/// Whether `npm ci` has completed since the lock file and package.json last changed, and the entry
/// scripts are there. npm writes `node_modules/.package-lock.json` at the end of an install, so
/// an interrupted install counts as not installed.
fn installed(dir: &Path) -> Result<bool, String> {
    let Some(stamp) = modified(&dir.join("node_modules").join(".package-lock.json"))? else {
        return Ok(false);
    };
    for manifest in ["package-lock.json", "package.json"] {
        if modified(&dir.join(manifest))?.is_some_and(|changed| changed > stamp) {
            return Ok(false);
        }
    }
    Ok(missing_entry(dir).is_none())
}

fn missing_entry(dir: &Path) -> Option<String> {
    ENTRY_SCRIPTS
        .iter()
        .find(|script| !dir.join(script).is_file())
        .map(|script| format!("services/mcp/{script}"))
}

fn modified(path: &Path) -> Result<Option<SystemTime>, String> {
    match path.metadata() {
        Ok(meta) => meta
            .modified()
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

const NODE_HINT: &str = "the MCP test servers need Node.js 20 or newer with npm on PATH \
                         (on Debian: `apt-get install nodejs npm`)";

/// Fails with what to install when node is missing or too old.
fn check_node() -> Result<(), String> {
    let node = version_of("node")?;
    let major = node
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|major| major.parse::<u32>().ok());
    match major {
        Some(major) if major >= NODE_MIN_MAJOR => Ok(()),
        _ => Err(format!("node {} is too old: {NODE_HINT}", node.trim())),
    }
}

fn version_of(program: &str) -> Result<String, String> {
    let output = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not run `{program} --version`: {e}; {NODE_HINT}"))?;
    if !output.status.success() {
        return Err(format!(
            "`{program} --version` failed ({}): {NODE_HINT}",
            output.status
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
