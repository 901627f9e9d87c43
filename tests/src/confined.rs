//! Runs the built `toolhost` where user namespaces are refused, as in a container: bubblewrap
//! cannot start there, so bash must fall back to the sandbox tier that needs no namespaces.
//!
//! [`confine`] makes a [`Command`] start in a user namespace of its own that maps every id to
//! itself (files keep their real owners), with the namespace count of that namespace set to 0
//! (so creating one fails with ENOSPC, as in a container), the bounding, ambient, inheritable,
//! permitted and effective capability sets emptied, and then either an unprivileged uid
//! ([`Confinement::User`]) or uid 0 without capabilities ([`Confinement::Root`], "root in a
//! container"). Everything else about the command (program, arguments, environment, working
//! directory, process group) stays as the caller set it, and the process keeps its pid.
//!
//! It needs root (to map the ids); [`unavailable`] says why it cannot run here.
//! `TOOLHOST_TEST_CONFINE` selects it for the attack suites ([`from_env`]).

use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The uid and gid of [`Confinement::User`]: no account on the machine has them.
pub const CONFINED_ID: u32 = 4242;

/// The environment variable that runs the attack suites confined: `no-userns` or
/// `no-userns-root`.
pub const CONFINE_VAR: &str = "TOOLHOST_TEST_CONFINE";

/// Who the confined command runs as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confinement {
    /// [`CONFINED_ID`] as uid and gid, no supplementary groups, no capabilities.
    User,
    /// uid and gid 0 without capabilities, as root in a container.
    Root,
}

impl Confinement {
    /// The uid (and gid) the command runs as.
    pub fn id(self) -> u32 {
        match self {
            Confinement::User => CONFINED_ID,
            Confinement::Root => 0,
        }
    }

    /// The value of [`CONFINE_VAR`] that selects this confinement.
    pub fn var_value(self) -> &'static str {
        match self {
            Confinement::User => "no-userns",
            Confinement::Root => "no-userns-root",
        }
    }
}

/// The confinement [`CONFINE_VAR`] asks for: None when unset or empty; panics on a value it
/// does not know, or when the confinement cannot run here (a suite asked to run confined must
/// not quietly run unconfined).
pub fn from_env() -> Option<Confinement> {
    static MODE: std::sync::OnceLock<Option<Confinement>> = std::sync::OnceLock::new();
    *MODE.get_or_init(read_env)
}

/// [`from_env`], uncached.
fn read_env() -> Option<Confinement> {
    let value = std::env::var(CONFINE_VAR).ok().filter(|v| !v.is_empty())?;
    let mode = match value.as_str() {
        "no-userns" => Confinement::User,
        "no-userns-root" => Confinement::Root,
        other => panic!("{CONFINE_VAR}={other}: expected no-userns or no-userns-root"),
    };
    if let Some(why) = unavailable() {
        panic!("{CONFINE_VAR}={value}, but the confinement cannot run here: {why}");
    }
    Some(mode)
}

/// Why [`confine`] cannot work here (not root, or no user namespaces to make), or None.
pub fn unavailable() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("the tests do not run as root (it maps every uid)".to_owned());
    }
    if !Path::new("/proc/self/uid_map").exists() {
        return Some("the kernel has no user namespaces".to_owned());
    }
    let probe = confine(Command::new("/bin/true"), Confinement::Root).status();
    match probe {
        Ok(s) if s.success() => None,
        Ok(s) => Some(format!("a confined /bin/true exited with {s}")),
        Err(e) => Some(format!("a confined /bin/true could not start: {e}")),
    }
}

/// Gives `path` and everything under it (symlinks themselves, not what they name) to the uid
/// and gid that `mode` runs as, each as [`give`] does.
pub fn chown_tree(path: &Path, mode: Confinement) -> io::Result<()> {
    if give(path, mode)? {
        for entry in std::fs::read_dir(path)? {
            chown_tree(&entry?.path(), mode)?;
        }
    }
    Ok(())
}

