//! Opening real paths so that nothing swapped in since a check or a walk can redirect or hang
//! the open: no symlink anywhere in the path is followed, FIFOs are not waited on.
//!
//! Every path given here is real (canonical, or a canonical walk root joined with names the
//! walk read without following links), so a symlink anywhere in it can only be a swap.

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};

/// Whether this kernel has `openat2` (0: not known yet, 1: yes, 2: no).
static OPENAT2: AtomicU8 = AtomicU8::new(0);

/// Open flags for a descriptor that only names a file (Linux `O_PATH`; elsewhere a
/// non-blocking read-only open, which also needs read permission).
#[cfg(target_os = "linux")]
const PATH_ONLY: i32 = libc::O_PATH;
#[cfg(not(target_os = "linux"))]
const PATH_ONLY: i32 = libc::O_RDONLY | libc::O_NONBLOCK;

/// Open a regular file for reading: no symlink followed ([`open_no_symlinks`]), a FIFO not
/// waited on (`O_NONBLOCK`, no effect on a regular file), and anything but a regular file
/// refused, judged on the open file itself. With the open file's metadata (size, mtime).
pub fn open_regular(path: &Path) -> std::io::Result<(File, std::fs::Metadata)> {
    regular(open_no_symlinks(path)?)
}

/// `file` with its metadata if it is a regular file, judged on the open file itself.
fn regular(file: File) -> std::io::Result<(File, std::fs::Metadata)> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
    }
    Ok((file, meta))
}

/// Open the real path `path` read-only and non-blocking without following a symlink in any
/// of its components: `openat2(RESOLVE_NO_SYMLINKS)` (Linux ≥ 5.6); where the kernel lacks
/// it, `O_NOFOLLOW` on the last component and the opened file's name (`/proc/self/fd`) must
/// be `path`. A directory of `path` swapped for a symlink fails with `ELOOP` instead of
/// reaching what the symlink points at.
pub fn open_no_symlinks(path: &Path) -> std::io::Result<File> {
    open_with(path, libc::O_RDONLY | libc::O_NONBLOCK)
}

/// The metadata of the real path `path`, reached as [`open_no_symlinks`] reaches it (an
/// `O_PATH` descriptor: nothing is opened for reading); an error when a symlink is on the way.
pub fn stat_no_symlinks(path: &Path) -> std::io::Result<std::fs::Metadata> {
    open_with(path, PATH_ONLY)?.metadata()
}

/// Open the directory `name` in the directory `dir`: the name alone is looked up, and it
/// must be a directory, not a symlink to one.
pub fn open_dir_at(dir: &File, name: &std::ffi::OsStr) -> std::io::Result<File> {
    open_at(dir, name, libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NONBLOCK)
}

/// Open the regular file `name` in the directory `dir` for reading, as [`open_regular`]
/// opens a path: the name alone is looked up, a symlink is not followed, a FIFO is not
/// waited on, anything but a regular file is refused. With its metadata.
pub fn open_regular_at(
    dir: &File,
    name: &std::ffi::OsStr,
) -> std::io::Result<(File, std::fs::Metadata)> {
    regular(open_at(dir, name, libc::O_RDONLY | libc::O_NONBLOCK)?)
}

