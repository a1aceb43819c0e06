//! The real MCP servers agboss's tests run against, and how to start them.
//!
//! `services/mcp` pins two npm packages, `@modelcontextprotocol/server-everything` and
//! `@modelcontextprotocol/server-filesystem`. The first test that needs them installs them with
//! `npm ci` ([`install`]), so `cargo test` needs nothing run before it; `AGBOSS_MCP_SERVERS`
//! points the tests at an install made elsewhere instead (see docs/mcp-servers.md). This crate
//! finds them and gives a test what it needs to start one:
//!
//! - over stdio, the command and arguments, for the MCP client under test to spawn:
//!   [`everything_stdio`], [`filesystem_stdio`];
//! - over streamable HTTP, a running server on `127.0.0.1` that stops when dropped:
//!   [`HttpServer::start_everything`];
//! - [`node_pids_of`], to check that no server process is left behind.
//!
//! ```no_run
//! # async fn example() {
//! let (command, args) = mcp_servers::everything_stdio();
//! // ... have the client spawn `command` with `args` ...
//!
//! let server = mcp_servers::HttpServer::start_everything().await;
//! let url = server.url(); // http://127.0.0.1:<port>/mcp
//! // ... point the client at url ...
//! let pid = server.pid();
//! drop(server); // kills and reaps it
//! assert!(!mcp_servers::node_pids_of(mcp_servers::EVERYTHING_SCRIPT).contains(&pid));
//! # }
//! ```
//!
//! Nothing here skips: when the servers cannot be installed or node is missing, these functions
//! panic saying why and what to do. Never call server-everything's `get-env` tool: it answers with the server's environment.

use std::env;
use std::fs;
use std::io::Read;
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::Duration;

use tokio::net::TcpStream;

pub mod conformance;
mod install;

pub use install::install;
use tokio::time::{Instant, sleep};

/// The environment variable that names a directory the servers are already installed in
/// (like `services/mcp`); unset, the workspace's `services/mcp` is used and installed.
pub const SERVERS_VAR: &str = "AGBOSS_MCP_SERVERS";

/// server-everything's entry script, relative to [`servers_dir`]; also a fragment of its
/// processes' command lines for [`node_pids_of`].
pub const EVERYTHING_SCRIPT: &str =
    "node_modules/@modelcontextprotocol/server-everything/dist/index.js";

/// server-filesystem's entry script, relative to [`servers_dir`]; also a fragment of its
/// processes' command lines for [`node_pids_of`].
pub const FILESYSTEM_SCRIPT: &str =
    "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js";

/// The Node preload that binds servers listening without a host to `127.0.0.1`, relative to
/// [`servers_dir`].
pub const LOOPBACK_PRELOAD: &str = "bind-loopback.cjs";

/// What a test that finds the servers missing says.
const NOT_INSTALLED: &str = "MCP test servers are not installed: unset AGBOSS_MCP_SERVERS to \
                             have the tests install them into services/mcp (or run `npm ci \
                             --prefix services/mcp`)";

/// How long [`HttpServer::start_everything`] waits for the server to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// How much of a server's output [`HttpServer`] keeps (the latest bytes).
const OUTPUT_LIMIT: usize = 64 * 1024;

/// The directory the MCP servers are installed in: `AGBOSS_MCP_SERVERS` when set (used as it
/// is), else the workspace's `services/mcp`, installed first if needed (once per process).
///
/// # Panics
///
/// When the install fails (node or npm missing, no registry), with what to do; when the entry
/// scripts or the loopback preload are not there, with "MCP test servers are not installed: ...".
pub fn servers_dir() -> PathBuf {
    let dir = match env::var_os(SERVERS_VAR) {
        Some(dir) if !dir.is_empty() => {
            std::path::absolute(&dir).unwrap_or_else(|_| PathBuf::from(dir))
        }
        _ => {
            static INSTALLED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
            let installed = INSTALLED.get_or_init(|| {
                let dir = workspace_services();
                install(&dir).map(|()| dir)
            });
            match installed {
                Ok(dir) => dir.clone(),
                Err(why) => panic!("the MCP test servers could not be installed: {why}"),
            }
        }
    };
    check_installed(&dir);
    dir
}

/// `services/mcp` in the workspace this crate was built from.
fn workspace_services() -> PathBuf {
    workspace_folder("mcp")
}

/// `services/<name>` in the workspace this crate was built from: the npm project there.
pub(crate) fn workspace_folder(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|dir| dir.join("services").join(name))
        .find(|dir| dir.join("package.json").is_file())
        .unwrap_or_else(|| {
            panic!(
                "no services/{name}/package.json above {}",
                env!("CARGO_MANIFEST_DIR")
            )
        })
}

