//! The seccomp filter of the namespace-less tier (where user namespaces are refused and only
//! Landlock, seccomp and rlimits confine the command). Every syscall is allowed but a few,
//! which fail with a clean `EPERM` (never a kill, so programs report the refusal):
//!
//! * [`REFUSED_SYSCALLS`], outright: reading or writing other processes (`ptrace`,
//!   `process_vm_*`), changing the mount table or root (`mount`, the new mount API,
//!   `pivot_root`, `chroot`), entering or making namespaces (`unshare`, `setns`), the kernel
//!   keyring, BPF, perf and `userfaultfd` (large kernel attack surface), kernel modules,
//!   `kexec`, `reboot`, swap, raw port I/O (`iopl`, `ioperm`), file handles (which open files
//!   by inode, around Landlock's path rules), and io_uring (whose operations open sockets and
//!   files without the syscalls this filter sees);
//! * `clone` with any namespace flag (`CLONE_NEWNS`, `NEWUTS`, `NEWIPC`, `NEWUSER`, `NEWPID`,
//!   `NEWNET`, `NEWCGROUP`): the same refusal as `unshare`, on the way a child is made;
//! * `clone3` fails with `ENOSYS` instead: its flags live in memory seccomp cannot read, and
//!   the C libraries fall back to `clone` (checked above) when the kernel lacks `clone3`;
//! * without network, `socket` and `socketpair` of any domain but `AF_UNIX`.
//!
//! On x86_64 the x32 numbering of each of these syscalls is refused too (the architecture
//! check of the filter cannot tell x32 calls from x86_64 ones). Calls under another
//! architecture's convention (32-bit `int 0x80`) kill the process: the filter is compiled by
//! `seccompiler`, whose architecture check does so.

/// What the filter lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeccompPolicy {
    /// Sockets of every domain (`false`: `AF_UNIX` only).
    pub network: bool,
}

/// Why the filter could not be installed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeccompError {
    /// The filter exists for Linux on x86_64 and aarch64 only.
    #[error("no seccomp filter for {0}")]
    Unsupported(String),
    /// The filter could not be compiled (a fault of its rules, not of the machine).
    #[error("the seccomp filter could not be built: {0}")]
    Build(String),
    /// The kernel refused `no_new_privs` or the filter.
    #[error("the seccomp filter could not be installed: {0}")]
    Install(String),
}

/// The syscalls refused outright, by name, for doctor and docs (one list, the single source).
pub const REFUSED_SYSCALLS: &[&str] = &[
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "unshare",
    "setns",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "open_by_handle_at",
    "name_to_handle_at",
    "iopl",
    "ioperm",
];

/// Installs the filter on the calling thread (inherited by everything it execs); sets
/// `no_new_privs` first. A failure can leave part of the filter installed: the caller must not
/// run the command then.
#[cfg(target_os = "linux")]
pub fn apply_seccomp(policy: &SeccompPolicy) -> Result<(), SeccompError> {
    use seccompiler::SeccompAction;
    let arch = target_arch()?;
    let refused = compile(refused_rules(policy)?, SeccompAction::Errno(libc::EPERM as u32), arch)?;
    let absent = compile(absent_rules(), SeccompAction::Errno(libc::ENOSYS as u32), arch)?;
    for program in [&refused, &absent] {
        // Sets no_new_privs itself (the kernel requires it of an unprivileged filter).
        seccompiler::apply_filter(program).map_err(|e| SeccompError::Install(e.to_string()))?;
    }
    Ok(())
}

/// Installs the filter on the calling thread: only Linux has one.
#[cfg(not(target_os = "linux"))]
pub fn apply_seccomp(_policy: &SeccompPolicy) -> Result<(), SeccompError> {
    Err(SeccompError::Unsupported(std::env::consts::OS.to_string()))
}

/// The namespace flags `clone` may not carry.
#[cfg(target_os = "linux")]
const NAMESPACE_FLAGS: [libc::c_int; 7] = [
    libc::CLONE_NEWNS,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWCGROUP,
];

/// The bit x32 syscall numbers carry on x86_64.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
const X32_SYSCALL_BIT: i64 = 0x4000_0000;

/// The seccompiler architecture of this machine.
#[cfg(target_os = "linux")]
fn target_arch() -> Result<seccompiler::TargetArch, SeccompError> {
    use seccompiler::TargetArch;
    match std::env::consts::ARCH {
        "x86_64" => Ok(TargetArch::x86_64),
        "aarch64" => Ok(TargetArch::aarch64),
        other => Err(SeccompError::Unsupported(other.to_string())),
    }
}

