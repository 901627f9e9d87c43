//! The process backend (docs/contract.md#cancellation-and-deadlines): starts an argv in its own
//! process group with stdin on `/dev/null`, a cleared environment and `kill_on_drop`, captures
//! stdout and stderr as they arrive, and ends it through one [`terminate`] shared by timeout and
//! cancellation.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::future::Future;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::capture::{Capture, Stream};

/// A boxed future, so [`ProcessBackend`] can be used as `dyn`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Called once per chunk read, with the stream it came from.
pub type ProgressFn = Arc<dyn Fn(Stream, &[u8]) + Send + Sync>;

/// How long [`terminate`] waits for the killed process before the outcome is unknown.
pub const TERMINATE_WAIT: Duration = Duration::from_secs(10);

/// How long the pipe readers may take to reach end-of-file after the process ended (a
/// descendant outside the group may hold a pipe); then they are aborted and joined.
pub const READER_GRACE: Duration = Duration::from_secs(2);

/// Size of one pipe read.
const READ_CHUNK: usize = 64 * 1024;

/// What to run.
pub struct ProcessRequest {
    /// argv[0] is the program.
    pub argv: Vec<OsString>,
    pub cwd: PathBuf,
    /// The whole environment of the process (nothing is inherited).
    pub env: BTreeMap<String, String>,
    pub timeout: Duration,
    pub cancel: CancellationToken,
    /// Where output past 16 KiB is saved; the file is created only then.
    pub spill_path: Option<PathBuf>,
    pub progress: Option<ProgressFn>,
    /// `cgroup.procs` files the child joins between fork and exec (its per-call cgroup).
    pub cgroup_procs: Vec<PathBuf>,
    /// A descriptor number the child gets the write end of a pipe at; whatever the process
    /// tree writes there before the pipe closes sets [`ProcessOutcome::started`] (the sandbox
    /// helper writes once the sandbox is set up, just before it execs the command).
    pub started_fd: Option<i32>,
}

/// How the process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessEnd {
    /// It exited by itself (`code`), or was killed by a signal nobody here sent.
    Exited { code: Option<i32>, signal: Option<i32> },
    /// The timeout fired and the group was terminated.
    TimedOut,
    /// The token was cancelled and the group was terminated.
    Cancelled,
    /// It could not be started.
    SpawnFailed(String),
    /// Reading its output failed.
    PipeFailed(String),
    /// Termination was attempted but not confirmed.
    OutcomeUnknown(String),
}

/// The end, the captured output and the wall time.
#[derive(Debug)]
pub struct ProcessOutcome {
    pub end: ProcessEnd,
    pub output: Capture,
    pub duration: Duration,
    /// The runner wrote [`crate::helper::STARTED`] to [`ProcessRequest::started_fd`]: the
    /// sandbox was set up.
    pub started: bool,
    /// ... and then [`crate::helper::EXEC_FAILED_MARK`]: the command itself could not be
    /// executed (its reason is the runner's line on stderr).
    pub exec_failed: bool,
    /// ... or the runner waited for the command and says a signal killed it
    /// ([`crate::helper::reported_signal`]): the process the host waited for (bubblewrap)
    /// can only report that as an exit code of 128 + N.
    pub reported_signal: Option<i32>,
}

/// Starts processes (docs/architecture.md#the-policy-and-the-os-sandbox); the only way bash's argv
/// is run.
pub trait ProcessBackend: Send + Sync {
    /// Runs `request` to its end.
    fn run(&self, request: ProcessRequest) -> BoxFuture<'_, ProcessOutcome>;
}

/// Sends the kill to a process group; injectable so tests can make termination fail.
pub trait GroupKiller: Send + Sync {
    /// SIGKILL to every process in group `pgid`.
    fn kill_group(&self, pgid: u32) -> io::Result<()>;
}

/// The real [`GroupKiller`]: `killpg(pgid, SIGKILL)`.
#[derive(Debug, Default, Clone, Copy)]
pub struct SigkillGroup;

