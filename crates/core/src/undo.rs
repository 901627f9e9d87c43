//! Undo and reapply of recorded file changes (docs/contract.md#file-changes-and-undo).
//!
//! A batch is a slice of [`FileChange`]s in the order they were made. [`undo`] takes them back
//! newest first, [`reapply`] makes them again oldest first, so undoing "create, then edit"
//! of one file deletes it, and reapplying brings back both steps.
//!
//! The rules:
//!
//! * Before anything is written, the whole batch is checked against the disk: for undo each
//!   file must hash to the `afterHash` of the change being undone, for reapply to its
//!   `beforeHash` (a `created` change needs the file to be absent for reapply, a `deleted` one
//!   needs it absent for undo: undoing a deletion recreates the file, and never over a file
//!   that appeared since). Any mismatch is
//!   [`UndoError::Conflict`] and nothing is written: a change made by someone else is never
//!   overwritten.
//! * Every write goes through the path fence ([`resolve_path`] with [`Access::Write`]) under the
//!   caller's policy plus an exact write grant for each recorded path as written (the user
//!   asked for exactly these files; a grant never unlocks a hard-protected path). A path that
//!   now goes through a symlink is refused: the grant never follows a link. Under the session's
//!   write lock of that path, and through [`write_atomic`] with the expected hash, so a write
//!   that raced us is refused rather than overwritten.
//! * A failure half-way rolls back the steps already done (newest first); if the rollback
//!   fails too the error is [`UndoError::RollbackFailed`] and names the files left changed.
//! * Files involved must be UTF-8 text of at most 1 MiB.
//! * The observation table is not touched (docs/contract.md#read-before-edit): after an undo the
//!   model must read the file again before editing it.
//!
//! Not one atomic transaction with the store: if the files are rewritten and saving the
//! `undone` flag fails, disk and record disagree (see `docs/sessions.md`). Deleting a created
//! file ([`remove_checked`]) has a window between the hash comparison and the unlink in which
//! another process could write it; the directory itself is pinned, as for writes.

use std::collections::HashMap;
use std::path::PathBuf;

use toolhost_limits::MAX_EDIT_FILE_BYTES;
use toolhost_policy::{Access, PathGrant, SandboxPolicy, Scope};

use crate::atomic::put;
use crate::context::ToolSessionContext;
use crate::fence::{Intent, resolve_lexically, resolve_path};
use crate::observations::sha256_hex;
use crate::result::{FileChange, FileChangeKind};

/// Which way a batch is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Undo,
    Reapply,
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Direction::Undo => "undo",
            Direction::Reapply => "reapply",
        })
    }
}

impl Direction {
    /// The state a change is in once this direction has been applied: "undone" or "applied".
    pub fn done_state(self) -> &'static str {
        match self {
            Direction::Undo => "undone",
            Direction::Reapply => "applied",
        }
    }
}

/// Why an undo or reapply did not happen (or did not fully happen).
#[derive(Debug, thiserror::Error)]
pub enum UndoError {
    /// Nothing to do.
    #[error("no change was given")]
    Empty,
    /// The file on disk is not what the change expects; nothing was written.
    #[error(
        "cannot {direction} change {change_id}: {path} {found}, so it was changed by something else; nothing was written"
    )]
    Conflict { path: String, change_id: String, direction: Direction, found: &'static str },
    /// The change is already in the requested state.
    #[error("change {change_id} is already {state}")]
    AlreadyDone { change_id: String, state: &'static str },
    /// The fence refused the path.
    #[error("cannot {direction} {path}: {message}")]
    Denied { path: String, direction: Direction, message: String },
    /// A file involved is not UTF-8 text of at most 1 MiB.
    #[error("cannot {direction} {path}: {reason}")]
    NotEditable { path: String, direction: Direction, reason: String },
    /// The record of the change is inconsistent with itself (content vs hash).
    #[error("the record of change {change_id} is inconsistent: {reason}")]
    CorruptRecord { change_id: String, reason: String },
    /// A write failed; the steps done before it were rolled back.
    #[error("cannot {direction} {path}: {source}; the files already changed were restored")]
    Io {
        path: String,
        direction: Direction,
        #[source]
        source: std::io::Error,
    },
    /// A write failed and so did restoring the files changed before it.
    #[error(
        "cannot {direction} {path}: {error}; restoring the files already changed failed too ({rollback}); these files are left changed: {left}"
    )]
    RollbackFailed {
        path: String,
        direction: Direction,
        error: String,
        rollback: String,
        left: String,
    },
}

