//! The schema of the session store, versioned in code and tracked with `PRAGMA user_version`.

use rusqlite::Connection;

use crate::StoreError;

/// The database file name inside the data dir.
pub const DB_FILE: &str = "toolhost.db";

/// The schema, one migration per entry; `PRAGMA user_version` = how many have run.
pub const MIGRATIONS: &[&str] = &[
    // 1: sessions and calls.
    "CREATE TABLE sessions (
         id TEXT PRIMARY KEY,
         workspace TEXT NOT NULL,
         created_at INTEGER NOT NULL
     );
     CREATE TABLE calls (
         seq INTEGER PRIMARY KEY AUTOINCREMENT,
         session_id TEXT NOT NULL REFERENCES sessions(id),
         call_id TEXT NOT NULL UNIQUE,
         tool TEXT NOT NULL,
         arguments TEXT NOT NULL,
         status TEXT NOT NULL,
         text TEXT NOT NULL,
         error TEXT,
         artifacts TEXT NOT NULL,
         created_at INTEGER NOT NULL
     );
     CREATE INDEX calls_session ON calls(session_id, seq);",
];

/// Runs the migrations not yet run. Each step reads the version inside an immediate (write)
/// transaction, so processes opening a fresh store at once run each migration exactly once:
/// the others wait for the lock and then see it done.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let known = MIGRATIONS.len() as i64;
    loop {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version > known {
            return Err(StoreError::TooNew { found: version, known });
        }
        let Some(sql) = MIGRATIONS.get(version as usize) else {
            tx.commit()?;
            return Ok(());
        };
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", version + 1)?;
        tx.commit()?;
    }
}
