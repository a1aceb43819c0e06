//! The store conformance suite (`agboss::testing::conformance`) against every store: the
//! reference `MemoryStore` and `SqliteStore`. Each store is one `store_conformance!` line and a
//! `Backend` that opens it; PostgreSQL joins the same way.

use std::path::PathBuf;
use std::sync::Arc;

use agboss::store::{Durability, SqliteOptions, SqliteStore, Store};
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

mod memory {
    agboss::testing::store_conformance!(super::MemoryBackend::default());
}

mod sqlite {
    agboss::testing::store_conformance!(super::Sqlite::new(super::Durability::Full));
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