impl GroupKiller for SigkillGroup {
    fn kill_group(&self, pgid: u32) -> io::Result<()> {
        let pgid =
            libc::pid_t::try_from(pgid).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        // SAFETY: killpg has no memory-safety preconditions.
        if unsafe { libc::killpg(pgid, libc::SIGKILL) } == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

/// The tokio process backend.
#[derive(Clone)]
pub struct TokioProcessBackend {
    killer: Arc<dyn GroupKiller>,
}

impl Default for TokioProcessBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl TokioProcessBackend {
    /// With the real [`SigkillGroup`].
    pub fn new() -> Self {
        TokioProcessBackend { killer: Arc::new(SigkillGroup) }
    }

    /// With another killer (tests force `outcome_unknown` with a failing one).
    pub fn with_killer(killer: Arc<dyn GroupKiller>) -> Self {
        TokioProcessBackend { killer }
    }
}

impl ProcessBackend for TokioProcessBackend {
    fn run(&self, request: ProcessRequest) -> BoxFuture<'_, ProcessOutcome> {
        Box::pin(run(self.killer.clone(), request))
    }
}

/// Why [`terminate`] could not confirm that a process group ended: the outcome is unknown.
#[derive(Debug, thiserror::Error)]
pub enum TerminateError {
    /// SIGKILL to the group failed (other than `ESRCH`).
    #[error("killing process group {pgid} failed: {source}")]
    Kill { pgid: u32, source: std::io::Error },
    /// Waiting for the child after SIGKILL failed.
    #[error("waiting for process {pgid} after SIGKILL failed: {source}")]
    Wait { pgid: u32, source: std::io::Error },
    /// The child did not exit in time.
    #[error("process {pgid} did not exit within {secs} s of SIGKILL")]
    NoExit { pgid: u32, secs: u64 },
}

/// Ends a process group: SIGKILL to the group, then wait for the child. `ESRCH` (the group
/// is already gone) counts as terminated; any other kill or wait failure is an error, and
/// the outcome is unknown.
pub async fn terminate(
    killer: &dyn GroupKiller,
    child: &mut tokio::process::Child,
    pgid: u32,
) -> Result<(), TerminateError> {
    match killer.kill_group(pgid) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
        Err(e) => {
            // Best effort on the direct child; the group's fate stays unknown.
            let _ = child.start_kill();
            return Err(TerminateError::Kill { pgid, source: e });
        }
    }
    match tokio::time::timeout(TERMINATE_WAIT, child.wait()).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(TerminateError::Wait { pgid, source: e }),
        Err(_) => Err(TerminateError::NoExit { pgid, secs: TERMINATE_WAIT.as_secs() }),
    }
}

async fn read_pipe<R: tokio::io::AsyncRead + Unpin>(
    mut pipe: R,
    stream: Stream,
    tx: Chunks,
) -> io::Result<()> {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        let n = pipe.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        if tx.send((stream, buf[..n].to_vec())).await.is_err() {
            return Ok(());
        }
    }
}

/// The chunks read from the child's pipes, on their way to the [`Capture`].
type Chunks = mpsc::Sender<(Stream, Vec<u8>)>;

async fn run(killer: Arc<dyn GroupKiller>, req: ProcessRequest) -> ProcessOutcome {
    let start = Instant::now();
    let (tx, consumer) = capture_output(&req);
    let (mut child, marker_read) = match start_child(&req) {
        Ok(started) => started,
        Err(end) => {
            drop(tx);
            return outcome(start, end, consumer.await);
        }
    };
    let pgid = child.id().unwrap_or(0);
    let mut readers = Vec::new();
    if let Some(out) = child.stdout.take() {
        readers.push(tokio::spawn(read_pipe(out, Stream::Stdout, tx.clone())));
    }
    if let Some(err) = child.stderr.take() {
        readers.push(tokio::spawn(read_pipe(err, Stream::Stderr, tx.clone())));
    }
    drop(tx);
    let mut end = wait_for_end(killer.as_ref(), &mut child, pgid, &req).await;
    join_readers(readers, &mut end).await;
    let mut outcome = outcome(start, end, consumer.await);
    let marks = marker_read.map(|fd| marker_bytes(&fd)).unwrap_or_default();
    outcome.started = marks.first() == Some(&crate::helper::STARTED);
    outcome.exec_failed = outcome.started && marks.get(1) == Some(&crate::helper::EXEC_FAILED_MARK);
    outcome.reported_signal = crate::helper::reported_signal(&marks);
    outcome
}

/// The capture the pipes' chunks go to, on a blocking thread (progress is reported from
/// there, chunk by chunk), and the sender the pipe readers use.
fn capture_output(req: &ProcessRequest) -> (Chunks, tokio::task::JoinHandle<Capture>) {
    let (tx, mut rx) = mpsc::channel::<(Stream, Vec<u8>)>(16);
    let progress = req.progress.clone();
    let spill_path = req.spill_path.clone();
    let consumer = tokio::task::spawn_blocking(move || {
        let mut cap = Capture::new(spill_path);
        while let Some((stream, chunk)) = rx.blocking_recv() {
            if let Some(p) = &progress {
                p(stream, &chunk);
            }
            cap.push(stream, &chunk);
        }
        cap
    });
    (tx, consumer)
}

