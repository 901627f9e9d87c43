//! The session's private temp dir (docs/security.md#the-temp-dir): made by the host for the
//! life of one `toolhost` process and, unless `policy.json` names a temp dir, the policy's temp
//! dir — a writable root, and `TMPDIR` for bash, approved runs and every program a component
//! runs.
//!
//! The system temp dir (`/tmp`) is shared by every user and program of the machine. Were it a
//! writable root, bash running as its owner (root in a container) could `chmod 755 /tmp` or
//! drop its sticky bit: the kernel lets an owner change a mode with every capability dropped,
//! and Landlock does not govern modes. So no sandbox writes the system temp dir; each host
//! process makes its own:
//!
//! ```text
//! <system temp>/toolhost-<pid>-<16 hex>/       0700, made by one mkdir that fails if the name exists
//!                                       tmp/   0700, the policy's temp dir and TMPDIR
//! ```
//!
//! The outer directory lies in the read-only system temp dir, so bash cannot change it: a
//! command that opens up the mode of `tmp/` still leaves it out of every other user's reach.
//! The host holds an `flock` on the outer directory while it lives. Dropping the
//! [`PrivateTempDir`] removes both (the CLI drops it last: on a normal end, at the end of input
//! and on SIGINT/SIGTERM); [`remove_stale`] removes those whose process ended without it (a
//! `SIGKILL`), at the next start.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// The name of a private temp dir begins with this, then `<pid>-<16 hex digits>`.
pub const PRIVATE_TEMP_PREFIX: &str = "toolhost-";

/// The directory inside a private temp dir that programs get as `TMPDIR`.
const INNER: &str = "tmp";

/// How many fresh names creation tries before it gives up (a name taken is never reused).
const ATTEMPTS: usize = 16;

/// How deep the removal reopens directories a command made unreadable.
#[cfg(target_os = "linux")]
const OPEN_UP_DEPTH: usize = 256;

/// Why the private temp dir could not be made; the host does not start without one.
#[derive(Debug, thiserror::Error)]
#[error("cannot create a private temp dir in {parent}: {source}")]
pub struct PrivateTempError {
    /// The system temp dir it was to be made in.
    pub parent: String,
    /// What failed.
    #[source]
    pub source: std::io::Error,
}

/// A temp dir private to this process (module doc); removed with everything in it on drop.
#[derive(Debug)]
pub struct PrivateTempDir {
    /// `toolhost-<pid>-<hex>`, locked while this lives.
    outer: PathBuf,
    /// `outer/tmp`: what [`PrivateTempDir::path`] returns.
    dir: PathBuf,
    /// The `flock` on `outer` that tells [`remove_stale`] this process still uses it.
    _lock: File,
}

impl PrivateTempDir {
    /// A new private temp dir in the system temp dir ([`std::env::temp_dir`]).
    pub fn create() -> Result<Self, PrivateTempError> {
        Self::create_in(&std::env::temp_dir())
    }

    /// A new private temp dir in `parent`: a fresh random name each attempt, created by one
    /// `mkdir` that fails when the name exists (whoever made it first, it is not ours).
    pub fn create_in(parent: &Path) -> Result<Self, PrivateTempError> {
        let fail = |source| PrivateTempError { parent: parent.display().to_string(), source };
        let real = parent.canonicalize().map_err(fail)?;
        let mut taken = None;
        for _ in 0..ATTEMPTS {
            let hex = random_hex().map_err(fail)?;
            let name = format!("{PRIVATE_TEMP_PREFIX}{}-{hex}", std::process::id());
            let outer = real.join(name);
            match std::fs::DirBuilder::new().mode(0o700).create(&outer) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    taken = Some(e);
                    continue;
                }
                Err(e) => return Err(fail(e)),
            }
            return Self::fill(outer.clone()).map_err(|e| {
                remove_tree(&outer);
                fail(e)
            });
        }
        Err(fail(taken.unwrap_or_else(|| std::io::Error::other("every name tried was taken"))))
    }

    /// Lock the fresh `outer`, make its mode exactly 0700 (whatever the umask) and make `tmp/`.
    fn fill(outer: PathBuf) -> std::io::Result<Self> {
        let lock = open_dir(&outer)?;
        lock.set_permissions(std::fs::Permissions::from_mode(0o700))?;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let dir = outer.join(INNER);
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
        Ok(PrivateTempDir { outer, dir, _lock: lock })
    }

    /// The directory programs get as `TMPDIR` (real path), and the policy's temp dir.
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for PrivateTempDir {
    fn drop(&mut self) {
        remove_tree(&self.outer);
    }
}

