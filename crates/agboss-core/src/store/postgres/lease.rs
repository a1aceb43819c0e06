//! Leases in the database, judged by the server's clock (`clock_timestamp()`, read as each
//! statement runs, so a statement that waited for a row lock judges by when it got it): a lease
//! is live while it has a holder, `expires_at` is later than now, and the holder's session did
//! not end ([`liveness`](super::liveness): a claim takes a gone holder's lease over at once,
//! with the next epoch, in the statement that reads its row locked). Every operation but a
//! worker's claim is one statement, atomic on its own (a claim is one transaction); an append's
//! fence check locks the lease row (`FOR SHARE`), so a claim waits for the appends it would
//! fence and they never interleave.
//!
//! A worker's claim picks the oldest runnable executions no live lease holds and locks them
//! with `FOR UPDATE SKIP LOCKED`: concurrent claimers (any number of instances) pass over each
//! other's picks instead of waiting, and never get the same execution; the lease row's own
//! check (`ON CONFLICT ... WHERE` not live) is the last word against a concurrent `acquire`.
//!
//! The pick reads the leases in the statement's snapshot, so it can pick an execution another
//! claimer leased (and let go of its row) after the snapshot was taken: the lease's check then
//! refuses it, and that place of the limit is lost. So a claim is a transaction of passes, each
//! a new statement with a new snapshot (read committed): while a pass loses picks that way and
//! the limit is not reached, another pass picks the next ones, and sees the leases that beat
//! it. A pass that loses nothing picked every unleased execution it could lock, up to the
//! limit. Each pass that loses a pick does so because another claim took that execution, so
//! passes end while work is being claimed; the claim returns its leases oldest first.

use std::time::Duration;

use tokio_postgres::types::ToSql;

use super::STORE;
use super::liveness::{Holding, Liveness, holder_gone, live, me};
use super::pool::{BEGIN, Conn, Failure, Pool};
use super::sql_int;
use crate::journal::{Lease, LeaseState};
use crate::store::{StoreError, renew_refusal};

/// The longest ttl kept as it is (about 100 years, exact as microseconds in a `float8`):
/// longer ones last that long, which no lease outlives in practice.
const MAX_TTL_MICROS: i64 = 100 * 366 * 24 * 3_600 * 1_000_000;

/// A ttl as the microseconds the statements add to the server's clock.
fn micros(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_micros()).map_or(MAX_TTL_MICROS, |m| m.min(MAX_TTL_MICROS))
}

/// Claims `execution_id` for `holder` unless a live lease holds it: a new row at epoch 1, or
/// the row's next epoch when its lease is not live. `$4` and `$5`: the store's liveness key and
/// the backend holding it.
const ACQUIRE: &str = concat!(
    "WITH ",
    me!(4, 5),
    "
INSERT INTO leases AS l (execution_id, epoch, holder, expires_at, holder_lock, holder_server_start,
    holder_stats_reset)
SELECT $1, 1, $2, clock_timestamp() + $3::bigint * interval '1 microsecond', me.lock, me.started,
    me.reset
FROM me
ON CONFLICT (execution_id) DO UPDATE
SET epoch = l.epoch + 1, holder = excluded.holder, expires_at = excluded.expires_at,
    holder_lock = excluded.holder_lock, holder_server_start = excluded.holder_server_start,
    holder_stats_reset = excluded.holder_stats_reset
WHERE NOT ",
    live!(),
    "
RETURNING epoch"
);

/// One pass of a claim: picks up to `$3` runnable executions no live lease holds (as its
/// snapshot says) and that an earlier pass did not claim (`$4`: a lease of no time is not live
/// at once), oldest first, skipping those another transaction has locked (another
/// claimer's picks, an execution being appended to), and claims them. Every pick comes back
/// with its start, and the epoch of its claim, or NULL when a live lease the snapshot did not
/// show refused it. `$5` and `$6`: the store's liveness key and the backend holding it.
const CLAIM: &str = concat!(
    "WITH ",
    me!(5, 6),
    ", picked AS (
    SELECT e.execution_id, e.started FROM executions e
    LEFT JOIN leases l ON l.execution_id = e.execution_id
    WHERE e.runnable AND NOT ",
    live!(),
    "
      AND e.execution_id <> ALL ($4::text[])
    ORDER BY e.started
    LIMIT $3
    FOR UPDATE OF e SKIP LOCKED
), claimed AS (
    INSERT INTO leases AS l (execution_id, epoch, holder, expires_at, holder_lock,
        holder_server_start, holder_stats_reset)
    SELECT execution_id, 1, $1, clock_timestamp() + $2::bigint * interval '1 microsecond',
        me.lock, me.started, me.reset
    FROM picked, me
    ON CONFLICT (execution_id) DO UPDATE
    SET epoch = l.epoch + 1, holder = excluded.holder, expires_at = excluded.expires_at,
        holder_lock = excluded.holder_lock, holder_server_start = excluded.holder_server_start,
        holder_stats_reset = excluded.holder_stats_reset
    WHERE NOT ",
    live!(),
    "
    RETURNING execution_id, epoch
)
SELECT p.execution_id, p.started, c.epoch FROM picked p LEFT JOIN claimed c USING (execution_id)
ORDER BY p.started"
);

