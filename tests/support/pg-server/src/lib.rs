//! The PostgreSQL servers agboss's tests run against, and a proxy to take them away.
//!
//! - [`url`]: the server the tests share. With `AGBOSS_PG_URL` set, that server (used as it is,
//!   never stopped). Otherwise one of the workspace's own, started on first use: its data folder
//!   is `target/agboss-pg/data` (made with `initdb`; in the temporary folder instead when the
//!   `postgres` account cannot reach the workspace; `AGBOSS_PG_DIR` puts the folder elsewhere),
//!   it listens on `127.0.0.1` only (no Unix socket), on a free port written to
//!   `target/agboss-pg/url`, with `fsync` on. Processes that ask at once (test binaries,
//!   nextest's one process per test) take turns on a lock file; the first starts the server,
//!   the others find it answering and use it.
//!
//!   **It stops on its own** once no test process has used it for [`IDLE`] (10 s;
//!   `AGBOSS_PG_IDLE_SECS` sets another number of seconds): a process uses it from its first
//!   call of [`url`] (or [`fresh_database`]) until it exits, however it exits, holding a shared
//!   lock on `target/agboss-pg/users`; a watchdog started beside the server by its first user
//!   looks every second, and once nobody held the lock for that long it stops the server with
//!   `pg_ctl stop -m fast` (a few seconds more: the look of each second, and the stop itself).
//!   A test process that comes later starts it again. So `cargo test` leaves no server behind,
//!   and one test binary hands it to the next. The watchdog needs `flock` (util-linux) on
//!   `PATH`; without it the server keeps running, with a warning, and
//!   `pg_ctl stop -D target/agboss-pg/data` stops it.
//! - [`fresh_database`]: a new, empty database of its own on that server, dropped when the
//!   handle is, so tests never see each other's rows.
//! - [`PrivateServer`]: a server of one test's own (its own folder and port), for tests that
//!   stop, restart or crash it; removed when dropped.
//! - [`Proxy`]: a TCP proxy on `127.0.0.1` in front of a server, to cut connections, refuse new
//!   ones or hold them.
//!
//! When this process is root the servers run as the `postgres` account (PostgreSQL refuses
//! root), their folders handed to it.
//!
//! Nothing here skips: when no server can be had, these functions panic saying why and what to
//! do (install PostgreSQL's server, or set `AGBOSS_PG_URL`).
//!
//! ```no_run
//! let database = pg_server::fresh_database();
//! // connect a store to database.url() ...
//! let mut server = pg_server::PrivateServer::new();
//! let proxy = pg_server::Proxy::new(server.addr());
//! let through_proxy = proxy.url(&server.url());
//! // ... connect through it, then take the server away:
//! proxy.drop_connections();
//! server.restart();
//! ```

mod cluster;
mod private;
mod proxy;
mod shared;
mod watchdog;

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use private::PrivateServer;
pub use proxy::Proxy;
pub use shared::{DIR_VAR, shared_folder};
pub use watchdog::{IDLE, IDLE_VAR, idle_secs};

/// The environment variable that points the tests at a running server instead of starting one:
/// `postgres://user@host:port/database`, the user allowed to create databases.
pub const URL_VAR: &str = "AGBOSS_PG_URL";

/// The prefix of the databases [`fresh_database`] makes.
const PREFIX: &str = "agboss_test_";

/// What a test that cannot have a server says.
const WHAT_TO_DO: &str = "install PostgreSQL's server (on Debian: `apt-get install postgresql`; \
                          the tests find initdb and pg_ctl on PATH or in \
                          /usr/lib/postgresql/*/bin), or point the tests at a running server \
                          with AGBOSS_PG_URL=postgres://user@host:port/database (a user that \
                          may create databases)";

/// How long a check that a server answers waits.
const PATIENCE: Duration = Duration::from_secs(10);

/// The URL of the server the tests share: `AGBOSS_PG_URL` when set, else the workspace's own,
/// started if it is not running (once per process; see the crate's documentation).
///
/// # Panics
///
/// When the server cannot be started or does not answer, with why and what to do.
pub fn url() -> String {
    static URL: OnceLock<Result<String, String>> = OnceLock::new();
    let url = URL.get_or_init(|| match std::env::var(URL_VAR) {
        Ok(url) if !url.is_empty() => Ok(url),
        _ => shared::shared_server(),
    });
    match url {
        Ok(url) => url.clone(),
        Err(why) => panic!("PostgreSQL for the tests: {why}; {WHAT_TO_DO}"),
    }
}

/// A new, empty database on the shared server ([`url`]), uniquely named, dropped (with every
/// connection to it) when the handle is.
///
/// # Panics
///
/// As [`url`], or when the database cannot be made.
pub fn fresh_database() -> TestDatabase {
    TestDatabase::create(&url())
}

