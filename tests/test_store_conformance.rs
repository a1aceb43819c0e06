//! The store conformance suite (`agboss::testing::conformance`) against every store: the
//! reference `MemoryStore`, `SqliteStore` and `PostgresStore`. Each store is one
//! `store_conformance!` line and a `Backend` that opens it.

use std::path::PathBuf;
use std::sync::Arc;

use agboss::store::{Durability, PostgresStore, SqliteOptions, SqliteStore, Store};
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

mod memory {
    agboss::testing::store_conformance!(super::MemoryBackend::default());
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
