//! Stores: where journals are kept, and what is kept beside them.
//!
//! A store is one seam, [`Store`], made of parts:
//!
//! - a [`Journal`]: executions' events, appended in order, with the indexes derived from them
//!   (executions, pauses, threads' owners);
//! - its [`Leases`]: which instance drives each execution, and the claims appends are fenced by
//!   (a lease store is a journal too: a claim fences the journal's appends);
//! - sub-stores beside the journals, each reached from the store: its artifacts
//!   ([`ArtifactStore`], [`Store::artifacts`]) and its pinned MCP definitions ([`PinStore`],
//!   [`Store::pins`]).
//!
//! [`MemoryStore`] keeps them in this process, the reference every other store behaves as;
//! [`SqliteStore`], an embedded SQLite file (feature `sqlite`), and [`PostgresStore`], a
//! PostgreSQL database shared by instances (feature `postgres`), keep them beyond it. Each
//! derives its indexes only through [`next_record`](crate::journal::next_record) and
//! [`pause_change`](crate::journal::pause_change), in the transaction of the append, and words
//! its refusals with [`fence_refusal`], [`taken_seq`] and [`thread_owner_change`]: the same
//! refusals, the same indexes, the same order. The conformance suite
//! (`agboss::testing::conformance`) runs the same cases against each, part by part.
//! docs/stores.md says how to pick one, what each guarantees, and how to write one.
//!
//! This layer sits directly above `journal`: it keeps what the journal describes, and knows
//! nothing of the loop or the application.

mod artifacts;
mod composite;
mod error;
mod journal;
mod leases;
mod mcp_pin;
mod memory;
mod pins;
mod refusals;
mod sealed;
mod shelf;

#[cfg(feature = "sqlite")]
mod sqlite;

#[cfg(feature = "postgres")]
mod postgres;

#[cfg(feature = "postgres")]
mod wait;

pub use artifacts::ArtifactStore;
pub use composite::Store;
pub use error::{StoreError, StoreErrorKind, StoreFuture};
pub use journal::Journal;
pub use leases::Leases;
pub use mcp_pin::{McpApproval, McpDefinitionSeen, McpPin, pin_after_approval, pin_after_seen};
pub use memory::MemoryStore;
pub use pins::PinStore;
pub use refusals::{fence_refusal, renew_refusal, taken_seq, thread_owner_change};
pub use sealed::{SealStore, SealedArguments};
pub use shelf::ExecutionShelf;

#[cfg(feature = "sqlite")]
pub use sqlite::{Durability, SqliteOptions, SqliteStore};

#[cfg(feature = "postgres")]
pub use postgres::{PostgresOptions, PostgresStore};

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Ways code reads the time or waits on it without a `Clock`.
    const DIRECT: &[&str] = &[
        "thread::sleep",
        "tokio::time::",
        "Instant::now",
        "SystemTime::now",
        "clock_gettime",
        ".busy_timeout(",
    ];

    /// The only direct waits and reads of the time in the stores, each named in
    /// docs/architecture.md: the SQLite store's wait for another process's write lock (SQLite's
    /// busy handler on its connections, the writer thread's pause between tries) and the boot
    /// clock its leases run out by. Everything else waits on the application's clock.
    const ALLOWED: &[(&str, &str, usize)] = &[
        ("store/sqlite/writer.rs", "thread::sleep", 1),
        ("store/sqlite/schema.rs", ".busy_timeout(", 1),
        ("store/sqlite/read.rs", ".busy_timeout(", 1),
        ("store/sqlite/clock.rs", "clock_gettime", 1),
    ];

    fn files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }

    #[test]
    fn the_stores_wait_on_the_clock_but_where_docs_architecture_says() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut found = Vec::new();
        files(&src.join("store"), &mut found);
        files(&src.join("journal"), &mut found);
        let mut direct = Vec::new();
        for path in found {
            let text = std::fs::read_to_string(&path).unwrap();
            // Tests measure time as they like.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let name = path.strip_prefix(&src).unwrap().display().to_string();
            for pattern in DIRECT {
                let count = code.matches(pattern).count();
                if count > 0 {
                    direct.push((name.clone(), *pattern, count));
                }
            }
        }
        direct.sort();
        let mut allowed: Vec<(String, &str, usize)> = ALLOWED
            .iter()
            .map(|(file, pattern, count)| ((*file).to_owned(), *pattern, *count))
            .collect();
        allowed.sort();
        assert_eq!(direct, allowed);
        let architecture = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/architecture.md"),
        )
        .unwrap();
        assert!(
            architecture.contains("busy handler") && architecture.contains("boot clock"),
            "docs/architecture.md names the exceptions"
        );
    }
}
