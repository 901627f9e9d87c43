//! The Linux helper bash's command runs under, inside bubblewrap: `toolhost __sandbox-exec
//! --writable P … [--started-fd N] -- argv…` (or the small `toolhost-sandbox-exec` binary)
//! applies a Landlock ruleset with the policy's writable roots ([`landlock`]), sets
//! `no_new_privs`, drops every capability ([`capabilities`]), tells the host it started, and
//! execs the command. For the host's runs it forks first and waits for the command, then
//! tells the host how the command ended ([`reported_signal`]). Its own failures are a [`HelperError`], printed after
//! [`SANDBOX_EXEC_ERROR_PREFIX`] with exit code [`SANDBOX_EXEC_FAILURE_EXIT`].

pub mod capabilities;
pub mod landlock;
pub mod seccomp;

use std::ffi::OsString;
use std::path::PathBuf;

use self::landlock::apply_landlock;

/// Why the helper could not start the command (its text follows [`SANDBOX_EXEC_ERROR_PREFIX`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HelperError {
    /// Its arguments are not `--writable P … [--started-fd N] -- argv…`.
    #[error("invalid {SANDBOX_EXEC_ARG} arguments: {0}")]
    Args(String),
    /// Nothing to run.
    #[error("no command to run")]
    NoCommand,
    /// The kernel refused the Landlock ruleset.
    #[error("Landlock could not be applied: {0}")]
    Landlock(String),
    /// A capability could not be dropped.
    #[error("{0}")]
    Capabilities(String),
}

/// The argument that selects the Landlock helper mode of the host binary
/// (`toolhost __sandbox-exec --writable P … -- argv…`).
pub const SANDBOX_EXEC_ARG: &str = "__sandbox-exec";

/// The helper argument that selects the Landlock tier (`crate::landlock_tier`): the helper
/// then confines the command itself, with no bubblewrap around it.
pub const TIER_ARG: &str = "--tier-landlock";

/// Exit code of the helper when it fails before the command starts.
pub const SANDBOX_EXEC_FAILURE_EXIT: i32 = 125;

/// Prefix of the helper's own error messages on stderr.
pub const SANDBOX_EXEC_ERROR_PREFIX: &str = "toolhost-sandbox-exec: ";

/// What follows [`SANDBOX_EXEC_ERROR_PREFIX`] when the sandbox was set up (and said so on
/// the started descriptor) but the command itself could not be executed (no such program,
/// not executable): the command's failure, not the sandbox's.
pub const EXEC_FAILED: &str = "cannot run ";

/// The descriptor the helper writes [`STARTED`] to once Landlock is applied, right before it
/// execs the command: the host then knows any later `bwrap: ` or helper text is the
/// command's own. The descriptor is close-on-exec: when the exec fails, the helper writes
/// [`EXEC_FAILED_MARK`] after it, which no command can (it never sees the descriptor).
pub const STARTED_FD: i32 = 3;

/// The byte written to [`STARTED_FD`] once the sandbox is set up.
pub const STARTED: u8 = b'1';

/// The byte written to [`STARTED_FD`] after [`STARTED`] when the command could not be
/// executed.
pub const EXEC_FAILED_MARK: u8 = b'E';

/// The byte the waiting helper writes to [`STARTED_FD`] when the command exited by itself,
/// followed by one byte: its exit code.
pub const EXITED_MARK: u8 = b'X';

/// The byte the waiting helper writes to [`STARTED_FD`] when a signal killed the command,
/// followed by one byte: the signal's number. bubblewrap itself reports such an end as exit
/// code 128 + N, which a program can also exit with by itself; this record is how the host
/// tells the two apart ([`reported_signal`]).
pub const SIGNALLED_MARK: u8 = b'S';

/// The helper's own failure (its first line), when a run ended with `exit_code` and stderr
/// beginning `stderr_start` before the helper said the sandbox `started`: the helper fails
/// only before that; after it, its text and exit code can only be the command's own.
pub fn helper_failure(
    exit_code: Option<i32>,
    stderr_start: &[u8],
    started: bool,
) -> Option<String> {
    (exit_code == Some(SANDBOX_EXEC_FAILURE_EXIT)
        && !started
        && stderr_start.starts_with(SANDBOX_EXEC_ERROR_PREFIX.as_bytes()))
    .then(|| String::from_utf8_lossy(stderr_start).lines().next().unwrap_or("").to_string())
}

