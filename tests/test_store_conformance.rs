//! The store conformance suites (`agboss::testing::conformance`) against every store: the
//! reference `MemoryStore`, `SqliteStore`, `PostgresStore` and `FaultyStore` (over a memory
//! store, no fault set). Each store is one `store_conformance!` line and a `Backend` that opens
//! it. The suites of one part run alone too, on a backend of that part only.

use std::path::PathBuf;
use std::sync::Arc;

use agboss::store::{
    Durability, Journal, Leases, MemoryStore, PostgresStore, SqliteOptions, SqliteStore, Store,
};
use agboss::testing::FaultyStore;
use agboss::testing::conformance::{Backend, MemoryBackend, OpenFuture, differential};

/// An `SqliteStore` in a file of its own temporary folder, opened again on the same file.
struct Sqlite {
    folder: tempfile::TempDir,
    durability: Durability,
}

impl Sqlite {
    fn new(durability: Durability) -> Sqlite {
        Sqlite {
            folder: tempfile::tempdir().expect("a temporary folder"),
            durability,
        }
    }

    fn path(&self) -> PathBuf {
        // A subfolder, so opening proves it creates missing folders.
        self.folder.path().join("data/store.db")
    }
}

impl Backend for Sqlite {
    fn open(&mut self) -> OpenFuture<'_> {
        let options = SqliteOptions::default().durability(self.durability);
        Box::pin(async move {
            let store = SqliteStore::open_with(self.path(), options)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            Arc::new(store) as Arc<dyn Store>
        })
    }
}

/// A `PostgresStore` on a database of its own on the tests' server (pg-server starts one, or
/// uses `AGBOSS_PG_URL`); opened again by connecting again to the same database.
struct Postgres {
    database: pg_server::TestDatabase,
}

impl Postgres {
    fn new() -> Postgres {
        Postgres {
            database: pg_server::fresh_database(),
        }
    }
}

impl Backend for Postgres {
    fn open(&mut self) -> OpenFuture<'_> {
        Box::pin(async move {
            let store = PostgresStore::connect(self.database.url())
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            Arc::new(store) as Arc<dyn Store>
        })
    }
}

/// A `FaultyStore` over a `MemoryStore`, told nothing: it behaves as the store it wraps, its
/// sub-stores included. Opened again over the same memory store.
#[derive(Default)]
struct Faulty {
    inner: Option<Arc<MemoryStore>>,
}

impl Backend for Faulty {
    fn open(&mut self) -> OpenFuture<'_> {
        let inner = self.inner.get_or_insert_with(Default::default).clone();
        let store = FaultyStore::new(inner);
        Box::pin(std::future::ready(Arc::new(store) as Arc<dyn Store>))
    }
}

/// A `MemoryStore` seen as nothing more than a journal: what a store that is only a journal
/// gives its suite.
#[derive(Default)]
struct JournalOnly {
    store: Option<Arc<MemoryStore>>,
}

impl Backend<dyn Journal> for JournalOnly {
    fn open(&mut self) -> OpenFuture<'_, dyn Journal> {
        let store = self.store.get_or_insert_with(Default::default).clone();
        Box::pin(std::future::ready(store as Arc<dyn Journal>))
    }
}

/// A `MemoryStore` seen as nothing more than a journal with its leases.
#[derive(Default)]
struct LeasesOnly {
    store: Option<Arc<MemoryStore>>,
}

impl Backend<dyn Leases> for LeasesOnly {
    fn open(&mut self) -> OpenFuture<'_, dyn Leases> {
        let store = self.store.get_or_insert_with(Default::default).clone();
        Box::pin(std::future::ready(store as Arc<dyn Leases>))
    }
}

mod memory {
    agboss::testing::store_conformance!(super::MemoryBackend::default());
}

mod faulty {
    agboss::testing::store_conformance!(super::Faulty::default());
}

mod journal_alone {
    agboss::testing::journal_conformance!(super::JournalOnly::default());
}

mod leases_alone {
    agboss::testing::leases_conformance!(super::LeasesOnly::default());
    agboss::testing::journal_conformance!(super::LeasesOnly::default());
}

mod sqlite {
    agboss::testing::store_conformance!(super::Sqlite::new(super::Durability::Full));
}

mod postgres {
    agboss::testing::store_conformance!(super::Postgres::new());
}

#[test]
fn memory_agrees_with_itself_on_random_operations() {
    differential(MemoryBackend::default);
}

#[test]
fn sqlite_agrees_with_memory_on_random_operations() {
    // NORMAL: the same statements without an fsync per commit, so more sequences fit the time;
    // durability is not what this test compares.
    differential(|| Sqlite::new(Durability::Normal));
}

#[test]
fn postgres_agrees_with_memory_on_random_operations() {
    // Each sequence on a database of its own, every commit synced (the server's fsync is on).
    differential(Postgres::new);
}
