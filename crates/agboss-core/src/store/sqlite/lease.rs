//! Leases in the file: claimed, renewed and released inside the writer's transactions, so a
//! claim and the fence check of an append never interleave. Expiry is judged by the machine's
//! boot clock ([`clock`](super::clock)), read in the transaction.

use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use super::clock;
use super::sql::{STORE, sql_int};
use crate::journal::{Lease, LeaseState, StoreError, renew_refusal};

/// A lease row: epoch, holder, boot, expiry.
type Row = (i64, Option<String>, String, i64);

fn row(conn: &Connection, execution_id: &str) -> rusqlite::Result<Option<Row>> {
    conn.prepare_cached(
        "SELECT epoch, holder, boot_id, expires_ms FROM leases WHERE execution_id = ?1",
    )?
    .query_row([execution_id], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })
    .optional()
}

fn is_live((_, holder, boot, expires): &Row, (now_boot, now): (&str, i64)) -> bool {
    holder.is_some() && boot == now_boot && *expires > now
}

fn millis(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)
}

/// The current claim of an execution for the fence check: its epoch and whether it is held.
pub(super) fn current(
    conn: &Connection,
    execution_id: &str,
) -> rusqlite::Result<Option<(u64, bool)>> {
    Ok(row(conn, execution_id)?.map(|(epoch, holder, ..)| (epoch as u64, holder.is_some())))
}

/// Claims `execution_id` unless a live lease holds it.
pub(super) fn acquire(
    conn: &Connection,
    execution_id: &str,
    holder: &str,
    ttl: Duration,
) -> rusqlite::Result<Option<Lease>> {
    let now = clock::now();
    let held = row(conn, execution_id)?;
    if held.as_ref().is_some_and(|held| is_live(held, now)) {
        return Ok(None);
    }
    let epoch = held.map_or(0, |(epoch, ..)| epoch) + 1;
    conn.prepare_cached(
        "INSERT INTO leases (execution_id, epoch, holder, boot_id, expires_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (execution_id) DO UPDATE SET epoch = excluded.epoch, \
         holder = excluded.holder, boot_id = excluded.boot_id, expires_ms = excluded.expires_ms",
    )?
    .execute(params![
        execution_id,
        epoch,
        holder,
        now.0,
        now.1.saturating_add(millis(ttl))
    ])?;
    Ok(Some(Lease {
        execution_id: execution_id.to_owned(),
        holder: holder.to_owned(),
        epoch: epoch as u64,
        ttl,
    }))
}

/// Claims up to `limit` runnable executions that no live lease holds, oldest first.
pub(super) fn claim(
    conn: &Connection,
    holder: &str,
    ttl: Duration,
    limit: usize,
) -> rusqlite::Result<Vec<Lease>> {
    let (boot, now) = clock::now();
    let ids: Vec<String> = conn
        .prepare_cached(
            "SELECT e.execution_id FROM executions e LEFT JOIN leases l \
             ON l.execution_id = e.execution_id \
             WHERE e.runnable = 1 AND (l.execution_id IS NULL OR l.holder IS NULL \
             OR l.boot_id <> ?1 OR l.expires_ms <= ?2) \
             ORDER BY e.started LIMIT ?3",
        )?
        .query_map(params![boot, now, sql_int(limit as u64)], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut leases = Vec::with_capacity(ids.len());
    for id in ids {
        leases.extend(acquire(conn, &id, holder, ttl)?);
    }
    Ok(leases)
}

/// Extends `lease` if it is still the execution's claim.
pub(super) fn renew(conn: &Connection, lease: &Lease) -> rusqlite::Result<Result<(), StoreError>> {
    let (boot, now) = clock::now();
    let updated = conn
        .prepare_cached(
            "UPDATE leases SET boot_id = ?4, expires_ms = ?5 \
             WHERE execution_id = ?1 AND epoch = ?2 AND holder = ?3",
        )?
        .execute(params![
            lease.execution_id,
            sql_int(lease.epoch),
            lease.holder,
            boot,
            now.saturating_add(millis(lease.ttl))
        ])?;
    if updated == 1 {
        return Ok(Ok(()));
    }
    let current = current(conn, &lease.execution_id)?;
    Ok(Err(renew_refusal(STORE, lease, current)))
}

/// Gives `lease` up if it is still the execution's claim.
pub(super) fn release(conn: &Connection, lease: &Lease) -> rusqlite::Result<()> {
    let (boot, now) = clock::now();
    conn.prepare_cached(
        "UPDATE leases SET holder = NULL, boot_id = ?4, expires_ms = ?5 \
         WHERE execution_id = ?1 AND epoch = ?2 AND holder = ?3",
    )?
    .execute(params![
        lease.execution_id,
        sql_int(lease.epoch),
        lease.holder,
        boot,
        now
    ])?;
    Ok(())
}

/// An execution's lease, read on a read connection.
pub(super) fn state(conn: &Connection, execution_id: &str) -> rusqlite::Result<Option<LeaseState>> {
    let now = clock::now();
    Ok(row(conn, execution_id)?.map(|held| LeaseState {
        epoch: held.0 as u64,
        live: is_live(&held, now),
        holder: held.1,
    }))
}
