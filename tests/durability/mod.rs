//! What the process-level fault tests share: the effect server the workers' tools apply
//! effects at (it keeps every request with its instance, key and arguments, and applies each
//! key once), the worker processes (bin/durable_worker.rs) started, killed, stopped and
//! resumed, and the checker run over the journals and the effect server's history.

#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agboss::journal::LoopEvent;
use agboss::store::Store;

/// The tests of this binary that report latencies (T1's recovery times) run alone in it: one
/// beside them (T5's storm of four workers, say) would put its load into their percentiles.
/// Every other test takes [`beside`], so they still run two at a time among themselves.
static FIGURES: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// Runs a test whose figures are latencies with no other test of this binary beside it.
pub async fn alone() -> tokio::sync::RwLockWriteGuard<'static, ()> {
    FIGURES.write().await
}

/// Runs a test beside any other that takes this, never beside one that took [`alone`].
pub async fn beside() -> tokio::sync::RwLockReadGuard<'static, ()> {
    FIGURES.read().await
}

/// One request the effect server received.
#[derive(Clone, Debug)]
pub struct Record {
    /// `EFFECT` or `MODEL`.
    pub kind: String,
    pub instance: String,
    pub execution: String,
    pub call_id: String,
    pub key: String,
    pub arguments: String,
    /// Whether it was applied (the key's first request).
    pub applied: bool,
    pub at: Instant,
}

/// The effect server, on a loopback port, in a thread of its own.
#[derive(Clone)]
pub struct Effects {
    address: String,
    records: Arc<Mutex<Vec<Record>>>,
}

impl Effects {
    pub fn start() -> Effects {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let records: Arc<Mutex<Vec<Record>>> = Arc::default();
        let kept = records.clone();
        std::thread::spawn(move || {
            let applied: Mutex<HashSet<String>> = Mutex::default();
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut line = String::new();
                if BufReader::new(&stream).read_line(&mut line).is_err() {
                    continue;
                }
                let parts: Vec<&str> = line.trim().splitn(6, ' ').collect();
                let at = Instant::now();
                let reply = match parts.as_slice() {
                    ["EFFECT", instance, execution, call_id, key, arguments] => {
                        let first = applied.lock().unwrap().insert((*key).to_owned());
                        kept.lock().unwrap().push(Record {
                            kind: "EFFECT".into(),
                            instance: (*instance).into(),
                            execution: (*execution).into(),
                            call_id: (*call_id).into(),
                            key: (*key).into(),
                            arguments: (*arguments).into(),
                            applied: first,
                            at,
                        });
                        if first { "APPLIED" } else { "DUPLICATE" }
                    }
                    ["MODEL", instance, ..] => {
                        kept.lock().unwrap().push(Record {
                            kind: "MODEL".into(),
                            instance: (*instance).into(),
                            execution: parts[2..].join(" "),
                            call_id: String::new(),
                            key: String::new(),
                            arguments: String::new(),
                            applied: false,
                            at,
                        });
                        "OK"
                    }
                    _ => "ERROR",
                };
                let _ = writeln!(stream, "{reply}");
            }
        });
        Effects { address, records }
    }

    pub fn address(&self) -> &str {
        &self.address
    }

    pub fn records(&self) -> Vec<Record> {
        self.records.lock().unwrap().clone()
    }

    pub fn effects(&self) -> Vec<Record> {
        self.records()
            .into_iter()
            .filter(|r| r.kind == "EFFECT")
            .collect()
    }
}

/// A worker process, its output kept line by line with when each line came.
pub struct Worker {
    child: Child,
    lines: Arc<Mutex<Vec<(Instant, String)>>>,
}

/// How to start workers on one store.
#[derive(Clone)]
pub struct Workers {
    pub store: String,
    pub effects: Effects,
    pub ttl_ms: u64,
    pub tool_ms: u64,
}

impl Workers {
    fn command(&self, instance: &str, args: &[&str], failpoints: Option<&str>) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_durable-worker"));
        command
            .args([
                "--store",
                &self.store,
                "--effects",
                self.effects.address(),
                "--instance",
                instance,
                "--ttl-ms",
                &self.ttl_ms.to_string(),
                "--tool-ms",
                &self.tool_ms.to_string(),
            ])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_remove("AGBOSS_FAILPOINTS");
        if let Some(failpoints) = failpoints {
            command.env("AGBOSS_FAILPOINTS", failpoints);
        }
        command
    }

    /// Journals `n` executions `<prefix>-<i>` for the workers to take up.
    pub fn submit(&self, n: usize, prefix: &str) -> Vec<String> {
        let output = self
            .command(
                "submitter",
                &["submit", &n.to_string(), "--prefix", prefix],
                None,
            )
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "submit: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        (0..n).map(|i| format!("{prefix}-{i}")).collect()
    }

    /// Starts a worker `instance` with `args` after `work`, armed with `failpoints`.
    pub fn start(&self, instance: &str, args: &[&str], failpoints: Option<&str>) -> Worker {
        let mut all = vec!["work"];
        all.extend_from_slice(args);
        let mut child = self.command(instance, &all, failpoints).spawn().unwrap();
        let lines: Arc<Mutex<Vec<(Instant, String)>>> = Arc::default();
        let stdout = child.stdout.take().unwrap();
        let kept = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                kept.lock().unwrap().push((Instant::now(), line));
            }
        });
        let stderr = child.stderr.take().unwrap();
        let tag = instance.to_owned();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if !line.contains("failpoint") {
                    eprintln!("[{tag}] {line}");
                }
            }
        });
        Worker { child, lines }
    }
}