/// What a file is: absent, or present with this SHA-256.
pub(crate) type State = Option<String>;

/// One planned write: `path` goes from `from` to `to` (None: delete); a file it creates gets
/// `mode` when the change recorded one.
struct Step {
    real: PathBuf,
    display: String,
    from: State,
    to: Option<String>,
    mode: Option<u32>,
}

impl Step {
    fn to_hash(&self) -> State {
        self.to.as_deref().map(|t| sha256_hex(t.as_bytes()))
    }
}

/// Undo `changes` (given in the order they were made), newest first.
pub async fn undo(
    changes: &[FileChange],
    session: &ToolSessionContext,
    policy: &SandboxPolicy,
) -> Result<(), UndoError> {
    apply(changes, session, policy, Direction::Undo).await
}

/// Reapply `changes` (given in the order they were made), oldest first.
pub async fn reapply(
    changes: &[FileChange],
    session: &ToolSessionContext,
    policy: &SandboxPolicy,
) -> Result<(), UndoError> {
    apply(changes, session, policy, Direction::Reapply).await
}

fn check_record(change: &FileChange) -> Result<(), UndoError> {
    let corrupt = |reason: &str| UndoError::CorruptRecord {
        change_id: change.change_id.clone(),
        reason: reason.into(),
    };
    if change.kind != FileChangeKind::Deleted
        && sha256_hex(change.after_content.as_bytes()) != change.after_hash
    {
        return Err(corrupt("afterContent does not hash to afterHash"));
    }
    match change.kind {
        FileChangeKind::Modified | FileChangeKind::Deleted
            if sha256_hex(change.before_content.as_bytes()) != change.before_hash =>
        {
            Err(corrupt("beforeContent does not hash to beforeHash"))
        }
        _ => Ok(()),
    }
}

fn too_large(len: usize) -> String {
    format!("it is {len} bytes; undo and reapply handle files of at most 1 MiB (1048576 bytes)")
}

/// The current state of `real`, refusing files that are not UTF-8 text of at most 1 MiB; no
/// symlink is followed anywhere on the path.
pub(crate) fn current_state(
    real: &std::path::Path,
    display: &str,
    direction: Direction,
) -> Result<State, UndoError> {
    let read = || -> std::io::Result<Vec<u8>> {
        use std::io::Read;
        let (mut file, meta) = crate::open::open_regular(real)?;
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    };
    let bytes = match read() {
        Ok(b) => b,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(UndoError::Io { path: display.into(), direction, source: e }),
    };
    let not_editable =
        |reason: String| UndoError::NotEditable { path: display.into(), direction, reason };
    if bytes.len() > MAX_EDIT_FILE_BYTES {
        return Err(not_editable(too_large(bytes.len())));
    }
    if std::str::from_utf8(&bytes).is_err() {
        return Err(not_editable("it is not UTF-8 text".into()));
    }
    Ok(Some(sha256_hex(&bytes)))
}