/// The number of a syscall named in [`REFUSED_SYSCALLS`] (or one the filter checks) on this
/// architecture; `None` when the architecture has no such syscall.
#[cfg(target_os = "linux")]
fn syscall_number(name: &str) -> Option<i64> {
    let number = match name {
        "ptrace" => libc::SYS_ptrace,
        "process_vm_readv" => libc::SYS_process_vm_readv,
        "process_vm_writev" => libc::SYS_process_vm_writev,
        "mount" => libc::SYS_mount,
        "umount2" => libc::SYS_umount2,
        "pivot_root" => libc::SYS_pivot_root,
        "chroot" => libc::SYS_chroot,
        "fsopen" => libc::SYS_fsopen,
        "fsconfig" => libc::SYS_fsconfig,
        "fsmount" => libc::SYS_fsmount,
        "fspick" => libc::SYS_fspick,
        "move_mount" => libc::SYS_move_mount,
        "open_tree" => libc::SYS_open_tree,
        "mount_setattr" => libc::SYS_mount_setattr,
        "unshare" => libc::SYS_unshare,
        "setns" => libc::SYS_setns,
        "keyctl" => libc::SYS_keyctl,
        "add_key" => libc::SYS_add_key,
        "request_key" => libc::SYS_request_key,
        "bpf" => libc::SYS_bpf,
        "perf_event_open" => libc::SYS_perf_event_open,
        "userfaultfd" => libc::SYS_userfaultfd,
        "init_module" => libc::SYS_init_module,
        "finit_module" => libc::SYS_finit_module,
        "delete_module" => libc::SYS_delete_module,
        "kexec_load" => libc::SYS_kexec_load,
        #[cfg(target_arch = "x86_64")]
        "kexec_file_load" => libc::SYS_kexec_file_load,
        // The generic syscall table's number (the libc crate lacks it on musl).
        #[cfg(target_arch = "aarch64")]
        "kexec_file_load" => 294,
        "reboot" => libc::SYS_reboot,
        "swapon" => libc::SYS_swapon,
        "swapoff" => libc::SYS_swapoff,
        "io_uring_setup" => libc::SYS_io_uring_setup,
        "io_uring_enter" => libc::SYS_io_uring_enter,
        "io_uring_register" => libc::SYS_io_uring_register,
        "open_by_handle_at" => libc::SYS_open_by_handle_at,
        "name_to_handle_at" => libc::SYS_name_to_handle_at,
        #[cfg(target_arch = "x86_64")]
        "iopl" => libc::SYS_iopl,
        #[cfg(target_arch = "x86_64")]
        "ioperm" => libc::SYS_ioperm,
        "clone" => libc::SYS_clone,
        "clone3" => libc::SYS_clone3,
        "socket" => libc::SYS_socket,
        "socketpair" => libc::SYS_socketpair,
        _ => return None,
    };
    Some(number)
}

/// Every number the kernel knows a syscall by on this architecture: its own, and on x86_64
/// its x32 numbers (the common one with the x32 bit, and the x32-only one of the few
/// syscalls whose x32 entry differs).
#[cfg(target_os = "linux")]
fn syscall_numbers(name: &str) -> Vec<i64> {
    let Some(number) = syscall_number(name) else {
        return Vec::new();
    };
    #[cfg(target_arch = "x86_64")]
    {
        let mut numbers = vec![number, number | X32_SYSCALL_BIT];
        let x32_only = match name {
            "ptrace" => Some(521),
            "kexec_load" => Some(528),
            "process_vm_readv" => Some(539),
            "process_vm_writev" => Some(540),
            _ => None,
        };
        numbers.extend(x32_only.map(|n| n | X32_SYSCALL_BIT));
        numbers
    }
    #[cfg(not(target_arch = "x86_64"))]
    vec![number]
}