/// The outcome of a run that ended with `end` (started: none yet); the spill of a run that
/// never ran or whose end is unsure is dropped.
fn outcome(
    start: Instant,
    end: ProcessEnd,
    cap: Result<Capture, tokio::task::JoinError>,
) -> ProcessOutcome {
    let mut output = cap.unwrap_or_else(|_| Capture::new(None));
    if matches!(
        end,
        ProcessEnd::SpawnFailed(_) | ProcessEnd::PipeFailed(_) | ProcessEnd::OutcomeUnknown(_)
    ) {
        output.discard_spill();
    }
    ProcessOutcome {
        end,
        output,
        duration: start.elapsed(),
        started: false,
        exec_failed: false,
        reported_signal: None,
    }
}

/// Starts `req`'s argv (with the start marker's pipe when it asks for one): the child, and the
/// marker's read end.
fn start_child(
    req: &ProcessRequest,
) -> Result<(tokio::process::Child, Option<std::os::fd::OwnedFd>), ProcessEnd> {
    let Some(program) = req.argv.first() else {
        return Err(ProcessEnd::SpawnFailed("empty argv".into()));
    };
    let marker = match req.started_fd {
        Some(_) => Some(marker_pipe().map_err(|e| {
            ProcessEnd::SpawnFailed(format!("cannot make the start marker pipe: {e}"))
        })?),
        None => None,
    };
    let marker_dup =
        req.started_fd.zip(marker.as_ref().map(|(_, w)| std::os::fd::AsRawFd::as_raw_fd(w)));
    let child = command(req, program, marker_dup)
        .spawn()
        .map_err(|e| ProcessEnd::SpawnFailed(format!("{}: {e}", program.to_string_lossy())))?;
    // Only the child's copy of the marker's write end may remain.
    let marker_read = marker.map(|(read, write)| {
        drop(write);
        read
    });
    Ok((child, marker_read))
}

/// The command for `req`: its own process group, a cleared environment, stdin on
/// `/dev/null`, piped output, `kill_on_drop`; between fork and exec the marker's write end
/// goes to its number (`marker_dup`: the number, the write end), every other inherited
/// descriptor is marked close-on-exec and the child joins its cgroups.
fn command(
    req: &ProcessRequest,
    program: &std::ffi::OsStr,
    marker_dup: Option<(i32, i32)>,
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(&req.argv[1..])
        .current_dir(&req.cwd)
        .env_clear()
        .envs(&req.env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    // Descriptors this process inherited without close-on-exec (a log file, a socket, a
    // pipe of whoever started toolhost) must not reach the command: a sandboxed command
    // could write through one to anything it names. Every descriptor from `first_closed` up
    // is marked close-on-exec in the child (the marker, dup'd to its number, stays).
    let first_closed = marker_dup.map_or(3, |(target, _)| target.max(2) + 1);
    let open_max = open_max();
    let files: Vec<std::ffi::CString> = req
        .cgroup_procs
        .iter()
        .filter_map(|p| {
            std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str())).ok()
        })
        .collect();
    // SAFETY: between fork and exec only dup2/close_range/fcntl/open/write/close run
    // (async-signal-safe), on values made before the fork.
    unsafe {
        cmd.pre_exec(move || {
            if let Some((target, write_end)) = marker_dup {
                // dup2 onto itself keeps close-on-exec: clear it by hand then.
                let kept = if write_end == target {
                    libc::fcntl(target, libc::F_SETFD, 0)
                } else {
                    libc::dup2(write_end, target)
                };
                if kept < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            close_inherited_on_exec(first_closed, open_max);
            for f in &files {
                let fd = libc::open(f.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    return Err(io::Error::last_os_error());
                }
                let ok = libc::write(fd, b"0".as_ptr().cast(), 1) == 1;
                let err = io::Error::last_os_error();
                libc::close(fd);
                if !ok {
                    return Err(err);
                }
            }
            Ok(())
        });
    }
    cmd
}

/// Waits for the child, its timeout or its cancel, whichever comes first; the latter two
/// (and a failed wait) end its group through [`terminate`].
async fn wait_for_end(
    killer: &dyn GroupKiller,
    child: &mut tokio::process::Child,
    pgid: u32,
    req: &ProcessRequest,
) -> ProcessEnd {
    tokio::select! {
        status = child.wait() => match status {
            Ok(s) => {
                // Sweep what the command left behind in its group; errors do not matter here.
                let _ = killer.kill_group(pgid);
                ProcessEnd::Exited { code: s.code(), signal: s.signal() }
            }
            Err(e) => match terminate(killer, child, pgid).await {
                Ok(()) => ProcessEnd::PipeFailed(format!("waiting for the process failed: {e}")),
                Err(t) => ProcessEnd::OutcomeUnknown(format!("waiting for the process failed: {e}; {t}")),
            },
        },
        _ = tokio::time::sleep(req.timeout) => match terminate(killer, child, pgid).await {
            Ok(()) => ProcessEnd::TimedOut,
            Err(t) => ProcessEnd::OutcomeUnknown(t.to_string()),
        },
        _ = req.cancel.cancelled() => match terminate(killer, child, pgid).await {
            Ok(()) => ProcessEnd::Cancelled,
            Err(t) => ProcessEnd::OutcomeUnknown(t.to_string()),
        },
    }
}

