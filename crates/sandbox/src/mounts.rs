//! The mount plan of bash's bubblewrap sandbox for one call: what is writable, what is pinned
//! in place, what is read-only inside the writable roots, and what is hidden.
//!
//! In order (bubblewrap applies mounts in argv order, a later one over an earlier one):
//!
//! 1. the whole file system read-only, a fresh `/dev` and `/proc`; for a boxed call
//!    (conformance), an empty tmpfs over HOME, the temp dirs, the data dir and the like
//!    ([`SandboxPolicy::boxed_away_dirs`]); when the operator confined reads, an empty tmpfs
//!    over users' data ([`SandboxPolicy::confined_away_dirs`]) with the read roots bound back
//!    read-only, and HOME masked whole with its readable entries bound back (with the masks
//!    of step 5);
//! 2. the writable roots, bound writable;
//! 3. **pins**: every git dir inside a writable root, and every directory between a writable
//!    root and the data dir, bound over itself. A mount point cannot be renamed, replaced or
//!    removed (`EBUSY`), so bash cannot `mv .git .git-old` and rebuild it, nor swap the data
//!    dir by renaming its parent;
//! 4. **carve-outs**: every existing protected entry of the scan ([`crate::protected`]: sensitive
//!    files, git metadata) and configured hard-protected path, bound read-only over itself;
//! 5. **hidden**: every toolhost data dir (this one's, the other ones the policy knows, the
//!    marked ones the scan found: an empty tmpfs, with its `spill/` bound back read-only),
//!    HOME's hidden entries that are not readable (masked, with the readable entries inside
//!    bound back: [`SandboxPolicy::hidden_home_masks`]), other users' homes (masked whole,
//!    their readable entries bound back: [`SandboxPolicy::other_home_masks`]), credential
//!    locations (those inside a readable entry too) (`--perms 0000
//!    --tmpfs` for directories, `/dev/null` for files), and the sockets of the user's session
//!    ([`session_sockets`]).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::protected::Protected;
use toolhost_policy::SandboxPolicy;

/// Directories that hold the sockets of the user's session (agents, buses, terminal
/// multiplexers, container engines): hidden from bash whole.
pub const SOCKET_DIRS: &[&str] = &[
    "/run/user",
    "/var/run/user",
    "/run/dbus",
    "/var/run/dbus",
    "/run/docker",
    "/run/containerd",
    "/run/podman",
    "/run/screen",
    "/var/run/screen",
    "/tmp/.X11-unix",
    "/tmp/.ICE-unix",
];

/// Directories whose sockets (and those of their subdirectories, e.g. `/tmp/tmux-0/default`,
/// `/tmp/ssh-XXXX/agent.1`) are each hidden behind `/dev/null`.
pub const SOCKET_SCAN_DIRS: &[&str] = &["/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm"];

/// The mount options for `policy` (after `bwrap`, before `--unshare-*`).
pub fn mount_args(policy: &SandboxPolicy, protected: &Protected) -> Vec<OsString> {
    mount_args_showing(policy, protected, &[])
}

/// [`mount_args`], with `shown` (existing files, e.g. the Landlock helper the sandbox runs
/// first) left visible read-only where a home's mask would hide them: the mask lets a
/// process pass through (`0111`) and the file alone is bound back.
pub fn mount_args_showing(
    policy: &SandboxPolicy,
    protected: &Protected,
    shown: &[PathBuf],
) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    base_mounts(&mut a, policy, shown);
    let layout = Layout::new(policy, protected);
    for r in &layout.roots {
        push(&mut a, &["--bind".as_ref(), r.as_os_str(), r.as_os_str()]);
    }
    for p in &layout.pins {
        push(&mut a, &["--bind-try".as_ref(), p.as_os_str(), p.as_os_str()]);
    }
    // `-try`: an entry that vanishes before bwrap mounts it has nothing left to protect.
    for c in &layout.carve {
        push(&mut a, &["--ro-bind-try".as_ref(), c.as_os_str(), c.as_os_str()]);
    }
    for d in &layout.data_dirs {
        hide_data_dir(&mut a, d, layout.boxed);
    }
    hide_private_files(&mut a, policy);
    let masks = home_masks(policy, shown, layout.boxed);
    for m in &masks {
        mask_home(&mut a, m, &layout);
    }
    hide_unreadable(&mut a, policy, &masks);
    for (path, is_dir) in session_sockets() {
        if is_dir {
            push(&mut a, &["--tmpfs".as_ref(), path.as_os_str()]);
        } else {
            push(&mut a, &["--ro-bind-try".as_ref(), "/dev/null".as_ref(), path.as_os_str()]);
        }
    }
    a
}

