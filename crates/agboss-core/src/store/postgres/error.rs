//! What a PostgreSQL failure is as a [`StoreError`]: a server out of reach, a lost connection
//! or an operator's shutdown are `Unavailable`, with where the server was looked for and what
//! to do; rows or tables that cannot be read are `Invalid`. Failures the store tries again
//! first (a serialization failure, a deadlock, a key taken by a concurrent writer) are told
//! apart here too.

use tokio_postgres::config::Host;
use tokio_postgres::error::SqlState;

use super::STORE;
use crate::store::{StoreError, StoreErrorKind};

/// Where a store's server is, for messages: `host:port`, or several of them (never the
/// password).
pub(super) fn endpoint_of(config: &tokio_postgres::Config) -> String {
    let ports = config.get_ports();
    let port = |i: usize| ports.get(i).or(ports.first()).copied().unwrap_or(5432);
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, host)| match host {
            Host::Tcp(name) => format!("{name}:{}", port(i)),
            Host::Unix(path) => format!("{}/.s.PGSQL.{}", path.display(), port(i)),
        })
        .collect();
    if hosts.is_empty() {
        // libpq's default, which tokio-postgres does not apply: name it so the message says
        // what was missing.
        return "(no host in the URL)".to_owned();
    }
    hosts.join(", ")
}

/// Whether the failure is one that goes away when the transaction is tried again: a
/// serialization failure, a deadlock the server broke, or a unique key a concurrent
/// transaction took first (trying again reads what it wrote).
pub(super) fn is_transient(error: &tokio_postgres::Error) -> bool {
    matches!(
        error.code(),
        Some(code) if *code == SqlState::T_R_SERIALIZATION_FAILURE
            || *code == SqlState::T_R_DEADLOCK_DETECTED
            || *code == SqlState::UNIQUE_VIOLATION
    )
}

/// Whether a unique key refused the write.
pub(super) fn is_unique_violation(error: &tokio_postgres::Error) -> bool {
    error.code() == Some(&SqlState::UNIQUE_VIOLATION)
}

/// Whether the connection is gone: closed, an I/O error, or the server ending the session
/// (a shutdown, a restart, an operator terminating it).
pub(super) fn is_connection_lost(error: &tokio_postgres::Error) -> bool {
    use std::error::Error as _;
    match error.code() {
        None => {
            error.is_closed()
                || error
                    .source()
                    .is_some_and(|cause| cause.downcast_ref::<std::io::Error>().is_some())
        }
        Some(code) => {
            code.code().starts_with("08")
                || *code == SqlState::ADMIN_SHUTDOWN
                || *code == SqlState::CRASH_SHUTDOWN
                || *code == SqlState::CANNOT_CONNECT_NOW
        }
    }
}

/// The store error of a failure of an operation against the server at `endpoint`.
pub(super) fn pg_error(endpoint: &str, error: &tokio_postgres::Error) -> StoreError {
    let Some(db) = error.as_db_error() else {
        let detail = if is_connection_lost(error) {
            format!(
                "the connection to PostgreSQL at {endpoint} was lost: {} (the next operation \
                 connects again)",
                cause_of(error)
            )
        } else {
            // The driver's own failure (a message it did not expect): the connection is not
            // used again.
            format!("PostgreSQL at {endpoint}: {}", cause_of(error))
        };
        return StoreError::new(STORE, StoreErrorKind::Unavailable, detail);
    };
    let code = db.code().code();
    let kind = match code.get(..2).unwrap_or_default() {
        // Data that cannot be stored or read as it is, a table not as this build made it,
        // the server's own corruption checks.
        "22" | "42" | "XX" => StoreErrorKind::Invalid,
        _ => StoreErrorKind::Unavailable,
    };
    let mut detail = format!(
        "PostgreSQL at {endpoint}: {}: {} ({code})",
        db.severity(),
        db.message()
    );
    if kind == StoreErrorKind::Unavailable && is_connection_lost(error) {
        detail.push_str(" (the next operation connects again)");
    }
    StoreError::new(STORE, kind, detail)
}

/// The store error of a connection that could not be made to `endpoint`.
pub(super) fn connect_error(endpoint: &str, error: &tokio_postgres::Error) -> StoreError {
    if let Some(db) = error.as_db_error() {
        // The server answered and refused: a wrong user, password or database, too many
        // connections, a server starting or stopping.
        return StoreError::new(
            STORE,
            StoreErrorKind::Unavailable,
            format!(
                "cannot connect to PostgreSQL at {endpoint}: {}: {} ({}): check the user, \
                 password and database in the URL",
                db.severity(),
                db.message(),
                db.code().code()
            ),
        );
    }
    StoreError::new(
        STORE,
        StoreErrorKind::Unavailable,
        format!(
            "cannot connect to PostgreSQL at {endpoint}: {}: is the server running and \
             taking TCP connections there? Check the host and port in the URL",
            cause_of(error)
        ),
    )
}

/// A connection attempt that got no answer within `waited`.
pub(super) fn connect_timed_out(endpoint: &str, waited: std::time::Duration) -> StoreError {
    StoreError::new(
        STORE,
        StoreErrorKind::Unavailable,
        format!(
            "cannot connect to PostgreSQL at {endpoint}: no answer within {waited:?}: is the \
             server up, and reachable from here?"
        ),
    )
}

/// An operation that got no answer within `waited` (its connection is closed).
pub(super) fn timed_out(endpoint: &str, waited: std::time::Duration) -> StoreError {
    StoreError::new(
        STORE,
        StoreErrorKind::Unavailable,
        format!(
            "PostgreSQL at {endpoint} did not answer within {waited:?}: the operation may or may \
             not have been done (the next operation connects again)"
        ),
    )
}

/// A commit whose answer never came: the append may or may not be in the journal.
pub(super) fn commit_unknown(endpoint: &str, error: &tokio_postgres::Error) -> StoreError {
    StoreError::new(
        STORE,
        StoreErrorKind::Unavailable,
        format!(
            "the connection to PostgreSQL at {endpoint} was lost while a write committed ({}): \
             it may or may not have been written; read the journal, or append the same event \
             again from the same claim, which is taken once",
            cause_of(error)
        ),
    )
}

/// A row whose column or JSON this build cannot read.
pub(super) fn corrupt(what: &str, error: &dyn std::fmt::Display) -> StoreError {
    StoreError::new(
        STORE,
        StoreErrorKind::Invalid,
        format!("{what} cannot be read: {error}"),
    )
}

/// The driver's error with its cause (tokio-postgres's own text for a lost connection or a
/// refused one says little without it).
pub(super) fn cause_of(error: &tokio_postgres::Error) -> String {
    use std::error::Error as _;
    match error.source() {
        Some(cause) => format!("{error}: {cause}"),
        None => error.to_string(),
    }
}
