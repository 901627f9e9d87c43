//! [`Store`]: one connection to `<data-dir>/toolhost.db`, recording sessions and calls and
//! finding the file changes they made.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, params};

use toolhost_core::result::{FileChange, ToolResult, ToolResultArtifact};

use crate::StoreError;
use crate::migrations::{DB_FILE, migrate};

/// A recorded file change and where it was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedChange {
    pub session_id: String,
    /// The workspace of that session: the change's relative path resolves against it.
    pub workspace: PathBuf,
    pub change: FileChange,
}

/// The session store. Not shared between threads; wrap it in a mutex.
pub struct Store {
    conn: Option<Connection>,
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// How long opening the store waits for other processes that hold its lock.
const OPEN_BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

impl Store {
    /// Open (creating it and running migrations if needed) `<data_dir>/toolhost.db`.
    pub fn open(data_dir: &Path) -> Result<Store, StoreError> {
        let path = data_dir.join(DB_FILE);
        let open_err = |source| StoreError::Open { path: path.clone(), source };
        std::fs::create_dir_all(data_dir)
            .map_err(|source| StoreError::DataDir { path: data_dir.to_path_buf(), source })?;
        let mut conn = Connection::open(&path).map_err(open_err)?;
        conn.busy_timeout(OPEN_BUSY_TIMEOUT).map_err(open_err)?;
        // Switching a fresh database to WAL takes an exclusive lock, and SQLite answers
        // SQLITE_BUSY at once (not through the busy handler) while another process is doing
        // the same: retry for as long as the busy timeout allows.
        let started = std::time::Instant::now();
        loop {
            match conn.pragma_update(None, "journal_mode", "WAL") {
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if e.code == rusqlite::ErrorCode::DatabaseBusy
                        && started.elapsed() < OPEN_BUSY_TIMEOUT =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                other => break other.map_err(open_err)?,
            }
        }
        // WAL + NORMAL: a commit survives a crash of toolhost (not a power cut) without an
        // fsync per call, which would cap a session at a few hundred calls per second.
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(open_err)?;
        // Closing the last connection would checkpoint the WAL into the database and delete
        // it, with an fsync or four (~1.5 ms of every one-shot `toolhost call`). Leave the
        // WAL for the next open instead: SQLite checkpoints it when it grows past its
        // autocheckpoint size, and it is as private as the database (`DATA_DIR_PRIVATE`).
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(open_err)?;
        conn.pragma_update(None, "foreign_keys", true).map_err(open_err)?;
        migrate(&mut conn)?;
        Ok(Store { conn: Some(conn) })
    }

    /// Close the database; every later operation fails with [`StoreError::Closed`].
    pub fn close(&mut self) {
        self.conn = None;
    }

    fn conn(&self) -> Result<&Connection, StoreError> {
        self.conn.as_ref().ok_or(StoreError::Closed)
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(self.conn()?.pragma_query_value(None, "user_version", |r| r.get(0))?)
    }

    /// Record a session (once; recording it again keeps the first record).
    pub fn record_session(&self, session_id: &str, workspace: &Path) -> Result<(), StoreError> {
        self.conn()?.execute(
            "INSERT OR IGNORE INTO sessions (id, workspace, created_at) VALUES (?1, ?2, ?3)",
            params![session_id, workspace.to_string_lossy(), now_ms()],
        )?;
        Ok(())
    }

