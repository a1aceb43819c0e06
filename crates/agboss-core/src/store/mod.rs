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
//!
//! Files: `composite.rs` ([`Store`]), `journal.rs`, `leases.rs`; the sub-stores' traits
//! `artifacts.rs`, `pins.rs` (with `mcp_pin.rs`, the rules of pinned MCP definitions) and
//! `sealed.rs` (a masking agent's arguments as sent, until its calls end); `refusals.rs` (the
//! refusals every store words alike); `shelf.rs` ([`ExecutionShelf`], one execution's artifacts
//! as the tool layer's `ArtifactShelf`); `error.rs`; `memory/`, `sqlite/`, `postgres/` (the
//! stores, each with its own list); `wait.rs` (a store's waits on the application's clock).

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