fn check_installed(dir: &Path) {
    for file in [EVERYTHING_SCRIPT, FILESYSTEM_SCRIPT, LOOPBACK_PRELOAD] {
        let path = dir.join(file);
        assert!(
            path.is_file(),
            "{NOT_INSTALLED} ({} is missing)",
            path.display()
        );
    }
}

/// The absolute path of the `node` found on `PATH`.
///
/// # Panics
///
/// When there is no executable `node` on `PATH`.
pub fn node() -> String {
    static NODE: OnceLock<String> = OnceLock::new();
    NODE.get_or_init(|| {
        let path = env::var_os("PATH").unwrap_or_default();
        env::split_paths(&path)
            .map(|dir| dir.join("node"))
            .find(|candidate| is_executable(candidate))
            .and_then(|node| std::path::absolute(node).ok())
            .map(|node| utf8(&node))
            .unwrap_or_else(|| {
                panic!(
                    "node is not on PATH: the MCP test servers need Node.js 20 or newer; install \
                     it, then run the tests again"
                )
            })
    })
    .clone()
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

pub(crate) fn utf8(path: &Path) -> String {
    path.to_str()
        .unwrap_or_else(|| panic!("path is not UTF-8: {}", path.display()))
        .to_owned()
}

/// The command (the absolute path of `node`) and arguments that start server-everything over
/// stdio.
///
/// # Panics
///
/// As [`servers_dir`] and [`node`] do.
pub fn everything_stdio() -> (String, Vec<String>) {
    let script = servers_dir().join(EVERYTHING_SCRIPT);
    (node(), vec![utf8(&script), "stdio".to_owned()])
}

/// The command (the absolute path of `node`) and arguments that start server-filesystem over
/// stdio, allowed to read and write under `root` only.
///
/// # Panics
///
/// As [`servers_dir`] and [`node`] do, and when `root` is not UTF-8.
pub fn filesystem_stdio(root: &Path) -> (String, Vec<String>) {
    let script = servers_dir().join(FILESYSTEM_SCRIPT);
    (node(), vec![utf8(&script), utf8(root)])
}

/// A server-everything process serving streamable HTTP on `127.0.0.1`, killed and reaped when
/// dropped.
///
/// It runs as `node --require bind-loopback.cjs <server-everything> streamableHttp` with `PORT`
/// set, so it listens on the loopback interface only, and with an environment of `PATH` and
/// `PORT` alone, so it holds nothing of the test's environment. Its standard output and error are
/// kept (the latest 64 KiB) for [`HttpServer::output`].
#[derive(Debug)]
pub struct HttpServer {
    child: Child,
    port: u16,
    output: Arc<Mutex<Vec<u8>>>,
}

impl HttpServer {
    /// Starts server-everything over streamable HTTP on a free port of `127.0.0.1` and waits
    /// until it accepts connections. Needs a tokio runtime with I/O and time enabled.
    ///
    /// # Panics
    ///
    /// As [`servers_dir`] and [`node`] do; when the server cannot be spawned, exits, or does not
    /// accept connections within 20 seconds, with its output.
    pub async fn start_everything() -> HttpServer {
        let dir = servers_dir();
        let node = node();
        let mut taken_ports = Vec::new();
        // A free port can be taken by someone else between choosing it and the server binding
        // it; the server then exits with EADDRINUSE and another port is tried.
        for _ in 0..3 {
            let port = free_port();
            let mut server = HttpServer::spawn(&node, &dir, port);
            match server.wait_until_ready().await {
                Ok(()) => return server,
                Err(Failure::PortTaken) => taken_ports.push(port),
                Err(Failure::Other(why)) => panic!(
                    "the MCP test server (server-everything over streamable HTTP on \
                     127.0.0.1:{port}) did not start: {why}; its output:\n{}",
                    server.output()
                ),
            }
        }
        panic!("the MCP test server found its port taken each time it started: {taken_ports:?}")
    }

    fn spawn(node: &str, dir: &Path, port: u16) -> HttpServer {
        let mut child = Command::new(node)
            .arg("--require")
            .arg(dir.join(LOOPBACK_PRELOAD))
            .arg(dir.join(EVERYTHING_SCRIPT))
            .arg("streamableHttp")
            .current_dir(dir)
            .env_clear()
            .env("PATH", env::var_os("PATH").unwrap_or_default())
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("could not spawn `{node}` for the MCP test server: {e}"));
        let output = Arc::new(Mutex::new(Vec::new()));
        if let Some(stdout) = child.stdout.take() {
            keep_output(stdout, Arc::clone(&output));
        }
        if let Some(stderr) = child.stderr.take() {
            keep_output(stderr, Arc::clone(&output));
        }
        HttpServer {
            child,
            port,
            output,
        }
    }

    async fn wait_until_ready(&mut self) -> Result<(), Failure> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(status) = self.exited() {
                // Give the reader threads a moment to take the last of the output.
                sleep(Duration::from_millis(100)).await;
                let output = self.output();
                return Err(
                    if output.contains("EADDRINUSE") || output.contains("already in use") {
                        Failure::PortTaken
                    } else {
                        Failure::Other(format!("it exited ({status})"))
                    },
                );
            }
            if TcpStream::connect((Ipv4Addr::LOCALHOST, self.port))
                .await
                .is_ok()
            {
                // Whoever accepted, the server must still be running for it to be ours.
                return match self.exited() {
                    None => Ok(()),
                    Some(status) => Err(Failure::Other(format!("it exited ({status})"))),
                };
            }
            if Instant::now() >= deadline {
                return Err(Failure::Other(format!(
                    "it did not accept connections within {} seconds",
                    START_TIMEOUT.as_secs()
                )));
            }
            sleep(Duration::from_millis(50)).await;
        }
    }

    /// The server's exit status, if it has exited (and is now reaped).
    fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// The port the server listens on, on `127.0.0.1`.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The MCP endpoint: `http://127.0.0.1:<port>/mcp`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// The server process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server has written to its standard output and error so far (the latest 64 KiB),
    /// for a failing test to show.
    pub fn output(&self) -> String {
        let output = self.output.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&output).into_owned()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        // SIGKILL, then reap, so that neither a process nor a zombie is left.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