/// Remove the private temp dirs in `parent` left by processes that ended without removing
/// them: named `toolhost-<pid>-<hex>`, a directory (not a symlink) owned by this user, whose
/// process is gone and whose `flock` is free (a live owner in another pid namespace holds
/// it). Best effort: what cannot be removed stays. Returns what was removed.
pub fn remove_stale(parent: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else { return Vec::new() };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(owner_pid) else { continue };
        if pid == std::process::id() || alive(pid) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = path.symlink_metadata() else { continue };
        if !meta.is_dir() || meta.uid() != me {
            continue;
        }
        let Ok(lock) = open_dir(&path) else { continue };
        // SAFETY: flock on a descriptor this function owns; released when it closes.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            continue;
        }
        remove_tree(&path);
        if path.symlink_metadata().is_err() {
            removed.push(path);
        }
    }
    removed
}

/// The pid in a private temp dir's name (`toolhost-<pid>-<16 hex>`), or `None` for any other
/// name.
fn owner_pid(name: &str) -> Option<u32> {
    let (pid, hex) = name.strip_prefix(PRIVATE_TEMP_PREFIX)?.split_once('-')?;
    let pid_ok = !pid.is_empty() && pid.len() <= 10 && pid.bytes().all(|b| b.is_ascii_digit());
    let hex_ok = hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit());
    if !pid_ok || !hex_ok {
        return None;
    }
    pid.parse().ok().filter(|p| *p > 0 && *p <= i32::MAX as u32)
}

/// Whether a process `pid` exists (`kill(pid, 0)`: it does unless `ESRCH`).
fn alive(pid: u32) -> bool {
    // SAFETY: signal 0 sends nothing; pid is positive, so it names one process.
    let exists = unsafe { libc::kill(pid as libc::pid_t, 0) } == 0;
    exists || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// `dir` opened as a directory, never through a symlink.
fn open_dir(dir: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir)
}

