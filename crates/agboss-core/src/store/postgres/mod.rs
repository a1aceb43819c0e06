//! [`PostgresStore`]: journals in a PostgreSQL database, shared by every instance that connects
//! to it.
//!
//! Each operation runs on one of a few connections of the store ([`pool`]), as one transaction
//! (an append: [`append`], then [`write`], or a batch of appends sharing a commit: [`group`];
//! a worker's claim) or one statement (a read, another
//! lease operation: [`read`], [`lease`]).
//! The database serializes what instances do at once: row locks order the appends of one
//! execution and the claims of its lease, the events table's key is the last word on a sequence
//! number, and leases run out by the server's clock. Connecting migrates the schema
//! ([`schema`]).
//!
//! Also: `batch.rs` (checks and writes a group's batch with the shared decision functions),
//! `liveness.rs` (a holder is gone when its session's advisory lock is), `artifacts.rs`,
//! `pins.rs`, `sealed.rs` (the sub-stores), `error.rs`.

mod append;
mod artifacts;
mod batch;
mod error;
mod group;
mod lease;
mod liveness;
mod pins;
mod pool;
mod read;
mod schema;
mod sealed;
mod write;

use std::sync::Arc;
use std::time::Duration;

use super::{
    ArtifactStore, Journal, Leases, PinStore, SealStore, Store, StoreError, StoreErrorKind,
    StoreFuture,
};
use crate::journal::{
    ExecutionRecord, Fence, JournalEntry, Lease, LeaseState, LoopEvent, PauseQuery, PauseRecord,
    ThreadOwner,
};
use crate::time::Clock;
use artifacts::PostgresArtifacts;
use pins::PostgresPins;
use pool::Pool;
use sealed::PostgresSealed;

/// The name its errors carry.
const STORE: &str = "postgres";

/// How [`PostgresStore::connect_with`] connects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostgresOptions {
    /// How many connections the store opens at most (on first use); an operation waits for a
    /// free one. 8 by default.
    pub max_connections: usize,
    /// How long making a connection may take, handshake included, before the store reports the
    /// server unavailable (5 s by default).
    pub connect_timeout: Duration,
    /// How long one operation may wait for the server before the store gives up on it and its
    /// connection and reports it unavailable (30 s by default): a server cut off without a word
    /// does not hang the caller.
    pub operation_timeout: Duration,
    /// The schema the store's tables are in (`agboss` by default), so a database can hold the
    /// application's own tables beside them, or several stores: lower-case ASCII letters,
    /// digits and `_`.
    pub schema: String,
    /// Whether the appends of different executions that wait at the same moment share one
    /// transaction and one commit (true by default): many executions at once then cost the
    /// server one WAL flush per batch rather than one per append. Off, each append commits
    /// alone; what is acknowledged, refused and fenced is the same either way.
    pub group_commit: bool,
}

impl Default for PostgresOptions {
    fn default() -> PostgresOptions {
        PostgresOptions {
            max_connections: 8,
            connect_timeout: Duration::from_secs(5),
            operation_timeout: Duration::from_secs(30),
            schema: "agboss".to_owned(),
            group_commit: true,
        }
    }
}

impl PostgresOptions {
    /// These options with at most `max_connections` connections.
    pub fn max_connections(mut self, max_connections: usize) -> PostgresOptions {
        self.max_connections = max_connections;
        self
    }

    /// These options with group commit on or off (see [`group_commit`](Self::group_commit)).
    pub fn group_commit(mut self, group_commit: bool) -> PostgresOptions {
        self.group_commit = group_commit;
        self
    }

    /// These options with the tables in schema `schema`.
    pub fn schema(mut self, schema: impl Into<String>) -> PostgresOptions {
        self.schema = schema.into();
        self
    }
}