/// Appends `xs` to the argv.
fn push(a: &mut Vec<OsString>, xs: &[&OsStr]) {
    a.extend(xs.iter().map(|x| x.to_os_string()));
}

/// Step 1: the whole file system read-only, a fresh `/dev` and `/proc`; for a boxed call the
/// boxed-away dirs emptied; for confined reads users' data emptied, with the read roots and
/// read grants (and the `shown` files in it) bound back read-only.
fn base_mounts(a: &mut Vec<OsString>, policy: &SandboxPolicy, shown: &[PathBuf]) {
    push(a, &["--ro-bind".as_ref(), "/".as_ref(), "/".as_ref()]);
    push(a, &["--dev".as_ref(), "/dev".as_ref()]);
    push(a, &["--proc".as_ref(), "/proc".as_ref()]);
    // A boxed call (conformance): HOME, the temp dirs, the data dir and the like are empty
    // before the workspace is bound back, so nothing outside the workspace is there.
    for d in policy.boxed_away_dirs() {
        push(a, &["--tmpfs".as_ref(), d.as_os_str()]);
    }
    // Reads confined by the operator: users' data outside the roots is emptied, the read
    // roots and read grants (and the files the sandbox runs first) are bound back read-only.
    let away = policy.confined_away_dirs();
    for d in &away {
        match d.symlink_metadata() {
            Ok(m) if m.is_dir() => push(a, &["--tmpfs".as_ref(), d.as_os_str()]),
            Ok(_) => push(a, &["--ro-bind".as_ref(), "/dev/null".as_ref(), d.as_os_str()]),
            Err(_) => {}
        }
    }
    for r in policy.confined_read_binds() {
        push(a, &["--ro-bind-try".as_ref(), r.as_os_str(), r.as_os_str()]);
    }
    for f in shown.iter().filter(|f| away.iter().any(|d| f.starts_with(d)) && f.is_file()) {
        push(a, &["--ro-bind".as_ref(), f.as_os_str(), f.as_os_str()]);
    }
}

/// What steps 2 to 5 of one call's plan share: the writable roots (shortest first), the pins,
/// the carve-outs and the toolhost data dirs.
struct Layout {
    roots: Vec<PathBuf>,
    pins: Vec<PathBuf>,
    carve: Vec<PathBuf>,
    data_dirs: Vec<PathBuf>,
    /// A boxed call (conformance): no HOME, no spill files.
    boxed: bool,
}

impl Layout {
    fn new(policy: &SandboxPolicy, protected: &Protected) -> Layout {
        let mut roots = policy.writable_roots();
        roots.retain(|r| r.exists());
        roots.sort_by_key(|r| r.components().count());
        let mut layout = Layout {
            roots,
            pins: Vec::new(),
            carve: Vec::new(),
            data_dirs: data_dirs(policy),
            boxed: policy.reach() != toolhost_policy::Reach::Everywhere,
        };
        layout.pins = layout.pins(protected);
        layout.carve = layout.carve_outs(policy, protected);
        layout
    }

    /// Whether `p` lies strictly inside a writable root.
    fn inside(&self, p: &Path) -> bool {
        self.roots.iter().any(|r| p.starts_with(r) && p != r)
    }

