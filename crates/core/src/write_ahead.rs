//! The write-ahead record of a call's file changes (docs/sessions.md#what-is-not-atomic-the-crash-window):
//! before the host writes a file for a call, the change it is about to make — path, before and
//! after content, hashes — is recorded as *pending* where the session keeps its record; the
//! call's own record, saved after the tool returns, replaces it. A pending change left behind
//! (the process died, or the store went away, between the write and the call's record) is
//! found again by its hashes: the file holds the after content, so it was written and is
//! recorded; it holds the before content, so it was not and is dropped.
//!
//! Core only asks; the session crate keeps the record ([`WriteAhead`] is set on a call's
//! [`crate::context::ToolCallContext`] by whoever records calls).

use std::sync::Arc;

use toolhost_sandbox::policy::SandboxPolicy;

use crate::context::ToolSessionContext;
use crate::result::{FileChange, FileChangeKind};
use crate::undo::{Direction, State, current_state, resolve_all};

/// Records the changes a call is about to write, before it writes them.
pub trait WriteAheadRecord: Send + Sync {
    /// Record `changes` as pending for this call. An error means they cannot be recorded,
    /// and the host writes nothing: its text says why.
    fn before_write(&self, changes: &[FileChange]) -> Result<(), String>;
}

/// A call's write-ahead record, when its session keeps one.
#[derive(Clone)]
pub struct WriteAhead(pub Arc<dyn WriteAheadRecord>);

impl std::fmt::Debug for WriteAhead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WriteAhead")
    }
}

/// The error text of a write refused because its change could not be recorded first.
pub fn not_recorded_message(display: &str, reason: &str) -> String {
    format!(
        "{display} was not written: the session store cannot record the change first ({reason}); nothing was written, and the call can be retried once the store answers"
    )
}

/// How a recorded change stands against the file on disk now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDisk {
    /// The file is as the change left it: it was written.
    After,
    /// The file is as it was before the change: it was not written.
    Before,
    /// The file is neither: something else changed it since.
    Other,
}

/// Of the pending `changes` of one call (in the order they were made), those that were
/// written, found by the hashes of the files on disk now, each with how it stands.
///
/// Per file: the changes up to the last one whose after content the file holds were
/// written; when it holds none of them but the first one's before content, none was; when
/// it holds neither, something else changed it since, and every change is kept (as
/// [`OnDisk::Other`]: an undo of it is refused as a conflict, never overwriting that). A file
/// the fence refuses now, or that is no longer UTF-8 text of at most 1 MiB, counts as changed
/// by something else.
pub fn found_written(
    changes: &[FileChange],
    session: &ToolSessionContext,
    policy: &SandboxPolicy,
) -> Vec<(FileChange, OnDisk)> {
    let mut found: Vec<Option<OnDisk>> = vec![None; changes.len()];
    for (first, change) in changes.iter().enumerate() {
        if changes[..first].iter().any(|c| c.path == change.path) {
            continue;
        }
        let chain: Vec<usize> =
            (first..changes.len()).filter(|&i| changes[i].path == change.path).collect();
        let now = resolve_all(&[change], session, policy, Direction::Undo)
            .ok()
            .and_then(|r| r.into_iter().next())
            .and_then(|(real, display)| current_state(&real, &display, Direction::Undo).ok());
        let after = |c: &FileChange| -> State {
            (c.kind != FileChangeKind::Deleted).then(|| c.after_hash.clone())
        };
        let before = |c: &FileChange| -> State {
            (c.kind != FileChangeKind::Created).then(|| c.before_hash.clone())
        };
        let (upto, state) = match now {
            None => (chain.len(), OnDisk::Other),
            Some(now) => match chain.iter().rposition(|&i| after(&changes[i]) == now) {
                Some(last) => (last + 1, OnDisk::After),
                None if before(change) == now => (0, OnDisk::Before),
                None => (chain.len(), OnDisk::Other),
            },
        };
        for &i in &chain[..upto] {
            found[i] = Some(state);
        }
    }
    changes.iter().zip(found).filter_map(|(c, f)| f.map(|f| (c.clone(), f))).collect()
}

/// Whether every file of `changes` (in the order they were made) already stands as
/// `direction` leaves it: an undo or reapply whose process died after rewriting the files and
/// before saving that, found done by the hashes of the files.
pub fn already_applied(
    changes: &[FileChange],
    session: &ToolSessionContext,
    policy: &SandboxPolicy,
    direction: Direction,
) -> bool {
    let target: Vec<FileChange> = match direction {
        Direction::Reapply => changes.to_vec(),
        // Undone, a change reads backwards: its before is the state it leaves.
        Direction::Undo => changes.iter().rev().map(reversed).collect(),
    };
    let found = found_written(&target, session, policy);
    found.len() == target.len() && found.iter().all(|(_, d)| *d == OnDisk::After)
}

/// `change` the other way round: from its after to its before.
fn reversed(change: &FileChange) -> FileChange {
    let mut r = change.clone();
    r.kind = match change.kind {
        FileChangeKind::Created => FileChangeKind::Deleted,
        FileChangeKind::Deleted => FileChangeKind::Created,
        FileChangeKind::Modified => FileChangeKind::Modified,
    };
    std::mem::swap(&mut r.before_hash, &mut r.after_hash);
    std::mem::swap(&mut r.before_content, &mut r.after_content);
    r
}