/// The signal that killed the command, from what the helper wrote to [`STARTED_FD`]:
/// [`STARTED`], then (the command having started) [`SIGNALLED_MARK`] and the number. Only the
/// helper holds that descriptor (the command never sees it), so nothing the command does can
/// make this say a signal ended it; a helper that could not report (killed itself) says
/// nothing, and the exit code is all there is.
pub fn reported_signal(marks: &[u8]) -> Option<i32> {
    match marks {
        [STARTED, SIGNALLED_MARK, signal, ..] if *signal > 0 => Some(i32::from(*signal)),
        _ => None,
    }
}

/// Parses the helper's arguments (everything after [`SANDBOX_EXEC_ARG`]):
/// `--writable PATH`… `--` `argv…`.
pub fn parse_sandbox_exec_args(args: &[OsString]) -> Result<HelperArgs, HelperError> {
    let mut writable = Vec::new();
    let mut started_fd = None;
    let mut tier: Option<TierArgs> = None;
    let number = |i: usize, name: &str| -> Result<u64, HelperError> {
        args.get(i + 1)
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or_else(|| HelperError::Args(format!("`{name}` needs a number")))
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            let argv = args[i + 1..].to_vec();
            if argv.is_empty() {
                return Err(HelperError::Args("no command after `--`".into()));
            }
            return Ok(HelperArgs { writable, argv, started_fd, tier });
        } else if a == TIER_ARG {
            tier.get_or_insert_with(TierArgs::default);
            i += 1;
        } else if a == "--network" {
            tier.get_or_insert_with(TierArgs::default).network = true;
            i += 1;
        } else if a == "--read" {
            let p =
                args.get(i + 1).ok_or_else(|| HelperError::Args("`--read` needs a path".into()))?;
            tier.get_or_insert_with(TierArgs::default).read.push(PathBuf::from(p));
            i += 2;
        } else if a == "--max-processes" {
            tier.get_or_insert_with(TierArgs::default).max_processes =
                Some(number(i, "--max-processes")?);
            i += 2;
        } else if a == "--max-memory-mib" {
            tier.get_or_insert_with(TierArgs::default).max_memory_mib =
                Some(number(i, "--max-memory-mib")?);
            i += 2;
        } else if a == "--started-fd" {
            let fd = args
                .get(i + 1)
                .and_then(|f| f.to_str())
                .and_then(|f| f.parse::<i32>().ok())
                .filter(|f| *f > 2);
            started_fd = Some(fd.ok_or_else(|| {
                HelperError::Args("`--started-fd` needs a descriptor number above 2".into())
            })?);
            i += 2;
        } else if a == "--writable" {
            let p = args
                .get(i + 1)
                .ok_or_else(|| HelperError::Args("`--writable` needs a path".into()))?;
            writable.push(PathBuf::from(p));
            i += 2;
        } else {
            return Err(HelperError::Args(format!("unexpected argument {}", a.to_string_lossy())));
        }
    }
    Err(HelperError::Args("missing `--` before the command".into()))
}

/// The helper's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelperArgs {
    /// Roots Landlock keeps writable.
    pub writable: Vec<PathBuf>,
    /// The command.
    pub argv: Vec<OsString>,
    /// Where to write one byte once Landlock is applied, right before exec ([`STARTED_FD`]).
    pub started_fd: Option<i32>,
    /// The Landlock tier's settings ([`crate::landlock_tier`]); none: inside bubblewrap.
    pub tier: Option<TierArgs>,
}

/// What the Landlock tier adds to the helper's run: the trees readable, the network, the
/// process limits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TierArgs {
    /// Trees the command may read and execute.
    pub read: Vec<PathBuf>,
    /// TCP and sockets other than unix ones are allowed.
    pub network: bool,
    /// `RLIMIT_NPROC`: processes of the user at once.
    pub max_processes: Option<u64>,
    /// `RLIMIT_DATA` of each process (its writable private memory), in MiB.
    pub max_memory_mib: Option<u64>,
}

/// Applies Landlock for `writable`, then execs `argv`. On failure prints
/// `toolhost-sandbox-exec: …` to stderr and exits with [`SANDBOX_EXEC_FAILURE_EXIT`].
///
/// With a `started_fd` (the host's runs) the helper first forks: the child sets up the
/// sandbox and execs the command, and the helper waits for it and writes how it ended to
/// the descriptor ([`EXITED_MARK`] or [`SIGNALLED_MARK`] and one byte), then exits as
/// bubblewrap would report it (the code, or 128 + the signal). The waiting helper stays
/// outside the command's Landlock domain (which scopes signals from ABI 6, so the command
/// cannot signal it there), is not dumpable (its descriptors cannot be reopened through
/// `/proc`), holds no capability, and ignores every signal it can.
pub fn landlock_exec(args: &HelperArgs) -> ! {
    if args.argv.is_empty() {
        fail(HelperError::NoCommand);
    }
    #[cfg(target_os = "linux")]
    if let Some(fd) = args.started_fd {
        // The Landlock tier has no PID namespace to end the command's processes with it:
        // every process it leaves behind is re-parented to the waiting helper (a subreaper),
        // which kills them all once the command ended.
        if args.tier.is_some() {
            // SAFETY: prctl on this process only.
            unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
        }
        // SAFETY: the helper is single-threaded (its mode runs first thing in `main`), so
        // the child may go on to allocate and exec.
        match unsafe { libc::fork() } {
            -1 => fail(format!("cannot fork: {}", std::io::Error::last_os_error())),
            0 => sandbox_and_exec(args),
            child => wait_and_report(child, fd, args.tier.is_some()),
        }
    }
    sandbox_and_exec(args)
}