    /// Step 3: the git dirs inside a root, and every directory between a root and a data dir.
    fn pins(&self, protected: &Protected) -> Vec<PathBuf> {
        let mut pins: Vec<PathBuf> =
            protected.git_dirs.iter().filter(|g| self.inside(g)).cloned().collect();
        for d in &self.data_dirs {
            pins.extend(d.ancestors().skip(1).filter(|a| self.inside(a)).map(Path::to_path_buf));
        }
        sort_dedup(&mut pins);
        pins
    }

    /// Step 4: the protected entries of the scan and the hard-protected paths inside a root,
    /// less what lies in a data dir (hidden whole).
    fn carve_outs(&self, policy: &SandboxPolicy, protected: &Protected) -> Vec<PathBuf> {
        // A git dir itself is pinned, not made read-only: git in bash still commits.
        let mut carve: Vec<PathBuf> = protected
            .entries
            .iter()
            .filter(|e| {
                self.inside(e) && !(e.file_name() == Some(OsStr::new(".git")) && e.is_dir())
            })
            .filter(|e| !policy.write_granted(e) || protected.is_git_entry(e))
            .cloned()
            .collect();
        carve.extend(
            policy.hard_protected_paths().into_iter().filter(|p| p.exists() && self.inside(p)),
        );
        carve.retain(|c| !self.data_dirs.iter().any(|d| c.starts_with(d) && c != d));
        sort_dedup(&mut carve);
        carve
    }
}

/// Every toolhost data dir to hide like this one's: this one and those the host's own record
/// (the registry of data dirs) names, where they exist.
fn data_dirs(policy: &SandboxPolicy) -> Vec<PathBuf> {
    let data = policy.data_dir().filter(|d| d.is_dir());
    let mut data_dirs: Vec<PathBuf> = data.iter().map(|d| d.to_path_buf()).collect();
    data_dirs.extend(policy.other_data_dirs().iter().filter(|d| d.is_dir()).cloned());
    sort_dedup(&mut data_dirs);
    data_dirs
}

/// Private files (`--token-file`): a file behind `/dev/null`, a directory an empty tmpfs.
fn hide_private_files(a: &mut Vec<OsString>, policy: &SandboxPolicy) {
    for f in policy.private_files() {
        match f.symlink_metadata() {
            Ok(m) if m.is_dir() => a.extend([
                OsString::from("--perms"),
                "0000".into(),
                "--tmpfs".into(),
                f.clone().into_os_string(),
            ]),
            Ok(m) if m.is_file() => a.extend([
                OsString::from("--ro-bind"),
                "/dev/null".into(),
                f.clone().into_os_string(),
            ]),
            _ => {}
        }
    }
}

/// The homes' masks: HOME's hidden entries, masked with what stays readable inside bound back
/// (writable where a writable root holds it, and then with the pins, carve-outs and data dirs
/// below it bound again, since a bind shows the host's tree, not the mounts made over it).
/// A boxed call has no HOME at all (emptied in step 1): no mask. Other users' homes likewise,
/// masked whole (or, when a root holds one, its hidden entries), with their toolchains bound
/// back. Each `shown` file under a mask is kept.
fn home_masks(
    policy: &SandboxPolicy,
    shown: &[PathBuf],
    boxed: bool,
) -> Vec<toolhost_policy::HomeMask> {
    if boxed {
        return Vec::new();
    }
    // Confined reads mask HOME whole first; its hidden entries are masked again below it.
    let mut masks: Vec<toolhost_policy::HomeMask> =
        policy.confined_home_mask().into_iter().collect();
    masks.extend(policy.hidden_home_masks());
    masks.extend(policy.other_home_masks());
    for m in &mut masks {
        for f in shown {
            let kept = m.keep.iter().any(|(k, _)| f.starts_with(k));
            if f.starts_with(&m.path) && f != &m.path && !kept && f.is_file() {
                m.keep.push((f.clone(), toolhost_policy::Access::Read));
            }
        }
    }
    masks
}