/// Resolve every path of `changes` once, under `policy` widened by an exact grant for each
/// recorded path as written (never for what a symlink there resolves to): a path that no
/// longer resolves to itself goes through a symlink someone planted, and is refused. Each
/// change's real path and display.
pub(crate) fn resolve_all(
    changes: &[&FileChange],
    session: &ToolSessionContext,
    policy: &SandboxPolicy,
    direction: Direction,
) -> Result<Vec<(PathBuf, String)>, UndoError> {
    let mut resolved: Vec<(PathBuf, String)> = Vec::with_capacity(changes.len());
    let lexicals = changes
        .iter()
        .map(|change| {
            resolve_lexically(session, &change.path).map_err(|e| UndoError::Denied {
                path: change.path.clone(),
                direction,
                message: e.to_string(),
            })
        })
        .collect::<Result<Vec<PathBuf>, UndoError>>()?;
    let policy = policy.with_grants(lexicals.iter().map(|l| PathGrant {
        path: l.clone(),
        access: Access::Write,
        scope: Scope::Exact,
    }));
    for (change, lexical) in changes.iter().zip(lexicals) {
        let checked =
            resolve_path(session, &change.path, Access::Write, Intent::MayCreate, &policy)
                .map_err(|e| UndoError::Denied {
                    path: change.path.clone(),
                    direction,
                    message: e.error.message,
                })?;
        if checked.as_path() != lexical
            || lexical.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink())
        {
            return Err(UndoError::Denied {
                path: change.path.clone(),
                direction,
                message: "it (or a directory on its path) is now a symbolic link; undo and reapply never follow links, so nothing was written".into(),
            });
        }
        resolved.push((checked.as_path().to_path_buf(), checked.display().to_string()));
    }
    Ok(resolved)
}

async fn apply(
    changes: &[FileChange],
    session: &ToolSessionContext,
    policy: &SandboxPolicy,
    direction: Direction,
) -> Result<(), UndoError> {
    if changes.is_empty() {
        return Err(UndoError::Empty);
    }
    for change in changes {
        check_change(change, direction)?;
    }
    let ordered: Vec<&FileChange> = match direction {
        Direction::Undo => changes.iter().rev().collect(),
        Direction::Reapply => changes.iter().collect(),
    };
    let resolved = resolve_all(&ordered, session, policy, direction)?;
    // Judged as a whole, as a multi-file commit is: the files it writes back may not lay out
    // a repository together (`toolhost_policy::git::change_refusal`).
    let writes: Vec<&std::path::Path> = ordered
        .iter()
        .zip(&resolved)
        .filter(|(c, _)| expected_and_target(c, direction).1.is_some())
        .map(|(_, (real, _))| real.as_path())
        .collect();
    if let Err(denial) = policy.change_verdict(&writes) {
        let first = ordered.first().map(|c| c.path.clone()).unwrap_or_default();
        return Err(UndoError::Denied { path: first, direction, message: denial.message });
    }

    // One write lock per real path, taken in a fixed order.
    let mut lock_paths: Vec<PathBuf> = resolved.iter().map(|(r, _)| r.clone()).collect();
    lock_paths.sort();
    lock_paths.dedup();
    let mut guards = Vec::with_capacity(lock_paths.len());
    for p in &lock_paths {
        guards.push(session.write_locks.lock(p).await);
    }
    let steps = plan(&ordered, &resolved, direction)?;
    execute(&steps, direction)?;
    drop(guards);
    Ok(())
}

/// A change can be applied in `direction` at all: its record is consistent, it is in the
/// state the direction starts from, and its contents are within the size undo handles.
fn check_change(change: &FileChange, direction: Direction) -> Result<(), UndoError> {
    check_record(change)?;
    let (state, wanted) = (direction.done_state(), direction == Direction::Reapply);
    if change.undone != wanted {
        return Err(UndoError::AlreadyDone { change_id: change.change_id.clone(), state });
    }
    for content in [&change.before_content, &change.after_content] {
        if content.len() > MAX_EDIT_FILE_BYTES {
            return Err(UndoError::NotEditable {
                path: change.path.clone(),
                direction,
                reason: too_large(content.len()),
            });
        }
    }
    Ok(())
}

/// The state `change` expects its file in before `direction`, and the content it writes
/// (None: the file is removed).
fn expected_and_target(change: &FileChange, direction: Direction) -> (State, Option<String>) {
    match (direction, change.kind) {
        (Direction::Undo, FileChangeKind::Created) => (Some(change.after_hash.clone()), None),
        (Direction::Undo, FileChangeKind::Modified) => {
            (Some(change.after_hash.clone()), Some(change.before_content.clone()))
        }
        (Direction::Reapply, FileChangeKind::Created) => (None, Some(change.after_content.clone())),
        (Direction::Reapply, FileChangeKind::Modified) => {
            (Some(change.before_hash.clone()), Some(change.after_content.clone()))
        }
        (Direction::Undo, FileChangeKind::Deleted) => (None, Some(change.before_content.clone())),
        (Direction::Reapply, FileChangeKind::Deleted) => (Some(change.before_hash.clone()), None),
    }
}