/// Kill every process left that this (subreaper) process is the parent of, and reap them,
/// until none is left.
#[cfg(target_os = "linux")]
fn kill_leftovers() {
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    for _ in 0..1_000 {
        let children = children_of(me);
        if children.is_empty() {
            return;
        }
        for pid in children {
            // SAFETY: kill on a process whose parent this process is.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        let mut status = 0;
        // SAFETY: reaping this process's own children, into a local.
        while unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) } > 0 {}
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// The processes whose parent is `parent` (from `/proc/*/stat`).
#[cfg(target_os = "linux")]
fn children_of(parent: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<libc::pid_t>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else { continue };
        // `pid (comm) state ppid …`; comm may hold spaces and parentheses: split after the last `)`.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse::<libc::pid_t>().ok());
        if ppid == Some(parent) {
            out.push(pid);
        }
    }
    out
}

/// The waiting helper: reaps `child` (the command), writes how it ended to `fd`, and exits as
/// bubblewrap would report that end.
#[cfg(target_os = "linux")]
fn wait_and_report(child: libc::pid_t, fd: i32, kill_rest: bool) -> ! {
    // SAFETY: prctl and signal on this process only; SIGCHLD keeps its default disposition
    // (ignoring it would reap the child before waitpid sees it), SIGKILL and SIGSTOP cannot
    // be ignored.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        for signal in 1..32 {
            if !matches!(signal, libc::SIGCHLD | libc::SIGKILL | libc::SIGSTOP) {
                libc::signal(signal, libc::SIG_IGN);
            }
        }
    }
    let _ = capabilities::drop_every_capability();
    let mut status = 0;
    loop {
        // SAFETY: waitpid on this process's own child, into a local.
        let rc = unsafe { libc::waitpid(child, &mut status, 0) };
        if rc == child {
            break;
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            fail(format!("waiting for the command failed: {}", std::io::Error::last_os_error()));
        }
    }
    if kill_rest {
        kill_leftovers();
    }
    let (record, code) = if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        ([SIGNALLED_MARK, signal as u8], 128 + signal)
    } else {
        let code = libc::WEXITSTATUS(status);
        ([EXITED_MARK, code as u8], code)
    };
    // SAFETY: two bytes from a local buffer to the descriptor the host handed down.
    unsafe {
        libc::write(fd, record.as_ptr().cast(), record.len());
    }
    std::process::exit(code)
}

