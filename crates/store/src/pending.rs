//! Changes recorded before they are written (docs/sessions.md#what-is-not-atomic-the-crash-window):
//! [`Store::record_pending`] keeps a call's changes, contents and all, in `pending_changes`
//! before the host writes them; [`Store::record_call`] replaces them with the call's own
//! record in the same transaction that saves it. What is left there belongs to a call whose
//! record was never saved: [`Store::pending_calls`] finds those of a workspace, and
//! [`Store::resolve_pending`] records what was found written (by the session crate, which
//! reads the files) and removes the rest.

use std::path::Path;

use toolhost_core::result::{FileChange, ToolResult};

use crate::StoreError;
use crate::contents::{self, ChunkCache};
use crate::sql::Value;
use crate::store::{Store, now_ms};

/// Who is writing a call's changes: the call, and the process that runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingCall {
    pub session_id: String,
    pub call_id: String,
    pub tool: String,
    pub arguments: serde_json::Value,
    /// The process that recorded them ([`crate::owner`]).
    pub owner: String,
    /// When the first of them was recorded (Unix milliseconds).
    pub created_at_ms: i64,
}

impl PendingCall {
    /// Whether the process that recorded these changes is gone by now
    /// ([`crate::owner::is_gone`], by the store's clock).
    pub fn writer_is_gone(&self) -> bool {
        crate::owner::is_gone(&self.owner, self.created_at_ms, now_ms())
    }
}

/// A call's pending changes, left behind: the call, and the changes with their contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftPending {
    pub call: PendingCall,
    pub changes: Vec<FileChange>,
}

impl Store {
    /// Record `changes` (the next ones of `call`, numbered from `first_idx`) as about to be
    /// written, contents and all.
    pub fn record_pending(
        &self,
        call: &PendingCall,
        first_idx: i64,
        changes: &[FileChange],
    ) -> Result<(), StoreError> {
        let head: Vec<Value> = vec![
            call.call_id.clone().into(),
            call.session_id.clone().into(),
            call.tool.clone().into(),
            serde_json::to_string(&call.arguments)?.into(),
            call.owner.clone().into(),
            now_ms().into(),
        ];
        let mut rows = Vec::with_capacity(changes.len());
        for c in changes {
            let mut stripped = c.clone();
            let before = std::mem::take(&mut stripped.before_content);
            let after = std::mem::take(&mut stripped.after_content);
            rows.push((serde_json::to_string(&stripped)?, before, after));
        }
        self.tx(true, move |sql| {
            for (n, (change, before, after)) in rows.into_iter().enumerate() {
                let before_ref = contents::put(sql, &before)?;
                let after_ref = contents::put(sql, &after)?;
                let mut params = head.clone();
                params.extend([
                    (first_idx + n as i64).into(),
                    change.into(),
                    before_ref.into(),
                    after_ref.into(),
                ]);
                sql.execute(
                    "INSERT INTO pending_changes
                       (call_id, session_id, tool, arguments, owner, created_at, idx, change, before_ref, after_ref)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    &params,
                )?;
            }
            Ok(())
        })
    }

    /// The calls with changes still pending in sessions of `workspace` (as recorded), oldest
    /// first, with their changes in the order they were made; those of another copy of the
    /// workspace than the one this store serves are left out.
    pub fn pending_calls(&self, workspace: &Path) -> Result<Vec<LeftPending>, StoreError> {
        let workspace: Value = workspace.to_string_lossy().into_owned().into();
        let serving = self.workspace_id().map(str::to_string);
        self.tx(false, move |sql| {
            let rows = sql.query(
                "SELECT p.call_id, p.session_id, p.tool, p.arguments, p.owner, p.created_at,
                        p.change, p.before_ref, p.after_ref, s.workspace_id
                 FROM pending_changes p JOIN sessions s ON s.id = p.session_id
                 WHERE s.workspace = ?1
                 ORDER BY p.created_at, p.call_id, p.idx",
                &[workspace],
            )?;
            let mut cache = ChunkCache::new();
            let mut out: Vec<LeftPending> = Vec::new();
            for row in rows {
                let made_in = row.opt_text(9)?;
                if made_in.as_deref().zip(serving.as_deref()).is_some_and(|(m, s)| m != s) {
                    continue;
                }
                let mut change: FileChange = serde_json::from_str(&row.text(6)?)?;
                change.before_content = contents::get(sql, &row.text(7)?, &mut cache)?;
                change.after_content = contents::get(sql, &row.text(8)?, &mut cache)?;
                let call_id = row.text(0)?;
                match out.last_mut() {
                    Some(last) if last.call.call_id == call_id => last.changes.push(change),
                    _ => out.push(LeftPending {
                        call: PendingCall {
                            session_id: row.text(1)?,
                            call_id,
                            tool: row.text(2)?,
                            arguments: serde_json::from_str(&row.text(3)?)?,
                            owner: row.text(4)?,
                            created_at_ms: row.int(5)?,
                        },
                        changes: vec![change],
                    }),
                }
            }
            Ok(out)
        })
    }

    /// Settle `call`'s pending changes: record the call with `result` (its artifacts are the
    /// changes found written) unless the call has a record already, and remove its pending
    /// changes, in one transaction. `None`: nothing of it was written; only remove them.
    pub fn resolve_pending(
        &self,
        call: &PendingCall,
        result: Option<&ToolResult>,
    ) -> Result<(), StoreError> {
        let record = result
            .map(|r| {
                crate::store::CallRecord::new(
                    &call.session_id,
                    &call.call_id,
                    &call.tool,
                    &call.arguments,
                    r,
                )
            })
            .transpose()?;
        let id: Value = call.call_id.clone().into();
        self.tx(true, move |sql| {
            if let Some(record) = record {
                let known =
                    sql.query("SELECT 1 FROM calls WHERE call_id = ?1", std::slice::from_ref(&id))?;
                if known.is_empty() {
                    record.insert(sql)?;
                }
            }
            sql.execute("DELETE FROM pending_changes WHERE call_id = ?1", &[id]).map(drop)
        })
    }
}
