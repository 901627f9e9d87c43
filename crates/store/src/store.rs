//! [`Store`]: the session store on either engine, recording sessions and calls and finding,
//! claiming and settling the file changes they made. What is recorded is written once, over
//! [`Sql`]; the engines only carry the statements.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use toolhost_core::result::{FileChange, ToolResult, ToolResultArtifact};
use toolhost_core::undo::Direction;

use crate::StoreError;
use crate::contents::{self, ChunkCache};
use crate::location::StoreLocation;
use crate::pg::PgEngine;
use crate::sql::{Row, Sql, Value};
use crate::sqlite::SqliteEngine;

/// A recorded file change and where it was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedChange {
    pub session_id: String,
    /// The workspace of that session: the change's relative path resolves against it.
    pub workspace: PathBuf,
    /// The identity of that workspace's copy (`INSTANCE:PATH`), when it was recorded.
    pub workspace_id: Option<String>,
    pub change: FileChange,
}

enum Engine {
    Sqlite(SqliteEngine),
    Postgres(PgEngine),
}

/// The session store. Not shared between threads; wrap it in a mutex.
pub struct Store {
    engine: Engine,
    shown: String,
    workspace_id: Option<String>,
}

pub(crate) fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// Which rows a listing reads.
enum Filter {
    All,
    Session(String),
    Change(String),
}

impl Store {
    /// Open (creating it and running migrations if needed) `<data_dir>/toolhost.db`.
    pub fn open(data_dir: &Path) -> Result<Store, StoreError> {
        Store::connect(&StoreLocation::Sqlite(data_dir.to_path_buf()))
    }

    /// Open the store at `location` (connecting to PostgreSQL and running its migrations).
    pub fn connect(location: &StoreLocation) -> Result<Store, StoreError> {
        let engine = match location {
            StoreLocation::Sqlite(dir) => Engine::Sqlite(SqliteEngine::open(dir)?),
            StoreLocation::Postgres(url) => Engine::Postgres(PgEngine::connect(url)?),
        };
        Ok(Store { engine, shown: location.shown(), workspace_id: None })
    }

    /// This store records `workspace_id` as the identity of the workspace of the sessions it
    /// records, and serves changes of that identity only.
    pub fn serving(mut self, workspace_id: impl Into<String>) -> Store {
        self.workspace_id = Some(workspace_id.into());
        self
    }

    /// The identity of the workspace copy this store serves, if one was given.
    pub fn workspace_id(&self) -> Option<&str> {
        self.workspace_id.as_deref()
    }

    /// The store as shown in messages (a file, or a URL without its password).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Close the database; every later operation fails with [`StoreError::Closed`].
    pub fn close(&mut self) {
        match &mut self.engine {
            Engine::Sqlite(e) => e.close(),
            Engine::Postgres(e) => e.close(),
        }
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        match &self.engine {
            Engine::Sqlite(e) => e.schema_version(),
            Engine::Postgres(e) => e.schema_version(),
        }
    }