/// The rules whose match is `EPERM`: [`REFUSED_SYSCALLS`], `clone` with a namespace flag, and
/// without network `socket` and `socketpair` of a domain other than `AF_UNIX`.
#[cfg(target_os = "linux")]
fn refused_rules(
    policy: &SeccompPolicy,
) -> Result<std::collections::BTreeMap<i64, Vec<seccompiler::SeccompRule>>, SeccompError> {
    use seccompiler::{SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompRule};
    let build = |e: seccompiler::BackendError| SeccompError::Build(e.to_string());
    // One condition on the low 32 bits of argument `arg` (an `int`, or clone's flags, all of
    // whose namespace bits are there).
    let condition = |arg: u8, op: SeccompCmpOp, value: libc::c_int| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value as u64)
            .and_then(|c| SeccompRule::new(vec![c]))
            .map_err(build)
    };
    let mut rules = std::collections::BTreeMap::new();
    for name in REFUSED_SYSCALLS {
        for number in syscall_numbers(name) {
            // No rule: the syscall matches whatever its arguments.
            rules.insert(number, Vec::new());
        }
    }
    // Rules of one syscall match when any does: one per namespace flag.
    let clone_rules = NAMESPACE_FLAGS
        .iter()
        .map(|&flag| condition(0, SeccompCmpOp::MaskedEq(flag as u32 as u64), flag))
        .collect::<Result<Vec<_>, _>>()?;
    for number in syscall_numbers("clone") {
        rules.insert(number, clone_rules.clone());
    }
    if !policy.network {
        let not_unix = condition(0, SeccompCmpOp::Ne, libc::AF_UNIX)?;
        for name in ["socket", "socketpair"] {
            for number in syscall_numbers(name) {
                rules.insert(number, vec![not_unix.clone()]);
            }
        }
    }
    Ok(rules)
}

/// The rules whose match is `ENOSYS`: `clone3`, whatever its arguments.
#[cfg(target_os = "linux")]
fn absent_rules() -> std::collections::BTreeMap<i64, Vec<seccompiler::SeccompRule>> {
    syscall_numbers("clone3").into_iter().map(|number| (number, Vec::new())).collect()
}