/// Landlock (and, for the Landlock tier, the process limits and the seccomp filter), no
/// capabilities, [`STARTED`] on `started_fd`, then exec `argv` (the command).
fn sandbox_and_exec(args: &HelperArgs) -> ! {
    use std::os::unix::process::CommandExt;
    let (argv, started_fd) = (&args.argv, args.started_fd);
    match &args.tier {
        None => {
            if let Err(e) = apply_landlock(&args.writable) {
                fail(e);
            }
        }
        Some(tier) => apply_tier(&args.writable, tier),
    }
    if let Err(e) = capabilities::drop_every_capability() {
        fail(e);
    }
    if let Some(fd) = started_fd {
        // SAFETY: writing one byte to a descriptor the host handed down for exactly this,
        // then marking it close-on-exec: the command never sees it.
        unsafe {
            libc::write(fd, [STARTED].as_ptr().cast(), 1);
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
    }
    let e = std::process::Command::new(&argv[0]).args(&argv[1..]).exec();
    if let Some(fd) = started_fd {
        // SAFETY: as above; the exec failed, so this process still owns the descriptor.
        unsafe {
            libc::write(fd, [EXEC_FAILED_MARK].as_ptr().cast(), 1);
        }
    }
    fail(format!("{EXEC_FAILED}{}: {e}", argv[0].to_string_lossy()))
}

/// The helper mode's entry: `args` are everything after [`SANDBOX_EXEC_ARG`]. Call it first
/// thing in `main`, before any runtime or thread starts.
pub fn sandbox_exec_main(args: Vec<OsString>) -> ! {
    match parse_sandbox_exec_args(&args) {
        Ok(h) => landlock_exec(&h),
        Err(e) => fail(e),
    }
}

/// The Landlock tier's set-up of the command's process: the limits, the Landlock ruleset
/// (which must be enforced: a kernel without Landlock runs nothing), the seccomp filter.
fn apply_tier(writable: &[PathBuf], tier: &TierArgs) {
    #[cfg(target_os = "linux")]
    {
        let limit = |resource, value: u64| {
            let l = libc::rlimit { rlim_cur: value, rlim_max: value };
            // SAFETY: setrlimit on this process with a local struct.
            if unsafe { libc::setrlimit(resource, &l) } != 0 {
                fail(format!("cannot set a process limit: {}", std::io::Error::last_os_error()));
            }
        };
        if let Some(n) = tier.max_processes {
            limit(libc::RLIMIT_NPROC, n);
        }
        if let Some(mib) = tier.max_memory_mib {
            limit(libc::RLIMIT_DATA, mib.saturating_mul(1024 * 1024));
        }
        limit(libc::RLIMIT_CORE, 0);
        match self::landlock::apply_tier(&tier.read, writable, tier.network) {
            Ok(self::landlock::LandlockStatus::NotEnforced) => {
                fail(HelperError::Landlock("this kernel does not enforce it".into()))
            }
            Ok(_) => {}
            Err(e) => fail(e),
        }
        if let Err(e) =
            self::seccomp::apply_seccomp(&self::seccomp::SeccompPolicy { network: tier.network })
        {
            fail(HelperError::Landlock(format!("the seccomp filter could not be applied: {e}")));
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (writable, tier);
        fail(HelperError::Landlock("the Landlock tier exists only on Linux".into()));
    }
}

/// Says `toolhost-sandbox-exec: {msg}` on stderr (the helper's one channel to the host, which
/// tells it from the command's text by the started descriptor) and exits with
/// [`SANDBOX_EXEC_FAILURE_EXIT`].
#[allow(clippy::print_stderr)]
fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("{SANDBOX_EXEC_ERROR_PREFIX}{msg}");
    std::process::exit(SANDBOX_EXEC_FAILURE_EXIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helper_args_parse() {
        let a = |xs: &[&str]| xs.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            parse_sandbox_exec_args(&a(&["--writable", "/w", "--", "/bin/bash", "-c", "x"]))
                .unwrap(),
            HelperArgs {
                writable: vec![PathBuf::from("/w")],
                argv: a(&["/bin/bash", "-c", "x"]),
                started_fd: None,
                tier: None,
            }
        );
        let tier = parse_sandbox_exec_args(&a(&[
            "--tier-landlock",
            "--read",
            "/usr",
            "--network",
            "--max-processes",
            "64",
            "--",
            "x",
        ]))
        .unwrap()
        .tier
        .unwrap();
        assert_eq!(tier.read, [PathBuf::from("/usr")]);
        assert!(tier.network);
        assert_eq!((tier.max_processes, tier.max_memory_mib), (Some(64), None));
        assert!(parse_sandbox_exec_args(&a(&["--max-processes", "many", "--", "x"])).is_err());
        assert_eq!(
            parse_sandbox_exec_args(&a(&["--started-fd", "3", "--", "x"])).unwrap().started_fd,
            Some(3)
        );
        assert!(parse_sandbox_exec_args(&a(&["--started-fd", "1", "--", "x"])).is_err());
        assert!(parse_sandbox_exec_args(&a(&["--writable"])).is_err());
        assert!(parse_sandbox_exec_args(&a(&["--", ""][..1])).is_err());
        assert!(parse_sandbox_exec_args(&a(&["--bogus", "--", "x"])).is_err());
    }

    #[test]
    fn only_the_helpers_record_after_the_start_reports_a_signal() {
        assert_eq!(reported_signal(&[STARTED, SIGNALLED_MARK, 9]), Some(9));
        assert_eq!(reported_signal(&[STARTED, SIGNALLED_MARK, 6, 0]), Some(6));
        assert_eq!(reported_signal(&[STARTED, EXITED_MARK, 137]), None);
        assert_eq!(reported_signal(&[STARTED, EXEC_FAILED_MARK, EXITED_MARK, 125]), None);
        assert_eq!(reported_signal(&[SIGNALLED_MARK, 9]), None, "never started");
        assert_eq!(reported_signal(&[STARTED]), None, "the helper could not report");
        assert_eq!(reported_signal(&[]), None);
    }
}