/// `openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC)`; `name` must be one component.
fn open_at(dir: &File, name: &std::ffi::OsStr, flags: i32) -> std::io::Result<File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    if name.as_bytes().contains(&b'/') || name.is_empty() {
        return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
    }
    let c = c_path(name)?;
    // SAFETY: a live directory descriptor and a NUL-terminated name; the fd is owned below.
    let fd = unsafe {
        libc::openat(dir.as_raw_fd(), c.as_ptr(), flags | libc::O_NOFOLLOW | libc::O_CLOEXEC)
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor owned by nothing else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`: the modification time (ms since the epoch,
/// when it has one) of the regular file named `name` in `dir`, an error for anything else (a
/// symlink included).
pub fn file_mtime_at(dir: &File, name: &std::ffi::OsStr) -> std::io::Result<Option<u64>> {
    let st = stat_at(dir, name)?;
    if st.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
    }
    let ms =
        (st.st_mtime >= 0).then(|| st.st_mtime as u64 * 1000 + st.st_mtime_nsec as u64 / 1_000_000);
    Ok(ms)
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`: what the entry `name` of `dir` is, a symlink
/// not followed.
pub(crate) fn stat_at(dir: &File, name: &std::ffi::OsStr) -> std::io::Result<libc::stat> {
    use std::os::fd::AsRawFd;
    let c = c_path(name)?;
    // SAFETY: `stat` is plain data, written by the kernel below.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a live directory descriptor, a NUL-terminated name, a live `stat` to fill.
    if unsafe { libc::fstatat(dir.as_raw_fd(), c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) }
        != 0
    {
        return Err(std::io::Error::last_os_error());
    }
    Ok(st)
}

/// Make a FIFO at `path` (tests: what a walk or an open must not wait on).
#[cfg(test)]
pub(crate) fn make_fifo(path: &Path) {
    let c = c_path(path).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}

/// Open the real path `path` with `flags`, no symlink followed anywhere in it (as
/// [`open_no_symlinks`]; `ELOOP` when one is met).
pub fn open_with(path: &Path, flags: i32) -> std::io::Result<File> {
    if OPENAT2.load(Ordering::Relaxed) != 2
        && let Some(opened) = open_by_openat2(path, flags)
    {
        if opened.is_ok() {
            OPENAT2.store(1, Ordering::Relaxed);
        }
        return opened;
    }
    open_by_name_check(path, flags)
}

/// [`open_with`] by `openat2(RESOLVE_NO_SYMLINKS)`; `None` when the kernel (or a seccomp
/// filter) does not offer it.
#[cfg(not(target_os = "linux"))]
fn open_by_openat2(_path: &Path, _flags: i32) -> Option<std::io::Result<File>> {
    OPENAT2.store(2, Ordering::Relaxed);
    None
}

/// [`open_with`] by `openat2(RESOLVE_NO_SYMLINKS)`; `None` when the kernel (or a seccomp
/// filter) does not offer it.
#[cfg(target_os = "linux")]
fn open_by_openat2(path: &Path, flags: i32) -> Option<std::io::Result<File>> {
    use std::os::fd::FromRawFd;
    let c = match c_path(path) {
        Ok(c) => c,
        Err(e) => return Some(Err(e)),
    };
    // SAFETY: `open_how` is plain data; zero is a valid value for every field.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (flags | libc::O_CLOEXEC) as u64;
    how.resolve = libc::RESOLVE_NO_SYMLINKS;
    // SAFETY: a valid NUL-terminated path and a live `open_how` of the size passed.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            libc::AT_FDCWD,
            c.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd >= 0 {
        // SAFETY: a fresh descriptor owned by nothing else.
        return Some(Ok(unsafe { File::from_raw_fd(fd as i32) }));
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ENOSYS) => {
            OPENAT2.store(2, Ordering::Relaxed);
            None
        }
        // A seccomp filter may answer EPERM for a syscall it does not know: try the other way.
        Some(libc::EPERM) => None,
        _ => Some(Err(e)),
    }
}

