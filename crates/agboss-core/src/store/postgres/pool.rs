//! The store's connections: at most `max_connections`, made on first use, each used by one
//! operation at a time, each with its prepared statements. An operation waits (asynchronously)
//! for a free connection rather than opening one more.
//!
//! [`Pool::run`] runs one operation and decides what a failure means: a refusal is the answer;
//! a serialization failure, a deadlock or a key a concurrent writer took first is tried again
//! (the transaction rolled back first); a connection found lost before anything could have
//! been committed is tried once more on a new connection (a server that restarted leaves every
//! idle connection dead); a commit whose answer never came is reported as such. A connection
//! that failed is never handed out again, so the store does not wedge when the server goes
//! away: the next operation connects anew.
//!
//! Its waits (the connect and operation timeouts, the pause before a transient failure is
//! tried again) are on the application's clock ([`wait`](crate::store::wait)).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio_postgres::{Client, Config, NoTls, Statement};

use super::PostgresOptions;
use super::error::{
    commit_unknown, connect_error, connect_timed_out, is_connection_lost, is_transient, pg_error,
    timed_out,
};
use crate::store::StoreError;
use crate::store::wait::{self, Waits};
use crate::time::Clock;

/// Read committed whatever the database's default: every statement sees what committed before
/// it, and the row locks, not snapshots, keep the checks true.
pub(super) const BEGIN: &str = "BEGIN ISOLATION LEVEL READ COMMITTED";

/// How many times an operation is tried again after a transient failure.
const TRANSIENT_RETRIES: u32 = 5;

/// One connection and the statements prepared on it.
pub(super) struct Conn {
    pub(super) client: Client,
    statements: HashMap<String, Statement>,
    /// Whether a transaction may be open on it: set before `BEGIN` is sent, cleared once it
    /// committed or rolled back. A failed try's transaction is rolled back before the
    /// connection is used again.
    pub(super) in_transaction: bool,
}

impl Conn {
    /// The statement of `sql`, prepared on this connection once.
    pub(super) async fn statement(&mut self, sql: &str) -> Result<Statement, Failure> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql).await.map_err(Failure::Pg)?;
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }
}

/// Why one try of an operation did not give its answer.
#[derive(Debug)]
pub(super) enum Failure {
    /// The store's own answer (a refusal, a row it cannot read): final. Any transaction is
    /// rolled back before the connection is used again.
    Store(StoreError),
    /// The server or the connection failed before a commit was sent: nothing was written.
    Pg(tokio_postgres::Error),
    /// The connection failed once a commit was sent: it may or may not have been committed.
    Commit(tokio_postgres::Error),
}

impl From<StoreError> for Failure {
    fn from(error: StoreError) -> Failure {
        Failure::Store(error)
    }
}

/// What one try of an operation hands back: its connection (unless the try was abandoned),
/// and its result.
pub(super) type Tried<T> = (Conn, Result<T, Failure>);

/// The connections of one store.
pub(super) struct Pool {
    config: Config,
    endpoint: String,
    options: PostgresOptions,
    idle: Mutex<Vec<Conn>>,
    permits: Semaphore,
    waits: Waits,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("endpoint", &self.endpoint)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Pool {
    /// No connections yet: they are made on first use.
    pub(super) fn new(config: Config, endpoint: String, options: PostgresOptions) -> Pool {
        let permits = Semaphore::new(options.max_connections.max(1));
        Pool {
            config,
            endpoint,
            options,
            idle: Mutex::new(Vec::new()),
            permits,
            waits: Waits::default(),
        }
    }

    /// Waits on `clock` from now on.
    pub(super) fn use_clock(&self, clock: &Clock) {
        self.waits.use_clock(clock);
    }

    /// Where the server is, for messages.
    pub(super) fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// A new connection, its session set up by the URL and the options (the schema first on
    /// the search path).
    pub(super) async fn connect(&self) -> Result<Conn, StoreError> {
        on_tokio()?;
        self.connect_on(&self.waits.clock()).await
    }

    async fn connect_on(&self, clock: &Clock) -> Result<Conn, StoreError> {
        let waited = self.options.connect_timeout;
        let (client, connection) = wait::within(clock, waited, self.config.connect(NoTls))
            .await
            .ok_or_else(|| connect_timed_out(&self.endpoint, waited))?
            .map_err(|e| connect_error(&self.endpoint, &e))?;
        // The connection's I/O runs on a task of its own; it ends when the client is dropped or
        // the connection is lost (the client then reports itself closed).
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Conn {
            client,
            statements: HashMap::new(),
            in_transaction: false,
        })
    }