/// A database of a test's own, dropped with the handle.
#[derive(Debug)]
pub struct TestDatabase {
    server: String,
    name: String,
    url: String,
}

impl TestDatabase {
    /// Makes a new empty database on the server of `server_url` (a URL of any database there).
    ///
    /// # Panics
    ///
    /// When it cannot be made.
    pub fn create(server_url: &str) -> TestDatabase {
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |t| t.subsec_nanos());
        let name = format!(
            "{PREFIX}{}_{}_{nanos}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        );
        // template0: nobody is ever connected to it, so concurrent creations never find their
        // template busy.
        let sql = format!("CREATE DATABASE {name} TEMPLATE template0");
        if let Err(e) = execute(server_url, &sql) {
            panic!(
                "cannot create a test database on {}: {e}",
                redacted(server_url)
            );
        }
        TestDatabase {
            server: server_url.to_owned(),
            url: with_database(server_url, &name),
            name,
        }
    }

    /// Its URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        // A server already gone (a private one stopped) takes its databases with it; a test
        // that panicked leaves one behind, swept when the shared server is next started.
        let _ = execute(
            &self.server,
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
    }
}

/// Runs `future` to completion on a runtime of its own, on a thread of its own, so that the
/// blocking helpers of this crate work from synchronous and asynchronous tests alike.
pub fn block_on<F>(future: F) -> F::Output
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
            .block_on(future)
    })
    .join()
    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Runs one statement (or several, `;`-separated, without parameters) on the database of `url`.
///
/// # Errors
///
/// The connection's or the server's error, as text.
pub fn execute(url: &str, sql: &str) -> Result<(), String> {
    let (url, sql) = (url.to_owned(), sql.to_owned());
    block_on(async move {
        let client = connect(&url).await?;
        client.batch_execute(&sql).await.map_err(|e| describe(&e))
    })
}

/// The first column of the rows `sql` (one statement, no parameters) gives on the database of
/// `url`, as text.
///
/// # Errors
///
/// The connection's or the server's error, as text.
pub fn query_texts(url: &str, sql: &str) -> Result<Vec<Option<String>>, String> {
    let (url, sql) = (url.to_owned(), sql.to_owned());
    block_on(async move {
        let client = connect(&url).await?;
        let messages = client.simple_query(&sql).await.map_err(|e| describe(&e))?;
        Ok(messages
            .into_iter()
            .filter_map(|message| match message {
                tokio_postgres::SimpleQueryMessage::Row(row) => Some(row.get(0).map(str::to_owned)),
                _ => None,
            })
            .collect())
    })
}

/// A client of the database of `url`, its connection driven by a task of the current runtime.
async fn connect(url: &str) -> Result<tokio_postgres::Client, String> {
    let connecting = tokio_postgres::connect(url, tokio_postgres::NoTls);
    let (client, connection) = tokio::time::timeout(PATIENCE, connecting)
        .await
        .map_err(|_| format!("{} did not answer within {PATIENCE:?}", redacted(url)))?
        .map_err(|e| format!("cannot connect to {}: {}", redacted(url), describe(&e)))?;
    tokio::spawn(connection);
    Ok(client)
}

/// A driver error as text: the server's message for a server's error (tokio-postgres's own
/// text says only "db error"), else the error with its cause.
fn describe(error: &tokio_postgres::Error) -> String {
    use std::error::Error as _;
    match (error.as_db_error(), error.source()) {
        (Some(db), _) => format!("{}: {} ({})", db.severity(), db.message(), db.code().code()),
        (None, Some(cause)) => format!("{error}: {cause}"),
        (None, None) => error.to_string(),
    }
}

pub(crate) fn wait_until_it_answers(url: &str) -> Result<(), String> {
    let deadline = std::time::Instant::now() + PATIENCE * 3;
    loop {
        match execute(url, "SELECT 1") {
            Ok(()) => return Ok(()),
            Err(e) if std::time::Instant::now() > deadline => return Err(e),
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

/// `url` with its database replaced by `database`.
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let base = match base[authority_start..].find('/') {
        Some(slash) => &base[..authority_start + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{base}/{database}?{query}"),
        None => format!("{base}/{database}"),
    }
}

/// The `host:port` a `postgres://` URL names (port 5432 when it names none).
///
/// # Panics
///
/// When the URL names no host that resolves.
pub fn addr_of(url: &str) -> SocketAddr {
    let authority = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = authority.split(['/', '?']).next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let with_port = if host_port
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        host_port.to_owned()
    } else {
        format!("{host_port}:5432")
    };
    with_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .unwrap_or_else(|| panic!("{} names no host that resolves", redacted(url)))
}

/// `url` with its password (if any) hidden, to print.
fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user, host)) if user.contains(':') => {
            let user = user.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}{tail}")
        }
        _ => url.to_owned(),
    }
}
