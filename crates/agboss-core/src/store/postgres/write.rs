//! An append to make, and its writes once every check passed: one statement of every write
//! (the event, the execution's row, the pause's), the release of the claims that end with it,
//! and the `COMMIT`, pipelined in one round trip.

use tokio_postgres::types::ToSql;

use super::error::is_connection_lost;
use super::pool::{Conn, Failure};
use super::{STORE, lease, sql_int};
use crate::channel::PauseAnswerer;
use crate::journal::{ExecutionRecord, Fence, LoopEvent, PauseRecord};
use crate::store::{StoreError, StoreErrorKind};

/// One append to make: the event, its JSON as stored, and who appends it.
pub(super) struct Append<'a> {
    pub(super) execution_id: &'a str,
    pub(super) seq: u64,
    pub(super) event: &'a LoopEvent,
    pub(super) json: &'a str,
    pub(super) fence: Fence,
    /// Whether its commit releases its claim (`append_releasing`).
    pub(super) releases: bool,
}

/// The claims a commit releases with its appends: those of the appends that end them.
#[derive(Default)]
pub(super) struct Released<'a> {
    ids: Vec<&'a str>,
    epochs: Vec<i64>,
}

impl<'a> Released<'a> {
    /// Adds the claim of `append` if it ends with it.
    pub(super) fn push(&mut self, append: &Append<'a>) {
        if let (true, Some(epoch)) = (append.releases, append.fence.epoch()) {
            self.ids.push(append.execution_id);
            self.epochs.push(sql_int(epoch));
        }
    }

    /// Whether there is no claim to release.
    pub(super) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The parameters of [`lease::RELEASE_ENDED`].
    pub(super) fn values(&self) -> [&(dyn ToSql + Sync); 2] {
        [&self.ids, &self.epochs]
    }
}

/// The writes of an append, one statement: the event ($1 to $4), then the execution's row, then
/// the pause's. An execution's first event (`started`) changes no pause.
const WRITE_FIRST: &str = "
WITH event AS (
    INSERT INTO events (execution_id, seq, event, epoch) VALUES ($1, $2, $3, $4)
)
INSERT INTO executions (execution_id, thread_id, runnable, record) VALUES ($1, $5, $6, $7)";
const WRITE_NEXT: &str = "
WITH event AS (
    INSERT INTO events (execution_id, seq, event, epoch) VALUES ($1, $2, $3, $4)
)
UPDATE executions SET runnable = $5, record = $6 WHERE execution_id = $1";
const WRITE_NEXT_OPENING: &str = "
WITH event AS (
    INSERT INTO events (execution_id, seq, event, epoch) VALUES ($1, $2, $3, $4)
), pause AS (
    INSERT INTO pauses (pause_id, execution_id, thread_id, owner_id, opened_at_ms,
                        opened_at_seq, open, record)
    VALUES ($7, $8, $9, $10, $11, $12, $13, $14)
)
UPDATE executions SET runnable = $5, record = $6 WHERE execution_id = $1";
const WRITE_NEXT_CHANGING: &str = "
WITH event AS (
    INSERT INTO events (execution_id, seq, event, epoch) VALUES ($1, $2, $3, $4)
), pause AS (
    UPDATE pauses SET open = $8, record = $9 WHERE pause_id = $7
)
UPDATE executions SET runnable = $5, record = $6 WHERE execution_id = $1";

