//! Installing the pinned npm projects the tests run: `npm ci` in `services/mcp` (the servers)
//! or `services/conformance` (the conformance suite and its Node.js 22) when the install is
//! missing or older than the lock file. The tests call it on first use (through
//! [`servers_dir`] and [`conformance_dir`]), so `cargo test` needs nothing run before it.
//!
//! [`servers_dir`]: crate::servers_dir
//! [`conformance_dir`]: crate::conformance::conformance_dir

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::SystemTime;

use crate::{EVERYTHING_SCRIPT, FILESYSTEM_SCRIPT};

/// The oldest Node.js major version the pinned servers support (their dependencies ask for 20).
const NODE_MIN_MAJOR: u32 = 20;

/// An npm project of the workspace that the tests install.
pub(crate) struct Project {
    /// Its folder, relative to the workspace: `services/mcp`.
    pub(crate) folder: &'static str,
    /// What it holds, for messages: "the MCP test servers".
    pub(crate) what: &'static str,
    /// The files a complete install leaves, relative to the folder.
    pub(crate) entries: &'static [&'static str],
}

/// The pinned MCP servers.
pub(crate) const SERVERS: Project = Project {
    folder: "services/mcp",
    what: "the MCP test servers",
    entries: &[EVERYTHING_SCRIPT, FILESYSTEM_SCRIPT],
};

/// Installs the pinned servers into `dir/node_modules` (`dir` is `services/mcp`) with `npm ci`,
/// unless they are there and up to date with the lock file. Checks node, which the tests run,
/// even when nothing needs installing. Processes that call it at once (test binaries run in
/// parallel) take turns on a lock file, so one installs and the others find it done.
///
/// # Errors
///
/// What to do: node or npm missing or too old, `npm ci` failing (with its output on stderr).
pub fn install(dir: &Path) -> Result<(), String> {
    install_project(dir, &SERVERS)
}

/// Installs `project`, whose folder is `dir`, as [`install`] installs the servers.
pub(crate) fn install_project(dir: &Path, project: &Project) -> Result<(), String> {
    let folder = project.folder;
    let lock = dir.join("package-lock.json");
    if !lock.is_file() {
        return Err(format!("{} is missing", lock.display()));
    }
    check_node()?;
    if installed(dir, project)? {
        return Ok(());
    }
    let turn = File::create(dir.join(".install.lock"))
        .and_then(|file| file.lock().map(|()| file))
        .map_err(|e| {
            format!(
                "could not lock {}: {e}",
                dir.join(".install.lock").display()
            )
        })?;
    // Another process may have installed while this one waited.
    if installed(dir, project)? {
        return Ok(());
    }

    version_of("npm")?;
    eprintln!("$ npm ci --no-audit --no-fund    (in {folder})");
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(dir)
        .stdin(Stdio::null())
        // npm's report goes to stderr: stdout belongs to the caller (`cargo xtask services`
        // prints the environment there).
        .stdout(std::io::stderr())
        .status()
        .map_err(|e| format!("could not run npm: {e}; {NODE_HINT}"))?;
    if !status.success() {
        return Err(format!(
            "`npm ci` in {folder} failed ({status}): see npm's output above; {} need the npm \
             registry (run `npm ci --prefix {folder}` to retry)",
            project.what
        ));
    }
    if !installed(dir, project)? {
        return Err(format!(
            "`npm ci` in {folder} succeeded but {} is still missing: is \
             {folder}/package-lock.json up to date with package.json?",
            missing_entry(dir, project).unwrap_or_default()
        ));
    }
    drop(turn);
    Ok(())
}

/// Whether `npm ci` has completed since the lock file and package.json last changed, and the entry
/// scripts are there. npm writes `node_modules/.package-lock.json` at the end of an install, so
/// an interrupted install counts as not installed.
fn installed(dir: &Path, project: &Project) -> Result<bool, String> {
    let Some(stamp) = modified(&dir.join("node_modules").join(".package-lock.json"))? else {
        return Ok(false);
    };
    for manifest in ["package-lock.json", "package.json"] {
        if modified(&dir.join(manifest))?.is_some_and(|changed| changed > stamp) {
            return Ok(false);
        }
    }
    Ok(missing_entry(dir, project).is_none())
}

fn missing_entry(dir: &Path, project: &Project) -> Option<String> {
    project
        .entries
        .iter()
        .find(|entry| !dir.join(entry).is_file())
        .map(|entry| format!("{}/{entry}", project.folder))
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

const NODE_HINT: &str = "the tests' npm projects (the MCP servers, the conformance suite) need \
                         Node.js 20 or newer with npm on PATH to install and run (on Debian: \
                         `apt-get install nodejs npm`)";

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
