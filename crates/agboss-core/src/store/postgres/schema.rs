//! The store's tables, in a schema of their own (`agboss` by default), and how a database is
//! brought up to date: versioned migrations, applied on connect in one transaction under an
//! advisory lock, so instances connecting to a new database at once migrate it once.

use tokio_postgres::Client;

use super::STORE;
use super::error::pg_error;
use crate::store::{StoreError, StoreErrorKind};

/// The migrations, in order: migration `i` takes the schema from version `i` to `i + 1`.
/// Append new ones; never edit a released one.
const MIGRATIONS: &[&str] = &[
    V1,
    V2,
    super::artifacts::SCHEMA_V3,
    V4,
    V5,
    super::sealed::SCHEMA_V6,
];

/// The schema version this build writes (the highest row of `migrations`).
pub(super) const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

/// The first key of the advisory lock migrations take ("agbs"); the second is the schema's.
const LOCK_KEY: i32 = 0x6167_6273;

/// Version 1. Events and records are JSON text exactly as serde writes them (never `jsonb`,
/// which would reorder keys); the columns beside them are what the queries filter and order
/// by. Ids are compared byte by byte (`COLLATE "C"`), as `MemoryStore` orders them, whatever
/// the database's collation. `executions.started` only grows: it orders a thread's executions
/// and a worker's claims by start. `leases` holds each execution's last claim (its epoch only
/// grows); `expires_at` is on the server's clock. `events.epoch` is the claim that appended
/// each event (NULL: unfenced).
const V1: &str = r#"
CREATE TABLE migrations (
    version integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE executions (
    started bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    execution_id text COLLATE "C" NOT NULL UNIQUE,
    thread_id text COLLATE "C" NOT NULL,
    runnable boolean NOT NULL,
    record text NOT NULL
);
CREATE INDEX executions_by_thread ON executions (thread_id, started);
CREATE INDEX runnable_executions ON executions (started) WHERE runnable;

CREATE TABLE events (
    execution_id text COLLATE "C" NOT NULL,
    seq bigint NOT NULL,
    event text NOT NULL,
    epoch bigint,
    PRIMARY KEY (execution_id, seq)
);

CREATE TABLE pauses (
    pause_id text COLLATE "C" PRIMARY KEY,
    execution_id text COLLATE "C" NOT NULL,
    thread_id text COLLATE "C" NOT NULL,
    owner_id text COLLATE "C",
    opened_at_ms bigint NOT NULL,
    opened_at_seq bigint NOT NULL,
    open boolean NOT NULL,
    record text NOT NULL
);
CREATE INDEX open_pauses ON pauses (opened_at_ms, execution_id, opened_at_seq) WHERE open;
CREATE INDEX open_pauses_by_owner
    ON pauses (owner_id, opened_at_ms, execution_id, opened_at_seq) WHERE open;
CREATE INDEX open_pauses_by_thread
    ON pauses (thread_id, opened_at_ms, execution_id, opened_at_seq) WHERE open;
CREATE INDEX open_pauses_by_execution
    ON pauses (execution_id, opened_at_ms, opened_at_seq) WHERE open;

CREATE TABLE leases (
    execution_id text COLLATE "C" PRIMARY KEY,
    epoch bigint NOT NULL,
    holder text,
    expires_at timestamptz NOT NULL
);
"#;

/// Version 2: threads' owners. `threads` holds one row per thread, made by the first event of
/// its first execution with the owner that run named (NULL: none), never changed after. The
/// threads of a store of version 1 get the owner of their first execution (by start order), as
/// its record says.
const V2: &str = r#"
CREATE TABLE threads (
    thread_id text COLLATE "C" PRIMARY KEY,
    owner_id text COLLATE "C"
);

INSERT INTO threads (thread_id, owner_id)
SELECT DISTINCT ON (thread_id) thread_id, record::json ->> 'owner_id'
FROM executions
ORDER BY thread_id, started;
"#;

/// Version 4: pinned MCP definitions (issue 17, fault plan T20). One row per application,
/// server and tool; `record` is the pin as JSON.
const V4: &str = r#"
CREATE TABLE mcp_pins (
    application text COLLATE "C" NOT NULL,
    server text COLLATE "C" NOT NULL,
    tool text COLLATE "C" NOT NULL,
    record text NOT NULL,
    PRIMARY KEY (application, server, tool)
);
"#;

/// Version 5: each lease's holder as the server knows it (docs/durability.md, "Liveness";
/// `liveness.rs`): the advisory lock key its session held when it claimed or renewed
/// (`holder_lock`; NULL: none, the lease lasts its ttl), and the server's life then (its start
/// and its statistics' last reset), so a claim takes over at once the lease of a holder whose
/// session ended in this life.
const V5: &str = r#"
ALTER TABLE leases ADD COLUMN holder_lock bigint;
ALTER TABLE leases ADD COLUMN holder_server_start timestamptz;
ALTER TABLE leases ADD COLUMN holder_stats_reset timestamptz;
"#;

/// Whether `schema` is a name the store takes: lower-case ASCII letters, digits and `_`, not
/// starting with a digit, at most 63 bytes (so it never needs quoting).
pub(super) fn is_plain_name(schema: &str) -> bool {
    !schema.is_empty()
        && schema.len() <= 63
        && !schema.starts_with(|c: char| c.is_ascii_digit())
        && schema
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Brings schema `schema` of the database `client` is connected to up to [`SCHEMA_VERSION`],
/// making it if there is none, or refuses: a database not in UTF-8, a schema of that name
/// holding other tables, or one a newer build migrated.
pub(super) async fn migrate(
    client: &Client,
    schema: &str,
    endpoint: &str,
) -> Result<(), StoreError> {
    let pg = |e: tokio_postgres::Error| opening(pg_error(endpoint, &e));
    client.batch_execute("BEGIN").await.map_err(pg)?;
    let result = migrate_in_transaction(client, schema, endpoint).await;
    let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
    let ended = client.batch_execute(end).await.map_err(pg);
    result.and(ended)
}

async fn migrate_in_transaction(
    client: &Client,
    schema: &str,
    endpoint: &str,
) -> Result<(), StoreError> {
    let pg = |e: tokio_postgres::Error| opening(pg_error(endpoint, &e));
    client
        .execute(
            "SELECT pg_advisory_xact_lock($1, $2)",
            &[&LOCK_KEY, &lock_key(schema)],
        )
        .await
        .map_err(pg)?;
    let row = client
        .query_one(
            "SELECT current_database(), current_setting('server_encoding'), \
             current_setting('server_version_num')::int, current_setting('server_version'), \
             EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1), \
             to_regclass(quote_ident($1) || '.migrations') IS NOT NULL, \
             (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
              WHERE n.nspname = $1)",
            &[&schema],
        )
        .await
        .map_err(pg)?;
    let database: String = row.try_get(0).map_err(pg)?;
    let encoding: String = row.try_get(1).map_err(pg)?;
    let version_num: i32 = row.try_get(2).map_err(pg)?;
    let server_version: String = row.try_get(3).map_err(pg)?;
    let exists: bool = row.try_get(4).map_err(pg)?;
    let ours: bool = row.try_get(5).map_err(pg)?;
    let relations: i64 = row.try_get(6).map_err(pg)?;
    let refuse = |why: String| {
        StoreError::new(
            STORE,
            StoreErrorKind::Invalid,
            format!("cannot open the store in database `{database}` at {endpoint}: {why}"),
        )
    };
    if version_num < 120_000 {
        return Err(refuse(format!(
            "it is PostgreSQL {server_version}; the store needs 12 or newer"
        )));
    }
    if encoding != "UTF8" {
        return Err(refuse(format!(
            "its encoding is {encoding}; the store needs a UTF8 database \
             (CREATE DATABASE ... ENCODING 'UTF8')"
        )));
    }
    if exists && !ours && relations > 0 {
        return Err(refuse(format!(
            "its schema `{schema}` holds tables that are not an agboss store's; name another \
             schema in PostgresOptions"
        )));
    }
    let version: i32 = if ours {
        client
            .query_one("SELECT coalesce(max(version), 0) FROM migrations", &[])
            .await
            .map_err(pg)?
            .try_get(0)
            .map_err(pg)?
    } else {
        0
    };
    if version > SCHEMA_VERSION {
        return Err(refuse(format!(
            "its store schema is version {version}, newer than the {SCHEMA_VERSION} this build \
             knows: connect with a newer agboss"
        )));
    }
    if !exists {
        // The name is plain (checked when the store was asked for it): no quoting needed.
        client
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .await
            .map_err(pg)?;
    }
    for (i, migration) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
        client.batch_execute(migration).await.map_err(pg)?;
        let to = i as i32 + 1;
        client
            .execute("INSERT INTO migrations (version) VALUES ($1)", &[&to])
            .await
            .map_err(pg)?;
    }
    Ok(())
}

/// The advisory lock's second key: the schema's name hashed (FNV-1a, folded to 32 bits), so
/// stores in other schemas of one database migrate without waiting for each other.
fn lock_key(schema: &str) -> i32 {
    let hash = schema.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    });
    hash as i32
}

fn opening(mut error: StoreError) -> StoreError {
    error.detail = format!("cannot open the store: {}", error.detail);
    error
}
