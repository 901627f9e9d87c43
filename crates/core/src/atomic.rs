//! Atomic file replacement (docs/contract.md#paths, #edit) in a pinned directory.
//!
//! The target's directory is opened once ([`PinnedDir::open`]: `O_DIRECTORY|O_NOFOLLOW`) and
//! must be, as the kernel names the opened descriptor, exactly the directory the fence
//! checked. Every later step is relative to that descriptor (`openat`, `renameat`,
//! `unlinkat`): the current file is opened without following a symlink and compared with the
//! expected hash, a sibling temp file is staged, fsynced and given the target's mode, and it is
//! renamed over the target inside the same directory. A directory of the path swapped for a
//! symlink after the check therefore cannot take the write elsewhere: either the open sees the
//! swap and refuses, or the write lands in the directory that was checked.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::observations::sha256_hex;
use crate::open::c_path;

/// The mode a new file is created with, before the umask: what `open(2)` callers such as
/// editors and `touch` use, so a file the model creates is like one the user creates.
const NEW_FILE_MODE: u32 = 0o666;

/// Why an atomic write did not happen.
#[derive(Debug, thiserror::Error)]
pub enum AtomicWriteError {
    /// The file on disk is no longer what the caller prepared against.
    #[error("file changed while edit was being prepared")]
    Stale,
    /// The directory opened is not the one the fence checked: a symlink or rename raced it.
    #[error(
        "{0} changed while it was being opened (a symlink or rename raced the check); refusing to write there"
    )]
    Moved(PathBuf),
    /// The target has other names: the rename would leave them with the old content (the fence
    /// refuses such files, docs/architecture.md#the-path-fence, and a protected file's alias
    /// must not become a way around it).
    #[error("it has {0} hard links; a write would split it from its other names, so it is refused")]
    HardLinked(u64),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Longest part of the target's name kept in a temp file's name, in bytes: the temp name
/// adds a dot, a 16-digit tag and `.toolhost-tmp`, and must stay within 255 bytes.
const TEMP_NAME_KEEP_BYTES: usize = 200;

/// Replace `path` with `bytes`, provided its current content still hashes to `expected`
/// (`None`: the file must still not exist); missing parent directories are made
/// ([`PinnedDir::create_all`]). `path`'s parent must be the real (canonical) directory the
/// fence checked.
pub fn write_atomic(
    path: &Path,
    bytes: &[u8],
    expected: Option<&str>,
) -> Result<(), AtomicWriteError> {
    write_atomic_with_mode(path, bytes, expected, None)
}

/// [`write_atomic`], and a file it creates gets the permission bits of `new_mode` (`0o777` of
/// it: never set-id or sticky bits) instead of [`NEW_FILE_MODE`] less the umask: a moved
/// file keeps its source's mode. A replaced file keeps its own mode either way.
pub fn write_atomic_with_mode(
    path: &Path,
    bytes: &[u8],
    expected: Option<&str>,
    new_mode: Option<u32>,
) -> Result<(), AtomicWriteError> {
    let (dir, name) = split(path)?;
    PinnedDir::create_all(dir)?.replace(name, bytes, expected, new_mode)
}

/// Make `real` hold `content` (None: delete it), provided it is still in state `expected`
/// (the SHA-256 of its content; None: absent); a file it creates gets `new_mode`
/// ([`write_atomic_with_mode`]). Undo, reapply and multi-file commits move files between
/// states with it.
pub fn put(
    real: &Path,
    content: Option<&str>,
    expected: Option<&str>,
    new_mode: Option<u32>,
) -> Result<(), AtomicWriteError> {
    match content {
        Some(text) => write_atomic_with_mode(real, text.as_bytes(), expected, new_mode),
        None => remove_checked(real, expected),
    }
}

impl AtomicWriteError {
    /// What went wrong, in words for an error that already names the file.
    pub fn plain(&self) -> String {
        match self {
            AtomicWriteError::Stale => "the file changed while it was being written".into(),
            AtomicWriteError::HardLinked(_) => self.to_string(),
            AtomicWriteError::Moved(_) => "its directory changed while it was being written (a symlink or rename raced the check)".into(),
            AtomicWriteError::Io(e) => e.to_string(),
        }
    }
}

/// The permission bits of the regular file at `path`, reached with no symlink followed.
pub fn permission_bits(path: &Path) -> std::io::Result<u32> {
    Ok(crate::open::stat_no_symlinks(path)?.permissions().mode() & 0o777)
}

