//! Liveness (docs/durability.md, "Liveness"), on worker processes: a stopped worker keeps its
//! lease for its ttl; a killed one loses it at once, to the next claim.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agboss::store::Store;

use super::durability::{Effects, Workers, report};
use super::{in_its_tool, postgres, sqlite};

/// Liveness on one store (docs/durability.md): a worker in a long tool call holds its lease for
/// the default ttl (30 s) while it is stopped (SIGSTOP): neither a claim nor an acquire gets
/// it. Killed, it is gone: the next claim takes the lease over at once, with the next epoch.
async fn stopped_or_dead(label: &str, spec: String, store: Arc<dyn Store>) {
    let effects = Effects::start();
    let ttl = agboss::Application::DEFAULT_LEASE_TTL.as_duration();
    let workers = Workers {
        store: spec,
        effects: effects.clone(),
        ttl_ms: ttl.as_millis() as u64,
        tool_ms: 120_000,
    };
    let ids = workers.submit(1, "liveness");
    let mut a = workers.start("a", &["--concurrency", "1"], None);
    in_its_tool(&effects, &ids[0]);
    a.signal("STOP");
    std::thread::sleep(Duration::from_millis(500));
    let stopped = store.lease(&ids[0]).await.unwrap().unwrap();
    let claimed = store.claim("b", ttl, 1).await.unwrap();
    let acquired = store.acquire(&ids[0], "b", ttl).await.unwrap();
    assert!(
        stopped.live,
        "a stopped holder's lease lasts its ttl: {stopped:?}"
    );
    assert!(claimed.is_empty(), "{claimed:?}");
    assert!(acquired.is_none(), "{acquired:?}");
    a.kill();
    let killed_at = Instant::now();
    let taken = loop {
        if let Some(lease) = store.claim("b", ttl, 1).await.unwrap().pop() {
            break lease;
        }
        assert!(
            killed_at.elapsed() < Duration::from_secs(5),
            "a dead holder's lease is taken over at once, not at its ttl"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let after = killed_at.elapsed();
    let state = store.lease(&ids[0]).await.unwrap().unwrap();
    store.release(&taken).await.unwrap();
    report(
        &format!("liveness-{label}"),
        &format!(
            "a stopped holder's lease (ttl {} s) live {}, claimed by another 0, acquired by another 0; killed, taken over {} ms after the kill with epoch {}",
            ttl.as_secs(),
            stopped.live,
            after.as_millis(),
            taken.epoch
        ),
    );
    assert_eq!(taken.epoch, stopped.epoch + 1);
    assert_eq!(
        (state.epoch, state.holder.as_deref()),
        (taken.epoch, Some("b"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_worker_keeps_its_lease_and_a_killed_one_loses_it_at_once_on_sqlite() {
    let _figures = super::durability::beside().await;
    let (_folder, spec, store) = sqlite().await;
    stopped_or_dead("sqlite", spec, store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_worker_keeps_its_lease_and_a_killed_one_loses_it_at_once_on_postgres() {
    let _figures = super::durability::beside().await;
    let (_database, spec, store) = postgres().await;
    stopped_or_dead("postgres", spec, store).await;
}
