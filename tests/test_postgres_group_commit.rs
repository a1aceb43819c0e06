//! Group commit on PostgreSQL: appends of different executions that wait at once share a
//! transaction, and each is still decided as it would be alone. The same storm of appends
//! (accepted ones, stale claims, gaps, retried commits, new threads, owners racing for one
//! thread) runs on a store that groups and on one that commits each append alone: every
//! answer is the same, and so is every journal and lease (some of the appends end their runs,
//! releasing their claims with them). Then a batch whose commit answer is lost.

mod store_common;

use std::sync::Arc;
use std::time::Duration;

use agboss::journal::LoopEvent;
use agboss::store::{
    Fence, Journal, Lease, Leases, PostgresOptions, PostgresStore, StoreErrorKind,
};
use pg_server::{Proxy, fresh_database};
use store_common::{answered, started_in, texts};

const LONG: Duration = Duration::from_secs(3_600);
/// Executions started before the storm.
const OLD: usize = 64;
/// Executions the storm starts, in threads of their own.
const NEW: usize = 32;
/// Threads two owners race to start.
const RACED: usize = 16;

fn old(i: usize) -> String {
    format!("old-{i:03}")
}

/// One append of the storm, and what it means to the test.
#[derive(Clone, Debug)]
struct Step {
    execution_id: String,
    seq: u64,
    event: LoopEvent,
    fence: Fence,
    /// Appended with `append_releasing`, by holder `w` of the fence's claim.
    releases: bool,
}

impl Step {
    /// Appends it as the step says.
    async fn append(&self, store: &PostgresStore) -> Result<(), agboss::store::StoreError> {
        match (self.releases, self.fence) {
            (true, Fence::Epoch(epoch)) => {
                let lease = Lease {
                    execution_id: self.execution_id.clone(),
                    holder: "w".to_owned(),
                    epoch,
                    ttl: LONG,
                };
                store.append_releasing(&lease, self.seq, &self.event).await
            }
            _ => {
                let (id, seq, event) = (&self.execution_id, self.seq, &self.event);
                store.append_as(id, seq, event, self.fence).await
            }
        }
    }
}

/// The storm: for the old executions, in turn, the next event under the claim (accepted), an
/// event under a claim that is not the current one (fenced), an event past the next (a
/// conflict), and the first event again (a retried commit: taken, not written twice); new
/// executions in new threads; and two owners starting runs in each of the raced threads.
fn storm() -> Vec<Step> {
    let mut steps = Vec::new();
    for i in 0..OLD {
        let execution_id = old(i);
        let (seq, event, fence) = match i % 4 {
            0 => (1, answered("done"), Fence::Epoch(1)),
            1 => (1, answered("late"), Fence::Epoch(7)),
            2 => (3, answered("gap"), Fence::Epoch(1)),
            _ => (0, started_in(&execution_id, "t-old", None), Fence::Epoch(1)),
        };
        steps.push(Step {
            execution_id,
            seq,
            event,
            fence,
            // Half of the accepted ones, and of the stale ones, end their runs' claims.
            releases: i % 8 < 2,
        });
    }
    for i in 0..NEW {
        let execution_id = format!("new-{i:03}");
        let event = started_in(&execution_id, &format!("t-new-{i}"), Some("ann"));
        steps.push(Step {
            execution_id,
            seq: 0,
            event,
            fence: Fence::Unfenced,
            releases: false,
        });
    }
    for i in 0..RACED {
        for owner in ["ann", "bob"] {
            let execution_id = format!("raced-{i:02}-{owner}");
            let event = started_in(&execution_id, &format!("t-raced-{i}"), Some(owner));
            steps.push(Step {
                execution_id,
                seq: 0,
                event,
                fence: Fence::Unfenced,
                releases: false,
            });
        }
    }
    steps
}