/// Delete `path`, provided its current content still hashes to `expected` (`None`: nothing to
/// delete, and nothing may have appeared). Between the comparison and the unlink another
/// process could still write the file; the directory, though, stays the checked one.
pub fn remove_checked(path: &Path, expected: Option<&str>) -> Result<(), AtomicWriteError> {
    let (dir, name) = split(path)?;
    let pinned = match PinnedDir::open(dir) {
        // No such directory: no file.
        Err(AtomicWriteError::Io(e))
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return if expected.is_none() { Ok(()) } else { Err(AtomicWriteError::Stale) };
        }
        other => other?,
    };
    let _lock = pinned.lock()?;
    let current = pinned.current(name)?;
    if current.as_ref().map(|c| sha256_hex(&c.bytes)).as_deref() != expected {
        return Err(AtomicWriteError::Stale);
    }
    if current.is_some() {
        pinned.unlink(name)?;
    }
    Ok(())
}

fn split(path: &Path) -> Result<(&Path, &OsStr), AtomicWriteError> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("path has no parent"))?;
    let name = path.file_name().ok_or_else(|| std::io::Error::other("path has no file name"))?;
    Ok((dir, name))
}

/// The `flock` of a [`PinnedDir`], released on drop.
struct DirLock<'a>(&'a PinnedDir);

impl Drop for DirLock<'_> {
    fn drop(&mut self) {
        // SAFETY: the pinned directory's descriptor is open while the guard borrows it.
        unsafe { libc::flock(self.0.fd.as_raw_fd(), libc::LOCK_UN) };
    }
}

/// A directory opened once and proved to be the checked one; files are reached relative to it.
pub struct PinnedDir {
    fd: OwnedFd,
    path: PathBuf,
}

