//! The PostgreSQL servers agboss's tests run against, and a proxy to take them away.
//!
//! - [`url`]: the server the tests share. With `AGBOSS_PG_URL` set, that server (used as it is).
//!   Otherwise one of the workspace's own, started on first use: its data folder is
//!   `target/agboss-pg/data` (made with `initdb`; in the temporary folder instead when the
//!   `postgres` account cannot reach the workspace), it listens on `127.0.0.1` only (no Unix
//!   socket), on a free port written to `target/agboss-pg/url`, with `fsync` on. Processes that
//!   ask at once (test binaries, nextest's one process per test) take turns on a lock file; the
//!   first starts the server, the others find it answering and use it. It is left running for
//!   the next test process; `pg_ctl stop -D target/agboss-pg/data` stops it.
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
mod proxy;

use std::fs::File;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use cluster::Cluster;
pub use proxy::Proxy;

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
        _ => shared_server(),
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

/// A PostgreSQL server of one test's own: its folder in a temporary folder, its own port on
/// `127.0.0.1`, the same settings as the shared server. Stopped (as by a crash) and removed when
/// dropped. It needs PostgreSQL's programs on this machine even when `AGBOSS_PG_URL` is set.
#[derive(Debug)]
pub struct PrivateServer {
    cluster: Cluster,
    port: u16,
    running: bool,
    // Last, so the server is stopped before its folder goes.
    _folder: tempfile::TempDir,
}

impl PrivateServer {
    /// Makes the server and starts it.
    ///
    /// # Panics
    ///
    /// When it cannot be made or started, with why and what to do.
    pub fn new() -> PrivateServer {
        PrivateServer::try_new()
            .unwrap_or_else(|why| panic!("a private PostgreSQL server: {why}; {WHAT_TO_DO}"))
    }

    fn try_new() -> Result<PrivateServer, String> {
        let folder = tempfile::Builder::new()
            .prefix("agboss-pg-")
            .tempdir()
            .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
        cluster::Account::for_this_process()?.give(folder.path())?;
        let cluster = Cluster::new(&folder.path().join("server"))?;
        cluster.init()?;
        let mut server = PrivateServer {
            cluster,
            port: cluster::free_port()?,
            running: false,
            _folder: folder,
        };
        server.try_start()?;
        Ok(server)
    }

    /// The URL of its `postgres` database, as user `agboss` (trusted: no password).
    pub fn url(&self) -> String {
        format!("postgres://agboss@127.0.0.1:{}/postgres", self.port)
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// A new empty database on it (dropped with the handle, or with the server).
    pub fn fresh_database(&self) -> TestDatabase {
        TestDatabase::create(&self.url())
    }

    /// Starts it again after [`stop`](Self::stop), on the same port (nothing when it runs).
    ///
    /// # Panics
    ///
    /// When it does not start.
    pub fn start(&mut self) {
        if let Err(why) = self.try_start() {
            panic!("the private PostgreSQL server did not start again: {why}");
        }
    }

    fn try_start(&mut self) -> Result<(), String> {
        if self.running {
            return Ok(());
        }
        self.cluster.start(self.port)?;
        self.running = true;
        wait_until_it_answers(&self.url())
    }

    /// Stops it (`pg_ctl stop -m fast`: open transactions rolled back, connections closed).
    ///
    /// # Panics
    ///
    /// When it does not stop.
    pub fn stop(&mut self) {
        if self.running {
            if let Err(why) = self.cluster.stop("fast") {
                panic!("the private PostgreSQL server did not stop: {why}");
            }
            self.running = false;
        }
    }

    /// Stops and starts it (`pg_ctl restart -m fast`): every connection is closed, the port
    /// stays.
    ///
    /// # Panics
    ///
    /// When it does not come back.
    pub fn restart(&mut self) {
        if !self.running {
            return self.start();
        }
        let restarted = self
            .cluster
            .restart()
            .and_then(|()| wait_until_it_answers(&self.url()));
        if let Err(why) = restarted {
            panic!("the private PostgreSQL server did not restart: {why}");
        }
    }
}

impl Default for PrivateServer {
    fn default() -> PrivateServer {
        PrivateServer::new()
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        if self.running {
            let _ = self.cluster.stop("immediate");
        }
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

fn wait_until_it_answers(url: &str) -> Result<(), String> {
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

/// The folder of the shared server (its data folder, log, lock and `url` file) when this
/// crate starts it: the workspace's `target/agboss-pg` (see [`url`]).
///
/// # Panics
///
/// When who this process runs as cannot be told.
pub fn shared_folder() -> PathBuf {
    shared_home().unwrap_or_else(|why| panic!("PostgreSQL for the tests: {why}; {WHAT_TO_DO}"))
}

/// The workspace's `target/agboss-pg`, or, when the `postgres` account the server runs as
/// (this process being root) cannot reach it, a folder of the temporary folder named after the
/// workspace.
fn shared_home() -> Result<PathBuf, String> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")));
    let home = workspace.join("target").join("agboss-pg");
    if cluster::Account::for_this_process()?.reaches(&home) {
        return Ok(home);
    }
    let name: String = workspace
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    Ok(std::env::temp_dir().join(format!("agboss-pg{name}")))
}

/// Finds the shared server answering, or starts it, under the lock file; then sweeps the
/// databases test processes that are gone left behind.
fn shared_server() -> Result<String, String> {
    let home = shared_home()?;
    std::fs::create_dir_all(&home).map_err(|e| format!("cannot make {}: {e}", home.display()))?;
    let lock_path = home.join(".lock");
    let _turn = File::create(&lock_path)
        .and_then(|file| file.lock().map(|()| file))
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    let cluster = Cluster::new(&home)?;
    let url_of = |port: u16| format!("postgres://agboss@127.0.0.1:{port}/postgres");
    let mut running = None;
    if let Some(port) = cluster.running_port() {
        if execute(&url_of(port), "SELECT 1").is_ok() {
            running = Some(port);
        } else {
            // A server that runs but does not answer (stuck, or not on loopback): start anew.
            cluster.stop("immediate")?;
        }
    }
    let port = match running {
        Some(port) => port,
        None => {
            if !cluster.initialized() {
                cluster.init()?;
            }
            start_on_a_free_port(&cluster)?
        }
    };
    let url = url_of(port);
    wait_until_it_answers(&url)?;
    let url_file = home.join("url");
    std::fs::write(&url_file, format!("{url}\n"))
        .map_err(|e| format!("cannot write {}: {e}", url_file.display()))?;
    sweep(&url);
    Ok(url)
}

fn start_on_a_free_port(cluster: &Cluster) -> Result<u16, String> {
    let mut last = String::new();
    // Another program may take the port between the probe and the start: try a few.
    for _ in 0..3 {
        let port = cluster::free_port()?;
        match cluster.start(port) {
            Ok(()) => return Ok(port),
            Err(why) => last = why,
        }
    }
    Err(last)
}

/// Drops the test databases whose process is gone (a test that panicked, or was killed).
fn sweep(url: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let sql = format!("SELECT datname FROM pg_database WHERE datname LIKE '{PREFIX}%'");
    let Ok(names) = query_texts(url, &sql) else {
        return;
    };
    for name in names.into_iter().flatten() {
        let pid = name
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split('_').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
            let _ = execute(url, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        }
    }
}
