//! bash's Linux sandbox (docs/architecture.md#the-policy-and-the-os-sandbox,
//! docs/contract.md#bash), a [`SandboxBackend`].
//!
//! [`Bubblewrap`] builds a `bwrap` argv: the whole file system read-only, the
//! policy's writable roots bound writable, its read-only carve-outs bound read-only over
//! themselves, credential locations masked, all capabilities dropped, a new PID namespace (so
//! every descendant dies with the sandbox) and a new session. Inside, an optional helper
//! ([`crate::helper`]) applies a Landlock ruleset with the same writable roots and
//! `no_new_privs` before it execs the command. The macOS backend is [`crate::seatbelt`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::backend::{Availability, SandboxBackend, SandboxError, output_within};
use crate::helper::landlock::landlock_abi;
use crate::helper::{SANDBOX_EXEC_ARG, SANDBOX_EXEC_ERROR_PREFIX, STARTED_FD};
use crate::protected::Protected;
use toolhost_policy::{NetworkAccess, SandboxPolicy};

/// Prefix of bubblewrap's own error messages on stderr.
pub const BWRAP_ERROR_PREFIX: &str = "bwrap: ";

/// Model-facing reasons for an unavailable sandbox.
pub mod reasons {
    /// bwrap is not installed.
    pub const BWRAP_MISSING: &str = "bubblewrap (bwrap) is not installed on this machine, so bash cannot run sandboxed; ask the user to install it (e.g. `apt-get install bubblewrap`)";
    /// User namespaces are refused (AppArmor on Ubuntu 24.04, or a sysctl).
    pub const USERNS_REFUSED: &str = "bubblewrap cannot create a user namespace here, so bash cannot run sandboxed; on Ubuntu 24.04 AppArmor restricts unprivileged user namespaces: ask the user to add an AppArmor profile for bwrap or set kernel.apparmor_restrict_unprivileged_userns=0 (other systems: kernel.unprivileged_userns_clone=1 / user.max_user_namespaces > 0)";
    /// Not Linux.
    pub const NOT_LINUX: &str =
        "the bubblewrap sandbox exists only on Linux, so bash cannot run sandboxed here";
    /// The Landlock helper could not run inside the sandbox.
    pub const HELPER_FAILED: &str =
        "the sandbox helper (`__sandbox-exec`) failed its self-check inside bubblewrap";
}

/// The Linux bubblewrap backend (with an optional Landlock helper inside).
#[derive(Debug)]
pub struct Bubblewrap {
    bwrap: Option<PathBuf>,
    helper: Option<PathBuf>,
    /// Why the named bubblewrap or helper binary is not trusted ([`crate::trust`]).
    untrusted: Option<String>,
    availability: OnceLock<Availability>,
    check_cache: Option<PathBuf>,
}

impl Default for Bubblewrap {
    fn default() -> Self {
        Self::new()
    }
}

impl Bubblewrap {
    /// The first trusted bubblewrap of [`crate::trust::BWRAP_CANDIDATES`] (PATH is never
    /// searched: a `bwrap` planted on it would run bash unsandboxed); no Landlock helper.
    pub fn new() -> Self {
        let (bwrap, untrusted) = match crate::trust::find_bwrap() {
            Ok(p) => (Some(p), None),
            Err(e) => (None, e.map(|e| e.to_string())),
        };
        Bubblewrap {
            bwrap,
            helper: None,
            untrusted,
            availability: OnceLock::new(),
            check_cache: None,
        }
    }

    /// Uses `bwrap` at this absolute path (`TOOLHOST_BWRAP`), if it is trusted
    /// ([`crate::trust::check_binary`]); otherwise bash is unavailable and says why.
    pub fn with_bwrap(mut self, path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        match crate::trust::check_binary(&path) {
            Ok(real) => {
                self.bwrap = Some(real);
                self.untrusted = None;
            }
            Err(crate::trust::TrustError::Missing(_)) => {
                self.bwrap = None;
                self.untrusted = None;
            }
            Err(e) => {
                self.bwrap = None;
                self.untrusted = Some(e.to_string());
            }
        }
        self
    }

    /// The bubblewrap binary in use, if one was found and trusted.
    pub fn bwrap_path(&self) -> Option<&Path> {
        self.bwrap.as_deref()
    }