/// Keeps journals, and the indexes derived from them, in a PostgreSQL database: durable as the
/// server's commits are, and shared by every instance that connects to it. Appends to one
/// execution from anywhere take turns on its row, so two writers never both win; claims judge
/// leases by the server's clock, and workers claiming at once never get the same execution.
///
/// Connections are plain TCP (no TLS yet): use it on a network you trust, or through a tunnel.
///
/// ```no_run
/// # async fn example() -> Result<(), agboss_core::store::StoreError> {
/// use agboss_core::store::PostgresStore;
/// let store = PostgresStore::connect("postgres://desk@db.internal:5432/desk").await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct PostgresStore {
    pool: Arc<Pool>,
    artifacts: PostgresArtifacts,
    pins: PostgresPins,
    sealed: PostgresSealed,
    /// Appends waiting to share a commit (`None`: each commits alone).
    group: Option<Arc<group::Group>>,
    schema: String,
    /// Its session holding its liveness key, opened before its first claim.
    liveness: liveness::Liveness,
}

impl PostgresStore {
    /// Connects to the database of `url` (`postgres://user:password@host:port/database`, or
    /// libpq's `key=value` form) with the default options, and brings its schema up to date.
    /// Refused: a URL that cannot be read, names no host or asks for TLS (`Invalid`), a server
    /// that cannot be reached or refuses the login (`Unavailable`, naming `host:port`), a server
    /// older than PostgreSQL 12, a database not in UTF-8, an `agboss` schema holding other
    /// tables, or a store schema of a newer build (`Invalid`).
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        PostgresStore::connect_with(url, PostgresOptions::default()).await
    }

    /// Connects to the database of `url` with `options`.
    pub async fn connect_with(
        url: &str,
        options: PostgresOptions,
    ) -> Result<PostgresStore, StoreError> {
        let invalid = |why: String| StoreError::new(STORE, StoreErrorKind::Invalid, why);
        let mut config: tokio_postgres::Config = url.parse().map_err(|e| {
            invalid(format!(
                "the URL is not a PostgreSQL URL (postgres://user@host:port/database): {}",
                error::cause_of(&e)
            ))
        })?;
        if config.get_hosts().is_empty() {
            return Err(invalid(
                "the URL names no host (postgres://user@host:port/database)".to_owned(),
            ));
        }
        if !matches!(
            config.get_ssl_mode(),
            tokio_postgres::config::SslMode::Disable | tokio_postgres::config::SslMode::Prefer
        ) {
            return Err(invalid(
                "the URL asks for TLS (sslmode), which the store does not support yet: connect \
                 in plain TCP on a network you trust (sslmode=disable or prefer), or through a \
                 tunnel"
                    .to_owned(),
            ));
        }
        if !schema::is_plain_name(&options.schema) {
            return Err(invalid(format!(
                "`{}` is not a schema name the store takes: lower-case ASCII letters, digits \
                 and `_`, not starting with a digit",
                options.schema
            )));
        }
        // The store's tables are found by the search path, set for every connection at login.
        // A transaction of the store is never idle for long (its statements are pipelined):
        // one left open by a connection cut on the way is ended by the server, so its locks
        // do not outlive the operation's timeout.
        let search_path = format!(
            "-c search_path={} -c idle_in_transaction_session_timeout={}",
            options.schema,
            options.operation_timeout.as_millis().max(1)
        );
        let session = match config.get_options() {
            Some(given) if !given.is_empty() => format!("{given} {search_path}"),
            _ => search_path,
        };
        config
            .options(session)
            .connect_timeout(options.connect_timeout)
            .keepalives_idle(Duration::from_secs(60));
        if config.get_application_name().is_none() {
            config.application_name("agboss");
        }
        let endpoint = error::endpoint_of(&config);
        let schema = options.schema.clone();
        let liveness = liveness::Liveness::new()?;
        let group = options.group_commit.then(Arc::default);
        let pool = Pool::new(config, endpoint, options);
        let conn = pool.connect().await?;
        schema::migrate(&conn.client, &schema, pool.endpoint()).await?;
        pool.give(conn);
        let pool = Arc::new(pool);
        Ok(PostgresStore {
            artifacts: PostgresArtifacts {
                pool: Arc::clone(&pool),
            },
            pins: PostgresPins {
                pool: Arc::clone(&pool),
            },
            sealed: PostgresSealed {
                pool: Arc::clone(&pool),
            },
            pool,
            group,
            schema,
            liveness,
        })
    }

    /// An append, through the commit queue when it may join it; `releases`: its commit also
    /// releases the claim of its fence.
    async fn append_with(
        &self,
        execution_id: &str,
        seq: u64,
        event: &LoopEvent,
        fence: Fence,
        releases: bool,
    ) -> Result<(), StoreError> {
        let json = serde_json::to_string(event)
            .map_err(|e| StoreError::new(STORE, StoreErrorKind::Invalid, format!("event: {e}")))?;
        let append = write::Append {
            execution_id,
            seq,
            event,
            json: &json,
            fence,
            releases,
        };
        if let Some(group) = self.group.as_ref().filter(|_| group::joins(event)) {
            match group.append(&self.pool, &append).await {
                batch::Answer::Done(answer) => return answer,
                batch::Answer::Alone => {}
            }
        }
        append::alone(&self.pool, &append).await
    }

    /// Where its server is: `host:port` as the URL named it.
    pub fn endpoint(&self) -> &str {
        self.pool.endpoint()
    }

    /// The schema its tables are in.
    pub fn schema(&self) -> &str {
        &self.schema
    }
}

