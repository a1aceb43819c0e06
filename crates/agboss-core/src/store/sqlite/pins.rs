//! Pinned MCP definitions in the file (issue 17, fault plan T20): one row per application,
//! server and tool, the pin as JSON beside its key. Seen and approved inside the writer's
//! transactions, so applications racing to pin a first definition leave one row.

use rusqlite::{Connection, OptionalExtension, params};

use super::sql::{STORE, corrupt, sqlite_error};
use crate::store::{
    McpApproval, McpDefinitionSeen, McpPin, StoreError, StoreErrorKind, pin_after_approval,
    pin_after_seen,
};

/// The pin of a tool, on any connection.
pub(super) fn pin(
    conn: &Connection,
    application: &str,
    server: &str,
    tool: &str,
) -> Result<Option<McpPin>, StoreError> {
    let json: Option<String> = conn
        .prepare_cached(
            "SELECT record FROM mcp_pins WHERE application = ?1 AND server = ?2 AND tool = ?3",
        )
        .and_then(|mut statement| {
            statement
                .query_row(params![application, server, tool], |row| row.get(0))
                .optional()
        })
        .map_err(|e| sqlite_error(&e))?;
    json.map(|json| read(&json)).transpose()
}

/// Every pin of an application, by server, then tool.
pub(super) fn pins(conn: &Connection, application: &str) -> Result<Vec<McpPin>, StoreError> {
    let texts: Vec<String> = conn
        .prepare_cached("SELECT record FROM mcp_pins WHERE application = ?1 ORDER BY server, tool")
        .and_then(|mut statement| {
            statement
                .query_map([application], |row| row.get(0))?
                .collect::<Result<_, _>>()
        })
        .map_err(|e| sqlite_error(&e))?;
    texts.iter().map(|json| read(json)).collect()
}

/// Records a definition seen, in the writer's transaction: the pin after.
pub(super) fn see(
    tx: &Connection,
    seen: &McpDefinitionSeen,
) -> rusqlite::Result<Result<McpPin, StoreError>> {
    let held = match pin(tx, &seen.application, &seen.server, &seen.tool) {
        Ok(held) => held,
        Err(e) => return Ok(Err(e)),
    };
    match pin_after_seen(held.as_ref(), seen) {
        None => Ok(held.ok_or_else(|| invalid("a pin vanished inside a transaction"))),
        Some(next) => write(tx, &next).map(|()| Ok(next)),
    }
}

/// Records an approval, in the writer's transaction: the pin after (`None`: no pin).
pub(super) fn approve(
    tx: &Connection,
    approval: &McpApproval,
) -> rusqlite::Result<Result<Option<McpPin>, StoreError>> {
    let held = match pin(tx, &approval.application, &approval.server, &approval.tool) {
        Ok(Some(held)) => held,
        Ok(None) => return Ok(Ok(None)),
        Err(e) => return Ok(Err(e)),
    };
    match pin_after_approval(STORE, &held, approval) {
        Ok(next) => write(tx, &next).map(|()| Ok(Some(next))),
        Err(refused) => Ok(Err(refused)),
    }
}

fn write(tx: &Connection, pin: &McpPin) -> rusqlite::Result<()> {
    let json = serde_json::to_string(pin)
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    tx.prepare_cached(
        "INSERT INTO mcp_pins (application, server, tool, record) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (application, server, tool) DO UPDATE SET record = excluded.record",
    )?
    .execute(params![pin.application, pin.server, pin.tool, json])?;
    Ok(())
}

fn read(json: &str) -> Result<McpPin, StoreError> {
    serde_json::from_str(json).map_err(|e| corrupt("a pinned MCP definition", &e))
}

fn invalid(why: &str) -> StoreError {
    StoreError::new(STORE, StoreErrorKind::Invalid, why)
}
