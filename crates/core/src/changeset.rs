//! Several file writes committed as one change, all of them or none
//! (docs/contract.md#apply_patch): the commit behind `workspace.commit-all`.
//!
//! The caller has fenced every path, checked every file against what the session read and
//! computed every new text; [`commit`] then
//!
//! 1. writes a journal to the data dir (`journal/`, fsynced) naming each file's state before
//!    and after, before the first file is touched;
//! 2. moves each file to its new state with [`put`] (an atomic rename in the pinned parent, or
//!    a checked unlink), each against the state it was planned from, so a file someone else
//!    changed meanwhile is refused, never overwritten;
//! 3. on a failure, puts the files already done back (newest first) and reports as undo
//!    does: restored, or which files were left changed;
//! 4. removes the journal.
//!
//! A process that dies between 1 and 4 leaves its journal; [`recover`], at the next start in
//! that data dir, puts back every file still in the state the commit left it in, and names the
//! ones changed since (never overwritten). The journal lives in the data dir, which no tool and
//! no sandboxed program can write (docs/security.md), so the paths in it are the fenced paths.

use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::atomic::{AtomicWriteError, put};
use crate::observations::sha256_hex;

/// The data dir's directory of open journals.
pub const JOURNAL_DIR: &str = "journal";

/// Test hook: with this variable set to N in the host's environment, the process kills itself
/// with SIGKILL right after the N-th file of a multi-file commit is written, so a test can
/// prove [`recover`] (docs/sessions.md#crashes). Only the operator sets a host's environment.
pub const DIE_AFTER_FILES_VAR: &str = "TOOLHOST_TEST_DIE_AFTER_FILES";

/// One file of a commit: from `before` to `after` (None: absent).
#[derive(Debug, Clone)]
pub struct Step {
    /// The real (fenced, canonical) path.
    pub real: PathBuf,
    /// The path to show in messages.
    pub display: String,
    /// Its content now, as checked by the caller.
    pub before: Option<String>,
    /// Its content after the commit; None deletes it.
    pub after: Option<String>,
    /// For a file the commit creates: its permission bits (a move's source's).
    pub new_mode: Option<u32>,
}

impl Step {
    fn verb(&self) -> &'static str {
        match (&self.before, &self.after) {
            (_, None) => "delete",
            (None, Some(_)) => "create",
            (Some(_), Some(_)) => "write",
        }
    }
}

/// Why a commit did not happen (or did not fully happen).
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// The journal could not be written; no file was touched.
    #[error("cannot write the journal of this change in the data dir ({0}); nothing was written")]
    Journal(#[source] std::io::Error),
    /// A file could not be written; the files written before it were put back.
    #[error(
        "cannot {verb} {path}: {error}; the files already written were restored, so nothing was changed"
    )]
    Io { path: String, verb: &'static str, error: String },
    /// A file could not be written, and putting back the ones written before it failed too.
    #[error(
        "cannot {verb} {path}: {error}; restoring the files already written failed too ({rollback}); these files are left changed: {left}"
    )]
    RollbackFailed {
        path: String,
        verb: &'static str,
        error: String,
        rollback: String,
        left: String,
    },
}

/// One file in a journal.
#[derive(Serialize, Deserialize)]
struct Entry {
    /// The real path, as bytes (a path need not be UTF-8).
    path: Vec<u8>,
    /// What to put back: the content before, or None (the file did not exist).
    before: Option<String>,
    /// SHA-256 of the content the commit writes, or None (it deletes the file).
    after_hash: Option<String>,
}

/// A journal file: the commit of one call.
#[derive(Serialize, Deserialize)]
struct Journal {
    call_id: String,
    entries: Vec<Entry>,
}

fn hash_of(text: Option<&str>) -> Option<String> {
    text.map(|t| sha256_hex(t.as_bytes()))
}