/// Joins both pipe readers, aborting them if a stray descendant keeps a pipe open; a read
/// that failed makes an exit a [`ProcessEnd::PipeFailed`].
async fn join_readers(readers: Vec<tokio::task::JoinHandle<io::Result<()>>>, end: &mut ProcessEnd) {
    let grace = tokio::time::Instant::now() + READER_GRACE;
    for mut reader in readers {
        let result = match tokio::time::timeout_at(grace, &mut reader).await {
            Ok(r) => r,
            Err(_) => {
                reader.abort();
                reader.await
            }
        };
        if let Ok(Err(e)) = result
            && matches!(end, ProcessEnd::Exited { .. })
        {
            *end = ProcessEnd::PipeFailed(format!("reading the output failed: {e}"));
        }
    }
}

/// The highest descriptor number to consider when `close_range` is missing.
fn open_max() -> i32 {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) };
    if n <= 0 { 1024 } else { n.min(1 << 20) as i32 }
}

/// Marks every descriptor from `first` up close-on-exec (in the child, between fork and
/// exec): `close_range(CLOSE_RANGE_CLOEXEC)` where the kernel has it (Linux 5.11), else
/// `fcntl` on each number below `open_max`. Nothing here allocates.
fn close_inherited_on_exec(first: i32, open_max: i32) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a plain syscall on numbers; no memory is touched.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_close_range,
                first as libc::c_uint,
                libc::c_uint::MAX,
                libc::CLOSE_RANGE_CLOEXEC,
            )
        };
        if rc == 0 {
            return;
        }
    }
    for fd in first..open_max {
        // SAFETY: fcntl on a number: EBADF for one that is not open, harmless.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 && flags & libc::FD_CLOEXEC == 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
}

/// A pipe (read end, write end), both close-on-exec and non-blocking; the child's `dup2`
/// copy is not close-on-exec.
fn marker_pipe() -> io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0i32; 2];
    // SAFETY: pipe2/pipe write two descriptors into the array.
    #[cfg(target_os = "linux")]
    let made = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) };
    #[cfg(not(target_os = "linux"))]
    let made = unsafe { libc::pipe(fds.as_mut_ptr()) };
    if made != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: two fresh descriptors owned by nothing else.
    let pipe = unsafe {
        (std::os::fd::OwnedFd::from_raw_fd(fds[0]), std::os::fd::OwnedFd::from_raw_fd(fds[1]))
    };
    // macOS has no pipe2: set the flags after the fact (a child spawned by another thread in
    // between could inherit the marker pipe; it carries one byte and nothing else).
    #[cfg(not(target_os = "linux"))]
    for fd in [&pipe.0, &pipe.1] {
        let fd = std::os::fd::AsRawFd::as_raw_fd(fd);
        // SAFETY: fcntl on a descriptor this function owns.
        let ok = unsafe {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) == 0
                && libc::fcntl(fd, libc::F_SETFL, libc::fcntl(fd, libc::F_GETFL) | libc::O_NONBLOCK)
                    == 0
        };
        if !ok {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(pipe)
}

/// What was written to the marker pipe (non-blocking read): the start byte, and what the
/// runner says after it (at most [`MARKER_BYTES`]).
fn marker_bytes(read: &std::os::fd::OwnedFd) -> Vec<u8> {
    let mut bytes = [0u8; MARKER_BYTES];
    // SAFETY: reading at most MARKER_BYTES bytes into a local buffer of that size from an
    // open descriptor (the pipe is non-blocking, and every writer is gone: the process tree
    // has ended).
    let n = unsafe {
        libc::read(std::os::fd::AsRawFd::as_raw_fd(read), bytes.as_mut_ptr().cast(), MARKER_BYTES)
    };
    bytes[..n.max(0) as usize].to_vec()
}

/// The most bytes of the marker pipe read: the start, an exec failure, and the runner's
/// two-byte record of how the command ended, with room to spare.
const MARKER_BYTES: usize = 8;
