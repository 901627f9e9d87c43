//! The seam between bash and the OS sandbox (docs/architecture.md#the-policy-and-the-os-sandbox,
//! docs/contract.md#bash): a [`SandboxBackend`] wraps an argv so that it runs under the call's
//! [`SandboxPolicy`]; it never starts the command itself. [`crate::bwrap::Bubblewrap`] is the Linux
//! backend, [`crate::seatbelt::Seatbelt`] the macOS one.

use std::ffi::OsString;
use std::path::Path;

use crate::protected::Protected;
use toolhost_policy::SandboxPolicy;

/// Why a sandbox could not be built or entered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// The sandbox cannot be used (the reason is model-facing).
    #[error("sandbox unavailable: {0}")]
    Unavailable(String),
    /// A path the policy names cannot be written into the sandbox's rules.
    #[error("the sandbox cannot express this path: {0}")]
    UnsupportedPath(String),
}

/// Whether the sandbox works here, and if not, why and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    /// The self-check passed: bash may run.
    Available,
    /// bash cannot run; `reason` says why and what to do (model-facing).
    Unavailable { reason: String },
}

impl Availability {
    /// True when bash may run.
    pub fn is_available(&self) -> bool {
        matches!(self, Availability::Available)
    }
}

/// Wraps argv so that it runs inside the OS sandbox; never starts processes
/// (docs/architecture.md#the-policy-and-the-os-sandbox).
pub trait SandboxBackend: Send + Sync {
    /// The argv that runs `argv` in `cwd` under `policy`, pinning what `protected` (the scan
    /// of the policy's writable roots, [`crate::protected::scan`]) found.
    fn wrap(
        &self,
        policy: &SandboxPolicy,
        argv: Vec<OsString>,
        cwd: &Path,
        protected: &Protected,
    ) -> Result<Vec<OsString>, SandboxError>;

    /// The self-check verdict (computed once).
    fn available(&self) -> Availability;

    /// When a wrapped run ended with `exit_code` and its stderr began with `stderr_start`,
    /// did the sandbox runner fail itself before the command started? Returns its message.
    /// `started`: the runner said, through [`SandboxBackend::started_fd`], that the command
    /// was about to start (so its own `bwrap: ` text is never taken for the runner's).
    fn runner_failure(
        &self,
        exit_code: Option<i32>,
        stderr_start: &[u8],
        started: bool,
    ) -> Option<String> {
        let _ = (exit_code, stderr_start, started);
        None
    }

    /// The descriptor number the runner writes to once the sandbox is set up, if it does.
    fn started_fd(&self) -> Option<i32> {
        None
    }

    /// What this sandbox is, in a few words for `doctor` ("bubblewrap with …").
    fn describe(&self) -> &'static str {
        "an OS sandbox"
    }

    /// Which tier runs the commands, for `doctor` and `--json` results: `full` (bubblewrap,
    /// Seatbelt), `landlock` (no namespaces: [`crate::landlock_tier`]) or `none`.
    fn tier(&self) -> &'static str {
        "full"
    }

    /// Whether git metadata and sensitive files in the writable roots stay writable during a
    /// run, so that the run must put them back afterwards ([`crate::protected::Snapshot`]).
    fn restores_protected(&self) -> bool {
        false
    }

    /// `doctor`'s lines for `policy`: the runner binary, then each isolation (network,
    /// sockets, limits, …) on or off with the reason.
    fn report(&self, policy: &SandboxPolicy) -> Vec<String> {
        let _ = policy;
        Vec::new()
    }
}

/// `doctor`'s network line, the same for every backend: whether bash and the programs it
/// runs reach the network, and how an operator changes it, in plain words.
pub(crate) fn network_line(policy: &SandboxPolicy) -> String {
    let file = policy.policy_file_shown();
    match policy.network() {
        toolhost_policy::NetworkAccess::Deny => format!(
            "network: off — bash and every program it runs have no network: no DNS, no downloads (cargo, npm, pip, git fetch), no service on localhost. To allow it for every call, put \"network\": \"allow\" in {file}; for one call, the model asks with bash's sandboxPermissions.network and a person approves it."
        ),
        toolhost_policy::NetworkAccess::Allow => format!(
            "network: ON for every bash call ({file} says \"network\": \"allow\"; remove it to turn the network off)"
        ),
    }
}

/// Runs `cmd` to completion like [`std::process::Command::output`], but kills it once
/// `limit` has passed (a hanging `bwrap` or `sandbox-exec` must not hang toolhost): a timeout is an error.
pub(crate) fn output_within(
    cmd: &mut std::process::Command,
    limit: std::time::Duration,
) -> std::io::Result<std::process::Output> {
    use std::io::Read;
    let mut child =
        cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn()?;
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            let mut stdout = Vec::new();
            let mut stderr = Vec::new();
            if let Some(mut o) = child.stdout.take() {
                let _ = o.read_to_end(&mut stdout);
            }
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_end(&mut stderr);
            }
            return Ok(std::process::Output { status, stdout, stderr });
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("it did not finish within {} ms", limit.as_millis()),
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