/// Commit `steps` (in order) as one change of call `call_id`, journaled in `data_dir`.
pub fn commit(data_dir: &Path, call_id: &str, steps: &[Step]) -> Result<(), CommitError> {
    let journal = Journal {
        call_id: call_id.to_string(),
        entries: steps
            .iter()
            .map(|s| Entry {
                path: s.real.as_os_str().as_bytes().to_vec(),
                before: s.before.clone(),
                after_hash: hash_of(s.after.as_deref()),
            })
            .collect(),
    };
    // The journal stays open and locked until the commit ends: a `recover` in another
    // process leaves a journal whose writer is alive.
    let (journal_file, _held) = write_journal(data_dir, &journal).map_err(CommitError::Journal)?;
    let die_after: Option<usize> =
        std::env::var(DIE_AFTER_FILES_VAR).ok().and_then(|v| v.trim().parse().ok());

    let mut done: Vec<&Step> = Vec::with_capacity(steps.len());
    for step in steps {
        let before_hash = hash_of(step.before.as_deref());
        if let Err(e) =
            put(&step.real, step.after.as_deref(), before_hash.as_deref(), step.new_mode)
        {
            let error = e.plain();
            let (failed, rollback) = roll_back(&done);
            let result = if failed.is_empty() {
                CommitError::Io { path: step.display.clone(), verb: step.verb(), error }
            } else {
                CommitError::RollbackFailed {
                    path: step.display.clone(),
                    verb: step.verb(),
                    error,
                    rollback: rollback.join("; "),
                    left: failed.join(", "),
                }
            };
            // A rollback that failed keeps its journal: the next start tries again.
            if matches!(result, CommitError::Io { .. }) {
                let _ = std::fs::remove_file(&journal_file);
            }
            return Err(result);
        }
        done.push(step);
        if die_after == Some(done.len()) {
            // SAFETY: kill(2) on our own pid; nothing after it runs.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        }
    }
    let _ = std::fs::remove_file(&journal_file);
    Ok(())
}

/// Put the `done` steps back, newest first: the displays left changed and why.
fn roll_back(done: &[&Step]) -> (Vec<String>, Vec<String>) {
    let (mut failed, mut reasons) = (Vec::new(), Vec::new());
    for step in done.iter().rev() {
        let after_hash = hash_of(step.after.as_deref());
        if let Err(e) = put(&step.real, step.before.as_deref(), after_hash.as_deref(), None) {
            failed.push(step.display.clone());
            reasons.push(format!("{}: {}", step.display, e.plain()));
        }
    }
    (failed, reasons)
}

/// Whether a journal of call `call_id` is still in `data_dir`: its commit is running, or
/// was interrupted and not yet rolled back ([`recover`]). Its files are in no settled state
/// until it is gone.
pub fn journaled(data_dir: &Path, call_id: &str) -> bool {
    let name = &sha256_hex(call_id.as_bytes())[..16];
    let dir = data_dir.join(JOURNAL_DIR);
    dir.join(format!("{name}.json")).exists() || dir.join(format!("{name}.json.tmp")).exists()
}

/// Write `journal` durably: a temp file locked (`flock`, held by the returned descriptor for
/// as long as the commit runs), fsynced, renamed into `journal/`, the directory fsynced. Its
/// path and the open, locked file.
fn write_journal(data_dir: &Path, journal: &Journal) -> std::io::Result<(PathBuf, std::fs::File)> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let dir = data_dir.join(JOURNAL_DIR);
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir)?;
    let name = &sha256_hex(journal.call_id.as_bytes())[..16];
    let file = dir.join(format!("{name}.json"));
    let temp = dir.join(format!("{name}.json.tmp"));
    let bytes = serde_json::to_vec(journal).map_err(std::io::Error::other)?;
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&temp)?;
    lock(&out, libc::LOCK_EX)?;
    out.write_all(&bytes)?;
    out.sync_all()?;
    std::fs::rename(&temp, &file)?;
    std::fs::File::open(&dir)?.sync_all()?;
    Ok((file, out))
}