/// [`open_with`] without `openat2`: `O_NOFOLLOW` on the last component, then the opened
/// file's name must be `path` (a symlink on the way shows as `ELOOP`).
fn open_by_name_check(path: &Path, flags: i32) -> std::io::Result<File> {
    use std::os::fd::FromRawFd;
    let c = c_path(path)?;
    // SAFETY: a valid NUL-terminated path; the fd is checked below.
    let fd = unsafe { libc::open(c.as_ptr(), flags | libc::O_NOFOLLOW | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor owned by nothing else.
    let file = unsafe { File::from_raw_fd(fd) };
    if !opened_as(&file, path) {
        return Err(std::io::Error::from_raw_os_error(libc::ELOOP));
    }
    Ok(file)
}

/// Whether the kernel names the open `file` `path` (or `path (deleted)`: replaced by a rename
/// after the open, still the object that was there); true when `/proc` is not mounted.
fn opened_as(file: &File, path: &Path) -> bool {
    use std::os::fd::AsRawFd;
    match std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
        Ok(real) => {
            let mut deleted = path.as_os_str().to_os_string();
            deleted.push(" (deleted)");
            real == path || real.as_os_str() == deleted
        }
        Err(_) => !Path::new("/proc/self/fd").exists(),
    }
}

/// `path` (a path or a name) as a C string; a NUL in it is an `InvalidInput` error.
pub fn c_path(path: impl AsRef<std::ffi::OsStr>) -> std::io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_ref().as_bytes()).map_err(|_| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "path contains a NUL byte")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real root holding `secrets/key`, `d` (a symlink to `secrets`) and `real/key` (5
    /// bytes).
    fn secrets_and_plain() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("secrets")).unwrap();
        std::fs::write(root.join("secrets/key"), "s3cret").unwrap();
        std::os::unix::fs::symlink(root.join("secrets"), root.join("d")).unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::fs::write(root.join("real/key"), "plain").unwrap();
        (dir, root)
    }

    #[test]
    fn no_symlink_on_the_way_is_followed_with_or_without_openat2() {
        let (_dir, root) = secrets_and_plain();
        let (through, plain) = (root.join("d/key"), root.join("real/key"));
        for flags in [libc::O_RDONLY | libc::O_NONBLOCK, PATH_ONLY] {
            assert_eq!(
                open_by_name_check(&through, flags).unwrap_err().raw_os_error(),
                Some(libc::ELOOP)
            );
            assert!(open_by_name_check(&plain, flags).is_ok());
            if let Some(r) = open_by_openat2(&through, flags) {
                assert_eq!(r.unwrap_err().raw_os_error(), Some(libc::ELOOP));
                assert!(open_by_openat2(&plain, flags).unwrap().is_ok());
            }
        }
        assert!(open_regular(&through).is_err());
        assert!(stat_no_symlinks(&through).is_err());
        assert_eq!(stat_no_symlinks(&plain).unwrap().len(), 5);
    }

    #[test]
    fn opens_and_stats_in_a_directory_follow_no_symlink_and_wait_on_no_fifo() {
        use std::ffi::OsStr;
        let (_dir, root) = secrets_and_plain();
        std::fs::create_dir(root.join("real/sub")).unwrap();
        std::os::unix::fs::symlink(root.join("secrets/key"), root.join("real/link")).unwrap();
        make_fifo(&root.join("real/fifo"));
        let top = open_with(&root, libc::O_RDONLY | libc::O_DIRECTORY).unwrap();
        // A symlinked directory, a name with a slash, an empty name: refused.
        assert!(open_dir_at(&top, OsStr::new("d")).is_err());
        assert!(open_dir_at(&top, OsStr::new("real/sub")).is_err());
        assert!(open_dir_at(&top, OsStr::new("")).is_err());
        let real = open_dir_at(&top, OsStr::new("real")).unwrap();
        // A symlinked file, a directory, a FIFO (not waited on): refused, for stat and open.
        for name in ["link", "sub", "fifo"] {
            assert!(file_mtime_at(&real, OsStr::new(name)).is_err(), "{name}");
            assert!(open_regular_at(&real, OsStr::new(name)).is_err(), "{name}");
        }
        // A regular file: its mtime, as the metadata says, and its contents.
        let want = std::fs::metadata(root.join("real/key")).unwrap().modified().unwrap();
        let want = want.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
        assert_eq!(file_mtime_at(&real, OsStr::new("key")).unwrap(), Some(want));
        let (mut file, meta) = open_regular_at(&real, OsStr::new("key")).unwrap();
        assert_eq!(meta.len(), 5);
        let mut text = String::new();
        std::io::Read::read_to_string(&mut file, &mut text).unwrap();
        assert_eq!(text, "plain");
        // The descriptor is the directory that was opened: swapping it for a symlink
        // afterwards does not redirect a stat there.
        std::fs::rename(root.join("real"), root.join("moved")).unwrap();
        std::os::unix::fs::symlink(root.join("secrets"), root.join("real")).unwrap();
        assert_eq!(
            file_mtime_at(&real, OsStr::new("key")).unwrap(),
            Some(want),
            "the kept descriptor is the real directory"
        );
        assert!(
            open_dir_at(&top, OsStr::new("real")).is_err(),
            "a swapped directory is not followed"
        );
    }

    #[test]
    fn a_file_swapped_for_a_symlink_or_fifo_is_neither_followed_nor_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("secret"), "s3cret").unwrap();
        let walked = root.join("walked.txt");
        std::os::unix::fs::symlink(root.join("secret"), &walked).unwrap();
        assert!(open_regular(&walked).is_err());
        assert!(stat_no_symlinks(&walked).is_err());
        // A FIFO (swapped in after the walk) is neither waited on nor read.
        let fifo = root.join("fifo");
        make_fifo(&fifo);
        assert!(open_regular(&fifo).is_err());
    }
}