    /// `f` in one transaction (a write transaction when `write`).
    pub(crate) fn tx<R: Send + 'static>(
        &self,
        write: bool,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        match &self.engine {
            Engine::Sqlite(e) => e.transaction(write, f),
            Engine::Postgres(e) => e.transaction(write, f),
        }
    }

    /// Whether the store can record now (PostgreSQL: a round trip, reconnecting if the
    /// connection was lost; SQLite: open).
    pub fn ready(&self) -> Result<(), StoreError> {
        match &self.engine {
            Engine::Sqlite(_) => Ok(()),
            Engine::Postgres(e) => e.transaction(false, |sql| sql.query("SELECT 1", &[]).map(drop)),
        }
    }

    /// Record a session (once; recording it again keeps the first record).
    pub fn record_session(&self, session_id: &str, workspace: &Path) -> Result<(), StoreError> {
        let params: Vec<Value> = vec![
            session_id.into(),
            workspace.to_string_lossy().into_owned().into(),
            self.workspace_id.clone().into(),
            now_ms().into(),
        ];
        self.tx(true, move |sql| {
            sql.execute(
                "INSERT INTO sessions (id, workspace, workspace_id, created_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT DO NOTHING",
                &params,
            )
            .map(drop)
        })
    }

    /// How many calls a session has recorded (a resumed session numbers its calls on).
    pub fn call_count(&self, session_id: &str) -> Result<u64, StoreError> {
        let id: Value = session_id.into();
        self.tx(false, move |sql| {
            let rows = sql.query("SELECT COUNT(*) FROM calls WHERE session_id = ?1", &[id])?;
            Ok(rows.first().map_or(Ok(0), |r| r.int(0))? as u64)
        })
    }

    /// Record one call and its result; the contents of its file changes are stored once, as
    /// chunks ([`crate::contents`]). The changes recorded for it before they were written
    /// ([`crate::pending`]) are removed in the same transaction.
    pub fn record_call(
        &self,
        session_id: &str,
        call_id: &str,
        tool: &str,
        arguments: &serde_json::Value,
        result: &ToolResult,
    ) -> Result<(), StoreError> {
        let record = CallRecord::new(session_id, call_id, tool, arguments, result)?;
        let id: Value = call_id.into();
        self.tx(true, move |sql| {
            record.insert(sql)?;
            sql.execute("DELETE FROM pending_changes WHERE call_id = ?1", &[id]).map(drop)
        })
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
        let filter = session.map_or(Filter::All, |s| Filter::Session(s.into()));
        self.tx(false, move |sql| Ok(load(sql, &filter)?.into_iter().map(|(_, f)| f).collect()))
    }

    /// The change with this id (= the id of the call that made it): its first file.
    pub fn find_change(&self, change_id: &str) -> Result<RecordedChange, StoreError> {
        self.find_changes(&[change_id.to_string()])?
            .into_iter()
            .next()
            .ok_or_else(|| StoreError::UnknownChange(change_id.into()))
    }

    /// Every file of the changes `ids`, in the order they were made; an unknown id fails.
    pub fn find_changes(&self, ids: &[String]) -> Result<Vec<RecordedChange>, StoreError> {
        let mut ids = ids.to_vec();
        ids.dedup();
        self.tx(false, move |sql| {
            let mut found = Vec::new();
            for id in ids {
                let files = load(sql, &Filter::Change(id.clone()))?;
                if files.is_empty() {
                    return Err(StoreError::UnknownChange(id));
                }
                found.extend(files);
            }
            found.sort_by_key(|(seq, _)| *seq);
            Ok(found.into_iter().map(|(_, f)| f).collect())
        })
    }

    /// Set the `undone` flag of every file of a change (and end any claim on it).
    pub fn set_undone(&self, change_id: &str, undone: bool) -> Result<(), StoreError> {
        let params: Vec<Value> = vec![change_id.into(), undone.into()];
        let id = change_id.to_string();
        self.tx(true, move |sql| {
            let n = sql.execute(
                "UPDATE changes SET undone = ?2, pending = NULL, pending_at = NULL, claimed_by = NULL
                 WHERE change_id = ?1",
                &params,
            )?;
            if n == 0 { Err(StoreError::UnknownChange(id)) } else { Ok(()) }
        })
    }

    /// Claim a change for `direction`: only if it is in the state that direction starts from
    /// and nobody else holds it. Of two instances claiming at once exactly one succeeds; the
    /// other learns why ([`StoreError::Busy`], or [`ClaimRefused::AlreadyDone`]). A claim
    /// held by a process that is gone ([`crate::owner::is_gone`]: it died between claiming and
    /// settling) is taken over: `Ok(true)`, and the files may be part-way rewritten.
    pub fn claim(&self, change_id: &str, direction: Direction) -> Result<bool, ClaimRefused> {
        let from_undone = direction == Direction::Reapply;
        let params: Vec<Value> = vec![
            change_id.into(),
            direction.to_string().into(),
            from_undone.into(),
            now_ms().into(),
            crate::owner::current().into(),
        ];
        let id = change_id.to_string();
        self.tx(true, move |sql| {
            let mut took_over = false;
            loop {
                let claimed = sql.execute(
                    "UPDATE changes SET pending = ?2, pending_at = ?4, claimed_by = ?5
                     WHERE change_id = ?1 AND undone = ?3 AND pending IS NULL",
                    &params,
                )?;
                let rows = sql.query(
                    "SELECT undone, pending, pending_at, claimed_by FROM changes WHERE change_id = ?1",
                    &[id.clone().into()],
                )?;
                let Some(first) = rows.first() else {
                    return Ok(Err(ClaimRefused::Store(StoreError::UnknownChange(id))));
                };
                let busy = |pending: String| StoreError::Busy { change_id: id.clone(), pending };
                if claimed > 0 {
                    if claimed as usize == rows.len() {
                        return Ok(Ok(took_over));
                    }
                    // Part of its files were held: the transaction rolls back, nothing is kept.
                    return Err(busy("changed".into()));
                }
                let Some(pending) = first.opt_text(1)? else {
                    return Ok(Err(if (first.int(0)? == 1) != from_undone {
                        ClaimRefused::AlreadyDone
                    } else {
                        busy("changed".into()).into()
                    }));
                };
                let holder = first.opt_text(3)?.unwrap_or_default();
                let since = int_or_null(first, 2)?.unwrap_or(0);
                if took_over || !crate::owner::is_gone(&holder, since, now_ms()) {
                    return Ok(Err(busy(past(&pending)).into()));
                }
                // Its holder died: release its claim, and claim it again from the state the
                // store shows.
                sql.execute(
                    "UPDATE changes SET pending = NULL, pending_at = NULL, claimed_by = NULL
                     WHERE change_id = ?1",
                    &[id.clone().into()],
                )?;
                took_over = true;
            }
        })
        .map_err(ClaimRefused::Store)?
    }

    /// End a claim: `applied` sets the change to the state `direction` leads to; otherwise it
    /// stays as it was.
    pub fn settle(
        &self,
        change_id: &str,
        direction: Direction,
        applied: bool,
    ) -> Result<(), StoreError> {
        if applied {
            return self.set_undone(change_id, direction == Direction::Undo);
        }
        let id: Value = change_id.into();
        self.tx(true, move |sql| {
            sql.execute(
                "UPDATE changes SET pending = NULL, pending_at = NULL, claimed_by = NULL
                 WHERE change_id = ?1",
                &[id],
            )
            .map(drop)
        })
    }
}