/// A renewal, which records the holder's liveness anew (`$5` and `$6`): a lease claimed before
/// the server restarted names the new life once renewed.
const RENEW: &str = concat!(
    "WITH ",
    me!(5, 6),
    "
UPDATE leases SET expires_at = clock_timestamp() + $4::bigint * interval '1 microsecond',
    holder_lock = me.lock, holder_server_start = me.started, holder_stats_reset = me.reset
FROM me
WHERE execution_id = $1 AND epoch = $2 AND holder = $3"
);

/// A release, committed without waiting for its WAL flush (`synchronous_commit` off for its
/// transaction alone): a release only gives up what its holder no longer uses, so one lost in
/// a crash of the server (flushed within a few hundred milliseconds otherwise) leaves the lease
/// as it was, held by an instance that writes nothing more under it, until its ttl runs out.
/// Nothing waits on a release being durable: whoever acts on it (a claim) commits durably, which
/// flushes the WAL before it, release included. A release that finds its lease taken over
/// matches no row and commits nothing.
const RELEASE: &str = "
WITH quick AS (SELECT set_config('synchronous_commit', 'off', true))
UPDATE leases SET holder = NULL, expires_at = clock_timestamp()
FROM quick
WHERE execution_id = $1 AND epoch = $2 AND holder = $3";

/// The release made by the commit of appends that end their claims
/// ([`Store::append_releasing`](crate::store::Store::append_releasing)): the claims `$1`
/// (executions) at `$2` (epochs), whose rows the appends' fence checks locked in this
/// transaction, so each is still that claim's.
pub(super) const RELEASE_ENDED: &str = "
UPDATE leases AS l SET holder = NULL, expires_at = clock_timestamp()
FROM unnest($1::text[], $2::bigint[]) AS r (execution_id, epoch)
WHERE l.execution_id = r.execution_id AND l.epoch = r.epoch AND l.holder IS NOT NULL";

const STATE: &str = concat!(
    "SELECT l.epoch, l.holder, ",
    live!(),
    " FROM leases l WHERE l.execution_id = $1"
);

/// The current claim of an execution for a fence check, locking its row against a claim
/// until the transaction ends: its epoch and whether it is held.
pub(super) const FENCE: &str =
    "SELECT epoch, holder IS NOT NULL FROM leases WHERE execution_id = $1 FOR SHARE";

/// [`acquire`] on a connection of `pool`, once `liveness` holds the store's key (the
/// operations that write a lease's holder go through the key first: [`claim_held`],
/// [`renew_held`]).
pub(super) async fn acquire_held(
    pool: &Pool,
    liveness: &Liveness,
    execution_id: &str,
    holder: &str,
    ttl: Duration,
) -> Result<Option<Lease>, StoreError> {
    let holding = liveness.hold(pool).await;
    pool.run(move |mut conn, _| async move {
        let result = acquire(&mut conn, execution_id, holder, ttl, holding).await;
        (conn, result)
    })
    .await
}

/// [`claim`] on a connection of `pool`, once `liveness` holds the store's key.
pub(super) async fn claim_held(
    pool: &Pool,
    liveness: &Liveness,
    holder: &str,
    ttl: Duration,
    limit: usize,
) -> Result<Vec<Lease>, StoreError> {
    let holding = liveness.hold(pool).await;
    pool.run(move |mut conn, _| async move {
        let result = claim(&mut conn, holder, ttl, limit, holding).await;
        (conn, result)
    })
    .await
}

/// [`renew`] on a connection of `pool`, with whatever `liveness` holds without waiting.
pub(super) async fn renew_held(
    pool: &Pool,
    liveness: &Liveness,
    lease: &Lease,
) -> Result<(), StoreError> {
    let holding = liveness.hold_for_renewal(pool).await;
    pool.run(move |mut conn, _| async move {
        let result = renew(&mut conn, lease, holding).await;
        (conn, result)
    })
    .await
}

async fn acquire(
    conn: &mut Conn,
    execution_id: &str,
    holder: &str,
    ttl: Duration,
    holding: Holding,
) -> Result<Option<Lease>, Failure> {
    let statement = conn.statement(ACQUIRE).await?;
    let row = conn
        .client
        .query_opt(
            &statement,
            &[
                &execution_id,
                &holder,
                &micros(ttl),
                &holding.key,
                &holding.pid,
            ],
        )
        .await
        .map_err(Failure::Pg)?;
    row.map(|row| {
        Ok(Lease {
            execution_id: execution_id.to_owned(),
            holder: holder.to_owned(),
            epoch: epoch(&row, 0)?,
            ttl,
        })
    })
    .transpose()
}