    /// `work`'s output, or the store's timeout once the operation timeout passed without it,
    /// on the store's clock: for what runs outside [`run`](Self::run).
    pub(super) async fn bounded<F: Future>(&self, work: F) -> Result<F::Output, StoreError> {
        let waited = self.options.operation_timeout;
        wait::within(&self.waits.clock(), waited, work)
            .await
            .ok_or_else(|| timed_out(&self.endpoint, waited))
    }

    /// Runs `work` on a connection, trying again as the module says. `work` gets a connection
    /// and whether this is the last try, and hands the connection back with its result; it
    /// ends any transaction it began when it succeeds.
    pub(super) async fn run<T, F, Fut>(&self, mut work: F) -> Result<T, StoreError>
    where
        F: FnMut(Conn, bool) -> Fut,
        Fut: Future<Output = Tried<T>>,
    {
        on_tokio()?;
        let _permit = self.permits.acquire().await.map_err(|_| {
            StoreError::new(
                super::STORE,
                crate::store::StoreErrorKind::Unavailable,
                "the store is closed",
            )
        })?;
        let clock = self.waits.clock();
        let (mut transient, mut reconnected) = (0, false);
        loop {
            let (conn, reused) = match self.take() {
                Some(conn) => (conn, true),
                None => (self.connect_on(&clock).await?, false),
            };
            let last = transient == TRANSIENT_RETRIES;
            let waited = self.options.operation_timeout;
            let Some((conn, result)) = wait::within(&clock, waited, work(conn, last)).await else {
                // The try is abandoned with its connection, which closes as it drops.
                return Err(timed_out(&self.endpoint, waited));
            };
            let error = match result {
                Ok(value) => {
                    self.give(conn);
                    return Ok(value);
                }
                Err(Failure::Store(refused)) => {
                    self.rolled_back(conn).await;
                    return Err(refused);
                }
                Err(Failure::Commit(lost)) => {
                    return Err(commit_unknown(&self.endpoint, &lost));
                }
                Err(Failure::Pg(error)) => error,
            };
            if conn.client.is_closed() || is_connection_lost(&error) {
                drop(conn);
                // An idle connection found dead: the server went away since it was used, and
                // took the others with it. Once, on a new one.
                if reused && !reconnected {
                    reconnected = true;
                    self.lock().clear();
                    continue;
                }
                return Err(pg_error(&self.endpoint, &error));
            }
            if error.as_db_error().is_none() {
                // The driver's own failure: the connection's state is not known, so it goes.
                return Err(pg_error(&self.endpoint, &error));
            }
            self.rolled_back(conn).await;
            if is_transient(&error) && transient < TRANSIENT_RETRIES {
                transient += 1;
                wait::backoff(&clock, Duration::from_millis(2 << transient)).await;
                continue;
            }
            return Err(pg_error(&self.endpoint, &error));
        }
    }

    /// An idle connection that is still open.
    fn take(&self) -> Option<Conn> {
        let mut idle = self.lock();
        while let Some(conn) = idle.pop() {
            if !conn.client.is_closed() {
                return Some(conn);
            }
        }
        None
    }

    /// Keeps `conn` for the next operation, if it is still open.
    pub(super) fn give(&self, conn: Conn) {
        if !conn.client.is_closed() {
            self.lock().push(conn);
        }
    }

    /// Ends whatever transaction a failed try left open, and keeps the connection if that
    /// works.
    async fn rolled_back(&self, mut conn: Conn) {
        if conn.in_transaction {
            if conn.client.batch_execute("ROLLBACK").await.is_err() {
                return;
            }
            conn.in_transaction = false;
        }
        self.give(conn);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Conn>> {
        // A connection is pushed or popped whole: a poisoned lock holds a consistent list.
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The connections' tasks and the timeouts need a tokio runtime (with its I/O and time drivers,
/// as `enable_all` makes it): outside one, say so rather than panic.
fn on_tokio() -> Result<(), StoreError> {
    tokio::runtime::Handle::try_current()
        .map(|_| ())
        .map_err(|_| {
            StoreError::new(
                super::STORE,
                crate::store::StoreErrorKind::Unavailable,
                "the PostgreSQL store runs on a tokio runtime: call it from inside one",
            )
        })
}