/// Every answer of the storm, all of it sent at once, on a store that groups or not; and the
/// journals it leaves.
async fn run_storm(
    grouped: bool,
) -> (
    Vec<Result<(), (StoreErrorKind, String)>>,
    String,
    Vec<String>,
) {
    let database = fresh_database();
    let options = PostgresOptions::default().group_commit(grouped);
    let store = Arc::new(
        PostgresStore::connect_with(database.url(), options)
            .await
            .unwrap_or_else(|e| panic!("{e}")),
    );
    for i in 0..OLD {
        let id = old(i);
        let lease = store.acquire(&id, "w", LONG).await.unwrap().unwrap();
        store
            .append_as(&id, 0, &started_in(&id, "t-old", None), lease.fence())
            .await
            .unwrap();
    }
    let steps = storm();
    let ready = Arc::new(tokio::sync::Barrier::new(steps.len()));
    let tasks: Vec<_> = steps
        .into_iter()
        .map(|step| {
            let (store, ready) = (Arc::clone(&store), Arc::clone(&ready));
            tokio::spawn(async move {
                ready.wait().await;
                step.append(&store).await.map_err(|e| (e.kind, e.detail))
            })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.unwrap());
    }
    // The transactions that wrote the storm's events (rows one transaction wrote share its id).
    let transactions = texts(
        database.url(),
        "SELECT count(DISTINCT xmin::text) FROM agboss.events \
         WHERE NOT (execution_id LIKE 'old-%' AND seq = 0)",
    )[0]
    .clone();
    let journals = texts(
        database.url(),
        "SELECT e.execution_id || ' ' || count(*) || ' ' || (x.record::json ->> 'events') \
         || ' ' || coalesce(t.owner_id, '-') \
         FROM agboss.events e JOIN agboss.executions x USING (execution_id) \
         JOIN agboss.threads t USING (thread_id) \
         WHERE e.execution_id NOT LIKE 'raced-%' \
         GROUP BY e.execution_id, x.record, t.owner_id ORDER BY e.execution_id",
    );
    // Each claim a last append released went in that append's own commit (its rows share the
    // transaction's id), grouped or alone.
    let released = |apart: &str| {
        let sql = format!(
            "SELECT count(*) FROM agboss.leases l JOIN agboss.events e \
             ON e.execution_id = l.execution_id AND e.seq = 1 WHERE l.holder IS NULL{apart}"
        );
        texts(database.url(), &sql)[0].clone()
    };
    assert_eq!(released(""), (OLD / 8).to_string(), "grouped: {grouped}");
    assert_eq!(released(" AND l.xmin::text <> e.xmin::text"), "0");
    let leases = texts(
        database.url(),
        "SELECT execution_id || ' ' || epoch || ' ' || coalesce(holder, '-') \
         FROM agboss.leases ORDER BY execution_id",
    );
    (answers, transactions, [journals, leases].concat())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grouped_store_answers_a_storm_of_appends_as_one_committing_each_alone() {
    let (grouped, transactions, grouped_journals) = run_storm(true).await;
    let (alone, alone_transactions, alone_journals) = run_storm(false).await;
    let written: usize = grouped.iter().filter(|a| a.is_ok()).count();

    let steps = storm();
    for (i, step) in steps.iter().enumerate() {
        if step.execution_id.starts_with("raced-") {
            continue;
        }
        assert_eq!(
            grouped[i], alone[i],
            "{} at {}: grouped and alone answer alike",
            step.execution_id, step.seq
        );
    }
    // What each kind of step is told.
    for (i, answer) in grouped.iter().take(OLD).enumerate() {
        let expected = match i % 4 {
            0 | 3 => None,
            1 => Some(StoreErrorKind::Fenced),
            _ => Some(StoreErrorKind::Conflict),
        };
        assert_eq!(answer.as_ref().err().map(|e| e.0), expected, "{}", old(i));
    }
    assert!(grouped[OLD..OLD + NEW].iter().all(Result::is_ok));
    // Each raced thread: one owner's run started, the other's refused, whoever came first.
    for answers in [&grouped, &alone] {
        for pair in answers[OLD + NEW..].chunks(2) {
            let refused: Vec<_> = pair.iter().filter_map(|a| a.as_ref().err()).collect();
            assert_eq!(refused.len(), 1, "{pair:?}");
            assert_eq!(refused[0].0, StoreErrorKind::OwnerMismatch, "{pair:?}");
        }
    }
    assert_eq!(grouped_journals, alone_journals);
    assert_eq!(grouped_journals.len(), 2 * OLD + NEW);
    assert!(grouped_journals.contains(&"old-000 2 2 -".to_owned()));
    assert!(grouped_journals.contains(&"old-003 1 1 -".to_owned()));
    assert!(grouped_journals.contains(&"new-000 1 1 ann".to_owned()));
    // The claims the accepted last appends ended, and only those, are released.
    for (id, lease) in [(0, "1 -"), (1, "1 w"), (4, "1 w"), (8, "1 -"), (9, "1 w")] {
        let lease = format!("{} {lease}", old(id));
        assert!(grouped_journals.contains(&lease), "{lease}");
    }

    // The events the storm wrote (the old executions' second, the new and raced ones' first)
    // were written by far fewer transactions when grouped; one each when not.
    let events = OLD / 4 + NEW + RACED;
    let transactions: usize = transactions.parse().unwrap();
    let alone_transactions: usize = alone_transactions.parse().unwrap();
    println!(
        "{written} appends accepted of {}; {events} events written by {transactions} \
         transactions grouped, {alone_transactions} alone",
        grouped.len()
    );
    assert_eq!(alone_transactions, events);
    assert!(
        transactions * 2 <= events,
        "{events} events in {transactions} transactions"
    );
}

/// A batch's commit is sent and its answer lost: every append of the batch is told it may or
/// may not have been written, and each holder's retry leaves exactly one row. Half of them end
/// their runs, releasing their claims with them: a retry finds its claim released by the commit
/// whose answer was lost, and is taken all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_whose_commit_answer_is_lost_is_retried_without_second_rows() {
    const EXECUTIONS: usize = 12;
    let database = fresh_database();
    let proxy = Proxy::new(pg_server::addr_of(database.url()));
    let store = Arc::new(
        PostgresStore::connect(&proxy.url(database.url()))
            .await
            .unwrap(),
    );
    let mut leases = Vec::new();
    for i in 0..EXECUTIONS {
        let id = old(i);
        let lease = store.acquire(&id, "w", LONG).await.unwrap().unwrap();
        store
            .append_as(&id, 0, &started_in(&id, "t", None), lease.fence())
            .await
            .unwrap();
        leases.push(lease);
    }
    let releases = |i: usize| i >= 2 && i.is_multiple_of(2);
    let append = |i: usize, text: &'static str| {
        let (store, lease) = (Arc::clone(&store), leases[i].clone());
        async move {
            let event = answered(text);
            match releases(i) {
                true => store.append_releasing(&lease, 1, &event).await,
                false => store.append_as(&old(i), 1, &event, lease.fence()).await,
            }
        }
    };
    // Two other sessions hold the first two executions' rows: the two batches that take their
    // appends wait, and the other appends queue meanwhile, to go together in one batch.
    let mut blockers = Vec::new();
    for i in 0..2 {
        let (blocker, connection) = tokio_postgres::connect(database.url(), tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        let lock = format!(
            "BEGIN; SELECT 1 FROM agboss.executions WHERE execution_id = '{}' FOR UPDATE",
            old(i)
        );
        blocker.batch_execute(&lock).await.unwrap();
        blockers.push(blocker);
    }
    let held = [0, 1].map(|i| tokio::spawn(append(i, "held")));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let batched: Vec<_> = (2..EXECUTIONS)
        .map(|i| tokio::spawn(append(i, "lost-in-batch")))
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The batch's writes (its events' text) go out, then the connection is cut.
    proxy.cut_after(b"lost-in-batch");
    for blocker in &blockers {
        blocker.batch_execute("COMMIT").await.unwrap();
    }
    for task in held {
        task.await.unwrap().unwrap_or_else(|e| panic!("{e}"));
    }
    for task in batched {
        let lost = task.await.unwrap().unwrap_err();
        assert_eq!(lost.kind, StoreErrorKind::Unavailable, "{lost}");
        assert!(
            lost.detail.contains("may or may not have been written"),
            "{lost}"
        );
    }

    // Each holder tries again until it is told: taken where the server committed, written
    // where it did not; never twice.
    for i in 2..EXECUTIONS {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while let Err(e) = append(i, "lost-in-batch").await {
            assert!(std::time::Instant::now() < deadline, "{e}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(store.execution(&old(i)).await.unwrap().unwrap().events, 2);
    }
    assert_eq!(
        texts(
            database.url(),
            "SELECT count(*) FROM agboss.events WHERE seq = 1"
        ),
        [EXECUTIONS.to_string()]
    );
    assert_eq!(
        texts(
            database.url(),
            "SELECT count(*) FROM agboss.events WHERE seq > 1"
        ),
        ["0"]
    );
    for (i, lease) in leases.iter().enumerate() {
        let state = store.lease(&lease.execution_id).await.unwrap().unwrap();
        let holder = (!releases(i)).then_some("w");
        assert_eq!((state.epoch, state.holder.as_deref()), (1, holder), "{i}");
    }
}