/// Claims up to `limit` executions, in passes (see the module's documentation), in one
/// transaction. The first pass goes with `BEGIN`, the last is followed by `COMMIT`: a claim
/// that needs one pass costs two round trips.
async fn claim(
    conn: &mut Conn,
    holder: &str,
    ttl: Duration,
    limit: usize,
    holding: Holding,
) -> Result<Vec<Lease>, Failure> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let statement = conn.statement(CLAIM).await?;
    let micros = micros(ttl);
    // (start, lease) of each execution claimed.
    let mut claimed: Vec<(i64, Lease)> = Vec::new();
    conn.in_transaction = true;
    let mut first = true;
    loop {
        let want = sql_int(u64::try_from(limit - claimed.len()).unwrap_or(u64::MAX));
        let before: Vec<&str> = claimed
            .iter()
            .map(|(_, l)| l.execution_id.as_str())
            .collect();
        let values: [&(dyn ToSql + Sync); 6] =
            [&holder, &micros, &want, &before, &holding.key, &holding.pid];
        let pass = conn.client.query(&statement, &values);
        let rows = if std::mem::take(&mut first) {
            // Both answers awaited; a failed `BEGIN` is the failure, not what follows it.
            let (begun, rows) = tokio::join!(conn.client.batch_execute(BEGIN), pass);
            begun.map_err(Failure::Pg)?;
            rows.map_err(Failure::Pg)?
        } else {
            pass.await.map_err(Failure::Pg)?
        };
        let mut lost = false;
        for row in &rows {
            let epoch: Option<i64> = row.try_get(2).map_err(|e| unreadable(&e))?;
            let Some(epoch) = epoch else {
                lost = true;
                continue;
            };
            let lease = Lease {
                execution_id: row.try_get(0).map_err(|e| unreadable(&e))?,
                holder: holder.to_owned(),
                epoch: epoch as u64,
                ttl,
            };
            claimed.push((row.try_get(1).map_err(|e| unreadable(&e))?, lease));
        }
        if !lost || claimed.len() == limit {
            break;
        }
    }
    conn.client
        .batch_execute("COMMIT")
        .await
        .map_err(Failure::Pg)?;
    conn.in_transaction = false;
    claimed.sort_by_key(|(started, _)| *started);
    Ok(claimed.into_iter().map(|(_, lease)| lease).collect())
}

pub(super) async fn renew(conn: &mut Conn, lease: &Lease, holding: Holding) -> Result<(), Failure> {
    let statement = conn.statement(RENEW).await?;
    let renewed = conn
        .client
        .execute(
            &statement,
            &[
                &lease.execution_id,
                &sql_int(lease.epoch),
                &lease.holder,
                &micros(lease.ttl),
                &holding.key,
                &holding.pid,
            ],
        )
        .await
        .map_err(Failure::Pg)?;
    if renewed == 1 {
        return Ok(());
    }
    let current = current(conn, &lease.execution_id, false).await?;
    Err(Failure::Store(renew_refusal(STORE, lease, current)))
}

pub(super) async fn release(conn: &mut Conn, lease: &Lease) -> Result<(), Failure> {
    let statement = conn.statement(RELEASE).await?;
    conn.client
        .execute(
            &statement,
            &[&lease.execution_id, &sql_int(lease.epoch), &lease.holder],
        )
        .await
        .map_err(Failure::Pg)?;
    Ok(())
}

pub(super) async fn state(
    conn: &mut Conn,
    execution_id: &str,
) -> Result<Option<LeaseState>, Failure> {
    let statement = conn.statement(STATE).await?;
    let row = conn
        .client
        .query_opt(&statement, &[&execution_id])
        .await
        .map_err(Failure::Pg)?;
    row.map(|row| {
        Ok(LeaseState {
            epoch: epoch(&row, 0)?,
            holder: row.try_get(1).map_err(|e| unreadable(&e))?,
            live: row.try_get(2).map_err(|e| unreadable(&e))?,
        })
    })
    .transpose()
}

/// The current claim of an execution (its epoch, and whether it is held), read with `FOR
/// SHARE` when `lock` (inside an append's transaction).
pub(super) async fn current(
    conn: &mut Conn,
    execution_id: &str,
    lock: bool,
) -> Result<Option<(u64, bool)>, Failure> {
    let sql = if lock {
        FENCE
    } else {
        "SELECT epoch, holder IS NOT NULL FROM leases WHERE execution_id = $1"
    };
    let statement = conn.statement(sql).await?;
    let row = conn
        .client
        .query_opt(&statement, &[&execution_id])
        .await
        .map_err(Failure::Pg)?;
    row.map(|row| fence_of(&row)).transpose()
}

/// A fence row (`epoch`, `held`) as the shared check takes it.
pub(super) fn fence_of(row: &tokio_postgres::Row) -> Result<(u64, bool), Failure> {
    fence_at(row, 0)
}

/// [`fence_of`] from the columns of `row` that start at `column`.
pub(super) fn fence_at(row: &tokio_postgres::Row, column: usize) -> Result<(u64, bool), Failure> {
    Ok((
        epoch(row, column)?,
        row.try_get(column + 1).map_err(|e| unreadable(&e))?,
    ))
}

fn epoch(row: &tokio_postgres::Row, column: usize) -> Result<u64, Failure> {
    let epoch: i64 = row.try_get(column).map_err(|e| unreadable(&e))?;
    Ok(epoch as u64)
}

fn unreadable(error: &tokio_postgres::Error) -> Failure {
    Failure::Store(super::error::corrupt("a lease", error))
}
