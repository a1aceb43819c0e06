//! The server the tests share: found answering, or started, under a lock file in the
//! workspace's `target/agboss-pg` (see the crate's documentation), and stopped by its watchdog
//! once no test process uses it ([`watchdog`](crate::watchdog)).

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::cluster::{self, Cluster};
use crate::watchdog;
use crate::{PREFIX, WHAT_TO_DO, execute, query_texts, wait_until_it_answers};

/// The environment variable that puts the shared server's folder elsewhere than the
/// workspace's `target/agboss-pg` (its data folder, log, locks and `url` file).
pub const DIR_VAR: &str = "AGBOSS_PG_DIR";

/// The folder of the shared server (its data folder, log, lock and `url` file) when this
/// crate starts it: the workspace's `target/agboss-pg` (see [`url`](crate::url)).
///
/// # Panics
///
/// When who this process runs as cannot be told.
pub fn shared_folder() -> PathBuf {
    shared_home().unwrap_or_else(|why| panic!("PostgreSQL for the tests: {why}; {WHAT_TO_DO}"))
}

/// [`DIR_VAR`] when set; else the workspace's `target/agboss-pg`, or, when the `postgres`
/// account the server runs as (this process being root) cannot reach it, a folder of the
/// temporary folder named after the workspace.
fn shared_home() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(DIR_VAR).filter(|dir| !dir.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")));
    let home = workspace.join("target").join("agboss-pg");
    if cluster::Account::for_this_process()?.reaches(&home) {
        return Ok(home);
    }
    let name: String = workspace
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    Ok(std::env::temp_dir().join(format!("agboss-pg{name}")))
}

/// Finds the shared server answering, or starts it, under the lock file; then sweeps the
/// databases test processes that are gone left behind.
pub(crate) fn shared_server() -> Result<String, String> {
    let home = shared_home()?;
    std::fs::create_dir_all(&home).map_err(|e| format!("cannot make {}: {e}", home.display()))?;
    let lock_path = home.join(".lock");
    let _turn = File::create(&lock_path)
        .and_then(|file| file.lock().map(|()| file))
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    let cluster = Cluster::new(&home)?;
    // From here until this process ends, the server is in use: its watchdog leaves it alone.
    watchdog::use_server(&cluster)?;
    let url_of = |port: u16| format!("postgres://agboss@127.0.0.1:{port}/postgres");
    let mut running = None;
    if let Some(port) = cluster.running_port() {
        if execute(&url_of(port), "SELECT 1").is_ok() {
            running = Some(port);
        } else {
            // A server that runs but does not answer (stuck, or not on loopback): start anew.
            cluster.stop("immediate")?;
        }
    }
    let port = match running {
        Some(port) => port,
        None => {
            if !cluster.initialized() {
                cluster.init()?;
            }
            start_on_a_free_port(&cluster)?
        }
    };
    let url = url_of(port);
    wait_until_it_answers(&url)?;
    watchdog::watch(&cluster)?;
    let url_file = home.join("url");
    std::fs::write(&url_file, format!("{url}\n"))
        .map_err(|e| format!("cannot write {}: {e}", url_file.display()))?;
    sweep(&url);
    Ok(url)
}

fn start_on_a_free_port(cluster: &Cluster) -> Result<u16, String> {
    let mut last = String::new();
    // Another program may take the port between the probe and the start: try a few.
    for _ in 0..3 {
        let port = cluster::free_port()?;
        match cluster.start(port) {
            Ok(()) => return Ok(port),
            Err(why) => last = why,
        }
    }
    Err(last)
}

/// Drops the test databases whose process is gone (a test that panicked, or was killed).
fn sweep(url: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let sql = format!("SELECT datname FROM pg_database WHERE datname LIKE '{PREFIX}%'");
    let Ok(names) = query_texts(url, &sql) else {
        return;
    };
    for name in names.into_iter().flatten() {
        let pid = name
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split('_').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
            let _ = execute(url, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        }
    }
}
