//! [`StoreError`]: what opening, reading or writing the session store can fail with. Every
//! message about a PostgreSQL store names it by its URL without the password
//! ([`crate::location::PgUrl::shown`]).

use std::path::PathBuf;

/// A store error.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the session store at {path} cannot be opened: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot create the data dir {path}: {source}")]
    DataDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the session store was written by a newer toolhost (schema {found}, this one knows {known})"
    )]
    TooNew { found: i64, known: i64 },
    #[error("the session store is closed")]
    Closed,
    #[error("no recorded file change has the id {0}")]
    UnknownChange(String),
    /// The store location given is not one toolhost understands.
    #[error("{0}")]
    BadLocation(String),
    /// PostgreSQL could not be reached (at start, or again after it went away).
    #[error("the session store {store} is unreachable: {reason}")]
    Unreachable { store: String, reason: String },
    /// A statement on PostgreSQL failed (the connection may have gone mid-call).
    #[error("the session store {store} failed: {reason}")]
    Postgres { store: String, reason: String },
    /// Another toolhost is undoing or reapplying the change right now.
    #[error(
        "change {change_id} is being {pending} by another toolhost right now; nothing was written"
    )]
    Busy { change_id: String, pending: String },
    /// A stored content does not hash to its key.
    #[error("the session store holds a damaged content {0}")]
    Corrupt(String),
    #[error("session store: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("session store: {0}")]
    Json(#[from] serde_json::Error),
}

impl StoreError {
    /// Whether the store could not be reached (rather than refusing what was asked).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, StoreError::Unreachable { .. } | StoreError::Postgres { .. })
    }
}

/// The text of a PostgreSQL error with its cause (the driver's own text stops at "error
/// connecting to server" or "db error"); never holds the password, which the driver does
/// not echo.
pub(crate) fn pg_reason(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}
