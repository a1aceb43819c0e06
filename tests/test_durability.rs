//! Fault plan tests on real worker processes (bin/durable_worker.rs), killed with SIGKILL at
//! the journal's boundaries, stopped with SIGSTOP past their lease, and cut off from their
//! store; each test checks its history (the journals and the effect server's records) and
//! reports its figures (docs/durability.md quotes them). `AGBOSS_FAULTS_LONG=1` runs the long
//! versions (`cargo xtask faults --long`).

#[path = "durability/mod.rs"]
mod durability;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agboss::journal::{LoopEvent, Store};
use agboss::store::SqliteStore;

use durability::{Effects, Workers, check, percentile, report};

/// The journal boundaries a worker is killed at, as `AGBOSS_FAILPOINTS` names them.
const POINTS: [&str; 6] = [
    "model-answered",
    "tool-intent",
    "tool-running",
    "tool-returned",
    "result-committed",
    "store-commit",
];

fn long() -> bool {
    std::env::var_os("AGBOSS_FAULTS_LONG").is_some()
}

/// An SQLite file of its own, as the workers name it and as this process opens it.
async fn sqlite() -> (tempfile::TempDir, String, Arc<dyn Store>) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("durable.db");
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await.unwrap());
    (folder, format!("sqlite:{}", path.display()), store)
}

