//! Leases in the file: claimed, renewed and released inside the writer's transactions, so a
//! claim and the fence check of an append never interleave. Expiry is judged by the machine's
//! boot clock ([`clock`](super::clock)), read in the transaction; whether the holder's process
//! is gone ([`process`](super::process)), in the same transaction, so a claim takes a gone
//! holder's lease over at once, with the next epoch, by the journal's one rule
//! ([`lease_holds`]).

use std::collections::HashMap;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use super::clock;
use super::process::{self, Process};
use super::sql::{STORE, sql_int};
use crate::journal::{Holder, Lease, LeaseState, lease_holds};
use crate::store::{StoreError, renew_refusal};

/// A lease row as the rule reads it.
struct Row {
    epoch: i64,
    holder: Option<String>,
    boot: String,
    expires: i64,
    process: Option<Process>,
}

/// The columns [`Row`] reads, from a table aliased `l`.
const COLUMNS: &str =
    "l.epoch, l.holder, l.boot_id, l.expires_ms, l.holder_pid, l.holder_started, l.holder_pid_ns";

impl Row {
    /// The row from the columns of [`COLUMNS`], from column `at` on.
    fn read(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Row> {
        let pid: Option<i64> = r.get(at + 4)?;
        let started: Option<i64> = r.get(at + 5)?;
        let namespace: Option<i64> = r.get(at + 6)?;
        Ok(Row {
            epoch: r.get(at)?,
            holder: r.get(at + 1)?,
            boot: r.get(at + 2)?,
            expires: r.get(at + 3)?,
            process: pid
                .zip(started)
                .zip(namespace)
                .map(|((pid, started), namespace)| Process {
                    pid,
                    started,
                    namespace,
                }),
        })
    }
}

/// What the machine said of each holder process during one operation: each is looked at once.
#[derive(Default)]
struct Seen(HashMap<Process, Holder>);

impl Seen {
    /// Whether `held` keeps its execution from a claim at `now`.
    fn holds(&mut self, held: &Row, (now_boot, now): (&str, i64)) -> bool {
        // A lease of another boot ran out with every process of that boot.
        let ran_out = held.boot != now_boot || held.expires <= now;
        let by = held.holder.is_some();
        // Only a lease its ttl still keeps needs its holder looked at.
        let holder = match held.process {
            Some(p) if by && !ran_out => *self.0.entry(p).or_insert_with(|| process::holder(p)),
            _ => Holder::MayRun,
        };
        lease_holds(by, ran_out, holder)
    }
}

fn row(conn: &Connection, execution_id: &str) -> rusqlite::Result<Option<Row>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM leases l WHERE l.execution_id = ?1"
    ))?
    .query_row([execution_id], |r| Row::read(r, 0))
    .optional()
}

fn millis(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)
}

/// The current claim of an execution for the fence check: its epoch and whether it is held.
pub(super) fn current(
    conn: &Connection,
    execution_id: &str,
) -> rusqlite::Result<Option<(u64, bool)>> {
    Ok(row(conn, execution_id)?.map(|held| (held.epoch as u64, held.holder.is_some())))
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
    if held
        .as_ref()
        .is_some_and(|held| Seen::default().holds(held, now))
    {
        return Ok(None);
    }
    let epoch = held.map_or(0, |held| held.epoch) + 1;
    take(conn, execution_id, epoch, holder, ttl, now).map(Some)
}

/// Writes claim `epoch` of `execution_id` for `holder`, by this process, at `now`.
fn take(
    conn: &Connection,
    execution_id: &str,
    epoch: i64,
    holder: &str,
    ttl: Duration,
    (boot, now): (&str, i64),
) -> rusqlite::Result<Lease> {
    let me = process::this();
    conn.prepare_cached(
        "INSERT INTO leases (execution_id, epoch, holder, boot_id, expires_ms, holder_pid, \
         holder_started, holder_pid_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
         ON CONFLICT (execution_id) DO UPDATE SET epoch = excluded.epoch, \
         holder = excluded.holder, boot_id = excluded.boot_id, expires_ms = excluded.expires_ms, \
         holder_pid = excluded.holder_pid, holder_started = excluded.holder_started, \
         holder_pid_ns = excluded.holder_pid_ns",
    )?
    .execute(params![
        execution_id,
        epoch,
        holder,
        boot,
        now.saturating_add(millis(ttl)),
        me.map(|p| p.pid),
        me.map(|p| p.started),
        me.map(|p| p.namespace),
    ])?;
    Ok(Lease {
        execution_id: execution_id.to_owned(),
        holder: holder.to_owned(),
        epoch: epoch as u64,
        ttl,
    })
}

/// Claims up to `limit` runnable executions that no live lease holds, oldest first.
pub(super) fn claim(
    conn: &Connection,
    holder: &str,
    ttl: Duration,
    limit: usize,
) -> rusqlite::Result<Vec<Lease>> {
    let now = clock::now();
    let mut seen = Seen::default();
    // (execution, its last epoch) of each one to claim, picked before any is written.
    let mut picked: Vec<(String, i64)> = Vec::new();
    {
        // What may be claimed: leases their ttl does not keep, and those of other processes
        // of this namespace, which the rule looks at (this process runs).
        let mut statement = conn.prepare_cached(&format!(
            "SELECT e.execution_id, l.execution_id IS NOT NULL, {COLUMNS} FROM executions e \
             LEFT JOIN leases l ON l.execution_id = e.execution_id \
             WHERE e.runnable = 1 AND (l.execution_id IS NULL OR l.holder IS NULL \
             OR l.boot_id <> ?1 OR l.expires_ms <= ?2 OR (l.holder_pid_ns = ?3 \
             AND NOT (l.holder_pid = ?4 AND l.holder_started = ?5))) \
             ORDER BY e.started"
        ))?;
        let me = process::this();
        let mut rows = statement.query(params![
            now.0,
            now.1,
            me.map(|p| p.namespace),
            me.map(|p| p.pid),
            me.map(|p| p.started)
        ])?;
        while picked.len() < limit {
            let Some(r) = rows.next()? else { break };
            let leased: bool = r.get(1)?;
            let held = if leased { Some(Row::read(r, 2)?) } else { None };
            if held.as_ref().is_some_and(|held| seen.holds(held, now)) {
                continue;
            }
            picked.push((r.get(0)?, held.map_or(0, |held| held.epoch)));
        }
    }
    picked
        .into_iter()
        .map(|(id, epoch)| take(conn, &id, epoch + 1, holder, ttl, now))
        .collect()
}

/// Extends `lease` if it is still the execution's claim.
pub(super) fn renew(conn: &Connection, lease: &Lease) -> rusqlite::Result<Result<(), StoreError>> {
    let (boot, now) = clock::now();
    let me = process::this();
    let updated = conn
        .prepare_cached(
            "UPDATE leases SET boot_id = ?4, expires_ms = ?5, holder_pid = ?6, \
             holder_started = ?7, holder_pid_ns = ?8 \
             WHERE execution_id = ?1 AND epoch = ?2 AND holder = ?3",
        )?
        .execute(params![
            lease.execution_id,
            sql_int(lease.epoch),
            lease.holder,
            boot,
            now.saturating_add(millis(lease.ttl)),
            me.map(|p| p.pid),
            me.map(|p| p.started),
            me.map(|p| p.namespace),
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
        "UPDATE leases SET holder = NULL, boot_id = ?4, expires_ms = ?5, holder_pid = NULL, \
         holder_started = NULL, holder_pid_ns = NULL \
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
        epoch: held.epoch as u64,
        live: Seen::default().holds(&held, now),
        holder: held.holder,
    }))
}