impl Journal for PostgresStore {
    fn append_as<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
        fence: Fence,
    ) -> StoreFuture<'a, ()> {
        Box::pin(self.append_with(execution_id, seq, event, fence, false))
    }

    fn entries<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<JournalEntry>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = read::entries(&mut conn, execution_id).await;
            (conn, result)
        }))
    }

    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = read::events(&mut conn, execution_id).await;
            (conn, result)
        }))
    }

    fn execution<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<ExecutionRecord>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = read::execution(&mut conn, execution_id).await;
            (conn, result)
        }))
    }

    fn pause<'a>(&'a self, pause_id: &'a str) -> StoreFuture<'a, Option<PauseRecord>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = read::pause(&mut conn, pause_id).await;
            (conn, result)
        }))
    }

    fn open_pauses<'a>(&'a self, query: &'a PauseQuery) -> StoreFuture<'a, Vec<PauseRecord>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = read::open_pauses(&mut conn, query).await;
            (conn, result)
        }))
    }

    fn thread<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Vec<ExecutionRecord>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = read::thread(&mut conn, thread_id).await;
            (conn, result)
        }))
    }

    fn thread_owner<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Option<ThreadOwner>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = read::thread_owner(&mut conn, thread_id).await;
            (conn, result)
        }))
    }
}

impl Leases for PostgresStore {
    /// The append and the release in one commit (see [`write`]).
    fn append_releasing<'a>(
        &'a self,
        lease: &'a Lease,
        seq: u64,
        event: &'a LoopEvent,
    ) -> StoreFuture<'a, ()> {
        let fence = lease.fence();
        Box::pin(self.append_with(&lease.execution_id, seq, event, fence, true))
    }

    fn acquire<'a>(
        &'a self,
        execution_id: &'a str,
        holder: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, Option<Lease>> {
        let (pool, liveness) = (&self.pool, &self.liveness);
        Box::pin(lease::acquire_held(
            pool,
            liveness,
            execution_id,
            holder,
            ttl,
        ))
    }

    fn renew<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()> {
        Box::pin(lease::renew_held(&self.pool, &self.liveness, lease))
    }

    fn release<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = lease::release(&mut conn, lease).await;
            (conn, result)
        }))
    }

    fn claim<'a>(
        &'a self,
        holder: &'a str,
        ttl: Duration,
        limit: usize,
    ) -> StoreFuture<'a, Vec<Lease>> {
        let (pool, liveness) = (&self.pool, &self.liveness);
        Box::pin(lease::claim_held(pool, liveness, holder, ttl, limit))
    }

    fn lease<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<LeaseState>> {
        Box::pin(self.pool.run(move |mut conn, _| async move {
            let result = lease::state(&mut conn, execution_id).await;
            (conn, result)
        }))
    }
}

impl Store for PostgresStore {
    fn artifacts(&self) -> &dyn ArtifactStore {
        &self.artifacts
    }

    fn pins(&self) -> &dyn PinStore {
        &self.pins
    }

    fn sealed(&self) -> &dyn SealStore {
        &self.sealed
    }

    fn use_clock(&self, clock: &Clock) {
        self.pool.use_clock(clock);
    }
}

/// PostgreSQL integers are signed: values past `i64::MAX` (no sequence number, epoch or
/// millisecond count reaches it) are kept at the maximum, which keeps their order.
fn sql_int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}