/// T1 on one store: per boundary, `kills` workers each killed there while driving an
/// execution of its own, then one worker recovers them all.
async fn kill_sweep(label: &str, spec: String, store: Arc<dyn Store>, kills: usize) {
    let effects = Effects::start();
    let workers = Workers {
        store: spec,
        effects: effects.clone(),
        ttl_ms: 1_500,
        tool_ms: 0,
    };
    let mut all = Vec::new();
    let mut killed = 0;
    let mut recovery = Vec::new();
    for point in POINTS {
        let ids = workers.submit(kills, point);
        let mut killers: Vec<_> = (0..kills)
            .map(|i| {
                // A store commit: the first is the claim's; later ones are the journal's.
                let hit = if point == "store-commit" {
                    2 + i % 6
                } else {
                    1
                };
                workers.start(
                    &format!("{point}-{i}"),
                    &["--concurrency", "1", "--until-idle"],
                    Some(&format!("{point}@{hit}")),
                )
            })
            .collect();
        for killer in &mut killers {
            let status = killer.wait(Duration::from_secs(60));
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(
                status.signal(),
                Some(9),
                "{point}: the worker was killed at its failpoint ({status}): {:?}",
                killer.lines()
            );
            killed += 1;
        }
        let killed_at = Instant::now();
        // It takes the executions up as their leases run out.
        let mut recoverer = workers.start(
            &format!("recoverer-{point}"),
            &["--concurrency", "32", "--poll-ms", "50"],
            None,
        );
        let until = Instant::now() + Duration::from_secs(120);
        while recoverer.ends().len() < kills {
            assert!(
                Instant::now() < until,
                "{point}: not all recovered: {:?}",
                recoverer.lines()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        recoverer.kill();
        for (at, _, how) in recoverer.ends() {
            assert_eq!(how, "completed", "{point}: {:?}", recoverer.lines());
            recovery.push(at.duration_since(killed_at));
        }
        all.extend(ids);
    }
    let checked = check(&*store, &all, &effects).await;
    let p50 = percentile(&mut recovery, 0.5);
    let p99 = percentile(&mut recovery, 0.99);
    report(
        &format!("T1-{label}"),
        &format!(
            "kills survived {}/{killed} ({} boundaries x {kills}); duplicate effects {}; distinct keys per logical call (max) {}; re-sends of one key (max) {}; ids or arguments not as journaled {}; results journaled twice {}; recovery (kill to completed, lease ttl 1.5 s) p50 {} ms, p99 {} ms",
            checked.completed,
            POINTS.len(),
            checked.duplicate_effects,
            if checked.calls_with_many_keys == 0 {
                1
            } else {
                2
            },
            checked.max_sends_of_a_key,
            checked.mismatched,
            checked.results_twice,
            p50.as_millis(),
            p99.as_millis(),
        ),
    );
    assert_eq!(checked.completed, killed, "{checked:?}");
    assert_eq!(checked.duplicate_effects, 0);
    assert_eq!(checked.calls_with_many_keys, 0);
    assert_eq!(checked.mismatched, 0);
    assert_eq!(checked.results_twice, 0);
    assert_eq!(checked.turns_twice, 0);
    assert_eq!(checked.epochs_back, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t1_workers_killed_at_every_journal_boundary_on_sqlite() {
    let (_folder, spec, store) = sqlite().await;
    let kills = if long() { 100 } else { 20 };
    kill_sweep("sqlite", spec, store, kills).await;
}

/// T4 on one store: worker A, in a long tool call, is stopped (SIGSTOP) for three lease ttls;
/// B takes the execution over with the next epoch and finishes it; A, resumed, starts no call
/// and writes nothing.
async fn stolen_lease(label: &str, spec: String, store: Arc<dyn Store>) {
    let effects = Effects::start();
    let ttl = Duration::from_millis(1_000);
    let workers = Workers {
        store: spec,
        effects: effects.clone(),
        ttl_ms: ttl.as_millis() as u64,
        tool_ms: 8_000,
    };
    let ids = workers.submit(1, "stolen");
    let a = workers.start("a", &["--concurrency", "1"], None);
    let until = Instant::now() + Duration::from_secs(30);
    while effects
        .effects()
        .iter()
        .filter(|r| r.instance == "a")
        .count()
        < 2
    {
        assert!(Instant::now() < until, "A never reached its tool");
        std::thread::sleep(Duration::from_millis(5));
    }
    a.signal("STOP");
    let stopped_at = Instant::now();
    std::thread::sleep(ttl * 3);
    let b_workers = Workers {
        tool_ms: 0,
        ..workers.clone()
    };
    let mut b = b_workers.start("b", &["--concurrency", "1", "--until-idle"], None);
    assert!(b.wait(Duration::from_secs(60)).success(), "{:?}", b.lines());
    let entries_before = store.entries(&ids[0]).await.unwrap();
    let resumed_at = Instant::now();
    a.signal("CONT");
    let aborted_at = a.wait_line(Duration::from_secs(30), |l| {
        l.starts_with("end ") && l.contains(" lost ")
    });
    std::thread::sleep(Duration::from_millis(200));
    let entries_after = store.entries(&ids[0]).await.unwrap();
    let after_stop = effects
        .records()
        .into_iter()
        .filter(|r| r.instance == "a" && r.at > stopped_at)
        .count();
    let epochs: Vec<Option<u64>> = entries_after.iter().map(|e| e.epoch).collect();
    let b_epoch = store.lease(&ids[0]).await.unwrap().unwrap().epoch;
    let late_writes = entries_after.len() - entries_before.len();
    let checked = check(&*store, &ids, &effects).await;
    report(
        &format!("T4-{label}"),
        &format!(
            "calls started by A after lease loss {after_stop}; late writes of A committed {late_writes} (A stops before it writes: fenced writes attempted 0); B's claim epoch {b_epoch}; time from SIGCONT to A's abort {} ms; steps with two committed results {}",
            aborted_at.duration_since(resumed_at).as_millis(),
            checked.results_twice
        ),
    );
    assert_eq!(after_stop, 0);
    assert_eq!(late_writes, 0, "{epochs:?}");
    assert!(b_epoch >= 2);
    assert_eq!(checked.completed, 1);
    assert_eq!(checked.results_twice, 0);
    assert_eq!(checked.epochs_back, 0);
    assert!(matches!(
        entries_after.last().map(|e| &e.event),
        Some(LoopEvent::Answered { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t4_a_stopped_worker_loses_its_lease_on_sqlite() {
    let (_folder, spec, store) = sqlite().await;
    stolen_lease("sqlite", spec, store).await;
}

/// T7 on SQLite: another process holds the file's write lock (an exclusive transaction). Held
/// shorter than the lease: the worker's result waits and is committed when the lock goes, no
/// call starts meanwhile, and it completes. Held longer: its lease runs out, it stops cleanly,
/// and the execution is recovered with the next claim; the worker process stays up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t7_a_locked_sqlite_file_is_waited_for_then_recovered() {
    let (folder, spec, store) = sqlite().await;
    let path = folder.path().join("durable.db");
    let effects = Effects::start();
    let workers = Workers {
        store: spec,
        effects: effects.clone(),
        ttl_ms: 12_000,
        tool_ms: 1_500,
    };
    let mut figures = Vec::new();
    for (label, hold) in [
        ("shorter", Duration::from_secs(3)),
        ("longer", Duration::from_secs(16)),
    ] {
        let ids = workers.submit(1, label);
        let mut worker = workers.start(label, &["--concurrency", "1", "--poll-ms", "200"], None);
        let until = Instant::now() + Duration::from_secs(30);
        while effects
            .effects()
            .iter()
            .filter(|r| r.execution == ids[0])
            .count()
            < 2
        {
            assert!(Instant::now() < until, "the worker never reached its tool");
            std::thread::sleep(Duration::from_millis(5));
        }
        let lock = rusqlite::Connection::open(&path).unwrap();
        lock.execute_batch("BEGIN EXCLUSIVE").unwrap();
        let locked_at = Instant::now();
        std::thread::sleep(hold);
        let during = effects
            .records()
            .into_iter()
            .filter(|r| r.execution.contains(&ids[0]) && r.at > locked_at)
            .count();
        lock.execute_batch("COMMIT").unwrap();
        drop(lock);
        let released_at = Instant::now();
        let done = worker.wait_line(Duration::from_secs(60), |l| {
            l.starts_with(&format!("end {} completed", ids[0]))
        });
        let alive = worker.pid() > 0 && worker.lines().iter().all(|(_, l)| !l.starts_with("idle"));
        figures.push(format!(
            "held {} s ({label} than the 12 s lease): calls started during the outage {during}, completed {} ms after the lock went, worker alive {alive}",
            hold.as_secs(),
            done.duration_since(released_at).as_millis()
        ));
        assert_eq!(during, 0, "{label}");
        assert!(alive);
        let checked = check(&*store, &ids, &effects).await;
        assert_eq!(
            (checked.completed, checked.results_twice),
            (1, 0),
            "{label}: {checked:?}"
        );
        if label == "longer" {
            let ends = worker.ends();
            assert!(
                ends.iter()
                    .any(|(_, id, how)| id == &ids[0] && how == "lost"),
                "the lease ran out during the hold: {ends:?}"
            );
        }
        worker.kill();
    }
    report("T7-sqlite", &figures.join("; "));
}

/// A small deterministic random source for the storm (xorshift).
struct Dice(u64);

impl Dice {
    fn roll(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// T5 on one store: four worker processes share `executions` executions (two calls each, a few
/// seconds long) while, for `storm`, one of them at random is killed and restarted, or stopped
/// for up to four seconds, every one to three seconds. Then they are left alone until every
/// execution completed.
async fn lease_storm(
    label: &str,
    spec: String,
    store: Arc<dyn Store>,
    executions: usize,
    storm: Duration,
) {
    let effects = Effects::start();
    let workers = Workers {
        store: spec,
        effects: effects.clone(),
        ttl_ms: 2_000,
        tool_ms: 4_000,
    };
    let ids = workers.submit(executions, "storm");
    let start = |n: usize| {
        workers.start(
            &format!("w{n}"),
            &["--concurrency", "8", "--poll-ms", "100"],
            None,
        )
    };
    let mut running: Vec<_> = (0..4).map(start).collect();
    let mut started_count = 4;
    let mut dice = Dice(0x9E37_79B9_7F4A_7C15);
    let mut stopped: Vec<(usize, Instant)> = Vec::new();
    let (mut kills, mut stops) = (0, 0);
    let began = Instant::now();
    while began.elapsed() < storm {
        std::thread::sleep(Duration::from_millis(1_000 + dice.roll(2_000)));
        // Wake those whose stop is over.
        stopped.retain(|(slot, until)| {
            if Instant::now() >= *until {
                running[*slot].signal("CONT");
                false
            } else {
                true
            }
        });
        let slot = dice.roll(4) as usize;
        if stopped.iter().any(|(s, _)| *s == slot) {
            continue;
        }
        if dice.roll(10) < 6 {
            running[slot].kill();
            running[slot] = start(started_count);
            started_count += 1;
            kills += 1;
        } else {
            running[slot].signal("STOP");
            stopped.push((
                slot,
                Instant::now() + Duration::from_millis(1_000 + dice.roll(3_000)),
            ));
            stops += 1;
        }
    }
    for (slot, _) in stopped.drain(..) {
        running[slot].signal("CONT");
    }
    let calm = Instant::now();
    let until = calm + Duration::from_secs(240);
    loop {
        let checked = check(&*store, &ids, &effects).await;
        if checked.completed == executions {
            break;
        }
        assert!(Instant::now() < until, "not all finished: {checked:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let settled = calm.elapsed();
    let total = began.elapsed();
    let checked = check(&*store, &ids, &effects).await;
    let mut epochs_per_execution = Vec::new();
    for id in &ids {
        let lease = store.lease(id).await.unwrap().unwrap();
        epochs_per_execution.push(lease.epoch);
    }
    let max_epoch = epochs_per_execution.iter().max().copied().unwrap_or(0);
    report(
        &format!("T5-{label}"),
        &format!(
            "executions finished {}/{executions} ({} s of storm: {kills} kills and restarts, {stops} stops); double commits {}; max concurrent holders {} (epochs never go back in any journal); distinct keys per logical call (max) {}; duplicate effects {}; throughput {:.1} executions/s; last completion {} ms after the storm; claims per execution (max) {max_epoch}",
            checked.completed,
            storm.as_secs(),
            checked.results_twice + checked.turns_twice,
            if checked.epochs_back == 0 { 1 } else { 2 },
            if checked.calls_with_many_keys == 0 {
                1
            } else {
                2
            },
            checked.duplicate_effects,
            executions as f64 / total.as_secs_f64(),
            settled.as_millis(),
        ),
    );
    assert_eq!(checked.completed, executions);
    assert_eq!(checked.results_twice + checked.turns_twice, 0);
    assert_eq!(checked.epochs_back, 0);
    assert_eq!(checked.calls_with_many_keys, 0);
    assert_eq!(checked.duplicate_effects, 0);
    assert_eq!(checked.mismatched, 0);
    for mut worker in running {
        worker.kill();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t5_four_workers_through_a_storm_of_kills_and_stops_on_sqlite() {
    let (_folder, spec, store) = sqlite().await;
    let storm = Duration::from_secs(if long() { 600 } else { 20 });
    lease_storm("sqlite", spec, store, 200, storm).await;
}
