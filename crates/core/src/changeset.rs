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
//! ones changed since (never overwritten).
//!
//! Recovery never writes where the change itself could not (docs/sessions.md#crashes). The
//! journal lives in the data dir, which no tool and no sandboxed program can write
//! (docs/security.md), and still it is trusted only when it is the host's own: a regular file
//! owned by this user with no group or other permission, sealed with an HMAC-SHA-256 under the
//! data dir's own journal key ([`JOURNAL_KEY`], made once, mode 0600). Every path it names is
//! then judged again ([`judge_entry`]): below one of the roots the change could write (the
//! workspace and the writable roots and grants of its call, recorded in the journal), no
//! symbolic link below that root, never git metadata or git's own state, never the data dir.
//! One path refused refuses the whole journal: nothing is written, the journal is kept beside
//! (`*.refused`) and the message names it and the path.

use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::atomic::{AtomicWriteError, put};
use crate::observations::sha256_hex;

/// The data dir's directory of open journals.
pub const JOURNAL_DIR: &str = "journal";

/// The key journals are sealed with, in [`JOURNAL_DIR`]: 32 random bytes, mode 0600, made by
/// the first commit in a data dir.
pub const JOURNAL_KEY: &str = "key";

/// The version of the journal format this host writes and reads; any other is refused.
const JOURNAL_VERSION: u32 = 2;

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

/// The commit of one call, as sealed in its journal file.
#[derive(Serialize, Deserialize)]
struct Journal {
    version: u32,
    call_id: String,
    /// The real roots the change could write (as bytes): every entry lies below one.
    roots: Vec<Vec<u8>>,
    entries: Vec<Entry>,
}

impl Journal {
    /// The journal of committing `steps` as call `call_id`, which may write below `roots`.
    fn new(call_id: &str, roots: &[impl AsRef<Path>], steps: &[Step]) -> Journal {
        let bytes = |p: &Path| p.as_os_str().as_bytes().to_vec();
        Journal {
            version: JOURNAL_VERSION,
            call_id: call_id.to_string(),
            roots: roots.iter().map(|r| bytes(r.as_ref())).collect(),
            entries: steps
                .iter()
                .map(|s| Entry {
                    path: bytes(&s.real),
                    before: s.before.clone(),
                    after_hash: hash_of(s.after.as_deref()),
                })
                .collect(),
        }
    }
}

/// A path as a journal holds it (bytes: a path need not be UTF-8).
fn path_of(bytes: &[u8]) -> PathBuf {
    PathBuf::from(std::ffi::OsString::from_vec(bytes.to_vec()))
}

/// A journal file: the [`Journal`]'s JSON as written, and its seal
/// (HMAC-SHA-256 of `body` under the [`JOURNAL_KEY`], hex).
#[derive(Serialize, Deserialize)]
struct Sealed {
    body: String,
    mac: String,
}

/// HMAC-SHA-256 (RFC 2104) of `message` under `key` (at most 64 bytes), hex.
fn hmac_hex(key: &[u8], message: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut block = [0u8; 64];
    block[..key.len().min(64)].copy_from_slice(&key[..key.len().min(64)]);
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = Sha256::new().chain_update(pad(0x36)).chain_update(message).finalize();
    hex::encode(Sha256::new().chain_update(pad(0x5c)).chain_update(inner).finalize())
}

/// Whether two hex strings are equal, compared in time independent of where they differ.
fn same_mac(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The data dir's journal key, made (32 bytes of `/dev/urandom`, mode 0600) when `create`
/// and there is none. Refused when it is not a regular file of this user's with no group or
/// other permission and exactly 32 bytes.
fn journal_key(dir: &Path, create: bool) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Write};
    use std::os::unix::fs::OpenOptionsExt;
    let path = dir.join(JOURNAL_KEY);
    if create && std::fs::symlink_metadata(&path).is_err() {
        let mut key = vec![0u8; 32];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
        let made = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path);
        match made {
            Ok(mut out) => {
                out.write_all(&key)?;
                out.sync_all()?;
                return Ok(key);
            }
            // Another process made it first: read theirs.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    let mut file =
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(&path)?;
    host_owned(&file, "the journal key")?;
    let mut key = Vec::new();
    (&mut file).take(33).read_to_end(&mut key)?;
    if key.len() != 32 {
        return Err(std::io::Error::other("the journal key is not 32 bytes"));
    }
    Ok(key)
}