/// One call's record, ready to insert: its row, and the contents of its file changes.
pub(crate) struct CallRecord {
    row: Vec<Value>,
    call_id: String,
    /// Per file change: its id, undone flag, before and after content.
    contents: Vec<(String, bool, String, String)>,
}

impl CallRecord {
    /// The record of `result`, its file contents taken out of the artifacts' JSON.
    pub(crate) fn new(
        session_id: &str,
        call_id: &str,
        tool: &str,
        arguments: &serde_json::Value,
        result: &ToolResult,
    ) -> Result<CallRecord, StoreError> {
        let status = serde_json::to_value(result.status)?;
        let error = result.error.as_ref().map(serde_json::to_string).transpose()?;
        let mut stripped = result.artifacts.clone();
        let mut contents = Vec::new();
        for ToolResultArtifact::FileChange(c) in &mut stripped {
            let before = std::mem::take(&mut c.before_content);
            let after = std::mem::take(&mut c.after_content);
            contents.push((c.change_id.clone(), c.undone, before, after));
        }
        let row: Vec<Value> = vec![
            session_id.into(),
            call_id.into(),
            tool.into(),
            serde_json::to_string(arguments)?.into(),
            status.as_str().unwrap_or_default().into(),
            result.text().into(),
            error.into(),
            serde_json::to_string(&stripped)?.into(),
            now_ms().into(),
        ];
        Ok(CallRecord { row, call_id: call_id.to_string(), contents })
    }