    /// Remember a passed self-check in `file`, keyed by the bwrap and helper binaries (path,
    /// size, mtime) and the kernel release, so a warm start does not launch a sandbox just
    /// to learn it works. A failed check is never remembered: it is re-run every time.
    pub fn with_check_cache(mut self, file: impl Into<PathBuf>) -> Self {
        self.check_cache = Some(file.into());
        self
    }

    fn check_key(&self) -> Option<String> {
        let stamp = |p: &Path| {
            let m = std::fs::metadata(p).ok()?;
            let mtime = m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
            Some(format!("{}:{}:{}", p.display(), m.len(), mtime))
        };
        let bwrap = stamp(self.bwrap.as_deref()?)?;
        let helper = match &self.helper {
            Some(h) => stamp(h)?,
            None => "no-helper".to_string(),
        };
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        Some(format!("v1\n{bwrap}\n{helper}\n{}\n", kernel.trim()))
    }

    fn cached_or_checked(&self) -> Availability {
        let key = self.check_key();
        if let (Some(file), Some(key)) = (&self.check_cache, &key)
            && std::fs::read_to_string(file).ok().as_deref() == Some(key.as_str())
        {
            return Availability::Available;
        }
        let result = self.self_check();
        if let (Some(file), Some(key), Availability::Available) = (&self.check_cache, &key, &result)
        {
            if let Some(dir) = file.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = std::fs::write(file, key);
        }
        result
    }

    /// Runs commands through `helper __sandbox-exec --writable … -- argv` inside bwrap, which
    /// applies Landlock before exec. `helper` is normally the host binary itself; it must be
    /// trusted like bubblewrap ([`crate::trust::check_binary`]), or bash is unavailable.
    pub fn with_landlock_helper(mut self, helper: impl Into<PathBuf>) -> Self {
        let helper = helper.into();
        match crate::trust::check_binary(&helper) {
            Ok(real) => self.helper = Some(real),
            Err(e) => {
                self.helper = Some(helper);
                self.untrusted.get_or_insert(format!("the Landlock helper {e}"));
            }
        }
        self
    }

    /// The bwrap options for `policy` (everything before `--`): the mount plan of
    /// [`crate::mounts`], then a new PID namespace, a new network namespace unless the policy
    /// allows the network, a new session and no capabilities.
    pub fn bwrap_args(
        &self,
        policy: &SandboxPolicy,
        cwd: &Path,
        protected: &Protected,
    ) -> Vec<OsString> {
        // The helper must stay runnable where another user's home is masked (a toolhost
        // built under `/root` and run with another HOME).
        let shown: Vec<PathBuf> = self.helper.iter().cloned().collect();
        let mut a = crate::mounts::mount_args_showing(policy, protected, &shown);
        // A boxed call may have emptied the directory the helper lives in (HOME): bind it back.
        if let Some(h) = self
            .helper
            .as_ref()
            .filter(|h| policy.boxed_away_dirs().iter().any(|d| h.starts_with(d)))
        {
            a.extend([
                "--ro-bind".into(),
                h.as_os_str().to_os_string(),
                h.as_os_str().to_os_string(),
            ]);
        }
        a.push("--unshare-pid".into());
        if policy.network() == NetworkAccess::Deny {
            a.push("--unshare-net".into());
        }
        for x in ["--die-with-parent", "--new-session", "--cap-drop", "ALL"] {
            a.push(x.into());
        }
        if self.helper.is_some() {
            // The helper alone holds it, to empty the bounding set before the command runs.
            a.push("--cap-add".into());
            a.push("CAP_SETPCAP".into());
        }
        a.push("--chdir".into());
        a.push(cwd.as_os_str().to_os_string());
        a
    }