/// Refuse `file` unless it is a regular file owned by this process's user with no group or
/// other permission bits: what the host itself writes in its data dir.
fn host_owned(file: &std::fs::File, what: &str) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata()?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if !meta.is_file() {
        return Err(std::io::Error::other(format!("{what} is not a regular file")));
    }
    if meta.uid() != me {
        return Err(std::io::Error::other(format!(
            "{what} is owned by uid {}, not by this user (uid {me})",
            meta.uid()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(std::io::Error::other(format!(
            "{what} has mode {:o}; the host writes it 0600",
            meta.mode() & 0o7777
        )));
    }
    Ok(())
}

fn hash_of(text: Option<&str>) -> Option<String> {
    text.map(|t| sha256_hex(t.as_bytes()))
}

/// Commit `steps` (in order) as one change of call `call_id`, journaled in `data_dir`.
/// `roots` are the real directories the call may write (its workspace, writable roots and
/// write grants): recovery puts back nothing outside them.
pub fn commit(
    data_dir: &Path,
    call_id: &str,
    roots: &[PathBuf],
    steps: &[Step],
) -> Result<(), CommitError> {
    let journal = Journal::new(call_id, roots, steps);
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
    let key = journal_key(&dir, true)?;
    let body = serde_json::to_string(journal).map_err(std::io::Error::other)?;
    let mac = hmac_hex(&key, body.as_bytes());
    let bytes = serde_json::to_vec(&Sealed { body, mac }).map_err(std::io::Error::other)?;
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
    /// The call whose commit was interrupted (the journal's file name when it was refused).
    pub call_id: String,
    /// Files put back to their state before the commit.
    pub restored: Vec<PathBuf>,
    /// Files left as they are, and why (changed since the commit, or unreadable).
    pub left: Vec<(PathBuf, String)>,
    /// Why the journal was not trusted, when it was not: nothing of it was written.
    pub refused: Option<String>,
}

impl std::fmt::Display for Recovered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(why) = &self.refused {
            return f.write_str(why);
        }
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

/// Why a journal is not trusted: [`recover`] writes nothing of it.
#[derive(Debug, thiserror::Error)]
enum Untrusted {
    /// It cannot be read or parsed.
    #[error("it cannot be read ({0})")]
    Unreadable(String),
    /// Not the host's own file: another owner, a loose mode, no key.
    #[error("it is not the host's own ({0})")]
    NotOwn(String),
    /// Its seal does not match the data dir's journal key.
    #[error(
        "its seal does not match: this host did not write it with this data dir's key, or it was changed since"
    )]
    BadSeal,
    /// A version this host does not write.
    #[error("it is of journal version {0}; this host writes version {JOURNAL_VERSION}")]
    Version(u32),
    /// It names a path the change could not have written.
    #[error("it names {path}, which {why}")]
    Path { path: String, why: String },
}

/// The journal held open in `file` (in the journal dir `dir`), when it is the host's own:
/// this user's, mode 0600, sealed with the data dir's key, of this version.
fn read_trusted(dir: &Path, file: &mut std::fs::File) -> Result<Journal, Untrusted> {
    host_owned(file, "the journal").map_err(|e| Untrusted::NotOwn(e.to_string()))?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(file, &mut bytes)
        .map_err(|e| Untrusted::Unreadable(e.to_string()))?;
    let sealed: Sealed =
        serde_json::from_slice(&bytes).map_err(|e| Untrusted::Unreadable(e.to_string()))?;
    let key = journal_key(dir, false)
        .map_err(|e| Untrusted::NotOwn(format!("the data dir's journal key: {e}")))?;
    if !same_mac(&hmac_hex(&key, sealed.body.as_bytes()), &sealed.mac) {
        return Err(Untrusted::BadSeal);
    }
    let journal: Journal =
        serde_json::from_str(&sealed.body).map_err(|e| Untrusted::Unreadable(e.to_string()))?;
    if journal.version != JOURNAL_VERSION {
        return Err(Untrusted::Version(journal.version));
    }
    Ok(journal)
}