/// `flock(file, how)`, retried on EINTR.
fn lock(file: &std::fs::File, how: libc::c_int) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: `file` is an open descriptor.
        if unsafe { libc::flock(file.as_raw_fd(), how) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}

/// The journal at `path`, opened and locked, when no live process holds it and it is still
/// the file at `path` (a commit that just ended unlinks its journal before it lets go).
fn claim(path: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let file =
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(path).ok()?;
    lock(&file, libc::LOCK_EX | libc::LOCK_NB).ok()?;
    let (held, now) = (file.metadata().ok()?, std::fs::symlink_metadata(path).ok()?);
    (held.dev() == now.dev() && held.ino() == now.ino()).then_some(file)
}

/// What [`recover`] did with one interrupted commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// The call whose commit was interrupted.
    pub call_id: String,
    /// Files put back to their state before the commit.
    pub restored: Vec<PathBuf>,
    /// Files left as they are, and why (changed since the commit, or unreadable).
    pub left: Vec<(PathBuf, String)>,
}

impl std::fmt::Display for Recovered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the change of call {} was interrupted part-way; {} file(s) were put back as they were before it",
            self.call_id,
            self.restored.len()
        )?;
        for (path, why) in &self.left {
            write!(f, "; {} was left as it is: {why}", path.display())?;
        }
        Ok(())
    }
}

/// Roll back every commit in `data_dir` that a dead process left journaled, and remove its
/// journal. Files changed since the commit are left alone and named; a journal whose commit
/// is still running in a live process (its lock is held) is left to it.
pub fn recover(data_dir: &Path) -> Vec<Recovered> {
    let Ok(entries) = std::fs::read_dir(data_dir.join(JOURNAL_DIR)) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let Some(mut held) = claim(&file) else { continue };
        let mut bytes = Vec::new();
        let journal: Journal = match std::io::Read::read_to_end(&mut held, &mut bytes)
            .map_err(|e| e.to_string())
            .and_then(|_| serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
        {
            Ok(j) => j,
            Err(why) => {
                out.push(Recovered {
                    call_id: file.display().to_string(),
                    restored: Vec::new(),
                    left: vec![(file.clone(), format!("its journal cannot be read ({why})"))],
                });
                let _ = std::fs::remove_file(&file);
                continue;
            }
        };
        let mut recovered =
            Recovered { call_id: journal.call_id.clone(), restored: Vec::new(), left: Vec::new() };
        for entry in journal.entries.iter().rev() {
            let path = PathBuf::from(std::ffi::OsString::from_vec(entry.path.clone()));
            let before_hash = hash_of(entry.before.as_deref());
            match current_hash(&path) {
                Ok(now) if now == before_hash => {}
                Ok(now) if now == entry.after_hash => {
                    match put(&path, entry.before.as_deref(), now.as_deref(), None) {
                        Ok(()) => recovered.restored.push(path),
                        Err(e) => recovered.left.push((path, e.plain())),
                    }
                }
                Ok(_) => recovered
                    .left
                    .push((path, "it changed after the interrupted change".to_string())),
                Err(e) => recovered.left.push((path, e.plain())),
            }
        }
        let _ = std::fs::remove_file(&file);
        out.push(recovered);
    }
    out
}