    fn self_check(&self) -> Availability {
        if !cfg!(target_os = "linux") {
            return Availability::Unavailable { reason: reasons::NOT_LINUX.into() };
        }
        if let Some(why) = &self.untrusted {
            return Availability::Unavailable { reason: why.clone() };
        }
        let Some(bwrap) = &self.bwrap else {
            return Availability::Unavailable { reason: reasons::BWRAP_MISSING.into() };
        };
        let mut cmd = std::process::Command::new(bwrap);
        cmd.args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid"])
            .args(["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--"]);
        match &self.helper {
            Some(h) => {
                cmd.arg(h).args([SANDBOX_EXEC_ARG, "--", "true"]);
            }
            None => {
                cmd.arg("true");
            }
        }
        cmd.stdin(std::process::Stdio::null()).env_clear();
        if let Some(p) = std::env::var_os("PATH") {
            cmd.env("PATH", p);
        }
        match output_within(
            &mut cmd,
            std::time::Duration::from_millis(toolhost_limits::SANDBOX_SELF_CHECK_TIMEOUT_MS),
        ) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Availability::Unavailable { reason: reasons::BWRAP_MISSING.into() }
            }
            Err(e) => Availability::Unavailable {
                reason: format!("bubblewrap could not be started: {e}"),
            },
            Ok(out) if out.status.success() => Availability::Available,
            Ok(out) => {
                let err = String::from_utf8_lossy(&out.stderr);
                let err = err.trim();
                let userns = [
                    "uid map",
                    "user namespace",
                    "namespace",
                    "Operation not permitted",
                    "No permissions",
                ];
                if err.starts_with(SANDBOX_EXEC_ERROR_PREFIX) {
                    Availability::Unavailable {
                        reason: format!("{}: {err}", reasons::HELPER_FAILED),
                    }
                } else if userns.iter().any(|k| err.contains(k)) {
                    Availability::Unavailable {
                        reason: format!("{} ({err})", reasons::USERNS_REFUSED),
                    }
                } else {
                    Availability::Unavailable {
                        reason: format!("the bubblewrap self-check failed ({}): {err}", out.status),
                    }
                }
            }
        }
    }
}

impl SandboxBackend for Bubblewrap {
    fn wrap(
        &self,
        policy: &SandboxPolicy,
        argv: Vec<OsString>,
        cwd: &Path,
        protected: &Protected,
    ) -> Result<Vec<OsString>, SandboxError> {
        let Some(bwrap) = &self.bwrap else {
            return Err(SandboxError::Unavailable(reasons::BWRAP_MISSING.into()));
        };
        let roots = policy.writable_roots();
        for binary in std::iter::once(bwrap).chain(&self.helper) {
            crate::trust::check_outside_roots(binary, &roots)
                .map_err(|e| SandboxError::Unavailable(e.to_string()))?;
        }
        let mut out = vec![bwrap.clone().into_os_string()];
        out.extend(self.bwrap_args(policy, cwd, protected));
        out.push("--".into());
        if let Some(h) = &self.helper {
            out.push(h.clone().into_os_string());
            out.push(SANDBOX_EXEC_ARG.into());
            out.push("--started-fd".into());
            out.push(STARTED_FD.to_string().into());
            let mut roots = policy.writable_roots();
            roots.retain(|r| r.exists());
            for r in roots {
                out.push("--writable".into());
                out.push(r.into_os_string());
            }
            out.push("--".into());
        }
        out.extend(argv);
        Ok(out)
    }

    fn available(&self) -> Availability {
        self.availability.get_or_init(|| self.cached_or_checked()).clone()
    }

    fn started_fd(&self) -> Option<i32> {
        self.helper.as_ref().map(|_| STARTED_FD)
    }