/// One home mask: a file behind `/dev/null`; a directory an empty tmpfs (passable when it
/// keeps entries) with its kept entries bound back.
fn mask_home(a: &mut Vec<OsString>, m: &toolhost_policy::HomeMask, layout: &Layout) {
    let Ok(meta) = m.path.symlink_metadata() else { return };
    if !meta.is_dir() {
        a.extend(["--ro-bind", "/dev/null"].map(OsString::from));
        a.push(m.path.clone().into_os_string());
        return;
    }
    let perms = if m.keep.is_empty() { "0000" } else { "0111" };
    a.extend(["--perms", perms, "--tmpfs"].map(OsString::from));
    a.push(m.path.clone().into_os_string());
    for (k, access) in &m.keep {
        keep_in_mask(a, k, *access, layout);
    }
}

/// One entry a mask keeps, bound back over it.
fn keep_in_mask(a: &mut Vec<OsString>, k: &Path, access: toolhost_policy::Access, layout: &Layout) {
    // A kept symlink (`~/.cargo/bin -> /opt/cargo/bin`) is made again: what it points to is
    // judged where it is.
    if k.symlink_metadata().is_ok_and(|t| t.file_type().is_symlink()) {
        if let Ok(text) = std::fs::read_link(k) {
            a.extend([OsString::from("--symlink"), text.into_os_string(), k.into()]);
        }
        return;
    }
    // The data dir kept inside a hidden entry is shown as a data dir is.
    if layout.data_dirs.iter().any(|d| d == k) {
        hide_data_dir(a, k, layout.boxed);
        return;
    }
    // A kept entry that is itself protected (`.config/git`, `.local/bin`: sensitive), or lies
    // inside a protected entry (`.local/lib/python3.12` in `.local/lib`), comes back
    // read-only, as its carve-out had it.
    let root_of = layout.roots.iter().any(|r| k.starts_with(r));
    let writable = (root_of && !layout.carve.iter().any(|c| k.starts_with(c)))
        || access == toolhost_policy::Access::Write;
    a.push(if writable { "--bind".into() } else { "--ro-bind".into() });
    a.push(k.into());
    a.push(k.into());
    if writable {
        for p in layout.pins.iter().filter(|p| p.starts_with(k) && *p != k) {
            push(a, &["--bind-try".as_ref(), p.as_os_str(), p.as_os_str()]);
        }
        for c in layout.carve.iter().filter(|c| c.starts_with(k) && *c != k) {
            push(a, &["--ro-bind-try".as_ref(), c.as_os_str(), c.as_os_str()]);
        }
    }
    for d in layout.data_dirs.iter().filter(|d| d.starts_with(k) && *d != k) {
        hide_data_dir(a, d, layout.boxed);
    }
}

/// Step 5's credential locations ([`SandboxPolicy::unreadable_paths`]) that no mask already
/// hides: a directory an empty tmpfs (with the grants inside it bound back), a file behind
/// `/dev/null`.
fn hide_unreadable(
    a: &mut Vec<OsString>,
    policy: &SandboxPolicy,
    masks: &[toolhost_policy::HomeMask],
) {
    let masked = |p: &Path| {
        masks
            .iter()
            .any(|m| p.starts_with(&m.path) && !m.keep.iter().any(|(k, _)| p.starts_with(k)))
    };
    for u in policy.unreadable_paths() {
        if u.symlink_metadata().is_err() {
            continue;
        }
        // Real paths: bubblewrap cannot mount through a symlink (a symlinked credential
        // entry: mask what it points to; `/var/run/secrets` is `/run/secrets`).
        let target = std::fs::canonicalize(&u).ok();
        if masked(&u) && target.as_deref().is_some_and(masked) {
            continue;
        }
        match target {
            Some(t) if t.is_dir() => hide_unreadable_dir(a, policy, &t),
            Some(t) => push(a, &["--ro-bind".as_ref(), "/dev/null".as_ref(), t.as_os_str()]),
            None => {}
        }
    }
}