/// Eight random bytes (`/dev/urandom`) as 16 hex digits.
fn random_hex() -> std::io::Result<String> {
    let mut bytes = [0u8; 8];
    File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Remove `path` and everything in it, never following a symlink. A command may have left
/// directories it made unreadable or unsearchable (mode 0): the host, which runs without
/// `CAP_DAC_OVERRIDE` as root too, opens them up again as their owner and tries once more.
fn remove_tree(path: &Path) {
    if std::fs::remove_dir_all(path).is_ok() || path.symlink_metadata().is_err() {
        return;
    }
    #[cfg(target_os = "linux")]
    open_up(path, 0);
    let _ = std::fs::remove_dir_all(path);
}

/// Give `dir` and every directory below it mode 0700, as their owner may. Each is opened with
/// `O_PATH | O_NOFOLLOW` (no permission on it needed, no symlink followed) and changed and
/// read through its descriptor's `/proc/self/fd` entry, so a name swapped for a symlink
/// meanwhile changes nothing outside.
#[cfg(target_os = "linux")]
fn open_up(dir: &Path, depth: usize) {
    use std::os::fd::FromRawFd;
    if depth > OPEN_UP_DEPTH {
        return;
    }
    let Ok(c_path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else { return };
    // SAFETY: open(2) of a NUL-terminated path; the descriptor is owned below.
    let fd = unsafe {
        libc::open(
            c_path.as_ptr(),
            libc::O_PATH | libc::O_NOFOLLOW | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return;
    }
    // SAFETY: fd was just opened and is owned by nothing else.
    let pinned = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
    let here = PathBuf::from(format!("/proc/self/fd/{}", pinned.as_raw_fd()));
    let _ = std::fs::set_permissions(&here, std::fs::Permissions::from_mode(0o700));
    let Ok(entries) = std::fs::read_dir(&here) else { return };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            open_up(&here.join(entry.file_name()), depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_temp_dir_is_0700_fresh_and_gone_on_drop() {
        let parent = tempfile::tempdir().unwrap();
        let t = PrivateTempDir::create_in(parent.path()).unwrap();
        let outer = t.path().parent().unwrap().to_path_buf();
        for d in [&outer, &t.path().to_path_buf()] {
            let m = d.symlink_metadata().unwrap();
            assert!(m.is_dir());
            assert_eq!(m.mode() & 0o7777, 0o700, "{}", d.display());
            // SAFETY: geteuid has no preconditions.
            assert_eq!(m.uid(), unsafe { libc::geteuid() });
        }
        let name = outer.file_name().unwrap().to_str().unwrap();
        assert_eq!(owner_pid(name), Some(std::process::id()), "{name}");
        let other = PrivateTempDir::create_in(parent.path()).unwrap();
        assert_ne!(other.path(), t.path());
        // What a command left in it, a directory it made unreadable too, goes with it.
        std::fs::create_dir_all(t.path().join("a/b")).unwrap();
        std::fs::write(t.path().join("a/b/f"), "x").unwrap();
        std::fs::set_permissions(t.path().join("a"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
        // Removed as the host removes it: without CAP_DAC_OVERRIDE (on this thread alone).
        std::thread::spawn(move || {
            let dropped = crate::privileges::drop_file_access_overrides();
            assert!(!matches!(dropped, crate::privileges::Dropped::Failed(_)), "{dropped:?}");
            drop(t);
        })
        .join()
        .unwrap();
        assert!(outer.symlink_metadata().is_err(), "{} is still there", outer.display());
        assert!(other.path().is_dir());
    }

    #[test]
    fn only_the_dirs_of_ended_processes_are_stale() {
        let parent = tempfile::tempdir().unwrap();
        let live = PrivateTempDir::create_in(parent.path()).unwrap();
        // A process that has ended: a child that was waited for.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = parent.path().join(format!("toolhost-{dead}-0123456789abcdef"));
        std::fs::create_dir_all(stale.join("tmp/x")).unwrap();
        // Not a private temp dir's name, or a symlink: never touched.
        let other = parent.path().join(format!("toolhost-cache-{dead}"));
        std::fs::create_dir(&other).unwrap();
        let link = parent.path().join(format!("toolhost-{dead}-fedcba9876543210"));
        std::os::unix::fs::symlink(&other, &link).unwrap();
        // A dead pid whose directory is still locked (its owner lives in another pid namespace).
        let locked = parent.path().join(format!("toolhost-{dead}-00000000000000ff"));
        std::fs::create_dir(&locked).unwrap();
        let held = open_dir(&locked).unwrap();
        // SAFETY: flock on a descriptor this test owns.
        assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
        if alive(dead) {
            return; // the pid was reused at once: nothing to test this time
        }
        let removed = remove_stale(parent.path());
        assert_eq!(removed, vec![stale.clone()]);
        assert!(stale.symlink_metadata().is_err());
        for kept in [live.path(), &other, &link, &locked] {
            assert!(kept.symlink_metadata().is_ok(), "{} was removed", kept.display());
        }
        assert_eq!(owner_pid("toolhost-12-0123456789abcdeg"), None);
        assert_eq!(owner_pid("toolhost-0-0123456789abcdef"), None);
        assert_eq!(owner_pid("toolhost--0123456789abcdef"), None);
    }
}
