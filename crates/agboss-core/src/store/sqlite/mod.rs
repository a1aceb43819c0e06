//! [`SqliteStore`]: journals in an embedded SQLite file.
//!
//! One writer thread owns the write connection and commits appends in groups (group commit):
//! every append waiting when a transaction begins joins it, each checked and refused on its
//! own, and one `fsync` makes the group durable. Reads run on a small pool of read connections
//! (WAL lets them read while the writer writes), on tokio's blocking threads.
//!
//! Files: `writer.rs` (the writer thread, shared by the sub-stores), `append.rs`, `read.rs`,
//! `lease.rs`, `clock.rs` (the boot clock leases run out by), `process.rs` (whether a lease's
//! holder process is gone: pid, start, pid namespace), `artifacts.rs` and `artifact_store.rs`,
//! `pins.rs` and `pin_store.rs`, `sealed.rs` and `seal_store.rs`, `schema.rs`, `sql.rs`, `options.rs`.

mod append;
mod artifact_store;
mod artifacts;
mod clock;
mod lease;
mod options;
mod pin_store;
mod pins;
mod process;
mod read;
mod schema;
mod seal_store;
mod sealed;
mod sql;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::{
    ArtifactStore, Journal, Leases, PinStore, SealStore, Store, StoreError, StoreErrorKind,
    StoreFuture,
};
use crate::base::Env;
use crate::journal::{
    ExecutionRecord, Fence, JournalEntry, Lease, LeaseState, LoopEvent, PauseQuery, PauseRecord,
    ThreadOwner,
};
use artifact_store::SqliteArtifacts;
pub use options::{Durability, SqliteOptions};
use pin_store::SqlitePins;
use read::Readers;
use seal_store::SqliteSealed;
use sql::{STORE, blocking, sqlite_error};
use writer::{Done, Work, Writer};

/// Keeps journals, and the indexes derived from them, in an SQLite file: durable, shared by the
/// processes that open the same file (one writes at a time; each append is checked inside its
/// write transaction, so two writers of one execution never both win).
///
/// ```no_run
/// # async fn example() -> Result<(), agboss_core::store::StoreError> {
/// use agboss_core::store::SqliteStore;
/// let store = SqliteStore::open("data/desk.db").await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    /// Shared with the sub-stores; the last of them dropped ends the writer thread and waits
    /// for it.
    writer: Arc<Writer>,
    readers: Arc<Readers>,
    artifacts: SqliteArtifacts,
    pins: SqlitePins,
    sealed: SqliteSealed,
}

impl SqliteStore {
    /// Opens the store in the file at `path` at [`Durability::Full`], creating the file and its
    /// folders, and migrating an older schema. Refused, naming the file: a file that cannot be
    /// opened or is not an SQLite database ([`StoreErrorKind::Unavailable`] or `Invalid`),
    /// another program's database, or a store of a newer schema (`Invalid`).
    pub async fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_with(path, SqliteOptions::default()).await
    }

    /// Opens the store in the file at `path` with `options`.
    pub async fn open_with(
        path: impl AsRef<Path>,
        options: SqliteOptions,
    ) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref().to_path_buf();
        let opening = path.clone();
        let (conn, readers) = blocking(move || {
            if let Some(parent) = opening.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|e| {
                    StoreError::new(
                        STORE,
                        StoreErrorKind::Unavailable,
                        format!("cannot create the folder `{}`: {e}", parent.display()),
                    )
                })?;
            }
            let mut conn = schema::connect(&opening, &options)?;
            schema::migrate(&mut conn, &opening)?;
            Ok((conn, Readers::new(opening, options)))
        })
        .await?;
        let writer = Arc::new(Writer::start(conn, &path)?);
        let readers = Arc::new(readers);
        Ok(SqliteStore {
            path,
            artifacts: SqliteArtifacts::new(&writer, &readers),
            pins: SqlitePins::new(&writer, &readers),
            sealed: SqliteSealed::new(&writer, &readers),
            writer,
            readers,
        })
    }

    /// Opens the application `app`'s store in its data folder ([`SqliteStore::default_path`]).
    pub async fn open_default(app: &str) -> Result<SqliteStore, StoreError> {
        SqliteStore::open(SqliteStore::default_path(app, &Env::process())?).await
    }

    /// Where application `app` keeps its store: `$AGBOSS_DATA_DIR/<app>.db`, else
    /// `$XDG_DATA_HOME/agboss/<app>.db`, else `$HOME/.local/share/agboss/<app>.db`. Refused: an
    /// `app` that is not a plain file name, or none of the variables set.
    pub fn default_path(app: &str, env: &Env) -> Result<PathBuf, StoreError> {
        let plain =
            !app.is_empty() && app != "." && app != ".." && !app.contains(['/', '\\', '\0']);
        if !plain {
            return Err(StoreError::new(
                STORE,
                StoreErrorKind::Invalid,
                format!("`{app}` is not a plain file name for an application's store"),
            ));
        }
        let set = |name: &str| env.get(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let folder = set("AGBOSS_DATA_DIR")
            .or_else(|| set("XDG_DATA_HOME").map(|d| d.join("agboss")))
            .or_else(|| set("HOME").map(|h| h.join(".local/share/agboss")))
            .ok_or_else(|| {
                StoreError::new(
                    STORE,
                    StoreErrorKind::Unavailable,
                    "no data folder: set AGBOSS_DATA_DIR, XDG_DATA_HOME or HOME",
                )
            })?;
        Ok(folder.join(format!("{app}.db")))
    }

    /// The file it keeps.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl SqliteStore {
    async fn claimed(&self, work: Work) -> Result<Vec<Lease>, StoreError> {
        match self.writer.write(work).await? {
            Done::Claimed(leases) => Ok(leases),
            Done::Written | Done::Pinned(_) => Ok(Vec::new()),
        }
    }
}

