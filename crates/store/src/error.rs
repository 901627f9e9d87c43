//! [`StoreError`]: what opening, reading or writing the session store can fail with.

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
    #[error("session store: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("session store: {0}")]
    Json(#[from] serde_json::Error),
}