/// SHA-256 of the regular file at `path` (no symlink followed), or None when absent.
fn current_hash(path: &Path) -> Result<Option<String>, AtomicWriteError> {
    use std::io::Read;
    match crate::open::open_regular(path) {
        Ok((mut file, _)) => {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            Ok(Some(sha256_hex(&bytes)))
        }
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(dir: &Path, name: &str, before: Option<&str>, after: Option<&str>) -> Step {
        Step {
            real: dir.join(name),
            display: name.to_string(),
            before: before.map(str::to_string),
            after: after.map(str::to_string),
            new_mode: None,
        }
    }

    #[test]
    fn every_file_is_committed_and_the_journal_removed() {
        let d = tempfile::tempdir().unwrap();
        let (ws, data) = (d.path().join("ws"), d.path().join("data"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("m.txt"), "old\n").unwrap();
        std::fs::write(ws.join("d.txt"), "gone\n").unwrap();
        let steps = [
            step(&ws, "m.txt", Some("old\n"), Some("new\n")),
            step(&ws, "d.txt", Some("gone\n"), None),
            step(&ws, "sub/c.txt", None, Some("made\n")),
        ];
        commit(&data, "call-1", &steps).unwrap();
        assert_eq!(std::fs::read_to_string(ws.join("m.txt")).unwrap(), "new\n");
        assert!(!ws.join("d.txt").exists());
        assert_eq!(std::fs::read_to_string(ws.join("sub/c.txt")).unwrap(), "made\n");
        assert_eq!(std::fs::read_dir(data.join(JOURNAL_DIR)).unwrap().count(), 0);
    }

    #[test]
    fn a_failure_part_way_puts_back_what_was_written() {
        let d = tempfile::tempdir().unwrap();
        let (ws, data) = (d.path().join("ws"), d.path().join("data"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("a.txt"), "a\n").unwrap();
        std::fs::write(ws.join("b.txt"), "changed by someone else\n").unwrap();
        let steps = [
            step(&ws, "a.txt", Some("a\n"), Some("A\n")),
            step(&ws, "new.txt", None, Some("n\n")),
            step(&ws, "b.txt", Some("b\n"), Some("B\n")),
        ];
        let e = commit(&data, "call-2", &steps).unwrap_err();
        assert!(matches!(&e, CommitError::Io { path, .. } if path == "b.txt"), "{e}");
        assert!(e.to_string().contains("nothing was changed"), "{e}");
        assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "a\n");
        assert!(!ws.join("new.txt").exists());
        assert_eq!(std::fs::read_to_string(ws.join("b.txt")).unwrap(), "changed by someone else\n");
        assert!(recover(&data).is_empty(), "a rolled-back commit leaves no journal");
    }

    #[test]
    fn recover_puts_back_files_the_dead_commit_wrote_and_leaves_files_changed_since() {
        let d = tempfile::tempdir().unwrap();
        let (ws, data) = (d.path().join("ws"), d.path().join("data"));
        std::fs::create_dir_all(&ws).unwrap();
        let steps = [
            step(&ws, "a.txt", Some("a\n"), Some("A\n")),
            step(&ws, "b.txt", None, Some("B\n")),
            step(&ws, "c.txt", Some("c\n"), None),
            step(&ws, "d.txt", Some("d\n"), Some("D\n")),
        ];
        // As a process killed after the third file would leave it: a, b, c done, d not yet,
        // and a changed by someone else since.
        let (_, held) = write_journal(
            &data,
            &Journal {
                call_id: "call-3".into(),
                entries: steps
                    .iter()
                    .map(|s| Entry {
                        path: s.real.as_os_str().as_bytes().to_vec(),
                        before: s.before.clone(),
                        after_hash: hash_of(s.after.as_deref()),
                    })
                    .collect(),
            },
        )
        .unwrap();
        // While its writer is alive (it holds the lock), nothing is touched.
        assert!(recover(&data).is_empty(), "a journal held by a live commit was recovered");
        drop(held);
        std::fs::write(ws.join("a.txt"), "someone else\n").unwrap();
        std::fs::write(ws.join("b.txt"), "B\n").unwrap();
        std::fs::write(ws.join("d.txt"), "d\n").unwrap();
        let r = recover(&data);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].call_id, "call-3");
        assert_eq!(r[0].restored, vec![ws.join("c.txt"), ws.join("b.txt")]);
        assert_eq!(r[0].left.len(), 1);
        assert_eq!(r[0].left[0].0, ws.join("a.txt"));
        assert!(!ws.join("b.txt").exists());
        assert_eq!(std::fs::read_to_string(ws.join("c.txt")).unwrap(), "c\n");
        assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "someone else\n");
        assert!(recover(&data).is_empty(), "the journal is gone once recovered");
    }
}
