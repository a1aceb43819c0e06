//! Liveness on PostgreSQL (docs/durability.md, "Liveness"): which instance's session with the
//! server ended, so a claim takes its leases over at once instead of when their ttl runs out.
//!
//! Each store, before it claims anything, opens a session of its own (one connection beside
//! the pool's) and takes a session-level advisory lock on a random 64-bit key, held as long as
//! the session lives: the server lets it go when the connection ends, as it does at once when
//! the instance's process exits or is killed (its socket closes). A lease records, when its
//! holder claims or renews it, the holder's key, if the holder's session holds it at that
//! moment (checked in the same statement), and the server's life then. A claim finds the
//! holder gone when the server is in that same life and it can take the key itself
//! (`pg_try_advisory_xact_lock`, in the statement that reads the lease row it holds locked): no
//! session holds it, at that moment, so none of the holder's ever will again but its own store
//! coming back, which the epoch fences like any other late writer.
//!
//! The server's life is its start (`pg_postmaster_start_time()`) and the last reset of its
//! cumulative statistics (`pg_stat_bgwriter.stats_reset`): a restart, and a recovery from a
//! crash (which keeps the start, and resets the statistics), end every session and so every
//! lock, while the instances may run on and come back. The leases of another life last their
//! ttl; renewed in the new one, they name it. A reset of the statistics by hand only makes the
//! leases before it last their ttl.
//!
//! A session the server ends while its instance runs (an administrator's
//! `pg_terminate_backend`, a connection reset between them) counts as the instance gone: its
//! leases are taken over at once, and it learns it at its next renewal or write, which the epoch
//! refuses. A stopped instance (`SIGSTOP`), or one the network cut off without a word, keeps its
//! session open on the server's side, and its leases last their ttl. The store opens its session
//! again when it finds it closed, before its next claim or renewal.

use tokio::sync::Mutex;
use tokio_postgres::Client;

use super::STORE;
use super::error::pg_error;
use super::pool::Pool;
use crate::store::{StoreError, StoreErrorKind};

/// The SQL of a lease row `l` whose holder's session ended in this life of the server: the
/// journal's "holder gone" ([`Holder::Gone`](crate::journal::Holder)). It takes the holder's key
/// for the rest of the transaction when it is free (it belongs to nobody else).
macro_rules! holder_gone {
    () => {
        "CASE WHEN l.holder_lock IS NOT NULL \
         AND l.holder_server_start = pg_postmaster_start_time() \
         AND l.holder_stats_reset IS NOT DISTINCT FROM (SELECT stats_reset FROM pg_stat_bgwriter) \
         THEN pg_try_advisory_xact_lock(l.holder_lock) ELSE false END"
    };
}

/// The SQL of whether the lease row `l` keeps its execution from a claim: the journal's
/// [`lease_holds`](crate::journal::lease_holds) (held, not run out by the server's clock, the
/// holder not gone). False for no row (a `LEFT JOIN`'s NULLs).
macro_rules! live {
    () => {
        concat!(
            "(l.holder IS NOT NULL AND l.expires_at > clock_timestamp() AND NOT ",
            holder_gone!(),
            ")"
        )
    };
}

/// A CTE `me` of one row: what a claim or a renewal records of its holder: `lock`, the store's
/// key (parameter `$key`) if its session (`$pid`, NULL when the store has none) holds it now,
/// else NULL (the lease then lasts its ttl); the server's life, `started` and `reset`.
///
/// "Holds it now" is asked by trying the key's lock for the statement's transaction: refused,
/// another session holds it, which for a random 64-bit key is the store's own (it never
/// takes the lock anywhere else); taken, no session does (and the transaction lets it go at
/// its end). Reading `pg_locks` instead (which backend holds what) copies the server's whole
/// lock table on every claim, and cost a busy claim more than its writes (docs/performance.md,
/// "Resumes through real applications").
macro_rules! me {
    ($key:literal, $pid:literal) => {
        concat!(
            "me AS (SELECT CASE WHEN $",
            $pid,
            "::int IS NOT NULL AND NOT pg_try_advisory_xact_lock($",
            $key,
            "::bigint) THEN $",
            $key,
            "::bigint END AS lock, pg_postmaster_start_time() AS started, \
             (SELECT stats_reset FROM pg_stat_bgwriter) AS reset)"
        )
    };
}