impl PinnedDir {
    /// Open `dir` with no symlink followed anywhere on the path ([`crate::open::open_with`]),
    /// so the directory opened is `dir` itself; a symlink met is the race, refused.
    pub fn open(dir: &Path) -> Result<Self, AtomicWriteError> {
        match crate::open::open_with(dir, libc::O_RDONLY | libc::O_DIRECTORY) {
            Ok(file) => Ok(PinnedDir { fd: file.into(), path: dir.to_path_buf() }),
            Err(e) => {
                // A symlink fails with ELOOP, or (last component, without openat2) with ENOTDIR
                // next to O_DIRECTORY.
                let symlink =
                    std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink());
                Err(match e.raw_os_error() {
                    Some(libc::ELOOP) => AtomicWriteError::Moved(dir.to_path_buf()),
                    Some(libc::ENOTDIR) if symlink => AtomicWriteError::Moved(dir.to_path_buf()),
                    _ => e.into(),
                })
            }
        }
    }

    /// Open `dir`, creating it and its missing parents first: the nearest existing ancestor
    /// is pinned as by [`PinnedDir::open`], and each missing directory is made (`mkdirat`) and
    /// entered (`O_NOFOLLOW`) relative to the one before, so a swap during the creation cannot
    /// make a directory anywhere else.
    pub fn create_all(dir: &Path) -> Result<Self, AtomicWriteError> {
        let mut missing = Vec::new();
        let mut existing = dir;
        loop {
            match std::fs::symlink_metadata(existing) {
                Ok(_) => break,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    let (Some(parent), Some(name)) = (existing.parent(), existing.file_name())
                    else {
                        return Err(e.into());
                    };
                    missing.push(name);
                    existing = parent;
                }
                Err(e) => return Err(e.into()),
            }
        }
        let mut pinned = PinnedDir::open(existing)?;
        for name in missing.into_iter().rev() {
            let c = c_path(name)?;
            // SAFETY: valid dirfd and NUL-terminated name.
            if unsafe { libc::mkdirat(pinned.fd.as_raw_fd(), c.as_ptr(), 0o777) } != 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EEXIST) {
                    return Err(e.into());
                }
            }
            let path = pinned.path.join(name);
            // SAFETY: valid dirfd and NUL-terminated name; the fd is checked below.
            let fd = unsafe {
                libc::openat(
                    pinned.fd.as_raw_fd(),
                    c.as_ptr(),
                    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                )
            };
            if fd < 0 {
                let e = std::io::Error::last_os_error();
                return Err(match e.raw_os_error() {
                    Some(libc::ELOOP | libc::ENOTDIR) => AtomicWriteError::Moved(path),
                    _ => e.into(),
                });
            }
            // SAFETY: a fresh descriptor owned by nothing else.
            pinned = PinnedDir { fd: unsafe { OwnedFd::from_raw_fd(fd) }, path };
        }
        Ok(pinned)
    }

    /// Replace `name` with `bytes`, provided its current content still hashes to `expected`; a
    /// new file gets `new_mode`'s permission bits when given ([`write_atomic_with_mode`]).
    pub fn replace(
        &self,
        name: &OsStr,
        bytes: &[u8],
        expected: Option<&str>,
        new_mode: Option<u32>,
    ) -> Result<(), AtomicWriteError> {
        // A new file gets the mode any program would give it (0666 less the umask, which the
        // kernel applies at creation); a replaced file's new content is staged 0600 and then
        // given the old file's mode, so it is never readable by more than the old file was.
        let mode = if self.exists(name)? { 0o600 } else { NEW_FILE_MODE };
        let (mut staged, temp) = self.create_temp(name, mode)?;
        let result = (|| {
            staged.write_all(bytes)?;
            // Compare right before publishing: a change made while we prepared wins. The
            // directory lock spans compare and rename, so no other toolhost process can
            // publish between them on the same base.
            let _lock = self.lock()?;
            let current = self.current(name)?;
            if current.as_ref().map(|c| sha256_hex(&c.bytes)).as_deref() != expected {
                return Err(AtomicWriteError::Stale);
            }
            if let Some(current) = current {
                if current.links > 1 {
                    return Err(AtomicWriteError::HardLinked(current.links));
                }
                staged.set_permissions(std::fs::Permissions::from_mode(current.mode))?;
            } else if let Some(mode) = new_mode {
                staged.set_permissions(std::fs::Permissions::from_mode(mode & 0o777))?;
            }
            staged.sync_all()?;
            self.rename(&temp, name)?;
            Ok(())
        })();
        if result.is_err() {
            let _ = self.unlink(&temp);
        }
        result?;
        // The rename is durable once the directory is.
        // SAFETY: `self.fd` is an open descriptor.
        unsafe { libc::fsync(self.fd.as_raw_fd()) };
        Ok(())
    }

    /// An exclusive `flock` on the pinned directory, released when the guard drops: held by
    /// every toolhost process (sessions, MCP servers, `call`) across the compare and the
    /// rename of a publish in this directory, so two of them never both succeed on one base.
    fn lock(&self) -> std::io::Result<DirLock<'_>> {
        loop {
            // SAFETY: `self.fd` is an open descriptor.
            if unsafe { libc::flock(self.fd.as_raw_fd(), libc::LOCK_EX) } == 0 {
                return Ok(DirLock(self));
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(e);
            }
        }
    }

    /// What is at `name`, if anything; a symlink or anything but a regular file there is an
    /// error (never followed, never waited on).
    fn current(&self, name: &OsStr) -> Result<Option<Current>, AtomicWriteError> {
        let c = c_path(name)?;
        // SAFETY: valid dirfd and NUL-terminated name; the fd is checked below.
        let fd = unsafe {
            libc::openat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::ENOENT) => Ok(None),
                Some(libc::ELOOP) => Err(std::io::Error::other(format!(
                    "{} is a symlink; refusing to write through it",
                    self.path.join(name).display()
                ))
                .into()),
                _ => Err(e.into()),
            };
        }
        // SAFETY: a fresh descriptor owned by nothing else.
        let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(std::io::Error::other(format!(
                "{} is not a regular file",
                self.path.join(name).display()
            ))
            .into());
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.read_to_end(&mut bytes)?;
        Ok(Some(Current { bytes, mode: meta.permissions().mode(), links: meta.nlink() }))
    }

    /// A new temp file beside `name`, created exclusively (never an existing object).
    /// Whether anything (a file, a link, anything) has `name` in the directory.
    fn exists(&self, name: &OsStr) -> std::io::Result<bool> {
        let c = c_path(name)?;
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: valid dirfd, NUL-terminated name, and a stat buffer to fill.
        let rc = unsafe {
            libc::fstatat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                st.as_mut_ptr(),
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        if rc == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ENOENT) => Ok(false),
            _ => Err(e),
        }
    }

    /// A fresh sibling temp file for `name`, created with `mode` (less the umask).
    fn create_temp(
        &self,
        name: &OsStr,
        mode: u32,
    ) -> Result<(std::fs::File, OsString), AtomicWriteError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut keep = &name.as_bytes()[..name.len().min(TEMP_NAME_KEEP_BYTES)];
        while std::str::from_utf8(keep).is_err() && !keep.is_empty() && name.to_str().is_some() {
            keep = &keep[..keep.len() - 1];
        }
        for _ in 0..100 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let tag = (u64::from(std::process::id()) << 40)
                ^ (COUNTER.fetch_add(1, Ordering::Relaxed) << 30)
                ^ u64::from(nanos);
            let mut temp = b".".to_vec();
            temp.extend_from_slice(keep);
            temp.extend_from_slice(format!(".{tag:016x}.toolhost-tmp").as_bytes());
            let temp = OsString::from_vec(temp);
            let c = c_path(&temp)?;
            // SAFETY: valid dirfd and NUL-terminated name; the fd is checked below.
            let fd = unsafe {
                libc::openat(
                    self.fd.as_raw_fd(),
                    c.as_ptr(),
                    libc::O_WRONLY
                        | libc::O_CREAT
                        | libc::O_EXCL
                        | libc::O_NOFOLLOW
                        | libc::O_CLOEXEC,
                    mode as libc::c_uint,
                )
            };
            if fd >= 0 {
                // SAFETY: a fresh descriptor owned by nothing else.
                return Ok((unsafe { std::fs::File::from_raw_fd(fd) }, temp));
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EEXIST) {
                return Err(e.into());
            }
        }
        Err(std::io::Error::other("could not pick a free temp file name").into())
    }

    fn rename(&self, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
        let (from, to) = (c_path(from)?, c_path(to)?);
        let dirfd = self.fd.as_raw_fd();
        // SAFETY: valid dirfd and NUL-terminated names.
        if unsafe { libc::renameat(dirfd, from.as_ptr(), dirfd, to.as_ptr()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    fn unlink(&self, name: &OsStr) -> std::io::Result<()> {
        let c = c_path(name)?;
        // SAFETY: valid dirfd and NUL-terminated name.
        if unsafe { libc::unlinkat(self.fd.as_raw_fd(), c.as_ptr(), 0) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}

/// A target file as [`PinnedDir::current`] found it.
struct Current {
    bytes: Vec<u8>,
    mode: u32,
    links: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn canonical_tempdir() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    #[test]
    fn atomic_write_rejects_stale_content_without_overwriting() {
        let (_dir, root) = canonical_tempdir();
        let p = root.join("a.txt");
        std::fs::write(&p, "one").unwrap();
        let stale = sha256_hex(b"zero");
        assert!(matches!(write_atomic(&p, b"two", Some(&stale)), Err(AtomicWriteError::Stale)));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "one");
        write_atomic(&p, b"two", Some(&sha256_hex(b"one"))).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 1, "no temp file is left behind");
    }

    #[test]
    fn a_write_keeps_the_mode() {
        let (_dir, root) = canonical_tempdir();
        let p = root.join("run.sh");
        std::fs::write(&p, "echo").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o754)).unwrap();
        write_atomic(&p, b"echo hi", Some(&sha256_hex(b"echo"))).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o754);
    }

    #[test]
    fn a_new_file_needs_the_name_to_be_free() {
        let (_dir, root) = canonical_tempdir();
        let p = root.join("new.txt");
        write_atomic(&p, b"a", None).unwrap();
        assert!(matches!(write_atomic(&p, b"b", None), Err(AtomicWriteError::Stale)));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "a");
    }

    #[test]
    fn a_name_of_255_bytes_can_be_written() {
        let (_dir, root) = canonical_tempdir();
        let p = root.join("é".repeat(127) + "x");
        assert_eq!(p.file_name().unwrap().len(), 255);
        write_atomic(&p, b"long", None).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "long");
    }

    #[test]
    fn a_symlink_at_the_target_is_refused_not_followed() {
        let (_dir, root) = canonical_tempdir();
        std::fs::write(root.join("secret"), "keep").unwrap();
        symlink(root.join("secret"), root.join("link")).unwrap();
        let e = write_atomic(&root.join("link"), b"x", Some(&sha256_hex(b"keep"))).unwrap_err();
        assert!(e.to_string().contains("is a symlink"), "{e}");
        assert_eq!(std::fs::read_to_string(root.join("secret")).unwrap(), "keep");
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 2, "the temp file is removed");
    }

    #[test]
    fn a_directory_reached_through_a_symlink_is_refused() {
        let (_dir, root) = canonical_tempdir();
        std::fs::create_dir(root.join("outside")).unwrap();
        symlink(root.join("outside"), root.join("sub")).unwrap();
        // The symlink as the last component of the directory, and as a component on the way.
        assert!(matches!(
            write_atomic(&root.join("sub/f.txt"), b"x", None),
            Err(AtomicWriteError::Moved(_))
        ));
        std::fs::create_dir(root.join("outside/deeper")).unwrap();
        assert!(matches!(
            write_atomic(&root.join("sub/deeper/f.txt"), b"x", None),
            Err(AtomicWriteError::Moved(_))
        ));
        assert_eq!(std::fs::read_dir(root.join("outside/deeper")).unwrap().count(), 0);
    }

    #[test]
    fn a_directory_swapped_after_pinning_cannot_take_the_write_elsewhere() {
        // The window the pinned descriptor closes: the checked directory is replaced by a
        // symlink to another place between the open and the publish.
        let (_dir, root) = canonical_tempdir();
        std::fs::create_dir(root.join("work")).unwrap();
        std::fs::create_dir(root.join("elsewhere")).unwrap();
        let pinned = PinnedDir::open(&root.join("work")).unwrap();
        std::fs::rename(root.join("work"), root.join("moved")).unwrap();
        symlink(root.join("elsewhere"), root.join("work")).unwrap();
        pinned.replace(OsStr::new("f.txt"), b"data", None, None).unwrap();
        assert_eq!(
            std::fs::read_dir(root.join("elsewhere")).unwrap().count(),
            0,
            "nothing landed through the symlink"
        );
        assert_eq!(std::fs::read_to_string(root.join("moved/f.txt")).unwrap(), "data");
    }

    #[test]
    fn a_hard_linked_target_is_refused() {
        let (_dir, root) = canonical_tempdir();
        std::fs::write(root.join("a"), "one").unwrap();
        std::fs::hard_link(root.join("a"), root.join("b")).unwrap();
        let e = write_atomic(&root.join("b"), b"two", Some(&sha256_hex(b"one"))).unwrap_err();
        assert!(matches!(e, AtomicWriteError::HardLinked(2)), "{e}");
        assert_eq!(std::fs::read_to_string(root.join("a")).unwrap(), "one");
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 2, "the temp file is removed");
    }

    #[test]
    fn missing_parents_are_made_inside_the_pinned_ancestor_only() {
        let (_dir, root) = canonical_tempdir();
        write_atomic(&root.join("a/b/c/f.txt"), b"deep", None).unwrap();
        assert_eq!(std::fs::read_to_string(root.join("a/b/c/f.txt")).unwrap(), "deep");
        // An existing ancestor reached through a symlink: nothing is made on the other side.
        std::fs::create_dir(root.join("outside")).unwrap();
        symlink(root.join("outside"), root.join("via")).unwrap();
        assert!(matches!(
            write_atomic(&root.join("via/x/y/f.txt"), b"x", None),
            Err(AtomicWriteError::Moved(_))
        ));
        assert_eq!(std::fs::read_dir(root.join("outside")).unwrap().count(), 0);
    }

    #[test]
    fn remove_compares_then_unlinks() {
        let (_dir, root) = canonical_tempdir();
        let p = root.join("gone.txt");
        std::fs::write(&p, "v1").unwrap();
        assert!(matches!(
            remove_checked(&p, Some(&sha256_hex(b"v0"))),
            Err(AtomicWriteError::Stale)
        ));
        assert!(p.exists());
        remove_checked(&p, Some(&sha256_hex(b"v1"))).unwrap();
        assert!(!p.exists());
        remove_checked(&p, None).unwrap();
        remove_checked(&root.join("no/such/dir/f"), None).unwrap();
        assert!(matches!(
            remove_checked(&root.join("no/such/dir/f"), Some(&sha256_hex(b"v1"))),
            Err(AtomicWriteError::Stale)
        ));
    }

    #[test]
    fn a_fifo_at_the_target_is_refused_without_waiting() {
        let (_dir, root) = canonical_tempdir();
        let fifo = root.join("pipe");
        crate::open::make_fifo(&fifo);
        let e = write_atomic(&fifo, b"x", None).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
}
