//! The schema of the session store, versioned in code for each engine: SQLite's tracked with
//! `PRAGMA user_version`, PostgreSQL's in the one-row table `toolhost_schema`.
//!
//! Both hold the same record: `sessions` (with the workspace's identity), `calls` (the
//! result and its artifacts, whose file contents are kept out of the JSON), `changes` (one
//! row per file change: its undone flag, the undo or reapply in progress, and the keys of its
//! before and after contents, and which process holds a claim on it), `contents` (a file
//! version: the hashes of its chunks), `chunks` (each distinct chunk once) and
//! `pending_changes` (a call's changes recorded before they are written, until the call's
//! own record replaces them: [`crate::pending`]).

use rusqlite::Connection;

use crate::StoreError;
use crate::sql::Sql;

/// The database file name inside the data dir.
pub const DB_FILE: &str = "toolhost.db";

/// The tables every engine adds after sessions and calls (SQLite types; PostgreSQL's differ).
const CHANGES_SQLITE: &str = "
     ALTER TABLE sessions ADD COLUMN workspace_id TEXT;
     CREATE TABLE changes (
         call_id TEXT NOT NULL,
         idx INTEGER NOT NULL,
         change_id TEXT NOT NULL,
         undone INTEGER NOT NULL,
         pending TEXT,
         pending_at INTEGER,
         before_ref TEXT,
         after_ref TEXT,
         PRIMARY KEY (call_id, idx)
     );
     CREATE INDEX changes_id ON changes(change_id);
     INSERT INTO changes (call_id, idx, change_id, undone)
         SELECT c.call_id, a.key, json_extract(a.value, '$.changeId'),
                coalesce(json_extract(a.value, '$.undone'), 0)
         FROM calls c, json_each(c.artifacts) a;
     CREATE TABLE contents (
         hash TEXT PRIMARY KEY,
         chunks BLOB NOT NULL
     );
     CREATE TABLE chunks (
         hash BLOB PRIMARY KEY,
         data BLOB NOT NULL
     );";

/// SQLite's schema, one migration per entry; `PRAGMA user_version` = how many have run.
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
    // 2: the workspace's identity, change state apart from the JSON, contents as chunks.
    CHANGES_SQLITE,
    // 3: changes recorded before they are written, and who holds a claim.
    "CREATE TABLE pending_changes (
         call_id TEXT NOT NULL,
         idx INTEGER NOT NULL,
         session_id TEXT NOT NULL REFERENCES sessions(id),
         tool TEXT NOT NULL,
         arguments TEXT NOT NULL,
         owner TEXT NOT NULL,
         created_at INTEGER NOT NULL,
         change TEXT NOT NULL,
         before_ref TEXT NOT NULL,
         after_ref TEXT NOT NULL,
         PRIMARY KEY (call_id, idx)
     );
     ALTER TABLE changes ADD COLUMN claimed_by TEXT;",
];

/// PostgreSQL's schema, one migration per entry; `toolhost_schema.version` = how many have
/// run.
pub const PG_MIGRATIONS: &[&str] = &[
    // 1: the same record as SQLite's schema 2.
    "CREATE TABLE sessions (
         id TEXT PRIMARY KEY,
         workspace TEXT NOT NULL,
         workspace_id TEXT,
         created_at BIGINT NOT NULL
     );
     CREATE TABLE calls (
         seq BIGSERIAL PRIMARY KEY,
         session_id TEXT NOT NULL REFERENCES sessions(id),
         call_id TEXT NOT NULL UNIQUE,
         tool TEXT NOT NULL,
         arguments TEXT NOT NULL,
         status TEXT NOT NULL,
         text TEXT NOT NULL,
         error TEXT,
         artifacts TEXT NOT NULL,
         created_at BIGINT NOT NULL
     );
     CREATE INDEX calls_session ON calls(session_id, seq);
     CREATE TABLE changes (
         call_id TEXT NOT NULL,
         idx BIGINT NOT NULL,
         change_id TEXT NOT NULL,
         undone BIGINT NOT NULL,
         pending TEXT,
         pending_at BIGINT,
         before_ref TEXT,
         after_ref TEXT,
         PRIMARY KEY (call_id, idx)
     );
     CREATE INDEX changes_id ON changes(change_id);
     CREATE TABLE contents (
         hash TEXT PRIMARY KEY,
         chunks BYTEA NOT NULL
     );
     CREATE TABLE chunks (
         hash BYTEA PRIMARY KEY,
         data BYTEA NOT NULL
     );",
    // 2: SQLite's schema 3.
    "CREATE TABLE pending_changes (
         call_id TEXT NOT NULL,
         idx BIGINT NOT NULL,
         session_id TEXT NOT NULL REFERENCES sessions(id),
         tool TEXT NOT NULL,
         arguments TEXT NOT NULL,
         owner TEXT NOT NULL,
         created_at BIGINT NOT NULL,
         change TEXT NOT NULL,
         before_ref TEXT NOT NULL,
         after_ref TEXT NOT NULL,
         PRIMARY KEY (call_id, idx)
     );
     ALTER TABLE changes ADD COLUMN claimed_by TEXT",
];

/// Runs the migrations not yet run. Each step reads the version inside an immediate (write)
/// transaction, so processes opening a fresh store at once run each migration exactly once:
/// the others wait for the lock and then see it done.
pub(crate) fn migrate_sqlite(conn: &mut Connection) -> Result<(), StoreError> {
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

/// The key of the advisory lock that serializes migrations of toolhosts starting at once.
const MIGRATION_LOCK: i64 = 0x746f_6f6c_686f_7374; // "toolhost"

/// Runs the PostgreSQL migrations not yet run, in the caller's transaction, under an
/// advisory lock: instances starting at once run each exactly once.
pub(crate) fn migrate_postgres(sql: &mut dyn Sql) -> Result<(), StoreError> {
    sql.execute("SELECT pg_advisory_xact_lock(?1)", &[MIGRATION_LOCK.into()])?;
    sql.execute("CREATE TABLE IF NOT EXISTS toolhost_schema (version BIGINT NOT NULL)", &[])?;
    let rows = sql.query("SELECT version FROM toolhost_schema", &[])?;
    let version = match rows.first() {
        Some(r) => r.int(0)?,
        None => {
            sql.execute("INSERT INTO toolhost_schema (version) VALUES (0)", &[])?;
            0
        }
    };
    let known = PG_MIGRATIONS.len() as i64;
    if version > known {
        return Err(StoreError::TooNew { found: version, known });
    }
    for step in PG_MIGRATIONS.iter().skip(version as usize) {
        for statement in step.split(';').filter(|s| !s.trim().is_empty()) {
            sql.execute(statement, &[])?;
        }
    }
    sql.execute("UPDATE toolhost_schema SET version = ?1", &[known.into()])?;
    Ok(())
}