/// Gives `path` (a symlink itself) to the uid and gid that `mode` runs as when the test or a
/// confined run owns it, so the confined command can use what the test made as root as the
/// user's own (also when a test switches an attack setup made under one confinement to the
/// other); what a test gave another uid stays that uid's. Whether `path` is a directory.
pub fn give(path: &Path, mode: Confinement) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions.
    let test_uid = unsafe { libc::geteuid() };
    let meta = std::fs::symlink_metadata(path)?;
    let ours = meta.uid() == test_uid || meta.uid() == CONFINED_ID;
    if ours && meta.uid() != mode.id() {
        let id = Some(mode.id());
        std::os::unix::fs::lchown(path, id, id)?;
    }
    Ok(meta.is_dir())
}

/// The `toolhost` binary for a run confined as `mode`: the built one when that uid can reach
/// and run it, else a copy of it and its sandbox helper made once under /var/tmp (a checkout
/// under `/root`, closed to everyone else, is out of an unprivileged user's reach).
pub fn reachable_toolhost(mode: Confinement) -> PathBuf {
    let bin = crate::toolhost_bin();
    if mode == Confinement::Root || open_to_all(&bin) {
        return bin;
    }
    static COPY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    COPY.get_or_init(|| {
        copy_binaries(&bin).expect("copy toolhost where the confined user reaches it")
    })
    .clone()
}

/// Whether every directory above `path` is searchable, and `path` readable and executable, by
/// any uid.
fn open_to_all(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode()).unwrap_or(0);
    mode(path) & 0o005 == 0o005 && path.ancestors().skip(1).all(|dir| mode(dir) & 0o001 != 0)
}

/// Copies `bin` and the sandbox helper beside it into a directory under /var/tmp named after
/// the build (made once; kept for the next run of the same build).
fn copy_binaries(bin: &Path) -> io::Result<PathBuf> {
    use std::hash::{Hash, Hasher};
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(bin)?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (bin.display().to_string(), meta.len(), meta.modified().ok()).hash(&mut h);
    let parent = Path::new("/var/tmp/toolhost-confined-bin");
    let dir = parent.join(format!("{:016x}", h.finish()));
    if !dir.join("toolhost").exists() {
        std::fs::create_dir_all(parent)?;
        std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o755))?;
        let staged = tempfile::tempdir_in(parent)?.keep();
        std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o755))?;
        for name in ["toolhost-sandbox-exec", "toolhost"] {
            let from = bin.with_file_name(name);
            if from.exists() {
                std::fs::copy(&from, staged.join(name))?;
                std::fs::set_permissions(
                    staged.join(name),
                    std::fs::Permissions::from_mode(0o755),
                )?;
            }
        }
        // Another test process may have won the race: either copy is good.
        if std::fs::rename(&staged, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&staged);
        }
    }
    Ok(dir.join("toolhost"))
}

/// `dir` (the test components, handed to a confined `toolhost` by path) where a run confined
/// as `mode` reaches it: itself when every uid can, else a copy of its files made once under
/// /var/tmp, as [`reachable_toolhost`] does for the binary.
pub fn reachable_dir(mode: Confinement, dir: &Path) -> PathBuf {
    use std::hash::{Hash, Hasher};
    use std::os::unix::fs::PermissionsExt;
    if mode == Confinement::Root || open_to_all(dir) {
        return dir.to_path_buf();
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    dir.display().to_string().hash(&mut h);
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let m = e.metadata().ok();
            (e.file_name(), m.as_ref().map(|m| m.len()), m.and_then(|m| m.modified().ok()))
                .hash(&mut h);
        }
    }
    let parent = Path::new("/var/tmp/toolhost-confined-bin");
    let copy = parent.join(format!("dir-{:016x}", h.finish()));
    if !copy.exists() {
        let made = (|| -> io::Result<()> {
            std::fs::create_dir_all(parent)?;
            std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o755))?;
            let staged = tempfile::tempdir_in(parent)?.keep();
            std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o755))?;
            for e in std::fs::read_dir(dir)?.flatten() {
                if e.file_type()?.is_file() {
                    let to = staged.join(e.file_name());
                    std::fs::copy(e.path(), &to)?;
                    std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o644))?;
                }
            }
            if std::fs::rename(&staged, &copy).is_err() {
                let _ = std::fs::remove_dir_all(&staged);
            }
            Ok(())
        })();
        made.expect("copy the test components where the confined user reaches them");
    }
    copy
}

