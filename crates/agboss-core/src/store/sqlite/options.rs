//! [`SqliteOptions`]: how a file is opened, and the [`Durability`] of its commits.

use std::time::Duration;

/// How much of what was committed survives a crash (SQLite's `synchronous` setting, in WAL
/// mode). docs/stores.md has the details.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Durability {
    /// `synchronous = FULL`: every commit is on the disk (the WAL is synced) before the append
    /// returns, so an append that returned survives a process crash, an OS crash and a power
    /// loss. The default: the loop acts on an event once it is appended.
    #[default]
    Full,
    /// `synchronous = NORMAL`: the WAL is synced only at checkpoints. An append that returned
    /// survives a process crash; an OS crash or power loss may lose the last commits (never
    /// corrupts the file).
    Normal,
}

/// How [`SqliteStore::open_with`](super::SqliteStore::open_with) opens a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqliteOptions {
    /// The durability level; [`Durability::Full`] by default.
    pub durability: Durability,
    /// How long a connection waits for another process's write lock before it reports the
    /// store unavailable (5 s by default).
    pub busy_timeout: Duration,
}

impl Default for SqliteOptions {
    fn default() -> SqliteOptions {
        SqliteOptions {
            durability: Durability::Full,
            busy_timeout: Duration::from_secs(5),
        }
    }
}

impl SqliteOptions {
    /// These options at durability `durability`.
    pub fn durability(mut self, durability: Durability) -> SqliteOptions {
        self.durability = durability;
        self
    }
}