impl Worker {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for it to exit, at most `limit`.
    pub fn wait(&mut self, limit: Duration) -> ExitStatus {
        let until = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Let the reader thread catch the last lines.
                std::thread::sleep(Duration::from_millis(20));
                return status;
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                panic!(
                    "worker {} did not exit within {limit:?}: {:?}",
                    self.pid(),
                    self.lines()
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Kills it (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends it `signal` (`STOP`, `CONT`).
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &self.pid().to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "kill -{signal}");
    }

    pub fn lines(&self) -> Vec<(Instant, String)> {
        self.lines.lock().unwrap().clone()
    }

    /// Waits until a line that `wanted` takes appears, at most `limit`; when it came.
    pub fn wait_line(&self, limit: Duration, wanted: impl Fn(&str) -> bool) -> Instant {
        let until = Instant::now() + limit;
        loop {
            if let Some((at, _)) = self.lines().iter().find(|(_, l)| wanted(l)) {
                return *at;
            }
            assert!(
                Instant::now() < until,
                "no such line within {limit:?}: {:?}",
                self.lines()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The executions it reported ending, with how and when.
    pub fn ends(&self) -> Vec<(Instant, String, String)> {
        self.lines()
            .into_iter()
            .filter_map(|(at, line)| {
                let mut parts = line.split(' ');
                (parts.next() == Some("end")).then(|| {
                    (
                        at,
                        parts.next().unwrap_or("").to_owned(),
                        parts.next().unwrap_or("").to_owned(),
                    )
                })
            })
            .collect()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-CONT", &self.pid().to_string()])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the checker found over the journals of `executions` and the effect server's history.
#[derive(Debug, Default)]
pub struct Checked {
    pub completed: usize,
    /// Calls with more than one result journaled.
    pub results_twice: usize,
    /// Turns answered by the model twice.
    pub turns_twice: usize,
    /// Logical calls (execution, call id) that reached the effect server with more than one
    /// key.
    pub calls_with_many_keys: usize,
    /// Keys applied more than once.
    pub duplicate_effects: usize,
    /// The most requests one key got.
    pub max_sends_of_a_key: usize,
    /// Requests whose call id or arguments are not those journaled.
    pub mismatched: usize,
    /// Journals where a write of an older claim follows one of a newer (two holders at once).
    pub epochs_back: usize,
}

pub async fn check(store: &dyn Store, executions: &[String], effects: &Effects) -> Checked {
    let mut checked = Checked::default();
    let records = effects.effects();
    for id in executions {
        let entries = store.entries(id).await.unwrap();
        if matches!(
            entries.last().map(|e| &e.event),
            Some(LoopEvent::Answered { .. })
        ) {
            checked.completed += 1;
        }
        let epochs: Vec<u64> = entries.iter().filter_map(|e| e.epoch).collect();
        checked.epochs_back += usize::from(epochs.windows(2).any(|w| w[1] < w[0]));
        let mut results: HashMap<&str, usize> = HashMap::new();
        let mut turns: HashMap<u32, usize> = HashMap::new();
        let mut journaled: HashMap<String, String> = HashMap::new();
        for entry in &entries {
            match &entry.event {
                LoopEvent::ToolFinished { call_id, .. } => {
                    *results.entry(call_id.as_str()).or_default() += 1;
                }
                LoopEvent::ModelAnswered { turn, calls, .. } => {
                    *turns.entry(*turn).or_default() += 1;
                    for call in calls {
                        let n: serde_json::Value =
                            serde_json::from_str(&call.call.arguments).unwrap();
                        journaled.insert(call.call_id.clone(), format!("n={}", n["n"]));
                    }
                }
                _ => {}
            }
        }
        checked.results_twice += results.values().filter(|n| **n > 1).count();
        checked.turns_twice += turns.values().filter(|n| **n > 1).count();
        let mine: Vec<&Record> = records.iter().filter(|r| &r.execution == id).collect();
        let mut keys: HashMap<&str, HashSet<&str>> = HashMap::new();
        for record in &mine {
            keys.entry(record.call_id.as_str())
                .or_default()
                .insert(record.key.as_str());
            if journaled.get(&record.call_id) != Some(&record.arguments) {
                checked.mismatched += 1;
            }
        }
        checked.calls_with_many_keys += keys.values().filter(|k| k.len() > 1).count();
    }
    let mut sends: HashMap<&str, (usize, usize)> = HashMap::new();
    for record in &records {
        let entry = sends.entry(record.key.as_str()).or_default();
        entry.0 += 1;
        entry.1 += usize::from(record.applied);
    }
    checked.duplicate_effects = sends
        .values()
        .map(|(_, applied)| applied.saturating_sub(1))
        .sum();
    checked.max_sends_of_a_key = sends.values().map(|(n, _)| *n).max().unwrap_or(0);
    checked
}

/// The `p`-th percentile of `values` (sorted here).
pub fn percentile(values: &mut [Duration], p: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    values.sort();
    let at = ((values.len() - 1) as f64 * p).round() as usize;
    values[at]
}

#[path = "../faults/report.rs"]
mod reporting;
pub use reporting::report;