/// The writes of a checked append and its commit, pipelined: the server runs them in order,
/// and a failed write aborts the transaction, so the `COMMIT` after it rolls back.
pub(super) async fn write(
    conn: &mut Conn,
    append: &Append<'_>,
    record: &ExecutionRecord,
    record_json: &str,
    pause_write: Option<(bool, PauseRecord, String)>,
) -> Result<(), Failure> {
    if append.seq == 0 && pause_write.is_some() {
        // `next_record` takes only `started` first, and it changes no pause.
        return Err(StoreError::new(
            STORE,
            StoreErrorKind::Invalid,
            "an execution's first event may not change a pause",
        )
        .into());
    }
    let seq = sql_int(append.seq);
    let epoch = append.fence.epoch().map(sql_int);
    let runnable = record.is_runnable();
    let mut values: Vec<&(dyn ToSql + Sync)> =
        vec![&append.execution_id, &seq, &append.json, &epoch];
    let sql = if append.seq == 0 {
        values.extend([
            &record.thread_id as &(dyn ToSql + Sync),
            &runnable,
            &record_json,
        ]);
        WRITE_FIRST
    } else {
        values.extend([&runnable as &(dyn ToSql + Sync), &record_json]);
        WRITE_NEXT
    };
    // The owner filter of `open_pauses` lists thread-owner pauses only: others get no owner.
    let owner = pause_write.as_ref().and_then(|(_, pause, _)| {
        (pause.opened.answered_by == PauseAnswerer::ThreadOwner)
            .then_some(pause.opened.owner.as_deref())
            .flatten()
    });
    let opened_at = pause_write
        .as_ref()
        .map(|(_, p, _)| (sql_int(p.opened.opened_at_ms), sql_int(p.opened_at_seq)));
    let open = pause_write.as_ref().is_some_and(|(_, p, _)| p.is_open());
    let sql = match (&pause_write, &opened_at) {
        (Some((true, pause, json)), Some((at_ms, at_seq))) => {
            values.extend([
                &pause.opened.pause_id as &(dyn ToSql + Sync),
                &pause.execution_id,
                &pause.thread_id,
                &owner,
                at_ms,
                at_seq,
                &open,
                json,
            ]);
            WRITE_NEXT_OPENING
        }
        (Some((_, pause, json)), _) => {
            values.extend([&pause.opened.pause_id as &(dyn ToSql + Sync), &open, json]);
            WRITE_NEXT_CHANGING
        }
        (None, _) => sql,
    };
    let mut released = Released::default();
    released.push(append);
    committed(conn, sql, &values, &released).await
}

/// Runs the writes `sql` with `values`, the release of the claims `released`, and the
/// `COMMIT`, pipelined: the server runs them in order, and a failed statement aborts the
/// transaction, so the `COMMIT` after it rolls back. The end of every append's transaction,
/// alone or in a batch.
pub(super) async fn committed(
    conn: &mut Conn,
    sql: &str,
    values: &[&(dyn ToSql + Sync)],
    released: &Released<'_>,
) -> Result<(), Failure> {
    let statement = conn.statement(sql).await?;
    let release = match released.is_empty() {
        true => None,
        false => Some(conn.statement(lease::RELEASE_ENDED).await?),
    };
    let client = &conn.client;
    let claims = released.values();
    let releasing = async {
        match &release {
            Some(release) => client.execute(release, &claims).await,
            None => Ok(0),
        }
    };
    // The fault tests kill a worker here: the transaction checked, its rows locked, nothing
    // written.
    crate::base::failpoint("store-commit");
    // Every answer is awaited, then the first failure in the order they were sent is the one:
    // after it the server refuses the rest as part of a failed transaction (`try_join!` would
    // report whichever failure it happened to poll first, and a refusal of that kind is not
    // worth a retry where the failure that caused it may be).
    let (write, release, commit) = tokio::join!(
        client.execute(&statement, values),
        releasing,
        client.batch_execute("COMMIT"),
    );
    match write.and(release).and(commit) {
        Ok(_) => {
            conn.in_transaction = false;
            Ok(())
        }
        // The server answered: the transaction failed before its commit, which rolled it back.
        Err(e) if e.as_db_error().is_some() && !is_connection_lost(&e) => Err(Failure::Pg(e)),
        // The commit was sent with the writes; whether it was done is not known.
        Err(e) => Err(Failure::Commit(e)),
    }
}
