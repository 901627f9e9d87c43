//! The session's side of the write-ahead record (docs/sessions.md#what-is-not-atomic-the-crash-window):
//! [`CallWriteAhead`] records a call's changes as pending in the [`Store`] before the host
//! writes them, and [`reconcile_pending`] settles those a call left behind — its process died,
//! or the store went away, between the write and the call's record — by the hashes of the
//! files on disk.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use toolhost_core::changeset::journaled;
use toolhost_core::context::ToolSessionContext;
use toolhost_core::on_disk::{OnDisk, found_written};
use toolhost_core::result::{ErrorCode, FileChange, ToolError, ToolResult, ToolResultArtifact};
use toolhost_core::write_ahead::WriteAheadRecord;
use toolhost_policy::SandboxPolicy;
use toolhost_store::{PendingCall, Store, StoreError};

/// One call's write-ahead record in the session's store.
pub(crate) struct CallWriteAhead {
    pub(crate) store: Arc<Mutex<Store>>,
    pub(crate) call: PendingCall,
    /// The number of the next change recorded for this call.
    pub(crate) next: AtomicI64,
}

impl WriteAheadRecord for CallWriteAhead {
    fn before_write(&self, changes: &[FileChange]) -> Result<(), String> {
        let first = self.next.fetch_add(changes.len() as i64, Ordering::SeqCst);
        let store = self.store.lock().unwrap_or_else(|e| e.into_inner());
        store.record_pending(&self.call, first, changes).map_err(|e| e.to_string())
    }
}

/// The message a reconciled call is recorded with.
fn interrupted_message(found: &[(FileChange, OnDisk)], pending: usize) -> String {
    let other = found.iter().filter(|(_, d)| *d == OnDisk::Other).count();
    let mut text = format!(
        "the toolhost running this call stopped (or lost its session store) before the call's result was recorded; {} of the {pending} file changes it was about to write were found written, by the hashes of the files, when the store was next opened",
        found.len() - other,
    );
    if other > 0 {
        text.push_str(&format!(
            ", and {other} file(s) have been changed by something else since: an undo of those is refused rather than overwrite that"
        ));
    }
    text
}

/// Settle the changes left pending in `session`'s workspace by processes that are gone
/// ([`PendingCall::writer_is_gone`]): a call whose changes were (at least partly) written is
/// recorded with status `outcome_unknown` and those changes, so `toolhost changes` lists them
/// and `undo` takes them back; one that wrote nothing is dropped. The ids of the calls
/// recorded.
pub fn reconcile_pending(
    store: &Store,
    session: &ToolSessionContext,
    policy: &SandboxPolicy,
) -> Result<Vec<String>, StoreError> {
    let mut recorded = Vec::new();
    for left in store.pending_calls(&session.working_directory)? {
        // A live writer's changes are its own to record; a commit whose journal is still
        // there (running, or interrupted and not yet rolled back) has its files in no
        // settled state yet.
        if !left.call.writer_is_gone() || journaled(&session.data_dir, &left.call.call_id) {
            continue;
        }
        let found = found_written(&left.changes, session, policy);
        if found.is_empty() {
            store.resolve_pending(&left.call, None)?;
            continue;
        }
        let error = ToolError::new(
            ErrorCode::OutcomeUnknown,
            interrupted_message(&found, left.changes.len()),
        );
        let mut result = ToolResult::from_error(error);
        result.artifacts =
            found.into_iter().map(|(c, _)| ToolResultArtifact::FileChange(c)).collect();
        store.resolve_pending(&left.call, Some(&result))?;
        recorded.push(left.call.call_id);
    }
    Ok(recorded)
}