/// An unreadable directory `t`: an empty tmpfs. A grant on something inside (an exact read of
/// ~/.ssh/known_hosts) is bound back over the mask; the mask then lets bash through (0111),
/// never list it.
fn hide_unreadable_dir(a: &mut Vec<OsString>, policy: &SandboxPolicy, t: &Path) {
    let inside: Vec<&toolhost_policy::PathGrant> = policy
        .grants()
        .iter()
        .filter(|g| g.path.starts_with(t) && g.path != t && g.path.exists())
        .collect();
    let perms = if inside.is_empty() { "0000" } else { "0111" };
    push(a, &["--perms".as_ref(), perms.as_ref(), "--tmpfs".as_ref(), t.as_os_str()]);
    for g in inside {
        let bind = if g.access == toolhost_policy::Access::Write { "--bind" } else { "--ro-bind" };
        push(a, &[bind.as_ref(), g.path.as_os_str(), g.path.as_os_str()]);
    }
}

/// The sockets of the user's session to hide: existing [`SOCKET_DIRS`] and
/// `$XDG_RUNTIME_DIR` (`true`: a directory), and every socket in [`SOCKET_SCAN_DIRS`] and
/// their direct subdirectories (`false`). The abstract socket namespace is left behind with
/// the network namespace (and scoped by Landlock where the kernel has it).
pub fn session_sockets() -> Vec<(PathBuf, bool)> {
    use std::os::unix::fs::FileTypeExt;
    let mut out: Vec<(PathBuf, bool)> = Vec::new();
    let mut dirs: Vec<PathBuf> = SOCKET_DIRS.iter().map(PathBuf::from).collect();
    if let Some(x) = std::env::var_os("XDG_RUNTIME_DIR").filter(|x| !x.is_empty()) {
        dirs.push(PathBuf::from(x));
    }
    for d in dirs {
        // Real paths: bubblewrap cannot mount through a symlink (`/var/run` is one to `/run`).
        let Ok(d) = std::fs::canonicalize(&d) else { continue };
        if d.is_dir() && !out.iter().any(|(o, _)| d.starts_with(o)) {
            out.push((d, true));
        }
    }
    let mut sockets = Vec::new();
    let mut bases: Vec<PathBuf> =
        SOCKET_SCAN_DIRS.iter().filter_map(|b| std::fs::canonicalize(b).ok()).collect();
    bases.sort();
    bases.dedup();
    for base in bases {
        let Ok(entries) = std::fs::read_dir(&base) else { continue };
        for e in entries.flatten().take(10_000) {
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_socket() {
                sockets.push(e.path());
            } else if ft.is_dir() {
                let Ok(inner) = std::fs::read_dir(e.path()) else { continue };
                sockets.extend(
                    inner
                        .flatten()
                        .take(1_000)
                        .filter(|i| i.file_type().is_ok_and(|t| t.is_socket()))
                        .map(|i| i.path()),
                );
            }
        }
    }
    for s in sockets {
        if !out.iter().any(|(o, _)| s.starts_with(o)) {
            out.push((s, false));
        }
    }
    out
}

/// A data dir as bash sees it: an empty tmpfs that bash cannot write in either (mode 0555;
/// bash holds no capability that overrides it), its `spill/` bound back read-only.
fn hide_data_dir(a: &mut Vec<OsString>, d: &Path, boxed: bool) {
    let spill = d.join("spill");
    a.extend(["--perms", "0555", "--tmpfs"].map(OsString::from));
    a.push(d.as_os_str().to_os_string());
    // A boxed call (conformance) sees nothing outside its workspace, spill files included.
    if !boxed {
        a.extend([
            OsString::from("--ro-bind-try"),
            spill.clone().into_os_string(),
            spill.into_os_string(),
        ]);
    }
}

fn sort_dedup(v: &mut Vec<PathBuf>) {
    v.sort_by(|a, b| a.components().count().cmp(&b.components().count()).then(a.cmp(b)));
    v.dedup();
}