/// Plan against the disk, simulating the chain per path; refuse on the first mismatch.
fn plan<'a>(
    ordered: &[&'a FileChange],
    resolved: &[(PathBuf, String)],
    direction: Direction,
) -> Result<Vec<(Step, &'a FileChange)>, UndoError> {
    let mut states: HashMap<PathBuf, State> = HashMap::new();
    let mut steps = Vec::with_capacity(ordered.len());
    for (change, (real, display)) in ordered.iter().zip(resolved) {
        let current = match states.get(real) {
            Some(s) => s.clone(),
            None => current_state(real, display, direction)?,
        };
        let (expected, to) = expected_and_target(change, direction);
        if current != expected {
            let found = match (&current, &expected) {
                (None, _) => "no longer exists",
                (Some(_), None) => "already exists",
                _ => "has different content than the change expects",
            };
            return Err(UndoError::Conflict {
                path: change.path.clone(),
                change_id: change.change_id.clone(),
                direction,
                found,
            });
        }
        let step = Step {
            real: real.clone(),
            display: display.clone(),
            from: current,
            to,
            mode: change.mode,
        };
        states.insert(real.clone(), step.to_hash());
        steps.push((step, *change));
    }
    Ok(steps)
}

/// Execute the planned steps in order, rolling back the ones done when one fails.
fn execute(steps: &[(Step, &FileChange)], direction: Direction) -> Result<(), UndoError> {
    let mut done: Vec<(&Step, Option<String>)> = Vec::new();
    for (step, change) in steps {
        // What to restore if a later step fails: the content this step replaces.
        let previous = match (direction, change.kind) {
            (Direction::Undo, FileChangeKind::Deleted) => None,
            (Direction::Undo, _) => Some(change.after_content.clone()),
            (Direction::Reapply, FileChangeKind::Created) => None,
            (Direction::Reapply, _) => Some(change.before_content.clone()),
        };
        if let Err(error) = put(&step.real, step.to.as_deref(), step.from.as_deref(), step.mode) {
            return Err(roll_back(&done, step, direction, error.plain()));
        }
        done.push((step, previous));
    }
    Ok(())
}

