//! Fault plan tests on real worker processes (bin/durable_worker.rs), killed with SIGKILL at
//! the journal's boundaries, stopped with SIGSTOP past their lease, and cut off from their
//! store; each test checks its history (the journals and the effect server's records) and
//! reports its figures (docs/durability.md quotes them). `AGBOSS_FAULTS_LONG=1` runs the long
//! versions (`cargo xtask faults --long`).

#[path = "durability/mod.rs"]
mod durability;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agboss::journal::LoopEvent;
use agboss::store::SqliteStore;
use agboss::store::Store;

use durability::{Effects, Workers, check, percentile, report};

#[path = "durability/liveness.rs"]
mod liveness;

/// Every test of this binary takes its guard first (`durability::alone` for the ones whose
/// figures are latencies, `beside` for the rest): one that did not would run beside T1 and put
/// its load into T1's percentiles again.
#[test]
fn every_test_of_the_binary_takes_its_guard_first() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut unguarded = Vec::new();
    let mut tests = 0;
    for file in ["test_durability.rs", "durability/liveness.rs"] {
        let text = std::fs::read_to_string(here.join(file)).unwrap();
        for test in text.split("\n#[tokio::test").skip(1) {
            tests += 1;
            let name = test
                .split("async fn ")
                .nth(1)
                .and_then(|s| s.split('(').next());
            let first = test
                .split('{')
                .nth(1)
                .and_then(|body| body.trim_start().lines().next())
                .unwrap_or_default();
            // The guard itself, not any binding of that name: `durability::alone()` or
            // `beside()`, by whichever path the file reaches the module.
            let guarded = first.starts_with("let _figures = ")
                && (first.ends_with("durability::alone().await;")
                    || first.ends_with("durability::beside().await;"));
            if !guarded {
                unguarded.push(format!("{file}: {}", name.unwrap_or("?")));
            }
        }
    }
    assert_eq!(tests, 11, "the tests of this binary were counted");
    assert!(unguarded.is_empty(), "tests without a guard: {unguarded:?}");
}

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
/// execution of its own, then one worker recovers them all. Their leases last the default ttl
/// (30 s): the recoverer takes them over at once because their holders are gone
/// (docs/durability.md, "Liveness"), not because the leases ran out.
async fn kill_sweep(label: &str, spec: String, store: Arc<dyn Store>, kills: usize) {
    let effects = Effects::start();
    let ttl = agboss::Application::DEFAULT_LEASE_TTL.as_duration();
    let workers = Workers {
        store: spec,
        effects: effects.clone(),
        ttl_ms: ttl.as_millis() as u64,
        tool_ms: 0,
    };
    let mut all = Vec::new();
    let mut killed = 0;
    let mut recovery = Vec::new();
    let mut starts = Vec::new();
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
                // Not `--until-idle`: a claim racing others may find nothing this time (they
                // pass over what is locked); it asks again until it has work, and dies there.
                workers.start(
                    &format!("{point}-{i}"),
                    &["--concurrency", "1", "--poll-ms", "50"],
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
        // It takes the executions up at once: their holders are gone.
        let mut recoverer = workers.start(
            &format!("recoverer-{point}"),
            &["--concurrency", "32", "--poll-ms", "50"],
            None,
        );
        // Some killers take up, and finish, what another left (its holder was gone while they
        // polled): the store says when every one is done. Well before the leases' ttl.
        let until = Instant::now() + ttl / 2;
        while check(&*store, &ids, &effects).await.completed < kills {
            assert!(
                Instant::now() < until,
                "{point}: not all recovered: {:?}",
                recoverer.lines()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        recoverer.kill();
        // Of which: the recoverer process's start (until it works).
        if let Some((ready, _)) = recoverer.lines().iter().find(|(_, l)| l == "ready") {
            starts.push(ready.duration_since(killed_at));
        }
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
            "kills survived {}/{killed} ({} boundaries x {kills}); duplicate effects {}; distinct keys per logical call (max) {}; re-sends of one key (max) {}; ids or arguments not as journaled {}; results journaled twice {}; recovery (kill to completed, lease ttl {} s) p50 {} ms, p99 {} ms (of which the recovering worker's process start, p50 {} ms)",
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
            ttl.as_secs(),
            p50.as_millis(),
            p99.as_millis(),
            percentile(&mut starts, 0.5).as_millis(),
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
    let _figures = durability::alone().await;
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
    let _figures = durability::beside().await;
    let (_folder, spec, store) = sqlite().await;
    stolen_lease("sqlite", spec, store).await;
}

/// T7 on SQLite: another process holds the file's write lock (an exclusive transaction). Held
/// shorter than the lease: the worker's result waits and is committed when the lock goes, no
/// call starts meanwhile, and it completes. Held longer: its lease runs out, it stops cleanly,
/// and the execution is recovered with the next claim; the worker process stays up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t7_a_locked_sqlite_file_is_waited_for_then_recovered() {
    let _figures = durability::beside().await;
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
    let _figures = durability::beside().await;
    let (_folder, spec, store) = sqlite().await;
    let storm = Duration::from_secs(if long() { 600 } else { 20 });
    lease_storm("sqlite", spec, store, 200, storm).await;
}

/// A PostgreSQL database of its own on the tests' server, as the workers name it and as this
/// process opens it.
async fn postgres() -> (pg_server::TestDatabase, String, Arc<dyn Store>) {
    let database = tokio::task::block_in_place(pg_server::fresh_database);
    let store: Arc<dyn Store> = Arc::new(
        agboss::store::PostgresStore::connect(database.url())
            .await
            .unwrap(),
    );
    let spec = format!("postgres:{}", database.url());
    (database, spec, store)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t1_workers_killed_at_every_journal_boundary_on_postgres() {
    let _figures = durability::alone().await;
    let (_database, spec, store) = postgres().await;
    let kills = if long() { 100 } else { 20 };
    kill_sweep("postgres", spec, store, kills).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t4_a_stopped_worker_loses_its_lease_on_postgres() {
    let _figures = durability::beside().await;
    let (_database, spec, store) = postgres().await;
    stolen_lease("postgres", spec, store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t5_four_workers_through_a_storm_of_kills_and_stops_on_postgres() {
    let _figures = durability::beside().await;
    let (_database, spec, store) = postgres().await;
    let storm = Duration::from_secs(if long() { 600 } else { 60 });
    lease_storm("postgres", spec, store, 200, storm).await;
}

/// Waits until the worker is in the tool of execution `id` (both calls applied).
fn in_its_tool(effects: &Effects, id: &str) -> Instant {
    let until = Instant::now() + Duration::from_secs(30);
    while effects
        .effects()
        .iter()
        .filter(|r| r.execution == id)
        .count()
        < 2
    {
        assert!(Instant::now() < until, "the worker never reached its tool");
        std::thread::sleep(Duration::from_millis(5));
    }
    Instant::now()
}

/// T7 on PostgreSQL: the server restarted mid-run, and outages through a proxy that drops
/// every connection and refuses new ones: shorter than the lease (the results wait and are
/// committed when it comes back, no call starts meanwhile), and longer (the lease is lost
/// cleanly, and the next claim goes on). The worker process stays up throughout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t7_postgres_restarted_and_cut_off_mid_run() {
    let _figures = durability::beside().await;
    let mut server = tokio::task::block_in_place(pg_server::PrivateServer::new);
    let database = tokio::task::block_in_place(|| server.fresh_database());
    let proxy = pg_server::Proxy::new(pg_server::addr_of(database.url()));
    let store: Arc<dyn Store> = Arc::new(
        agboss::store::PostgresStore::connect(database.url())
            .await
            .unwrap(),
    );
    let effects = Effects::start();
    let (outage, longer) = if long() {
        (Duration::from_secs(30), Duration::from_secs(10))
    } else {
        (Duration::from_secs(8), Duration::from_secs(5))
    };
    let workers = Workers {
        store: format!("postgres:{}", proxy.url(database.url())),
        effects: effects.clone(),
        ttl_ms: 10_000,
        tool_ms: 1_500,
    };
    let short_workers = Workers {
        ttl_ms: longer.as_millis() as u64,
        ..workers.clone()
    };
    let mut figures = Vec::new();
    let mut worker = workers.start("w", &["--concurrency", "1", "--poll-ms", "200"], None);
    for case in ["restart", "shorter", "longer"] {
        if case == "longer" {
            worker.kill();
            worker = short_workers.start("w2", &["--concurrency", "1", "--poll-ms", "200"], None);
        }
        let ids = workers.submit(1, case);
        let reached = in_its_tool(&effects, &ids[0]);
        let back = match case {
            "restart" => {
                tokio::task::block_in_place(|| server.restart());
                Instant::now()
            }
            "shorter" => {
                proxy.refuse_for(Duration::from_secs(3));
                proxy.drop_connections();
                std::thread::sleep(Duration::from_secs(3));
                Instant::now()
            }
            _ => {
                proxy.refuse_for(outage);
                proxy.drop_connections();
                std::thread::sleep(outage);
                Instant::now()
            }
        };
        let during = effects
            .records()
            .into_iter()
            .filter(|r| r.execution.contains(&ids[0]) && r.at > reached && r.at < back)
            .count();
        let done = worker.wait_line(Duration::from_secs(90), |l| {
            l.starts_with(&format!("end {} completed", ids[0]))
        });
        let checked = check(&*store, &ids, &effects).await;
        let lost = worker
            .ends()
            .iter()
            .any(|(_, id, how)| id == &ids[0] && how == "lost");
        figures.push(format!(
            "{case}: calls started while the store was away {during}; completed {} ms after it came back; lease lost {lost}; results twice {}",
            done.duration_since(back).as_millis(),
            checked.results_twice
        ));
        assert_eq!(during, 0, "{case}");
        assert_eq!(
            (checked.completed, checked.results_twice),
            (1, 0),
            "{case}: {checked:?}"
        );
        assert_eq!(lost, case == "longer", "{case}: {:?}", worker.ends());
        assert!(
            worker.lines().iter().all(|(_, l)| !l.starts_with("idle")),
            "the worker stays up"
        );
    }
    worker.kill();
    report(
        "T7-postgres",
        &format!(
            "{} (outage {} s against a {} s lease); worker processes alive 1/1",
            figures.join("; "),
            outage.as_secs(),
            longer.as_secs()
        ),
    );
}

/// T8: the connection drops right after a journal append's `COMMIT` was sent, so the worker
/// does not know whether it committed. Its retry is taken once (same place, same claim, same
/// event): no duplicate row. A different event at that place from that claim is reported as
/// divergence, not written over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t8_a_lost_commit_acknowledgement_is_retried_without_a_second_row() {
    let _figures = durability::beside().await;
    const N: usize = 5;
    let (database, _spec, store) = postgres().await;
    let proxy = pg_server::Proxy::new(pg_server::addr_of(database.url()));
    let effects = Effects::start();
    let workers = Workers {
        store: format!("postgres:{}", proxy.url(database.url())),
        effects: effects.clone(),
        ttl_ms: 10_000,
        tool_ms: 300,
    };
    let mut worker = workers.start("w", &["--concurrency", "1", "--poll-ms", "100"], None);
    let mut ids = Vec::new();
    for n in 0..N {
        let id = workers.submit(1, &format!("ack{n}")).remove(0);
        in_its_tool(&effects, &id);
        // The next commit is the calls' results: its acknowledgement is lost. (The query's
        // text ends with its NUL, so `BEGIN ISOLATION LEVEL READ COMMITTED` does not match.)
        proxy.cut_after(b"COMMIT\0");
        worker.wait_line(Duration::from_secs(60), |l| {
            l.starts_with(&format!("end {id} completed"))
        });
        ids.push(id);
    }
    let lost_leases = worker
        .ends()
        .iter()
        .filter(|(_, _, how)| how == "lost")
        .count();
    worker.kill();
    let checked = check(&*store, &ids, &effects).await;
    // A completed run of two calls journals seven events: started, the model's answer, the
    // calls' intent, two results, the last answer, answered. A retried commit written twice
    // would make eight.
    let mut extra_rows = 0;
    for id in &ids {
        extra_rows += store.entries(id).await.unwrap().len().abs_diff(7);
    }
    let reconnections = proxy.accepted();
    // Divergence: the same claim writing another event at a place it wrote.
    let lease = store
        .acquire(&ids[0], "diverging", Duration::from_secs(60))
        .await
        .unwrap()
        .unwrap();
    let seq = store.entries(&ids[0]).await.unwrap().len() as u64;
    let first = LoopEvent::Summarized {
        summary: "the first".into(),
    };
    store
        .append_as(&ids[0], seq, &first, lease.fence())
        .await
        .unwrap();
    let other = LoopEvent::Summarized {
        summary: "another".into(),
    };
    let diverged = store
        .append_as(&ids[0], seq, &other, lease.fence())
        .await
        .unwrap_err();
    let kept = store.events(&ids[0]).await.unwrap();
    report(
        "T8",
        &format!(
            "commits whose acknowledgement was cut {N}; executions completed {}/{N}; duplicate step rows {extra_rows} (results journaled twice {}); connections made through the proxy {reconnections}; divergences detected {}/1",
            checked.completed,
            checked.results_twice,
            u8::from(diverged.kind == agboss::store::StoreErrorKind::Diverged),
        ),
    );
    assert_eq!(checked.completed, N);
    assert_eq!(checked.results_twice + checked.turns_twice, 0);
    assert_eq!(extra_rows, 0);
    assert_eq!(lost_leases, 0, "the retry came well within the lease");
    assert!(reconnections > 1, "the cut connections were replaced");
    assert_eq!(
        diverged.kind,
        agboss::store::StoreErrorKind::Diverged,
        "{diverged}"
    );
    assert_eq!(kept.last(), Some(&first), "never written over");
}
