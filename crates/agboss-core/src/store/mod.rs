//! Stores that keep journals beyond the process: [`SqliteStore`], an embedded SQLite file (feature
//! `sqlite`), and [`PostgresStore`], a PostgreSQL database shared by instances (feature
//! `postgres`).
//!
//! Every store implements the journal's [`Store`](crate::journal::Store) trait and behaves as
//! [`MemoryStore`](crate::journal::MemoryStore), the reference, does: the same refusals, the
//! same indexes (derived only through [`next_record`](crate::journal::next_record) and
//! [`pause_change`](crate::journal::pause_change), in the transaction of the append), the same
//! order. The conformance suite (`agboss::testing::conformance`) runs the same cases against each.
//! docs/stores.md says how to pick one and what each guarantees.
//!
//! This layer sits directly above `journal`: it implements its trait and knows nothing of the
//! loop or the application.

#[cfg(feature = "sqlite")]
mod sqlite;

#[cfg(feature = "postgres")]
mod postgres;

#[cfg(feature = "postgres")]
mod wait;

#[cfg(feature = "sqlite")]
pub use sqlite::{Durability, SqliteOptions, SqliteStore};

#[cfg(feature = "postgres")]
pub use postgres::{PostgresOptions, PostgresStore};