pub(super) use {holder_gone, live, me};

/// This store's key, and the session that holds its lock.
#[derive(Debug)]
pub(super) struct Liveness {
    key: i64,
    session: Mutex<Option<Session>>,
}

/// A session holding the key's lock.
#[derive(Debug)]
struct Session {
    client: Client,
    /// Its backend's process id (a claim passes it to say a session is there).
    pid: i32,
}

/// What a claim or a renewal says of its holder: the store's key, and the backend of the session
/// holding its lock (`None`: none does now, and the leases written meanwhile last their ttl).
#[derive(Clone, Copy, Debug)]
pub(super) struct Holding {
    pub(super) key: i64,
    pub(super) pid: Option<i32>,
}

impl Liveness {
    /// A new random key, held by no session yet.
    pub(super) fn new() -> Result<Liveness, StoreError> {
        let hex = crate::base::random::random_hex(8, "the store's liveness key").map_err(|e| {
            StoreError::new(STORE, StoreErrorKind::Unavailable, e.message().to_owned())
        })?;
        let key = u64::from_str_radix(&hex, 16).map_err(|e| {
            StoreError::new(STORE, StoreErrorKind::Unavailable, format!("the key: {e}"))
        })?;
        Ok(Liveness {
            key: key as i64,
            session: Mutex::new(None),
        })
    }

    /// The key and its session, opened (and the lock taken) first when there is none: what
    /// every claim calls before it writes. A session that cannot be had now is logged, and the
    /// leases written without it.
    pub(super) async fn hold(&self, pool: &Pool) -> Holding {
        let session = self.session.lock().await;
        self.held_or_opened(session, pool).await
    }

    /// [`hold`](Self::hold) for a renewal, which never waits for another operation opening the
    /// session (renewals keep leases: they are not held up behind a connection being made);
    /// meanwhile the lease is renewed without it.
    pub(super) async fn hold_for_renewal(&self, pool: &Pool) -> Holding {
        match self.session.try_lock() {
            Ok(session) => self.held_or_opened(session, pool).await,
            Err(_) => Holding {
                key: self.key,
                pid: None,
            },
        }
    }

    async fn held_or_opened(
        &self,
        mut session: tokio::sync::MutexGuard<'_, Option<Session>>,
        pool: &Pool,
    ) -> Holding {
        if let Some(open) = session.as_ref().filter(|s| !s.client.is_closed()) {
            return Holding {
                key: self.key,
                pid: Some(open.pid),
            };
        }
        *session = None;
        match self.open(pool).await {
            Ok(opened) => {
                let pid = opened.pid;
                *session = Some(opened);
                Holding {
                    key: self.key,
                    pid: Some(pid),
                }
            }
            Err(error) => {
                tracing::warn!(%error, "the store's liveness session could not be opened: its leases last their ttl until it is");
                Holding {
                    key: self.key,
                    pid: None,
                }
            }
        }
    }

    /// A new session, with the key's lock. Refused when another session still holds it (one
    /// of this store's the server has not seen end yet): its leases last their ttl meanwhile.
    async fn open(&self, pool: &Pool) -> Result<Session, StoreError> {
        let conn = pool.connect().await?;
        // The session is idle between claims: a server that ends idle sessions
        // (`idle_session_timeout`, PostgreSQL 14 and newer) is told not to end this one.
        let key: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&self.key];
        let taking = conn.client.query_one(
            "SELECT pg_try_advisory_lock($1), pg_backend_pid(), \
             (SELECT set_config('idle_session_timeout', '0', false) \
              WHERE current_setting('server_version_num')::int >= 140000)",
            &key,
        );
        let row = pool
            .bounded(taking)
            .await?
            .map_err(|e| pg_error(pool.endpoint(), &e))?;
        let taken: bool = row.try_get(0).map_err(|e| pg_error(pool.endpoint(), &e))?;
        if !taken {
            return Err(StoreError::new(
                STORE,
                StoreErrorKind::Unavailable,
                "the store's liveness key is held by a session of its own the server has not \
                 ended yet",
            ));
        }
        let pid: i32 = row.try_get(1).map_err(|e| pg_error(pool.endpoint(), &e))?;
        Ok(Session {
            client: conn.client,
            pid,
        })
    }
}
