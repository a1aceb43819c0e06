//! The shared server stops on its own once the test processes using it are gone: it runs while
//! one holds it, stops within its idle time (and the few seconds its watchdog takes) after the
//! last one exits, and the next one starts it again. Each run of this test has a server of its
//! own (`AGBOSS_PG_DIR`), so the one the other tests share is left alone.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pg_server::{DIR_VAR, IDLE_VAR, URL_VAR, execute};

/// The idle time the test gives the server.
const IDLE_SECS: u64 = 2;

/// How much longer than its idle time the server may take to stop: the watchdog looks once a
/// second, and `pg_ctl stop -m fast` takes its time on a loaded machine.
const SLACK: Duration = Duration::from_secs(10);

/// `pg-server url [--hold SECS]` on the folder `home`, as a test process of its own.
fn user(home: &Path, hold: Option<u64>) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pg-server"));
    command.arg("url");
    if let Some(secs) = hold {
        command.args(["--hold", &secs.to_string()]);
    }
    command
        .env_remove(URL_VAR)
        .env(DIR_VAR, home)
        .env(IDLE_VAR, IDLE_SECS.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .expect("pg-server runs")
}

/// The URL `child` prints once the server answers.
fn url_of(child: &mut Child) -> String {
    let stdout = child.stdout.take().expect("its output");
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    assert!(line.starts_with("postgres://"), "{line:?}");
    line.trim().to_owned()
}

fn answers(url: &str) -> bool {
    execute(url, "SELECT 1").is_ok()
}

/// Waits until the server of `url` (data folder `data`) is gone: it refuses connections and its
/// `postmaster.pid` is removed. How long that took.
fn gone_within(url: &str, data: &Path, limit: Duration) -> Duration {
    let start = Instant::now();
    while answers(url) || data.join("postmaster.pid").exists() {
        assert!(
            start.elapsed() < limit,
            "the server of {url} still runs {:?} after its last user ended",
            start.elapsed()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    start.elapsed()
}

/// Stops what a failed run leaves running, so its folder can go.
struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let pid_file = self.0.join("data/postmaster.pid");
        if let Some(pid) = std::fs::read_to_string(pid_file)
            .ok()
            .and_then(|text| text.lines().next().map(str::to_owned))
        {
            let _ = Command::new("kill").args(["-QUIT", &pid]).status();
        }
    }
}

#[test]
fn the_shared_server_stops_once_no_test_process_uses_it() {
    // The server's own folder: made here, handed to the account the server runs as.
    let folder = tempfile::Builder::new()
        .prefix("agboss-pg-stops-")
        .tempdir()
        .unwrap();
    let home = folder.path().to_path_buf();
    let _cleanup = Cleanup(home.clone());
    let data = home.join("data");
    let idle = Duration::from_secs(IDLE_SECS);

    // A user that holds it past the idle time: it keeps running.
    let mut holder = user(&home, Some(IDLE_SECS + 3));
    let url = url_of(&mut holder);
    std::thread::sleep(idle + Duration::from_secs(2));
    assert!(answers(&url), "stopped while a test process used it");
    // A second user comes and goes meanwhile: the server is not its to stop.
    let mut passer = user(&home, None);
    assert_eq!(url_of(&mut passer), url, "the server found running is used");
    assert!(passer.wait().unwrap().success());
    assert!(holder.wait().unwrap().success());

    // The last user gone: it stops within its idle time and the watchdog's slack.
    let took = gone_within(&url, &data, idle + SLACK);
    assert!(
        took >= idle - Duration::from_millis(500),
        "stopped early: {took:?}"
    );
    println!("stopped {took:?} after its last user ended (idle time {idle:?})");

    // The next user starts it again, and it stops again once that one is gone.
    let mut later = user(&home, None);
    let url = url_of(&mut later);
    assert!(later.wait().unwrap().success());
    assert!(answers(&url), "started again by the next user");
    gone_within(&url, &data, idle + SLACK);
}
