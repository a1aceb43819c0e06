//! Artifacts in PostgreSQL ([`PostgresArtifacts`], the store's [`ArtifactStore`]): one row per
//! artifact in `artifacts`, each operation one statement (a put that finds its reference taken
//! writes nothing, so a retried put is harmless).

use std::sync::Arc;

use super::error::corrupt;
use super::pool::{Conn, Failure, Pool};
use super::sql_int;
use crate::store::{ArtifactStore, StoreFuture};
use crate::tool::{Artifact, ArtifactRef};

/// Version 3 of the schema: artifacts. `made` only grows, so it orders an execution's
/// artifacts by when they were put; `data` is the rendered result, JSON text as written.
pub(super) const SCHEMA_V3: &str = r#"
CREATE TABLE artifacts (
    made bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    reference text COLLATE "C" NOT NULL UNIQUE,
    execution_id text COLLATE "C" NOT NULL,
    kind text COLLATE "C" NOT NULL,
    tool text NOT NULL,
    call_id text NOT NULL,
    size bigint NOT NULL,
    data text NOT NULL
);
CREATE INDEX artifacts_by_execution ON artifacts (execution_id, kind, made);
"#;

/// Keeps `artifact`.
async fn put(conn: &mut Conn, artifact: &Artifact) -> Result<(), Failure> {
    let statement = conn
        .statement(
            "INSERT INTO artifacts (reference, execution_id, kind, tool, call_id, size, data) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (reference) DO NOTHING",
        )
        .await?;
    conn.client
        .execute(
            &statement,
            &[
                &artifact.reference,
                &artifact.execution_id,
                &artifact.kind,
                &artifact.tool,
                &artifact.call_id,
                &sql_int(artifact.size()),
                &artifact.data,
            ],
        )
        .await
        .map_err(Failure::Pg)?;
    Ok(())
}

/// The artifact `reference` of `execution_id`.
async fn get(
    conn: &mut Conn,
    execution_id: &str,
    reference: &str,
) -> Result<Option<Artifact>, Failure> {
    let statement = conn
        .statement(
            "SELECT reference, execution_id, kind, tool, call_id, data FROM artifacts \
             WHERE reference = $1 AND execution_id = $2",
        )
        .await?;
    let row = conn
        .client
        .query_opt(&statement, &[&reference, &execution_id])
        .await
        .map_err(Failure::Pg)?;
    let what = format!("artifact `{reference}`");
    let Some(row) = row else {
        return Ok(None);
    };
    let text = |i: usize| -> Result<String, Failure> {
        row.try_get::<_, String>(i)
            .map_err(|e| Failure::Store(corrupt(&what, &e)))
    };
    Ok(Some(Artifact {
        reference: text(0)?,
        execution_id: text(1)?,
        kind: text(2)?,
        tool: text(3)?,
        call_id: text(4)?,
        data: text(5)?,
    }))
}

/// The artifacts of `kind` of `execution_id`, oldest first.
async fn list(
    conn: &mut Conn,
    execution_id: &str,
    kind: &str,
) -> Result<Vec<ArtifactRef>, Failure> {
    let statement = conn
        .statement(
            "SELECT reference, kind, tool, size FROM artifacts \
             WHERE execution_id = $1 AND kind = $2 ORDER BY made",
        )
        .await?;
    let rows = conn
        .client
        .query(&statement, &[&execution_id, &kind])
        .await
        .map_err(Failure::Pg)?;
    let what = format!("an artifact of execution `{execution_id}`");
    rows.iter()
        .map(|row| {
            let bad = |e: tokio_postgres::Error| Failure::Store(corrupt(&what, &e));
            Ok(ArtifactRef {
                reference: row.try_get(0).map_err(bad)?,
                kind: row.try_get(1).map_err(bad)?,
                tool: row.try_get(2).map_err(bad)?,
                size: row.try_get::<_, i64>(3).map_err(bad)?.max(0) as u64,
            })
        })
        .collect()
}

/// Deletes the artifacts of `execution_id`; how many.
async fn delete(conn: &mut Conn, execution_id: &str) -> Result<u64, Failure> {
    let statement = conn
        .statement("DELETE FROM artifacts WHERE execution_id = $1")
        .await?;
    conn.client
        .execute(&statement, &[&execution_id])
        .await
        .map_err(Failure::Pg)
}

/// The artifacts of one [`PostgresStore`](super::PostgresStore), on its connections.
#[derive(Debug)]
pub(super) struct PostgresArtifacts {
    pub(super) pool: Arc<Pool>,
}

impl ArtifactStore for PostgresArtifacts {
    fn put<'a>(&'a self, artifact: &'a Artifact) -> StoreFuture<'a, ()> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = put(&mut conn, artifact).await;
            (conn, result)
        }))
    }

    fn get<'a>(
        &'a self,
        execution_id: &'a str,
        reference: &'a str,
    ) -> StoreFuture<'a, Option<Artifact>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = get(&mut conn, execution_id, reference).await;
            (conn, result)
        }))
    }

    fn list<'a>(
        &'a self,
        execution_id: &'a str,
        kind: &'a str,
    ) -> StoreFuture<'a, Vec<ArtifactRef>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = list(&mut conn, execution_id, kind).await;
            (conn, result)
        }))
    }

    fn delete<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, u64> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = delete(&mut conn, execution_id).await;
            (conn, result)
        }))
    }
}
