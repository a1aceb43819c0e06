//! Reads: one statement each, so each sees one committed state of the database, answered from
//! an index in the order the listing wants (docs/stores.md has the plans).

use serde::de::DeserializeOwned;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::error::corrupt;
use super::pool::{Conn, Failure};
use super::sql_int;
use crate::journal::{
    ExecutionRecord, JournalEntry, LoopEvent, PauseQuery, PauseRecord, ThreadOwner,
};

/// Every event of an execution, in order.
pub(super) async fn events(conn: &mut Conn, execution_id: &str) -> Result<Vec<LoopEvent>, Failure> {
    let sql = "SELECT event FROM events WHERE execution_id = $1 ORDER BY seq";
    let what = format!("an event of execution `{execution_id}`");
    rows(conn, sql, &[&execution_id], &what).await
}

/// Every event of an execution, in order, with the epoch of the claim that wrote it.
pub(super) async fn entries(
    conn: &mut Conn,
    execution_id: &str,
) -> Result<Vec<JournalEntry>, Failure> {
    let statement = conn
        .statement("SELECT event, epoch FROM events WHERE execution_id = $1 ORDER BY seq")
        .await?;
    let rows = conn
        .client
        .query(&statement, &[&execution_id])
        .await
        .map_err(Failure::Pg)?;
    let what = format!("an event of execution `{execution_id}`");
    rows.iter()
        .map(|row| {
            let epoch: Option<i64> = row.try_get(1).map_err(|e| corrupt(&what, &e))?;
            Ok(JournalEntry {
                event: json(row, &what)?,
                epoch: epoch.map(|e| e as u64),
            })
        })
        .collect()
}

/// An execution's record.
pub(super) async fn execution(
    conn: &mut Conn,
    execution_id: &str,
) -> Result<Option<ExecutionRecord>, Failure> {
    let sql = "SELECT record FROM executions WHERE execution_id = $1";
    let what = format!("the record of execution `{execution_id}`");
    one(conn, sql, execution_id, &what).await
}

/// A pause's record.
pub(super) async fn pause(conn: &mut Conn, pause_id: &str) -> Result<Option<PauseRecord>, Failure> {
    let sql = "SELECT record FROM pauses WHERE pause_id = $1";
    let what = format!("the record of pause `{pause_id}`");
    one(conn, sql, pause_id, &what).await
}

/// A thread's executions, in the order they started.
pub(super) async fn thread(
    conn: &mut Conn,
    thread_id: &str,
) -> Result<Vec<ExecutionRecord>, Failure> {
    let sql = "SELECT record FROM executions WHERE thread_id = $1 ORDER BY started";
    let what = format!("an execution of thread `{thread_id}`");
    rows(conn, sql, &[&thread_id], &what).await
}

/// A thread's owner (`None`: no run has started in it).
pub(super) async fn thread_owner(
    conn: &mut Conn,
    thread_id: &str,
) -> Result<Option<ThreadOwner>, Failure> {
    let statement = conn
        .statement("SELECT owner_id FROM threads WHERE thread_id = $1")
        .await?;
    let row = conn
        .client
        .query_opt(&statement, &[&thread_id])
        .await
        .map_err(Failure::Pg)?;
    let what = format!("the owner of thread `{thread_id}`");
    row.map(|row| {
        let owner: Option<&str> = row.try_get(0).map_err(|e| corrupt(&what, &e))?;
        Ok(ThreadOwner::of(owner))
    })
    .transpose()
}

/// The open pauses `query` asks for, oldest first: the order `MemoryStore` sorts them in
/// (opened at, then execution id byte by byte, then position in the journal), served by the
/// partial index of the filters given. `LIMIT NULL` is no limit.
pub(super) async fn open_pauses(
    conn: &mut Conn,
    query: &PauseQuery,
) -> Result<Vec<PauseRecord>, Failure> {
    let mut sql = String::from("SELECT record FROM pauses WHERE open");
    let mut values: Vec<&(dyn ToSql + Sync)> = Vec::new();
    for (column, value) in [
        ("owner_id", &query.owner),
        ("thread_id", &query.thread),
        ("execution_id", &query.execution),
    ] {
        if let Some(value) = value {
            values.push(value);
            sql.push_str(&format!(" AND {column} = ${}", values.len()));
        }
    }
    let limit: Option<i64> = query
        .limit
        .map(|limit| sql_int(u64::try_from(limit).unwrap_or(u64::MAX)));
    values.push(&limit);
    sql.push_str(&format!(
        " ORDER BY opened_at_ms, execution_id, opened_at_seq LIMIT ${}",
        values.len()
    ));
    rows(conn, &sql, &values, "an open pause").await
}

async fn one<T: DeserializeOwned>(
    conn: &mut Conn,
    sql: &str,
    key: &str,
    what: &str,
) -> Result<Option<T>, Failure> {
    let statement = conn.statement(sql).await?;
    let row = conn
        .client
        .query_opt(&statement, &[&key])
        .await
        .map_err(Failure::Pg)?;
    row.map(|row| json(&row, what)).transpose()
}

async fn rows<T: DeserializeOwned>(
    conn: &mut Conn,
    sql: &str,
    values: &[&(dyn ToSql + Sync)],
    what: &str,
) -> Result<Vec<T>, Failure> {
    let statement = conn.statement(sql).await?;
    let rows = conn
        .client
        .query(&statement, values)
        .await
        .map_err(Failure::Pg)?;
    rows.iter().map(|row| json(row, what)).collect()
}

/// The JSON text in the first column of `row`, read as a `T`.
pub(super) fn json<T: DeserializeOwned>(row: &Row, what: &str) -> Result<T, Failure> {
    json_at(row, 0, what)
}

/// The JSON text of `row`'s column `column`, read as a `T`.
pub(super) fn json_at<T: DeserializeOwned>(
    row: &Row,
    column: usize,
    what: &str,
) -> Result<T, Failure> {
    let text: &str = row.try_get(column).map_err(|e| corrupt(what, &e))?;
    Ok(serde_json::from_str(text).map_err(|e| corrupt(what, &e))?)
}