/// `cmd`, made to run confined as `mode` says (see the module documentation). The caller must
/// run as root; the spawn fails with the error of the step that failed otherwise.
pub fn confine(mut cmd: Command, mode: Confinement) -> Command {
    let id = mode.id();
    // SAFETY: the closure runs between fork and exec, and only makes system calls (no
    // allocation, no locks): fork, pipe, read, write, open, close, waitpid, unshare, prctl,
    // capset, setgroups, setresgid, setresuid.
    unsafe {
        cmd.pre_exec(move || enter(id));
    }
    cmd
}

/// The whole identity mapping, as written to `uid_map` and `gid_map`.
const IDENTITY_MAP: &[u8] = b"0 0 4294967295\n";

/// Fails with the last OS error when `rc` is -1.
fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc == -1 { Err(io::Error::last_os_error()) } else { Ok(rc) }
}

/// Writes all of `bytes` to the file at `path` (relative to `dir`, a directory fd, or
/// `AT_FDCWD`).
fn write_file(dir: libc::c_int, path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: path is NUL-terminated; the fd is closed on every path out.
    unsafe {
        let fd = check(libc::openat(dir, path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC))?;
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let err = io::Error::last_os_error();
        libc::close(fd);
        match n {
            -1 => Err(err),
            n if n as usize == bytes.len() => Ok(()),
            _ => Err(io::Error::from_raw_os_error(libc::EIO)),
        }
    }
}

/// In the forked child, before exec: the new user namespace (its maps written by a helper
/// process left in the parent namespace, as only it may map every id), no further
/// namespaces, no capabilities, then uid and gid `id`.
fn enter(id: u32) -> io::Result<()> {
    // SAFETY: plain system calls on fds and buffers this function owns.
    unsafe {
        // Our own /proc directory, opened before unsharing: the helper opens the maps
        // through it, with its own (privileged) credentials.
        let proc_dir =
            check(libc::open(c"/proc/self".as_ptr(), libc::O_DIRECTORY | libc::O_CLOEXEC))?;
        let mut pipe = [0; 2];
        check(libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC))?;
        let helper = check(libc::fork())?;
        if helper == 0 {
            libc::close(pipe[1]);
            let mut byte = 0u8;
            let ok = libc::read(pipe[0], (&raw mut byte).cast(), 1) == 1
                && write_file(proc_dir, c"uid_map", IDENTITY_MAP).is_ok()
                && write_file(proc_dir, c"gid_map", IDENTITY_MAP).is_ok();
            libc::_exit(if ok { 0 } else { 1 });
        }
        libc::close(pipe[0]);
        let unshared = check(libc::unshare(libc::CLONE_NEWUSER));
        // Wake the helper either way (on failure it finds nothing to map and exits 1).
        libc::write(pipe[1], b"x".as_ptr().cast(), 1);
        libc::close(pipe[1]);
        let mut status = 0;
        let waited = check(libc::waitpid(helper, &mut status, 0));
        libc::close(proc_dir);
        unshared?;
        waited?;
        if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
            return Err(io::Error::from_raw_os_error(libc::EPERM));
        }
        // No user namespace may be made in here: clone(CLONE_NEWUSER) fails with ENOSPC.
        write_file(libc::AT_FDCWD, c"/proc/sys/user/max_user_namespaces", b"0\n")?;
        // Capabilities: none can come back (bounding set, ambient), then the ids, then none
        // left. Root stays without them across exec because its bounding set is empty.
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) == -1
                && io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL)
            {
                return Err(io::Error::last_os_error());
            }
        }
        check(libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))?;
        check(libc::setgroups(0, std::ptr::null()))?;
        check(libc::setresgid(id, id, id))?;
        check(libc::setresuid(id, id, id))?;
        clear_capabilities()
    }
}

/// Empties the effective, permitted and inheritable sets (capset, version 3).
fn clear_capabilities() -> io::Result<()> {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    let mut header = Header { version: LINUX_CAPABILITY_VERSION_3, pid: 0 };
    let data = [Data { effective: 0, permitted: 0, inheritable: 0 }; 2];
    // SAFETY: capset reads a version 3 header and two data structs.
    check(unsafe { libc::syscall(libc::SYS_capset, &raw mut header, data.as_ptr()) } as i32)
        .map(drop)
}