impl Journal for SqliteStore {
    fn append_as<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
        fence: Fence,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            // Serialized here, on the caller's thread, so the writer thread only writes.
            let json = serde_json::to_string(event).map_err(|e| {
                StoreError::new(STORE, StoreErrorKind::Invalid, format!("event: {e}"))
            })?;
            let work = Work::Append {
                execution_id: execution_id.to_owned(),
                seq,
                event: Box::new(event.clone()),
                json,
                fence,
            };
            self.writer.write(work).await.map(|_| ())
        })
    }

    fn entries<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<JournalEntry>> {
        let id = execution_id.to_owned();
        Box::pin(self.readers.read(move |conn| read::entries(conn, &id)))
    }

    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>> {
        let id = execution_id.to_owned();
        Box::pin(self.readers.read(move |conn| read::events(conn, &id)))
    }

    fn execution<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<ExecutionRecord>> {
        let id = execution_id.to_owned();
        Box::pin(self.readers.read(move |conn| read::execution(conn, &id)))
    }

    fn pause<'a>(&'a self, pause_id: &'a str) -> StoreFuture<'a, Option<PauseRecord>> {
        let id = pause_id.to_owned();
        Box::pin(self.readers.read(move |conn| read::pause(conn, &id)))
    }

    fn open_pauses<'a>(&'a self, query: &'a PauseQuery) -> StoreFuture<'a, Vec<PauseRecord>> {
        let query = query.clone();
        Box::pin(
            self.readers
                .read(move |conn| read::open_pauses(conn, &query)),
        )
    }

    fn thread<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Vec<ExecutionRecord>> {
        let id = thread_id.to_owned();
        Box::pin(self.readers.read(move |conn| read::thread(conn, &id)))
    }

    fn thread_owner<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Option<ThreadOwner>> {
        let id = thread_id.to_owned();
        Box::pin(
            self.readers
                .read(move |conn| read::thread_owner(conn, &id).map_err(|e| sqlite_error(&e))),
        )
    }
}

impl Leases for SqliteStore {
    fn acquire<'a>(
        &'a self,
        execution_id: &'a str,
        holder: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, Option<Lease>> {
        let work = Work::Acquire {
            execution_id: execution_id.to_owned(),
            holder: holder.to_owned(),
            ttl,
        };
        Box::pin(async move { Ok(self.claimed(work).await?.pop()) })
    }

    fn renew<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let work = Work::Renew(lease.clone());
            self.writer.write(work).await.map(|_| ())
        })
    }

    fn release<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let work = Work::Release(lease.clone());
            self.writer.write(work).await.map(|_| ())
        })
    }

    fn claim<'a>(
        &'a self,
        holder: &'a str,
        ttl: Duration,
        limit: usize,
    ) -> StoreFuture<'a, Vec<Lease>> {
        let work = Work::Claim {
            holder: holder.to_owned(),
            ttl,
            limit,
        };
        Box::pin(self.claimed(work))
    }

    fn lease<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<LeaseState>> {
        let id = execution_id.to_owned();
        Box::pin(
            self.readers
                .read(move |conn| lease::state(conn, &id).map_err(|e| sqlite_error(&e))),
        )
    }
}

impl Store for SqliteStore {
    fn artifacts(&self) -> &dyn ArtifactStore {
        &self.artifacts
    }

    fn pins(&self) -> &dyn PinStore {
        &self.pins
    }

    fn sealed(&self) -> &dyn SealStore {
        &self.sealed
    }
}