    /// How many calls a session has recorded (a resumed session numbers its calls on).
    pub fn call_count(&self, session_id: &str) -> Result<u64, StoreError> {
        let n: i64 = self.conn()?.query_row(
            "SELECT COUNT(*) FROM calls WHERE session_id = ?1",
            [session_id],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    /// Record one call and its result.
    pub fn record_call(
        &self,
        session_id: &str,
        call_id: &str,
        tool: &str,
        arguments: &serde_json::Value,
        result: &ToolResult,
    ) -> Result<(), StoreError> {
        let status = serde_json::to_value(result.status)?;
        let error = result.error.as_ref().map(serde_json::to_string).transpose()?;
        // Cached: a session records one call after another with the same statement.
        self.conn()?.prepare_cached(
            "INSERT INTO calls (session_id, call_id, tool, arguments, status, text, error, artifacts, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?.execute(
            params![
                session_id,
                call_id,
                tool,
                serde_json::to_string(arguments)?,
                status.as_str().unwrap_or_default(),
                result.text(),
                error,
                serde_json::to_string(&result.artifacts)?,
                now_ms(),
            ],
        )?;
        Ok(())
    }

    /// Every recorded file change, oldest first; only `session`'s when given.
    pub fn changes(&self, session: Option<&str>) -> Result<Vec<FileChange>, StoreError> {
        Ok(self.recorded_changes(session)?.into_iter().map(|r| r.change).collect())
    }

    /// Every recorded file change with its session, oldest first.
    pub fn recorded_changes(
        &self,
        session: Option<&str>,
    ) -> Result<Vec<RecordedChange>, StoreError> {
        let conn = self.conn()?;
        let mut stmt = conn.prepare(
            "SELECT c.session_id, s.workspace, c.artifacts FROM calls c JOIN sessions s ON s.id = c.session_id
             WHERE c.artifacts != '[]' AND (?1 IS NULL OR c.session_id = ?1) ORDER BY c.seq",
        )?;
        let rows = stmt.query_map([session], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (session_id, workspace, artifacts) = row?;
            let artifacts: Vec<ToolResultArtifact> = serde_json::from_str(&artifacts)?;
            for ToolResultArtifact::FileChange(change) in artifacts {
                out.push(RecordedChange {
                    session_id: session_id.clone(),
                    workspace: PathBuf::from(&workspace),
                    change,
                });
            }
        }
        Ok(out)
    }

    /// The change with this id (= the id of the call that made it).
    pub fn find_change(&self, change_id: &str) -> Result<RecordedChange, StoreError> {
        let conn = self.conn()?;
        let row: Option<(String, String, String)> = conn
            .query_row(
                "SELECT c.session_id, s.workspace, c.artifacts FROM calls c JOIN sessions s ON s.id = c.session_id
                 WHERE c.call_id = ?1",
                [change_id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((session_id, workspace, artifacts)) = row else {
            return Err(StoreError::UnknownChange(change_id.into()));
        };
        let artifacts: Vec<ToolResultArtifact> = serde_json::from_str(&artifacts)?;
        artifacts
            .into_iter()
            .map(|ToolResultArtifact::FileChange(change)| change)
            .find(|c| c.change_id == change_id)
            .map(|change| RecordedChange {
                session_id,
                workspace: PathBuf::from(workspace),
                change,
            })
            .ok_or_else(|| StoreError::UnknownChange(change_id.into()))
    }

    /// Rewrite the `undone` flag of a change's artifact.
    pub fn set_undone(&self, change_id: &str, undone: bool) -> Result<(), StoreError> {
        let conn = self.conn()?;
        let artifacts: Option<String> = conn
            .query_row("SELECT artifacts FROM calls WHERE call_id = ?1", [change_id], |r| r.get(0))
            .optional()?;
        let Some(artifacts) = artifacts else {
            return Err(StoreError::UnknownChange(change_id.into()));
        };
        let mut artifacts: Vec<ToolResultArtifact> = serde_json::from_str(&artifacts)?;
        let mut found = false;
        for ToolResultArtifact::FileChange(change) in &mut artifacts {
            if change.change_id == change_id {
                change.undone = undone;
                found = true;
            }
        }
        if !found {
            return Err(StoreError::UnknownChange(change_id.into()));
        }
        conn.execute(
            "UPDATE calls SET artifacts = ?1 WHERE call_id = ?2",
            params![serde_json::to_string(&artifacts)?, change_id],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MIGRATIONS;
    use toolhost_core::changes::file_change;

    fn result_with(change: FileChange) -> ToolResult {
        let mut r = ToolResult::success("Edited a.txt:1 (+1 -1)");
        r.artifacts.push(ToolResultArtifact::FileChange(change));
        r
    }

    #[test]
    fn records_and_finds_changes_and_flips_undone() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        store.record_session("s1", Path::new("/w")).unwrap();
        store.record_session("s1", Path::new("/other")).unwrap();
        store
            .record_call(
                "s1",
                "s1-1",
                "read",
                &serde_json::json!({"path": "a.txt"}),
                &ToolResult::success("1\tx"),
            )
            .unwrap();
        let change = file_change("s1-2", "a.txt", Some("x\n"), "y\n");
        store
            .record_call("s1", "s1-2", "edit", &serde_json::json!({}), &result_with(change.clone()))
            .unwrap();
        assert_eq!(store.call_count("s1").unwrap(), 2);
        assert_eq!(store.changes(None).unwrap(), vec![change.clone()]);
        assert_eq!(store.changes(Some("s2")).unwrap(), vec![]);
        let found = store.find_change("s1-2").unwrap();
        assert_eq!(found.workspace, PathBuf::from("/w"));
        store.set_undone("s1-2", true).unwrap();
        assert!(store.find_change("s1-2").unwrap().change.undone);
        assert!(matches!(store.find_change("s1-1"), Err(StoreError::UnknownChange(_))));
        assert!(matches!(store.set_undone("nope", true), Err(StoreError::UnknownChange(_))));
        // A duplicate call id is refused, not silently merged.
        assert!(
            store
                .record_call("s1", "s1-2", "edit", &serde_json::json!({}), &ToolResult::success(""))
                .is_err()
        );
    }

    #[test]
    fn reopening_keeps_the_records_and_does_not_rerun_migrations() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            store.record_session("s", Path::new("/w")).unwrap();
        }
        let mut store = Store::open(dir.path()).unwrap();
        assert_eq!(store.call_count("s").unwrap(), 0);
        store.close();
        assert!(matches!(store.changes(None), Err(StoreError::Closed)));
    }

    #[test]
    fn a_store_from_a_newer_toolhost_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        assert!(matches!(Store::open(dir.path()), Err(StoreError::TooNew { found: 99, .. })));
    }
}