/// Restore the steps `done` (newest first) after `failed` could not be written: the error
/// to return, naming the files left changed when restoring fails too.
fn roll_back(
    done: &[(&Step, Option<String>)],
    failed: &Step,
    direction: Direction,
    error: String,
) -> UndoError {
    let mut left = Vec::new();
    let mut rollback_errors = Vec::new();
    for (done_step, restore) in done.iter().rev() {
        if let Err(e) =
            put(&done_step.real, restore.as_deref(), done_step.to_hash().as_deref(), done_step.mode)
        {
            left.push(done_step.display.clone());
            rollback_errors.push(format!("{}: {}", done_step.display, e.plain()));
        }
    }
    if left.is_empty() {
        return UndoError::Io {
            path: failed.display.clone(),
            direction,
            source: std::io::Error::other(error),
        };
    }
    UndoError::RollbackFailed {
        path: failed.display.clone(),
        direction,
        error,
        rollback: rollback_errors.join("; "),
        left: left.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::file_change;
    use crate::context::temp_workspace;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
    }

    #[test]
    fn undo_then_reapply_a_modification() {
        let (_d, s, p) = temp_workspace();
        let f = s.working_directory.join("a.txt");
        std::fs::write(&f, "two\n").unwrap();
        let mut c = file_change("c1", "a.txt", Some("one\n"), "two\n");
        block_on(undo(std::slice::from_ref(&c), &s, &p)).unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "one\n");
        c.undone = true;
        block_on(reapply(std::slice::from_ref(&c), &s, &p)).unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "two\n");
    }

    #[test]
    fn a_conflict_anywhere_in_the_batch_writes_nothing() {
        let (_d, s, p) = temp_workspace();
        let a = s.working_directory.join("a.txt");
        let b = s.working_directory.join("b.txt");
        std::fs::write(&a, "a2").unwrap();
        std::fs::write(&b, "b-external").unwrap();
        let batch = [
            file_change("c1", "a.txt", Some("a1"), "a2"),
            file_change("c2", "b.txt", Some("b1"), "b2"),
        ];
        let e = block_on(undo(&batch, &s, &p)).unwrap_err();
        assert!(matches!(&e, UndoError::Conflict { path, .. } if path == "b.txt"), "{e}");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a2");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "b-external");
    }

    #[test]
    fn a_failure_half_way_rolls_back() {
        let (_d, s, p) = temp_workspace();
        let a = s.working_directory.join("a.txt");
        std::fs::write(&a, "a2").unwrap();
        // b.txt "was created" under a directory that we then replace by a file, so the
        // reapply of b fails after a was already reapplied.
        let mut batch = [
            file_change("c1", "a.txt", Some("a1"), "a2"),
            file_change("c2", "sub/b.txt", None, "b"),
        ];
        std::fs::write(&a, "a1").unwrap();
        std::fs::write(s.working_directory.join("sub"), "not a dir").unwrap();
        for c in &mut batch {
            c.undone = true;
        }
        let e = block_on(reapply(&batch, &s, &p)).unwrap_err();
        assert!(matches!(e, UndoError::Io { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a1", "the first step was rolled back");
    }

    #[test]
    fn a_deletion_is_undone_by_recreating_the_file_and_reapplied_by_removing_it() {
        let (_d, s, p) = temp_workspace();
        let a = s.working_directory.join("a.txt");
        let mut c = crate::changes::file_deletion("c1", "a.txt", "kept\n", Some(0o750));
        block_on(undo(std::slice::from_ref(&c), &s, &p)).unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "kept\n");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&a).unwrap().permissions().mode() & 0o777, 0o750);
        c.undone = true;
        block_on(reapply(std::slice::from_ref(&c), &s, &p)).unwrap();
        assert!(!a.exists());
        // A file that appeared where the deleted one was is never overwritten by an undo.
        std::fs::write(&a, "someone else's\n").unwrap();
        c.undone = false;
        let e = block_on(undo(std::slice::from_ref(&c), &s, &p)).unwrap_err();
        assert!(matches!(&e, UndoError::Conflict { found: "already exists", .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "someone else's\n");
    }

    #[test]
    fn refuses_large_and_binary_files() {
        let (_d, s, p) = temp_workspace();
        let a = s.working_directory.join("a.bin");
        std::fs::write(&a, [0xffu8, 0xfe]).unwrap();
        let c = file_change("c1", "a.bin", Some("x"), "y");
        let e = block_on(undo(&[c], &s, &p)).unwrap_err();
        assert!(matches!(e, UndoError::NotEditable { .. }), "{e}");
    }

    #[test]
    fn undo_is_fenced() {
        let (_d, s, rw) = temp_workspace();
        let ro = SandboxPolicy::new(toolhost_policy::SandboxMode::ReadOnly, &s.working_directory);
        // An exact grant for the file lets a read-only session undo it…
        let f = s.working_directory.join("a.txt");
        std::fs::write(&f, "2").unwrap();
        let c = file_change("c1", "a.txt", Some("1"), "2");
        block_on(undo(std::slice::from_ref(&c), &s, &ro)).unwrap();
        // …but never a hard-protected path.
        std::fs::create_dir_all(s.working_directory.join(".git/hooks")).unwrap();
        std::fs::write(s.working_directory.join(".git/hooks/pre-commit"), "2").unwrap();
        let c = file_change("c2", ".git/hooks/pre-commit", Some("1"), "2");
        let e = block_on(undo(&[c], &s, &rw)).unwrap_err();
        assert!(matches!(e, UndoError::Denied { .. }), "{e}");
    }
}
