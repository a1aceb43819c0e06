//! [`PrivateServer`]: a PostgreSQL server of one test's own, to stop, start and restart.

use std::net::SocketAddr;

use crate::cluster::{self, Cluster};
use crate::{TestDatabase, WHAT_TO_DO, wait_until_it_answers};

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
