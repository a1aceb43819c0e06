//! Pinned MCP definitions in the database (issue 17, fault plan T20; [`PostgresPins`], the
//! store's [`PinStore`]): one row per application, server and tool, the pin as JSON beside its
//! key. A definition seen, or an
//! approval, is one transaction that locks the pin's row, so instances racing to pin a first
//! definition leave one row and an approval never crosses a change it did not review.

use std::sync::Arc;

use super::STORE;
use super::pool::{BEGIN, Conn, Failure, Pool};
use super::read::json;
use crate::store::{
    McpApproval, McpDefinitionSeen, McpPin, PinStore, StoreError, StoreErrorKind, StoreFuture,
    pin_after_approval, pin_after_seen,
};

const PIN: &str =
    "SELECT record FROM mcp_pins WHERE application = $1 AND server = $2 AND tool = $3";
const LOCKED: &str = "SELECT record FROM mcp_pins \
     WHERE application = $1 AND server = $2 AND tool = $3 FOR UPDATE";
const PINS: &str = "SELECT record FROM mcp_pins WHERE application = $1 ORDER BY server, tool";
/// A first sight's row, unless another is there (then the row is locked by the `SELECT .. FOR
/// UPDATE` that follows, once the inserting transaction ended).
const FIRST: &str = "INSERT INTO mcp_pins (application, server, tool, record) \
     VALUES ($1, $2, $3, $4) ON CONFLICT (application, server, tool) DO NOTHING";
const UPDATE: &str = "UPDATE mcp_pins SET record = $4 \
     WHERE application = $1 AND server = $2 AND tool = $3";

const WHAT: &str = "a pinned MCP definition";

/// The pin of a tool.
async fn pin(
    conn: &mut Conn,
    application: &str,
    server: &str,
    tool: &str,
) -> Result<Option<McpPin>, Failure> {
    let statement = conn.statement(PIN).await?;
    let row = conn
        .client
        .query_opt(&statement, &[&application, &server, &tool])
        .await
        .map_err(Failure::Pg)?;
    row.map(|row| json(&row, WHAT)).transpose()
}

/// Every pin of an application, by server, then tool.
async fn pins(conn: &mut Conn, application: &str) -> Result<Vec<McpPin>, Failure> {
    let statement = conn.statement(PINS).await?;
    let rows = conn
        .client
        .query(&statement, &[&application])
        .await
        .map_err(Failure::Pg)?;
    rows.iter().map(|row| json(row, WHAT)).collect()
}

/// Records a definition seen: the pin after.
async fn see(conn: &mut Conn, seen: &McpDefinitionSeen) -> Result<McpPin, Failure> {
    let first = pin_after_seen(None, seen).ok_or_else(|| invalid("no first pin"))?;
    let key = (&seen.application, &seen.server, &seen.tool);
    begin(conn).await?;
    let inserted = write(conn, FIRST, &first).await?;
    let pin = if inserted == 1 {
        first
    } else {
        let held = locked(conn, key).await?;
        match pin_after_seen(Some(&held), seen) {
            None => held,
            Some(next) => {
                write(conn, UPDATE, &next).await?;
                next
            }
        }
    };
    commit(conn).await?;
    Ok(pin)
}

/// Records an approval: the pin after (`None`: no pin).
async fn approve(conn: &mut Conn, approval: &McpApproval) -> Result<Option<McpPin>, Failure> {
    let key = (&approval.application, &approval.server, &approval.tool);
    begin(conn).await?;
    let statement = conn.statement(LOCKED).await?;
    let row = conn
        .client
        .query_opt(&statement, &[key.0, key.1, key.2])
        .await
        .map_err(Failure::Pg)?;
    let Some(row) = row else {
        commit(conn).await?;
        return Ok(None);
    };
    let held: McpPin = json(&row, WHAT)?;
    let next = pin_after_approval(STORE, &held, approval)?;
    write(conn, UPDATE, &next).await?;
    commit(conn).await?;
    Ok(Some(next))
}

async fn locked(conn: &mut Conn, key: (&String, &String, &String)) -> Result<McpPin, Failure> {
    let statement = conn.statement(LOCKED).await?;
    let row = conn
        .client
        .query_one(&statement, &[key.0, key.1, key.2])
        .await
        .map_err(Failure::Pg)?;
    json(&row, WHAT)
}

async fn write(conn: &mut Conn, sql: &str, pin: &McpPin) -> Result<u64, Failure> {
    let record = serde_json::to_string(pin).map_err(|e| invalid(&e.to_string()))?;
    let statement = conn.statement(sql).await?;
    conn.client
        .execute(
            &statement,
            &[&pin.application, &pin.server, &pin.tool, &record],
        )
        .await
        .map_err(Failure::Pg)
}

async fn begin(conn: &mut Conn) -> Result<(), Failure> {
    conn.in_transaction = true;
    conn.client.batch_execute(BEGIN).await.map_err(Failure::Pg)
}

async fn commit(conn: &mut Conn) -> Result<(), Failure> {
    conn.client
        .batch_execute("COMMIT")
        .await
        .map_err(Failure::Commit)?;
    conn.in_transaction = false;
    Ok(())
}

fn invalid(why: &str) -> Failure {
    Failure::Store(StoreError::new(STORE, StoreErrorKind::Invalid, why))
}

/// The pins of one [`PostgresStore`](super::PostgresStore), on its connections.
#[derive(Debug)]
pub(super) struct PostgresPins {
    pub(super) pool: Arc<Pool>,
}

impl PinStore for PostgresPins {
    fn get<'a>(
        &'a self,
        application: &'a str,
        server: &'a str,
        tool: &'a str,
    ) -> StoreFuture<'a, Option<McpPin>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = pin(&mut conn, application, server, tool).await;
            (conn, result)
        }))
    }

    fn list<'a>(&'a self, application: &'a str) -> StoreFuture<'a, Vec<McpPin>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = pins(&mut conn, application).await;
            (conn, result)
        }))
    }

    fn see<'a>(&'a self, seen: &'a McpDefinitionSeen) -> StoreFuture<'a, McpPin> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = see(&mut conn, seen).await;
            (conn, result)
        }))
    }

    fn approve<'a>(&'a self, approval: &'a McpApproval) -> StoreFuture<'a, Option<McpPin>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = approve(&mut conn, approval).await;
            (conn, result)
        }))
    }
}