/// The BPF program of one filter: `matched` for its rules, every other syscall allowed.
#[cfg(target_os = "linux")]
fn compile(
    rules: std::collections::BTreeMap<i64, Vec<seccompiler::SeccompRule>>,
    matched: seccompiler::SeccompAction,
    arch: seccompiler::TargetArch,
) -> Result<seccompiler::BpfProgram, SeccompError> {
    let filter =
        seccompiler::SeccompFilter::new(rules, seccompiler::SeccompAction::Allow, matched, arch)
            .map_err(|e| SeccompError::Build(e.to_string()))?;
    filter.try_into().map_err(|e: seccompiler::BackendError| SeccompError::Build(e.to_string()))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Runs `check` in a forked child after applying the filter of `policy`; the child's exit
    /// code is 0 when `check` passed, else the step that failed (1 is a failed filter).
    fn in_filtered_child(policy: SeccompPolicy, check: fn() -> Result<(), i32>) -> i32 {
        // SAFETY: the child only makes syscalls, allocates (glibc's fork keeps malloc usable)
        // and `_exit`s; it never returns into the test harness.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
        if pid == 0 {
            let code = std::panic::catch_unwind(|| match apply_seccomp(&policy) {
                Ok(()) => check().err().unwrap_or(0),
                Err(_) => 1,
            })
            .unwrap_or(99);
            // SAFETY: ends the forked child without running the parent's exit handlers.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: waits for the child forked above.
        let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
        assert_eq!(waited, pid);
        assert!(libc::WIFEXITED(status), "child ended by a signal: {status:#x}");
        libc::WEXITSTATUS(status)
    }

    /// The errno of the last failed libc call.
    fn errno() -> i32 {
        std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
    }

    /// `Ok` when a call returned -1 with `expected` as errno, else `Err(step)`.
    fn fails_with(ret: libc::c_long, expected: i32, step: i32) -> Result<(), i32> {
        if ret == -1 && errno() == expected { Ok(()) } else { Err(step) }
    }

    /// A zero syscall argument (a null pointer), at the width the kernel reads.
    const NULL: libc::c_long = 0;

    const OFFLINE: SeccompPolicy = SeccompPolicy { network: false };
    const ONLINE: SeccompPolicy = SeccompPolicy { network: true };

    fn inet_socket() -> libc::c_long {
        // SAFETY: plain syscall; the descriptor is closed when the child exits.
        libc::c_long::from(unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) })
    }

    #[test]
    fn inet_socket_is_refused_without_network() {
        let code = in_filtered_child(OFFLINE, || fails_with(inet_socket(), libc::EPERM, 2));
        assert_eq!(code, 0);
    }

    #[test]
    fn inet_socket_is_allowed_with_network() {
        let code = in_filtered_child(ONLINE, || if inet_socket() >= 0 { Ok(()) } else { Err(2) });
        assert_eq!(code, 0);
    }

    #[test]
    fn unix_sockets_and_pairs_are_allowed_without_network() {
        let code = in_filtered_child(OFFLINE, || {
            // SAFETY: plain syscalls on valid arguments.
            let fd = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) };
            if fd < 0 {
                return Err(2);
            }
            let mut pair = [0; 2];
            // SAFETY: `pair` holds the two descriptors written.
            let ret =
                unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, pair.as_mut_ptr()) };
            if ret != 0 {
                return Err(3);
            }
            // SAFETY: as above; AF_INET pairs do not exist, the filter answers first.
            let ret =
                unsafe { libc::socketpair(libc::AF_INET, libc::SOCK_STREAM, 0, pair.as_mut_ptr()) };
            fails_with(ret.into(), libc::EPERM, 4)
        });
        assert_eq!(code, 0);
    }

    #[test]
    fn ptrace_is_refused() {
        let code = in_filtered_child(ONLINE, || {
            // SAFETY: PTRACE_TRACEME takes no pointers.
            let ret = unsafe { libc::ptrace(libc::PTRACE_TRACEME, NULL, NULL, NULL) };
            fails_with(ret, libc::EPERM, 2)
        });
        assert_eq!(code, 0);
    }

    #[test]
    fn new_namespaces_are_refused() {
        let code = in_filtered_child(ONLINE, || {
            // SAFETY: plain syscall.
            let ret = unsafe { libc::unshare(libc::CLONE_NEWUSER) };
            fails_with(ret.into(), libc::EPERM, 2)?;
            let flags = (libc::CLONE_NEWNET | libc::SIGCHLD) as libc::c_long;
            // SAFETY: a fork-like clone (no stack given); a child it made would `_exit` at once.
            let ret = unsafe { libc::syscall(libc::SYS_clone, flags, NULL, NULL, NULL, NULL) };
            if ret == 0 {
                // SAFETY: ends the unexpected grandchild.
                unsafe { libc::_exit(0) };
            }
            fails_with(ret, libc::EPERM, 3)?;
            // SAFETY: clone3 is refused before the kernel reads its (null) arguments.
            let ret = unsafe { libc::syscall(libc::SYS_clone3, NULL, NULL) };
            fails_with(ret, libc::ENOSYS, 4)
        });
        assert_eq!(code, 0);
    }

    #[test]
    fn processes_still_start() {
        let code =
            in_filtered_child(OFFLINE, || match std::process::Command::new("/bin/true").status() {
                Ok(status) if status.success() => Ok(()),
                _ => Err(2),
            });
        assert_eq!(code, 0);
    }

    #[test]
    fn io_uring_is_refused() {
        const ENTRIES: libc::c_long = 1;
        // A null parameter pointer is EFAULT unfiltered (or ENOSYS/EPERM where io_uring is off).
        // SAFETY: the kernel rejects the null pointer without writing.
        let unfiltered = unsafe { libc::syscall(libc::SYS_io_uring_setup, ENTRIES, NULL) };
        assert_eq!(unfiltered, -1);
        let code = in_filtered_child(ONLINE, || {
            // SAFETY: as above.
            let ret = unsafe { libc::syscall(libc::SYS_io_uring_setup, ENTRIES, NULL) };
            fails_with(ret, libc::EPERM, 2)
        });
        assert_eq!(code, 0);
    }

    #[test]
    fn every_refused_syscall_has_a_number_here() {
        let x86_only = ["iopl", "ioperm"];
        for name in REFUSED_SYSCALLS {
            let expected = cfg!(target_arch = "x86_64") || !x86_only.contains(name);
            assert_eq!(syscall_number(name).is_some(), expected, "{name}");
        }
    }

    #[test]
    fn filters_compile_for_both_policies() {
        let arch = target_arch().unwrap();
        for policy in [OFFLINE, ONLINE] {
            let rules = refused_rules(&policy).unwrap();
            #[cfg(target_arch = "x86_64")]
            assert!(rules.contains_key(&(libc::SYS_socket | X32_SYSCALL_BIT)) != policy.network);
            compile(rules, seccompiler::SeccompAction::Errno(1), arch).unwrap();
        }
        compile(absent_rules(), seccompiler::SeccompAction::Errno(38), arch).unwrap();
    }
}
