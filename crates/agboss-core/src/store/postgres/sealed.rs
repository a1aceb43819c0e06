//! Sealed arguments in PostgreSQL ([`PostgresSealed`], the store's [`SealStore`]): one row per
//! call in `sealed_arguments`, each operation one statement (a seal that finds its call's row
//! writes nothing, so a retried seal is harmless).

use std::sync::Arc;

use super::error::corrupt;
use super::pool::{Conn, Failure, Pool};
use crate::store::{SealStore, SealedArguments, StoreFuture};

/// Version 6 of the schema: the arguments of calls the journal keeps masked, while the calls
/// may still run.
pub(super) const SCHEMA_V6: &str = r#"
CREATE TABLE sealed_arguments (
    execution_id text COLLATE "C" NOT NULL,
    call_id text COLLATE "C" NOT NULL,
    arguments text NOT NULL,
    PRIMARY KEY (execution_id, call_id)
);
"#;

/// Keeps `sealed`.
async fn seal(conn: &mut Conn, sealed: &SealedArguments) -> Result<(), Failure> {
    let statement = conn
        .statement(
            "INSERT INTO sealed_arguments (execution_id, call_id, arguments) VALUES ($1, $2, $3) \
             ON CONFLICT (execution_id, call_id) DO NOTHING",
        )
        .await?;
    conn.client
        .execute(
            &statement,
            &[&sealed.execution_id, &sealed.call_id, &sealed.arguments],
        )
        .await
        .map_err(Failure::Pg)?;
    Ok(())
}

/// The arguments of call `call_id` of `execution_id`, if kept.
async fn unseal(
    conn: &mut Conn,
    execution_id: &str,
    call_id: &str,
) -> Result<Option<String>, Failure> {
    let statement = conn
        .statement(
            "SELECT arguments FROM sealed_arguments WHERE execution_id = $1 AND call_id = $2",
        )
        .await?;
    let row = conn
        .client
        .query_opt(&statement, &[&execution_id, &call_id])
        .await
        .map_err(Failure::Pg)?;
    let Some(row) = row else {
        return Ok(None);
    };
    let what = format!("the sealed arguments of call `{call_id}`");
    row.try_get::<_, String>(0)
        .map(Some)
        .map_err(|e| Failure::Store(corrupt(&what, &e)))
}

/// Forgets the arguments of `call_id` (`None`: of every call) of `execution_id`; how many.
async fn forget(
    conn: &mut Conn,
    execution_id: &str,
    call_id: Option<&str>,
) -> Result<u64, Failure> {
    match call_id {
        Some(call_id) => {
            let statement = conn
                .statement("DELETE FROM sealed_arguments WHERE execution_id = $1 AND call_id = $2")
                .await?;
            conn.client
                .execute(&statement, &[&execution_id, &call_id])
                .await
        }
        None => {
            let statement = conn
                .statement("DELETE FROM sealed_arguments WHERE execution_id = $1")
                .await?;
            conn.client.execute(&statement, &[&execution_id]).await
        }
    }
    .map_err(Failure::Pg)
}

/// The sealed arguments of one [`PostgresStore`](super::PostgresStore), on its connections.
#[derive(Debug)]
pub(super) struct PostgresSealed {
    pub(super) pool: Arc<Pool>,
}

impl SealStore for PostgresSealed {
    fn seal<'a>(&'a self, sealed: &'a SealedArguments) -> StoreFuture<'a, ()> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = seal(&mut conn, sealed).await;
            (conn, result)
        }))
    }

    fn unseal<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<String>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = unseal(&mut conn, execution_id, call_id).await;
            (conn, result)
        }))
    }

    fn forget<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: Option<&'a str>,
    ) -> StoreFuture<'a, u64> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = forget(&mut conn, execution_id, call_id).await;
            (conn, result)
        }))
    }
}