    /// Insert the call and its changes (contents stored once) in `sql`'s transaction.
    pub(crate) fn insert(self, sql: &mut dyn Sql) -> Result<(), StoreError> {
        sql.execute(
            "INSERT INTO calls (session_id, call_id, tool, arguments, status, text, error, artifacts, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            &self.row,
        )?;
        for (idx, (change_id, undone, before, after)) in self.contents.into_iter().enumerate() {
            let before_ref = contents::put(sql, &before)?;
            let after_ref = contents::put(sql, &after)?;
            sql.execute(
                "INSERT INTO changes (call_id, idx, change_id, undone, before_ref, after_ref)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                &[
                    self.call_id.clone().into(),
                    (idx as i64).into(),
                    change_id.into(),
                    undone.into(),
                    before_ref.into(),
                    after_ref.into(),
                ],
            )?;
        }
        Ok(())
    }
}

/// Why a claim was refused.
#[derive(Debug, thiserror::Error)]
pub enum ClaimRefused {
    /// The change is already in the state the direction leads to.
    #[error("the change is already in that state")]
    AlreadyDone,
    /// The store refused or failed ([`StoreError::Busy`]: another toolhost holds it).
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// "undo" → "undone", "reapply" → "reapplied".
fn past(pending: &str) -> String {
    match pending {
        "undo" => "undone".into(),
        "reapply" => "reapplied".into(),
        other => other.into(),
    }
}

const LOAD: &str = "SELECT c.session_id, s.workspace, s.workspace_id, c.call_id, c.artifacts,
        ch.idx, ch.undone, ch.before_ref, ch.after_ref, c.seq
     FROM calls c JOIN sessions s ON s.id = c.session_id
     LEFT JOIN changes ch ON ch.call_id = c.call_id
     WHERE c.artifacts != '[]'";

/// The recorded changes `filter` selects, oldest first (with the sequence number of their
/// call), their contents read back.
fn load(sql: &mut dyn Sql, filter: &Filter) -> Result<Vec<(i64, RecordedChange)>, StoreError> {
    let order = " ORDER BY c.seq, ch.idx";
    let rows = match filter {
        Filter::All => sql.query(&format!("{LOAD}{order}"), &[])?,
        Filter::Session(s) => {
            sql.query(&format!("{LOAD} AND c.session_id = ?1{order}"), &[s.clone().into()])?
        }
        Filter::Change(id) => {
            sql.query(&format!("{LOAD} AND ch.change_id = ?1{order}"), &[id.clone().into()])?
        }
    };
    let mut cache = ChunkCache::new();
    let mut out = Vec::new();
    let mut parsed: Option<(String, Vec<ToolResultArtifact>)> = None;
    for row in rows {
        let call_id = row.text(3)?;
        if parsed.as_ref().is_none_or(|(id, _)| *id != call_id) {
            parsed = Some((call_id.clone(), serde_json::from_str(&row.text(4)?)?));
        }
        let artifacts = parsed.as_ref().map(|(_, a)| a.as_slice()).unwrap_or_default();
        let recorded = |change: FileChange| -> Result<(i64, RecordedChange), StoreError> {
            Ok((
                row.int(9)?,
                RecordedChange {
                    session_id: row.text(0)?,
                    workspace: PathBuf::from(row.text(1)?),
                    workspace_id: row.opt_text(2)?,
                    change,
                },
            ))
        };
        let Some(idx) = int_or_null(&row, 5)? else {
            // A call recorded before changes had rows of their own: all its artifacts as
            // they are in its JSON.
            for ToolResultArtifact::FileChange(c) in artifacts {
                out.push(recorded(c.clone())?);
            }
            continue;
        };
        let Some(ToolResultArtifact::FileChange(c)) = artifacts.get(idx as usize) else {
            return Err(StoreError::Corrupt(format!("change {call_id} #{idx}")));
        };
        let mut change = c.clone();
        change.undone = row.int(6)? == 1;
        if let (Some(before), Some(after)) = (row.opt_text(7)?, row.opt_text(8)?) {
            change.before_content = contents::get(sql, &before, &mut cache)?;
            change.after_content = contents::get(sql, &after, &mut cache)?;
        }
        out.push(recorded(change)?);
    }
    Ok(out)
}

fn int_or_null(row: &Row, i: usize) -> Result<Option<i64>, StoreError> {
    match row.0.get(i) {
        Some(Value::Null) | None => Ok(None),
        _ => row.int(i).map(Some),
    }
}