/// Whether recovery may write `path`, a path of a journal whose change could write below
/// `roots`, judged as the fence judges a write: an absolute path with no `.` or `..`, below
/// one of `roots` (itself a real directory), no symbolic link from that root down to it, not
/// in the data dir, not git metadata nor git's own state (by name, and by a git dir's
/// shape). Why not, otherwise.
pub fn judge_entry(data_dir: &Path, roots: &[PathBuf], path: &Path) -> Result<(), String> {
    use std::path::Component;
    let plain = |p: &Path| {
        p.is_absolute()
            && p.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_)))
    };
    if !plain(path) {
        return Err("is not a plain absolute path".into());
    }
    let root = roots
        .iter()
        .filter(|r| plain(r) && path.starts_with(r) && path != r.as_path())
        .find(|r| std::fs::symlink_metadata(r).is_ok_and(|m| m.is_dir()))
        .ok_or("is outside the workspace and every root the change could write")?;
    for step in path.ancestors().take_while(|a| *a != root.as_path()) {
        if std::fs::symlink_metadata(step).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!("goes through a symbolic link ({})", step.display()));
        }
    }
    if path.starts_with(data_dir) {
        return Err("is inside toolhost's data directory".into());
    }
    if toolhost_policy::git::is_owned_by_git(path) {
        return Err("is git metadata".into());
    }
    Ok(())
}

/// Every path of `journal` judged ([`judge_entry`]); the first refused.
fn judge_journal(data_dir: &Path, journal: &Journal) -> Result<(), Untrusted> {
    let roots: Vec<PathBuf> = journal.roots.iter().map(|r| path_of(r)).collect();
    for entry in &journal.entries {
        let path = path_of(&entry.path);
        judge_entry(data_dir, &roots, &path)
            .map_err(|why| Untrusted::Path { path: path.display().to_string(), why })?;
    }
    Ok(())
}

/// Roll back every commit in `data_dir` that a dead process left journaled, and remove its
/// journal. Files changed since the commit are left alone and named; a journal whose commit
/// is still running in a live process (its lock is held) is left to it; a journal that is not
/// the host's own, or names a path its change could not write, is refused whole and kept
/// beside as `*.refused` (nothing of it is written).
pub fn recover(data_dir: &Path) -> Vec<Recovered> {
    let dir = data_dir.join(JOURNAL_DIR);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let data_dir = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let Some(mut held) = claim(&file) else { continue };
        let trusted = read_trusted(&dir, &mut held).and_then(|j| {
            judge_journal(&data_dir, &j)?;
            Ok(j)
        });
        match trusted {
            Ok(journal) => out.push(put_back(&journal)),
            Err(why) => {
                let kept = file.with_extension("json.refused");
                let _ = std::fs::rename(&file, &kept);
                out.push(Recovered {
                    call_id: file.display().to_string(),
                    restored: Vec::new(),
                    left: Vec::new(),
                    refused: Some(format!(
                        "the journal {} of an interrupted change was not recovered and nothing of it was written: {why}; it is kept as {}",
                        file.display(),
                        kept.display()
                    )),
                });
                continue;
            }
        }
        let _ = std::fs::remove_file(&file);
    }
    out
}