    fn describe(&self) -> &'static str {
        "bubblewrap with --cap-drop ALL, Landlock inside"
    }

    fn report(&self, policy: &SandboxPolicy) -> Vec<String> {
        use crate::cgroup::Support;
        let mut out = Vec::new();
        if let Some(b) = &self.bwrap {
            out.push(format!(
                "bubblewrap: {} (trusted: only root or you can write it)",
                b.display()
            ));
        }
        out.push(crate::backend::network_line(policy));
        let abi = landlock_abi();
        out.push(format!(
            "sockets: the session's pathname sockets hidden (/run/user, $XDG_RUNTIME_DIR, sockets under /tmp, /run, /dev/shm); abstract sockets {}",
            match (policy.network(), abi >= 6) {
                (NetworkAccess::Deny, _) => "left behind with the network namespace",
                (NetworkAccess::Allow, true) => "scoped away by Landlock",
                (NetworkAccess::Allow, false) => "REACHABLE: the network is allowed and Landlock here is older than ABI 6",
            }
        ));
        out.push(format!(
            "landlock: {}",
            if abi > 0 { format!("ABI {abi} (writes limited to the writable roots; signals and abstract sockets scoped from ABI 6)") } else { "off (this kernel has no Landlock; bubblewrap alone fences bash)".into() }
        ));
        let limits = policy.limits();
        let off = |why: &str| {
            format!(
                "limits: OFF — {why}; a fork bomb or a runaway allocation in bash is bounded only by the machine"
            )
        };
        out.push(match (crate::cgroup::detect(), crate::cgroup::verify()) {
            (Support::Unavailable(why), _) => off(why),
            (_, Err(why)) => off(&format!("cannot make a call cgroup ({why})")),
            (Support::V2(_), Ok(())) => format!(
                "limits: on (cgroup v2 per call: {} processes, {} MiB)",
                limits.pids, limits.memory_mib
            ),
            (Support::V1 { .. }, Ok(())) => format!(
                "limits: on (cgroup v1 per call: {} processes, {} MiB)",
                limits.pids, limits.memory_mib
            ),
        });
        out
    }

    fn runner_failure(
        &self,
        exit_code: Option<i32>,
        stderr_start: &[u8],
        started: bool,
    ) -> Option<String> {
        match exit_code {
            Some(1) if !started && stderr_start.starts_with(BWRAP_ERROR_PREFIX.as_bytes()) => {
                Some(String::from_utf8_lossy(stderr_start).lines().next().unwrap_or("").to_string())
            }
            _ => crate::helper::helper_failure(exit_code, stderr_start, started),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_policy::{PolicyConfig, SandboxMode};

    #[test]
    fn bwrap_argv_has_the_mandatory_options() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(base.join("ws/.git/hooks")).unwrap();
        std::fs::create_dir_all(base.join("home/.ssh")).unwrap();
        std::fs::write(base.join("home/.netrc"), "x").unwrap();
        let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, base.join("ws"))
            .home(base.join("home"))
            .config(PolicyConfig { temp_dir: Some(base.join("ws")), ..Default::default() })
            .build();
        let b = Bubblewrap::new().with_bwrap("/usr/bin/bwrap").with_landlock_helper("/opt/helper");
        let protected = crate::protected::scan(&policy).unwrap();
        let argv = b
            .wrap(
                &policy,
                vec!["/bin/bash".into(), "-c".into(), "true".into()],
                &base.join("ws"),
                &protected,
            )
            .unwrap();
        let s: Vec<String> = argv.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let joined = s.join(" ");
        let ws = base.join("ws").display().to_string();
        for needle in [
            "/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc".to_string(),
            format!("--bind {ws} {ws}"),
            format!("--bind-try {ws}/.git {ws}/.git"),
            format!("--ro-bind-try {ws}/.git/hooks {ws}/.git/hooks"),
            format!("--perms 0000 --tmpfs {}/home/.ssh", base.display()),
            format!("--ro-bind /dev/null {}/home/.netrc", base.display()),
            format!(
                "--unshare-pid --unshare-net --die-with-parent --new-session --cap-drop ALL --cap-add CAP_SETPCAP --chdir {ws} -- /opt/helper __sandbox-exec --started-fd 3 --writable {ws} -- /bin/bash -c true"
            ),
        ] {
            assert!(joined.contains(&needle), "{needle}\nnot in\n{joined}");
        }
    }

    #[test]
    fn runner_failures_are_recognized_only_from_the_runner() {
        let b = Bubblewrap::new();
        assert!(
            b.runner_failure(Some(1), b"bwrap: Can't mkdir /x: Read-only file system\n", false)
                .is_some()
        );
        assert!(
            b.runner_failure(Some(125), b"toolhost-sandbox-exec: cannot run x\n", false).is_some()
        );
        assert!(b.runner_failure(Some(1), b"grep: x: No such file\n", false).is_none());
        assert!(b.runner_failure(Some(0), b"bwrap: hi\n", false).is_none());
        assert!(b.runner_failure(Some(1), b"bwrap: the command's own\n", true).is_none());
        assert!(b.runner_failure(Some(2), b"bwrap: x\n", false).is_none());
        assert!(
            b.runner_failure(Some(125), b"toolhost-sandbox-exec: the command's own\n", true)
                .is_none(),
            "after the sandbox started, the helper's text is the command's"
        );
    }
}
