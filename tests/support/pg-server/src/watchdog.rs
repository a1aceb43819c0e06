//! When the shared server stops: once no test process has used it for a while.
//!
//! Every process that uses the shared server holds a shared lock on the `users` file beside
//! it, from the moment it asks for the server until it exits (the OS lets go of the lock
//! however the process ends: a pass, a panic, a kill). A watchdog, started beside the server by
//! its first user, looks every second whether it could lock `users` exclusively; once it could
//! for [`idle_secs`] seconds in a row, it takes the start lock (`.lock`, which a process asking
//! for the server holds while it takes its shared lock), looks once more, and stops the server
//! with `pg_ctl stop -m fast`. A process asking for the server afterwards finds it stopped and
//! starts it again, with a watchdog of its own.
//!
//! The watchdog is a small `sh` loop around `flock` (util-linux), in a process group of its own
//! so that a Ctrl-C of the test run does not take it with the tests; it runs as the account
//! the server runs as. One runs per server (it holds `watchdog.lock`); it ends when the server
//! stops, by its hand or another's. Without `flock` on `PATH` there is none, and the server
//! keeps running as before (a warning says so).

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::cluster::Cluster;

/// The environment variable that sets how long the shared server stays up with no test process
/// using it, in whole seconds.
pub const IDLE_VAR: &str = "AGBOSS_PG_IDLE_SECS";

/// How long the shared server stays up with no test process using it, unless
/// [`IDLE_VAR`] says otherwise: long enough for `cargo test` to go from one test binary to the
/// next without stopping it.
pub const IDLE: Duration = Duration::from_secs(10);

/// The watchdog's loop: `$1` the server's home, `$2` its data folder, `$3` `pg_ctl`, `$4` the
/// seconds without users before it stops the server.
const SCRIPT: &str = r#"
home=$1 data=$2 pg_ctl=$3 idle_for=$4
exec 7>>"$home/watchdog.lock" || exit 1
flock -n 7 || exit 0
idle=0
while [ -f "$data/postmaster.pid" ]; do
    sleep 1
    if flock -n -x "$home/users" true; then idle=$((idle + 1)); else idle=0; fi
    # Free at idle_for + 1 looks in a row, a second apart: idle_for seconds at least.
    [ "$idle" -le "$idle_for" ] && continue
    exec 9<"$home/.lock"
    flock -x 9
    if flock -n -x "$home/users" true; then
        echo "$(date): no test process used the server for $idle_for s: stopping it"
        "$pg_ctl" stop -m fast -w -t 60 -D "$data"
        exit 0
    fi
    exec 9<&-
    idle=0
done
"#;

/// How long the server stays up unused: [`IDLE_VAR`], else [`IDLE`].
pub fn idle_secs() -> u64 {
    std::env::var(IDLE_VAR)
        .ok()
        .and_then(|secs| secs.trim().parse().ok())
        .unwrap_or(IDLE.as_secs())
}

/// Takes this process's shared lock on the users file of `cluster` (made if missing), held
/// until the process exits. The caller holds the start lock.
pub(crate) fn use_server(cluster: &Cluster) -> Result<(), String> {
    let path = cluster.home().join("users");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    cluster.give(&path)?;
    file.lock_shared()
        .map_err(|e| format!("cannot lock {}: {e}", path.display()))?;
    // Held for the rest of the process: the OS lets go of it when the process ends.
    std::mem::forget(file);
    Ok(())
}

/// Starts the watchdog of `cluster`'s server, unless one runs. The caller holds the start lock,
/// and the server runs.
pub(crate) fn watch(cluster: &Cluster) -> Result<(), String> {
    if alive(cluster.home()) {
        return Ok(());
    }
    let Some(flock) = on_path("flock") else {
        eprintln!(
            "pg-server: no `flock` (util-linux) on PATH, so nothing stops the tests' PostgreSQL \
             server when they end: `pg_ctl stop -D {}` does",
            cluster.data().display()
        );
        return Ok(());
    };
    let log_path = cluster.home().join("watchdog.log");
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(|e| format!("cannot open {}: {e}", log_path.display()))?;
    let err = log
        .try_clone()
        .map_err(|e| format!("cannot open {}: {e}", log_path.display()))?;
    let mut command = cluster.command(Path::new("/bin/sh"));
    let path = flock.parent().map(Path::to_owned).unwrap_or_default();
    let search = std::env::join_paths([path.as_path(), Path::new("/usr/bin"), Path::new("/bin")])
        .map_err(|e| format!("cannot name the watchdog's PATH: {e}"))?;
    command
        .arg("-c")
        .arg(SCRIPT)
        .arg("pg-server-watchdog")
        .arg(cluster.home())
        .arg(cluster.data())
        .arg(cluster.program("pg_ctl"))
        .arg(idle_secs().to_string())
        .env("PATH", search)
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(err));
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    // Not waited for: it outlives this process, and the OS reaps it.
    command
        .spawn()
        .map(drop)
        .map_err(|e| format!("cannot start the server's watchdog: {e}"))
}

/// Whether a watchdog holds `home/watchdog.lock`.
pub(crate) fn alive(home: &Path) -> bool {
    let Ok(file) = File::open(home.join("watchdog.lock")) else {
        return false;
    };
    matches!(file.try_lock(), Err(std::fs::TryLockError::WouldBlock))
}

fn on_path(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}