/// Put back every file of a trusted journal still in the state its commit left it in.
fn put_back(journal: &Journal) -> Recovered {
    let mut recovered = Recovered {
        call_id: journal.call_id.clone(),
        restored: Vec::new(),
        left: Vec::new(),
        refused: None,
    };
    for entry in journal.entries.iter().rev() {
        let path = path_of(&entry.path);
        let before_hash = hash_of(entry.before.as_deref());
        match current_hash(&path) {
            Ok(now) if now == before_hash => {}
            Ok(now) if now == entry.after_hash => {
                match put(&path, entry.before.as_deref(), now.as_deref(), None) {
                    Ok(()) => recovered.restored.push(path),
                    Err(e) => recovered.left.push((path, e.plain())),
                }
            }
            Ok(_) => {
                recovered.left.push((path, "it changed after the interrupted change".to_string()))
            }
            Err(e) => recovered.left.push((path, e.plain())),
        }
    }
    recovered
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

    /// A journal (sealed with the data dir's real key) that names `victim`, which holds
    /// `text`, as if a dead commit had written it: recovery must refuse it whole.
    fn refused(data: &Path, roots: &[&Path], victim: &Path, text: &str) -> String {
        std::fs::write(victim, text).unwrap();
        let steps = [Step {
            real: victim.to_path_buf(),
            display: "v".into(),
            before: Some("forged\n".into()),
            after: Some(text.into()),
            new_mode: None,
        }];
        drop(write_journal(data, &Journal::new("forged", roots, &steps)).unwrap());
        let r = recover(data);
        assert_eq!(r.len(), 1);
        assert_eq!(std::fs::read_to_string(victim).unwrap(), text, "recovery wrote it");
        r[0].refused.clone().expect("refused")
    }

    #[test]
    fn a_journal_naming_a_path_its_change_could_not_write_is_refused_whole() {
        let d = tempfile::tempdir().unwrap();
        let base = d.path().canonicalize().unwrap();
        let (ws, data, out) = (base.join("ws"), base.join("data"), base.join("home"));
        for dir in [&ws, &data, &out, &ws.join(".git")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let why = refused(&data, &[&ws], &out.join(".bashrc"), "mine\n");
        assert!(why.contains("is outside the workspace") && why.contains(".bashrc"), "{why}");
        assert!(why.contains(".refused"), "{why}");
        std::os::unix::fs::symlink(&out, ws.join("link")).unwrap();
        let why = refused(&data, &[&ws], &ws.join("link/x"), "x\n");
        assert!(why.contains("symbolic link"), "{why}");
        assert!(refused(&data, &[&ws], &ws.join(".git/HEAD"), "ref\n").contains("git metadata"));
        let why = refused(&data, &[&base], &data.join("policy.json"), "{}\n");
        assert!(why.contains("data directory"), "{why}");
        let why = refused(&data, &[&ws], &ws.join("../home/y"), "y\n");
        assert!(why.contains("plain absolute path"), "{why}");
    }

    #[test]
    fn a_journal_that_is_not_the_hosts_own_is_refused_whole() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let base = d.path().canonicalize().unwrap();
        let (ws, data) = (base.join("ws"), base.join("data"));
        std::fs::create_dir_all(&ws).unwrap();
        let victim = ws.join("a.txt");
        let steps = [step(&ws, "a.txt", Some("forged\n"), Some("mine\n"))];
        let dir = data.join(JOURNAL_DIR);
        let check = |what: &str| {
            std::fs::write(&victim, "mine\n").unwrap();
            let r = recover(&data);
            assert_eq!(r.len(), 1, "{what}");
            let why = r[0].refused.clone().unwrap_or_else(|| panic!("{what}: not refused"));
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine\n", "{what}");
            why
        };
        // Sealed by the host, then changed: the seal no longer matches.
        drop(write_journal(&data, &Journal::new("c1", &[&ws], &steps)).unwrap());
        let file = dir.join(format!("{}.json", &sha256_hex(b"c1")[..16]));
        let text = std::fs::read_to_string(&file).unwrap().replace("forged", "Forged");
        std::fs::write(&file, text).unwrap();
        assert!(check("changed").contains("seal does not match"));
        // The old, unsealed form a forger writes by hand.
        let plain = serde_json::to_string(&Journal::new("c2", &[&ws], &steps)).unwrap();
        std::fs::write(dir.join("0000000000000002.json"), plain).unwrap();
        std::fs::set_permissions(
            dir.join("0000000000000002.json"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
        assert!(check("unsealed").contains("cannot be read"));
        // A loose mode.
        drop(write_journal(&data, &Journal::new("c3", &[&ws], &steps)).unwrap());
        let file = dir.join(format!("{}.json", &sha256_hex(b"c3")[..16]));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(check("mode").contains("has mode 644"));
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
        commit(&data, "call-1", std::slice::from_ref(&ws), &steps).unwrap();
        assert_eq!(std::fs::read_to_string(ws.join("m.txt")).unwrap(), "new\n");
        assert!(!ws.join("d.txt").exists());
        assert_eq!(std::fs::read_to_string(ws.join("sub/c.txt")).unwrap(), "made\n");
        let left: Vec<_> = std::fs::read_dir(data.join(JOURNAL_DIR))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name() != JOURNAL_KEY)
            .collect();
        assert!(left.is_empty(), "{left:?}");
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
        let e = commit(&data, "call-2", std::slice::from_ref(&ws), &steps).unwrap_err();
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
        let (_, held) = write_journal(&data, &Journal::new("call-3", &[&ws], &steps)).unwrap();
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