enum Failure {
    PortTaken,
    Other(String),
}

/// A port nobody listens on now, on `127.0.0.1`.
fn free_port() -> u16 {
    TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap_or_else(|e| panic!("could not find a free port on 127.0.0.1: {e}"))
}

/// Reads `stream` to its end on a thread of its own, keeping the latest [`OUTPUT_LIMIT`] bytes.
fn keep_output(mut stream: impl Read + Send + 'static, output: Arc<Mutex<Vec<u8>>>) {
    thread::spawn(move || {
        let mut buffer = [0u8; 8192];
        while let Ok(read) = stream.read(&mut buffer) {
            if read == 0 {
                break;
            }
            let mut output = output.lock().unwrap_or_else(|e| e.into_inner());
            output.extend_from_slice(&buffer[..read]);
            if output.len() > OUTPUT_LIMIT {
                let excess = output.len() - OUTPUT_LIMIT;
                output.drain(..excess);
            }
        }
    });
}

/// The ids of the running processes (other than this one) whose command line contains
/// `script_fragment`, such as [`EVERYTHING_SCRIPT`], in increasing order; read from
/// `/proc/*/cmdline`, with the arguments joined by spaces.
///
/// A process that has exited but is not yet reaped (a zombie) has an empty command line and so
/// is not counted: it no longer runs. Nor, for a few milliseconds, is one just spawned: its
/// parent can go on before the kernel has set up the new program's command line, so a test that
/// checks a fresh process is there polls for it.
pub fn node_pids_of(script_fragment: &str) -> Vec<u32> {
    let me = std::process::id();
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
                let args: Vec<String> = cmdline
                    .split(|&byte| byte == 0)
                    .filter(|arg| !arg.is_empty())
                    .map(|arg| String::from_utf8_lossy(arg).into_owned())
                    .collect();
                args.join(" ").contains(script_fragment)
            })
        })
        .collect();
    pids.sort_unstable();
    pids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(
        expected = "MCP test servers are not installed: unset AGBOSS_MCP_SERVERS to have \
                               the tests install them"
    )]
    fn a_directory_without_the_servers_panics_with_what_to_run() {
        check_installed(&env::temp_dir().join("agboss-no-mcp-servers-here"));
    }

    #[test]
    fn node_is_found_as_an_absolute_path() {
        assert!(Path::new(&node()).is_absolute());
    }

    #[test]
    fn this_process_is_not_counted() {
        let me = fs::read(format!("/proc/{}/cmdline", std::process::id())).unwrap();
        let first = String::from_utf8_lossy(me.split(|&b| b == 0).next().unwrap()).into_owned();
        assert!(!node_pids_of(&first).contains(&std::process::id()));
    }
}
