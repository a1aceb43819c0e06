//! What every file of the store shares: its name in errors, how an SQLite failure and a row
//! that cannot be read are reported, integers as SQLite keeps them, and blocking work kept off
//! the async threads.

use crate::store::{StoreError, StoreErrorKind};

/// The name its errors carry.
pub(super) const STORE: &str = "sqlite";

/// Runs `work` on tokio's blocking threads: SQLite calls block.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        StoreError::new(
            STORE,
            StoreErrorKind::Unavailable,
            format!("a store task stopped: {e}"),
        )
    })?
}

/// The store error an SQLite failure is: a corrupt file or one that is not a database is
/// `Invalid`, anything else (I/O, a full disk, a lock held too long) `Unavailable`.
pub(super) fn sqlite_error(error: &rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode;
    let kind = match error.sqlite_error_code() {
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => StoreErrorKind::Invalid,
        _ => StoreErrorKind::Unavailable,
    };
    StoreError::new(STORE, kind, error.to_string())
}

/// A row whose JSON this build cannot read.
pub(super) fn corrupt(what: &str, error: &serde_json::Error) -> StoreError {
    StoreError::new(
        STORE,
        StoreErrorKind::Invalid,
        format!("{what} cannot be read: {error}"),
    )
}

/// SQLite integers are signed: values past `i64::MAX` (no sequence or millisecond count
/// reaches it) are kept at the maximum, which keeps their order.
pub(super) fn sql_int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}
