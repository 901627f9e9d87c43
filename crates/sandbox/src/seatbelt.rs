//! bash's macOS sandbox (docs/contract.md#bash), a [`SandboxBackend`]: Seatbelt, through
//! `sandbox-exec`.
//!
//! [`Seatbelt::wrap`] turns `/bin/bash -c <command>` into
//! `/usr/bin/sandbox-exec -p <profile> -D WORKSPACE=<workspace> -- /bin/bash -c <command>`:
//! the profile is [`profile::call_profile`] of the call's policy and its protected-entry scan,
//! with every path written into it as a literal (so `WORKSPACE` names the workspace for
//! whoever reads the argv; no rule depends on it). `sandbox-exec` is always the system's, at
//! [`SANDBOX_EXEC`] on the sealed system volume, never one found on PATH. The working
//! directory is inherited from the process backend, which starts bash in the workspace.
//!
//! The self-check ([`SandboxBackend::available`]) runs `sandbox-exec` twice with a timeout:
//! with `(version 1)(allow default)` (does Seatbelt work here at all: it does not nest, so
//! toolhost inside another Seatbelt sandbox fails here), and with a generated profile (does
//! macOS accept what toolhost writes). A refused access under the profile is `EPERM`, which
//! tools print as "Operation not permitted", one of [`crate::bash::DENIAL_SIGNS`]: such a
//! call is marked `sandbox_denied` like a bubblewrap one.
//!
//! `sandbox-exec` reports its own failures on stderr as `sandbox-exec: …` with exit 65 (the
//! profile was rejected) or 71 (`sandbox_apply` or the exec of bash failed): those are
//! runner failures ([`SandboxBackend::runner_failure`]), `sandbox_unavailable`. Unlike the
//! bubblewrap helper, nothing inside tells the host the command started, so a command that
//! itself prints `sandbox-exec: …` first on stderr and exits 65 or 71 (a nested
//! `sandbox-exec`) is taken for one too: it is reported as not run.

pub mod profile;

use std::ffi::OsString;
use std::path::Path;
use std::sync::OnceLock;

pub use profile::{call_profile, seatbelt_profile};

use crate::backend::{Availability, SandboxBackend, SandboxError, output_within};
use crate::policy::{NetworkAccess, SandboxMode, SandboxPolicy};
use crate::scan::Protected;

/// The one `sandbox-exec` toolhost runs (macOS's own, on the read-only system volume).
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// Prefix of `sandbox-exec`'s own error messages on stderr
/// (`sandbox-exec: sandbox_apply: Operation not permitted`).
pub const SANDBOX_EXEC_ERROR_PREFIX: &str = "sandbox-exec: ";

/// `sandbox-exec`'s exit codes for its own failures: 65 (`EX_DATAERR`: the profile was
/// rejected, e.g. `unbound variable`) and 71 (`EX_OSERR`: `sandbox_apply` failed, or the
/// exec of the command did).
pub const SANDBOX_EXEC_FAILURE_EXITS: &[i32] = &[65, 71];

/// The `-D` parameter that carries the workspace.
pub const WORKSPACE_PARAM: &str = "WORKSPACE";

/// The profile of the first self-check: Seatbelt applies at all.
const TRIVIAL_PROFILE: &str = "(version 1)(allow default)";

/// The command both self-checks run.
const CHECK_COMMAND: &str = "/usr/bin/true";

/// Model-facing reasons for an unavailable Seatbelt sandbox.
pub mod reasons {
    /// Not macOS.
    pub const NOT_MACOS: &str = "the Seatbelt sandbox (sandbox-exec) exists only on macOS, so bash cannot run sandboxed here";
    /// `/usr/bin/sandbox-exec` is missing.
    pub const MISSING: &str = "/usr/bin/sandbox-exec is missing, so bash cannot run sandboxed; it ships with macOS: ask the user to check the system installation";
    /// Seatbelt cannot be applied (usually: toolhost already runs inside a sandbox).
    pub const REFUSED: &str = "sandbox-exec cannot apply a sandbox here, so bash cannot run sandboxed; macOS does not nest Seatbelt sandboxes: ask the user to run toolhost outside any other sandbox (an app's, or another agent's)";
    /// macOS rejected or mis-ran the profile toolhost generated.
    pub const PROFILE_REJECTED: &str = "sandbox-exec does not run a trivial command under the profile toolhost generated, so bash cannot run sandboxed; this is a toolhost bug: ask the user to report it with `toolhost doctor`'s output";
}

/// The macOS Seatbelt backend.
#[derive(Debug, Default)]
pub struct Seatbelt {
    availability: OnceLock<Availability>,
}

impl Seatbelt {
    /// The backend over [`SANDBOX_EXEC`]; nothing is checked until [`SandboxBackend::available`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The `sandbox-exec` argv for `profile` around `argv` (everything but the profile is
    /// fixed: the absolute binary, the workspace parameter, `--`).
    pub fn argv(profile: String, workspace: &str, argv: Vec<OsString>) -> Vec<OsString> {
        let mut out: Vec<OsString> =
            vec![SANDBOX_EXEC.into(), "-p".into(), profile.into(), "-D".into()];
        out.push(format!("{WORKSPACE_PARAM}={workspace}").into());
        out.push("--".into());
        out.extend(argv);
        out
    }

    fn self_check(&self) -> Availability {
        if !cfg!(target_os = "macos") {
            return Availability::Unavailable { reason: reasons::NOT_MACOS.into() };
        }
        if !Path::new(SANDBOX_EXEC).is_file() {
            return Availability::Unavailable { reason: reasons::MISSING.into() };
        }
        let run = |profile: &str| {
            let mut cmd = std::process::Command::new(SANDBOX_EXEC);
            cmd.args(["-p", profile, "-D", &format!("{WORKSPACE_PARAM}=/"), "--", CHECK_COMMAND]);
            cmd.stdin(std::process::Stdio::null()).env_clear();
            let limit =
                std::time::Duration::from_millis(toolhost_limits::SANDBOX_SELF_CHECK_TIMEOUT_MS);
            match output_within(&mut cmd, limit) {
                Ok(out) if out.status.success() => Ok(()),
                Ok(out) => {
                    Err(format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr).trim()))
                }
                Err(e) => Err(format!("sandbox-exec could not be run: {e}")),
            }
        };
        if let Err(e) = run(TRIVIAL_PROFILE) {
            return Availability::Unavailable { reason: format!("{} ({e})", reasons::REFUSED) };
        }
        // A read-only policy over the root: every rule kind the generator writes, no grant.
        let probe = SandboxPolicy::builder(SandboxMode::ReadOnly, "/").build();
        let profile = match call_profile(&probe, &Protected::default()) {
            Ok(p) => p,
            Err(e) => {
                return Availability::Unavailable {
                    reason: format!("{} ({e})", reasons::PROFILE_REJECTED),
                };
            }
        };
        match run(&profile) {
            Ok(()) => Availability::Available,
            Err(e) => {
                Availability::Unavailable { reason: format!("{} ({e})", reasons::PROFILE_REJECTED) }
            }
        }
    }
}

impl SandboxBackend for Seatbelt {
    fn wrap(
        &self,
        policy: &SandboxPolicy,
        argv: Vec<OsString>,
        _cwd: &Path,
        protected: &Protected,
    ) -> Result<Vec<OsString>, SandboxError> {
        crate::trust::check_outside_roots(Path::new(SANDBOX_EXEC), &policy.writable_roots())
            .map_err(|e| SandboxError::Unavailable(e.to_string()))?;
        let workspace = policy.workspace().to_str().ok_or_else(|| {
            SandboxError::UnsupportedPath(policy.workspace().display().to_string())
        })?;
        Ok(Self::argv(call_profile(policy, protected)?, workspace, argv))
    }

    fn available(&self) -> Availability {
        self.availability.get_or_init(|| self.self_check()).clone()
    }

    fn runner_failure(
        &self,
        exit_code: Option<i32>,
        stderr_start: &[u8],
        _started: bool,
    ) -> Option<String> {
        let code = exit_code?;
        if !SANDBOX_EXEC_FAILURE_EXITS.contains(&code)
            || !stderr_start.starts_with(SANDBOX_EXEC_ERROR_PREFIX.as_bytes())
        {
            return None;
        }
        Some(String::from_utf8_lossy(stderr_start).lines().next().unwrap_or("").to_string())
    }

    fn describe(&self) -> &'static str {
        "Seatbelt: /usr/bin/sandbox-exec with a deny-default profile from each call's policy"
    }

    fn report(&self, policy: &SandboxPolicy) -> Vec<String> {
        let mut out =
            vec![format!("sandbox-exec: {SANDBOX_EXEC} (macOS's own; PATH is never searched)")];
        match policy.network() {
            NetworkAccess::Deny => {
                out.push("network: off (the Seatbelt profile allows no network operation; policy.json \"network\": \"allow\" or an approved sandboxPermissions.network turns it on)".into());
                out.push("sockets: unreachable (connecting to a unix socket is a network operation, denied with the network)".into());
            }
            NetworkAccess::Allow => {
                out.push(
                    "network: ON for every bash call (policy.json says \"network\": \"allow\")"
                        .into(),
                );
                out.push("sockets: REACHABLE: with the network allowed, bash can connect to every unix socket the user can (agents, multiplexers)".into());
            }
        }
        out.push(
            "mach services: all reachable (the profile allows mach-lookup; see docs/security.md)"
                .into(),
        );
        out.push("limits: OFF — Seatbelt has no per-call process or memory limit; a fork bomb or a runaway allocation in bash is bounded only by the machine".into());
        out
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::policy::{Access, Grant, PolicyConfig, SandboxMode, Scope};

    #[test]
    fn wrap_builds_the_golden_argv() {
        let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, "/golden/ws")
            .home("/golden/home")
            .data_dir("/golden/ws/.toolhost")
            .config(PolicyConfig { temp_dir: Some("/golden/tmp".into()), ..Default::default() })
            .build()
            .with_grants([
                Grant {
                    path: "/golden/ws/.env".into(),
                    access: Access::Write,
                    scope: Scope::Exact,
                },
                Grant {
                    path: "/golden/home/.ssh/known_hosts".into(),
                    access: Access::Read,
                    scope: Scope::Exact,
                },
            ]);
        let protected = Protected {
            entries: ["/golden/ws/.env", "/golden/ws/.git", "/golden/ws/.git/config"]
                .map(PathBuf::from)
                .to_vec(),
            git_dirs: ["/golden/ws/.git", "/golden/ws/modules-git"].map(PathBuf::from).to_vec(),
            data_dirs: Vec::new(),
        };
        let argv = Seatbelt::new()
            .wrap(
                &policy,
                vec!["/bin/bash".into(), "-c".into(), "echo hi".into()],
                Path::new("/golden/ws"),
                &protected,
            )
            .unwrap();
        let argv: Vec<String> = argv.iter().map(|a| a.to_str().unwrap().to_string()).collect();
        assert_eq!(argv[..2], ["/usr/bin/sandbox-exec", "-p"]);
        assert_eq!(argv[3..], ["-D", "WORKSPACE=/golden/ws", "--", "/bin/bash", "-c", "echo hi"]);
        assert_eq!(argv[2], GOLDEN_CALL_PROFILE);
    }

    const GOLDEN_CALL_PROFILE: &str = r#"(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow file-read* (require-not (require-any
    (subpath "/etc/shadow")
    (subpath "/etc/shadow-")
    (subpath "/etc/gshadow")
    (subpath "/etc/gshadow-")
    (subpath "/etc/sudoers")
    (subpath "/etc/sudoers.d")
    (subpath "/etc/security/opasswd")
    (subpath "/run/secrets")
    (subpath "/var/run/secrets")
    (subpath "/golden/home/.ssh")
    (subpath "/golden/home/.gnupg")
    (subpath "/golden/home/.aws")
    (subpath "/golden/home/.azure")
    (subpath "/golden/home/.config/gcloud")
    (subpath "/golden/home/.kube")
    (subpath "/golden/home/.docker")
    (subpath "/golden/home/.netrc")
    (subpath "/golden/home/.git-credentials")
    (subpath "/golden/home/.config/gh")
    (subpath "/golden/home/.cargo/credentials.toml")
    (subpath "/golden/home/.cargo/credentials")
    (subpath "/golden/home/.npmrc")
    (subpath "/golden/home/.pypirc")
    (subpath "/golden/home/.claude/.credentials.json")
    (subpath "/golden/home/.claude.json")
    (subpath "/golden/home/.codex/auth.json")
    (subpath "/golden/home/.config/github-copilot")
    (subpath "/golden/home/.copilot")
    (subpath "/golden/home/.gemini")
    (subpath "/golden/home/.vault-token")
    (subpath "/golden/home/.pgpass")
    (subpath "/golden/home/.my.cnf")
    (subpath "/golden/home/.terraform.d/credentials.tfrc.json")
    (subpath "/golden/home/.m2/settings.xml")
    (subpath "/golden/home/.m2/settings-security.xml")
    (subpath "/golden/home/.gradle/gradle.properties")
    (subpath "/golden/home/.config/rclone")
    (subpath "/golden/home/.gem/credentials")
    (subpath "/golden/home/.config/hub")
    (subpath "/golden/home/.local/share/keyrings")
    (subpath "/golden/home/.password-store")
    (subpath "/golden/home/.config/op")
    (subpath "/golden/home/.yarnrc")
    (subpath "/golden/home/.yarnrc.yml")
    (subpath "/golden/home/.bundle/config")
    (subpath "/golden/home/.composer/auth.json")
    (subpath "/golden/home/.config/composer/auth.json")
    (subpath "/golden/home/.nuget/NuGet/NuGet.Config")
    (subpath "/golden/home/.config/NuGet/NuGet.Config")
    (subpath "/golden/home/.s3cfg")
    (subpath "/golden/home/.boto")
    (subpath "/golden/home/.oci")
    (subpath "/golden/home/.config/doctl")
    (subpath "/golden/home/.config/hcloud")
    (subpath "/golden/home/.pki")
    (subpath "/golden/home/.mozilla")
    (subpath "/golden/home/.config/google-chrome")
    (subpath "/golden/home/.config/chromium")
    (subpath "/golden/home/.cache/huggingface/token")
    (subpath "/golden/home/.bash_history")
    (subpath "/golden/home/.zsh_history")
    (subpath "/golden/home/.python_history")
    (subpath "/golden/home/.psql_history")
    (subpath "/golden/home/.mysql_history")
    (subpath "/golden/home/.node_repl_history")
    (subpath "/golden/home/.sqlite_history")
    (subpath "/golden/home/.lesshst")
    (subpath "/golden/home/.viminfo")
    (require-all (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.") (require-not (require-any
      (regex #"^/golden/home/\.bashrc(/|$)")
      (regex #"^/golden/home/\.bash_profile(/|$)")
      (regex #"^/golden/home/\.bash_login(/|$)")
      (regex #"^/golden/home/\.bash_logout(/|$)")
      (regex #"^/golden/home/\.profile(/|$)")
      (regex #"^/golden/home/\.zshrc(/|$)")
      (regex #"^/golden/home/\.zshenv(/|$)")
      (regex #"^/golden/home/\.zprofile(/|$)")
      (regex #"^/golden/home/\.zlogin(/|$)")
      (regex #"^/golden/home/\.zlogout(/|$)")
      (regex #"^/golden/home/\.inputrc(/|$)")
      (regex #"^/golden/home/\.vimrc(/|$)")
      (regex #"^/golden/home/\.exrc(/|$)")
      (regex #"^/golden/home/\.editorconfig(/|$)")
      (regex #"^/golden/home/\.tmux\.conf(/|$)")
      (regex #"^/golden/home/\.gitconfig(/|$)")
      (regex #"^/golden/home/\.gitignore_global(/|$)")
      (regex #"^/golden/home/\.config/git(/|$)")
      (regex #"^/golden/home/\.config/fish(/|$)")
      (regex #"^/golden/home/\.config/nvim(/|$)")
      (regex #"^/golden/home/\.cargo/bin(/|$)")
      (regex #"^/golden/home/\.cargo/registry(/|$)")
      (regex #"^/golden/home/\.cargo/git(/|$)")
      (regex #"^/golden/home/\.rustup(/|$)")
      (regex #"^/golden/home/\.m2/repository(/|$)")
      (regex #"^/golden/home/\.gradle/caches(/|$)")
      (regex #"^/golden/home/\.gradle/wrapper(/|$)")
      (regex #"^/golden/home/\.ivy2/cache(/|$)")
      (regex #"^/golden/home/\.sdkman/candidates(/|$)")
      (regex #"^/golden/home/\.npm(/|$)")
      (regex #"^/golden/home/\.nvm/versions(/|$)")
      (regex #"^/golden/home/\.nvm/nvm\.sh(/|$)")
      (regex #"^/golden/home/\.yarn/berry/cache(/|$)")
      (regex #"^/golden/home/\.bun/bin(/|$)")
      (regex #"^/golden/home/\.bun/install/cache(/|$)")
      (regex #"^/golden/home/\.deno(/|$)")
      (regex #"^/golden/home/\.volta/tools(/|$)")
      (regex #"^/golden/home/\.pyenv/versions(/|$)")
      (regex #"^/golden/home/\.pyenv/shims(/|$)")
      (regex #"^/golden/home/\.local/lib/python[^/]+(/|$)")
      (regex #"^/golden/home/\.local/bin(/|$)")
      (regex #"^/golden/home/\.local/share/uv(/|$)")
      (regex #"^/golden/home/\.local/share/pipx(/|$)")
      (regex #"^/golden/home/\.local/share/virtualenvs(/|$)")
      (regex #"^/golden/home/\.local/share/pnpm(/|$)")
      (regex #"^/golden/home/\.rbenv/versions(/|$)")
      (regex #"^/golden/home/\.nuget/packages(/|$)")
      (regex #"^/golden/home/\.dotnet/tools(/|$)")
      (regex #"^/golden/home/\.ghcup/bin(/|$)")
      (regex #"^/golden/home/\.cabal/packages(/|$)")
      (regex #"^/golden/home/\.elan/toolchains(/|$)")
      (regex #"^/golden/home/\.julia/packages(/|$)")
      (regex #"^/golden/home/\.cache/pip(/|$)")
      (regex #"^/golden/home/\.cache/uv(/|$)")
      (regex #"^/golden/home/\.cache/pypoetry(/|$)")
      (regex #"^/golden/home/\.cache/go-build(/|$)")
      (regex #"^/golden/home/\.cache/yarn(/|$)")
      (regex #"^/golden/home/\.cache/pnpm(/|$)")
      (regex #"^/golden/home/\.cache/node-gyp(/|$)")
      (regex #"^/golden/home/\.cache/ms-playwright(/|$)")
      (regex #"^/golden/home/\.cache/pre-commit(/|$)")
      (regex #"^/golden/home/\.cache/sccache(/|$)")
      (regex #"^/golden/home/\.cache/bazel(/|$)")
      (regex #"^/golden/home/\.cache/deno(/|$)")
      (regex #"^/golden/home/\.cache/typescript(/|$)")
      (regex #"^/golden/home/\.cache/coursier(/|$)"))))
    (regex #"^/etc/ssh/[^/]+_key$")
    (subpath "/golden/ws/.toolhost/toolhost.db")
    (subpath "/golden/ws/.toolhost/toolhost.db-wal")
    (subpath "/golden/ws/.toolhost/toolhost.db-shm")
    (subpath "/golden/ws/.toolhost/toolhost.db-journal")
    (subpath "/golden/ws/.toolhost/policy.json")
    (subpath "/golden/ws/.toolhost/data-dirs")
    (subpath "/golden/ws/.toolhost/cache")
    (subpath "/golden/ws/.toolhost/mcp-token")
    (subpath "/golden/ws/.toolhost/tools")
    (subpath "/golden/ws/.toolhost/tools.json")
    (subpath "/golden/ws/.toolhost/locks")
    (subpath "/private/etc/shadow")
    (subpath "/private/etc/shadow-")
    (subpath "/private/etc/gshadow")
    (subpath "/private/etc/gshadow-")
    (subpath "/private/etc/sudoers")
    (subpath "/private/etc/sudoers.d")
    (subpath "/private/etc/security/opasswd")
    (subpath "/private/var/run/secrets")
    (regex #"^/private/etc/ssh/[^/]+_key$")
    (regex #"^/[eE][tT][cC]/[sS][hH][aA][dD][oO][wW](/|$)")
    (regex #"^/[eE][tT][cC]/[sS][hH][aA][dD][oO][wW]-(/|$)")
    (regex #"^/[eE][tT][cC]/[gG][sS][hH][aA][dD][oO][wW](/|$)")
    (regex #"^/[eE][tT][cC]/[gG][sS][hH][aA][dD][oO][wW]-(/|$)")
    (regex #"^/[eE][tT][cC]/[sS][uU][dD][oO][eE][rR][sS](/|$)")
    (regex #"^/[eE][tT][cC]/[sS][uU][dD][oO][eE][rR][sS]\.[dD](/|$)")
    (regex #"^/[eE][tT][cC]/[sS][eE][cC][uU][rR][iI][tT][yY]/[oO][pP][aA][sS][sS][wW][dD](/|$)")
    (regex #"^/[rR][uU][nN]/[sS][eE][cC][rR][eE][tT][sS](/|$)")
    (regex #"^/[vV][aA][rR]/[rR][uU][nN]/[sS][eE][cC][rR][eE][tT][sS](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[sS][sS][hH](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[gG][nN][uU][pP][gG](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[aA][wW][sS](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[aA][zZ][uU][rR][eE](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[gG][cC][lL][oO][uU][dD](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[kK][uU][bB][eE](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[dD][oO][cC][kK][eE][rR](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[nN][eE][tT][rR][cC](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[gG][iI][tT]-[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[gG][hH](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][aA][rR][gG][oO]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]\.[tT][oO][mM][lL](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][aA][rR][gG][oO]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[nN][pP][mM][rR][cC](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][yY][pP][iI][rR][cC](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][lL][aA][uU][dD][eE]/\.[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]\.[jJ][sS][oO][nN](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][lL][aA][uU][dD][eE]\.[jJ][sS][oO][nN](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][dD][eE][xX]/[aA][uU][tT][hH]\.[jJ][sS][oO][nN](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[gG][iI][tT][hH][uU][bB]-[cC][oO][pP][iI][lL][oO][tT](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][pP][iI][lL][oO][tT](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[gG][eE][mM][iI][nN][iI](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[vV][aA][uU][lL][tT]-[tT][oO][kK][eE][nN](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][gG][pP][aA][sS][sS](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[mM][yY]\.[cC][nN][fF](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[tT][eE][rR][rR][aA][fF][oO][rR][mM]\.[dD]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]\.[tT][fF][rR][cC]\.[jJ][sS][oO][nN](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[mM]2/[sS][eE][tT][tT][iI][nN][gG][sS]\.[xX][mM][lL](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[mM]2/[sS][eE][tT][tT][iI][nN][gG][sS]-[sS][eE][cC][uU][rR][iI][tT][yY]\.[xX][mM][lL](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[gG][rR][aA][dD][lL][eE]/[gG][rR][aA][dD][lL][eE]\.[pP][rR][oO][pP][eE][rR][tT][iI][eE][sS](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[rR][cC][lL][oO][nN][eE](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[gG][eE][mM]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[hH][uU][bB](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[lL][oO][cC][aA][lL]/[sS][hH][aA][rR][eE]/[kK][eE][yY][rR][iI][nN][gG][sS](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][aA][sS][sS][wW][oO][rR][dD]-[sS][tT][oO][rR][eE](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[oO][pP](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[yY][aA][rR][nN][rR][cC](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[yY][aA][rR][nN][rR][cC]\.[yY][mM][lL](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[bB][uU][nN][dD][lL][eE]/[cC][oO][nN][fF][iI][gG](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][mM][pP][oO][sS][eE][rR]/[aA][uU][tT][hH]\.[jJ][sS][oO][nN](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[cC][oO][mM][pP][oO][sS][eE][rR]/[aA][uU][tT][hH]\.[jJ][sS][oO][nN](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[nN][uU][gG][eE][tT]/[nN][uU][gG][eE][tT]/[nN][uU][gG][eE][tT]\.[cC][oO][nN][fF][iI][gG](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[nN][uU][gG][eE][tT]/[nN][uU][gG][eE][tT]\.[cC][oO][nN][fF][iI][gG](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[sS]3[cC][fF][gG](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[bB][oO][tT][oO](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[oO][cC][iI](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[dD][oO][cC][tT][lL](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[hH][cC][lL][oO][uU][dD](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][kK][iI](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[mM][oO][zZ][iI][lL][lL][aA](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[gG][oO][oO][gG][lL][eE]-[cC][hH][rR][oO][mM][eE](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[cC][hH][rR][oO][mM][iI][uU][mM](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][aA][cC][hH][eE]/[hH][uU][gG][gG][iI][nN][gG][fF][aA][cC][eE]/[tT][oO][kK][eE][nN](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[bB][aA][sS][hH]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[zZ][sS][hH]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][yY][tT][hH][oO][nN]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][sS][qQ][lL]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[mM][yY][sS][qQ][lL]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[nN][oO][dD][eE]_[rR][eE][pP][lL]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[sS][qQ][lL][iI][tT][eE]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[lL][eE][sS][sS][hH][sS][tT](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[vV][iI][mM][iI][nN][fF][oO](/|$)")
    (regex #"^/[eE][tT][cC]/[sS][sS][hH]/[^/]+_[kK][eE][yY]$")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][hH][oO][sS][tT]\.[dD][bB](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][hH][oO][sS][tT]\.[dD][bB]-[wW][aA][lL](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][hH][oO][sS][tT]\.[dD][bB]-[sS][hH][mM](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][hH][oO][sS][tT]\.[dD][bB]-[jJ][oO][uU][rR][nN][aA][lL](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[pP][oO][lL][iI][cC][yY]\.[jJ][sS][oO][nN](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[dD][aA][tT][aA]-[dD][iI][rR][sS](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[cC][aA][cC][hH][eE](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[mM][cC][pP]-[tT][oO][kK][eE][nN](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][sS](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][sS]\.[jJ][sS][oO][nN](/|$)")
    (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[lL][oO][cC][kK][sS](/|$)")
    (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][hH][aA][dD][oO][wW](/|$)")
    (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][hH][aA][dD][oO][wW]-(/|$)")
    (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[gG][sS][hH][aA][dD][oO][wW](/|$)")
    (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[gG][sS][hH][aA][dD][oO][wW]-(/|$)")
    (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][uU][dD][oO][eE][rR][sS](/|$)")
    (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][uU][dD][oO][eE][rR][sS]\.[dD](/|$)")
    (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][eE][cC][uU][rR][iI][tT][yY]/[oO][pP][aA][sS][sS][wW][dD](/|$)")
    (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[vV][aA][rR]/[rR][uU][nN]/[sS][eE][cC][rR][eE][tT][sS](/|$)")
    (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][sS][hH]/[^/]+_[kK][eE][yY]$"))))
(allow file-read*
  (require-all
    (literal "/golden/home/.ssh/known_hosts")
    (require-not (require-any
      (subpath "/golden/ws/.toolhost/toolhost.db")
      (subpath "/golden/ws/.toolhost/toolhost.db-wal")
      (subpath "/golden/ws/.toolhost/toolhost.db-shm")
      (subpath "/golden/ws/.toolhost/toolhost.db-journal")
      (subpath "/golden/ws/.toolhost/policy.json")
      (subpath "/golden/ws/.toolhost/data-dirs")
      (subpath "/golden/ws/.toolhost/cache")
      (subpath "/golden/ws/.toolhost/mcp-token")
      (subpath "/golden/ws/.toolhost/tools")
      (subpath "/golden/ws/.toolhost/tools.json")
      (subpath "/golden/ws/.toolhost/locks")))))
(allow file-write*
  (require-all
    (require-any
      (subpath "/golden/ws")
      (subpath "/golden/tmp"))
    (require-not (require-any
      (subpath "/golden/ws/.toolhost")
      (subpath "/golden/ws/.git/hooks")
      (subpath "/golden/tmp/.git/hooks")
      (regex #"/\.git/(.*/)?config(/|$)")
      (regex #"/\.git/(.*/)?config\.worktree(/|$)")
      (regex #"/\.git/(.*/)?hooks(/|$)")
      (regex #"/\.git/(.*/)?info(/|$)")
      (regex #"/\.git/(.*/)?commondir(/|$)")
      (regex #"/\.git/(.*/)?gitdir(/|$)")
      (regex #"/\.git/config$")
      (regex #"/\.gitmodules$")
      (regex #"/\.env$")
      (regex #"/\.env\.[^/]+$")
      (regex #"/\.bashrc$")
      (regex #"/\.zshrc$")
      (regex #"/\.profile$")
      (regex #"/\.bash_profile$")
      (regex #"/\.gitconfig$")
      (subpath "/etc/shadow")
      (subpath "/etc/shadow-")
      (subpath "/etc/gshadow")
      (subpath "/etc/gshadow-")
      (subpath "/etc/sudoers")
      (subpath "/etc/sudoers.d")
      (subpath "/etc/security/opasswd")
      (subpath "/run/secrets")
      (subpath "/var/run/secrets")
      (subpath "/golden/home/.ssh")
      (subpath "/golden/home/.gnupg")
      (subpath "/golden/home/.aws")
      (subpath "/golden/home/.azure")
      (subpath "/golden/home/.config/gcloud")
      (subpath "/golden/home/.kube")
      (subpath "/golden/home/.docker")
      (subpath "/golden/home/.netrc")
      (subpath "/golden/home/.git-credentials")
      (subpath "/golden/home/.config/gh")
      (subpath "/golden/home/.cargo/credentials.toml")
      (subpath "/golden/home/.cargo/credentials")
      (subpath "/golden/home/.npmrc")
      (subpath "/golden/home/.pypirc")
      (subpath "/golden/home/.claude/.credentials.json")
      (subpath "/golden/home/.claude.json")
      (subpath "/golden/home/.codex/auth.json")
      (subpath "/golden/home/.config/github-copilot")
      (subpath "/golden/home/.copilot")
      (subpath "/golden/home/.gemini")
      (subpath "/golden/home/.vault-token")
      (subpath "/golden/home/.pgpass")
      (subpath "/golden/home/.my.cnf")
      (subpath "/golden/home/.terraform.d/credentials.tfrc.json")
      (subpath "/golden/home/.m2/settings.xml")
      (subpath "/golden/home/.m2/settings-security.xml")
      (subpath "/golden/home/.gradle/gradle.properties")
      (subpath "/golden/home/.config/rclone")
      (subpath "/golden/home/.gem/credentials")
      (subpath "/golden/home/.config/hub")
      (subpath "/golden/home/.local/share/keyrings")
      (subpath "/golden/home/.password-store")
      (subpath "/golden/home/.config/op")
      (subpath "/golden/home/.yarnrc")
      (subpath "/golden/home/.yarnrc.yml")
      (subpath "/golden/home/.bundle/config")
      (subpath "/golden/home/.composer/auth.json")
      (subpath "/golden/home/.config/composer/auth.json")
      (subpath "/golden/home/.nuget/NuGet/NuGet.Config")
      (subpath "/golden/home/.config/NuGet/NuGet.Config")
      (subpath "/golden/home/.s3cfg")
      (subpath "/golden/home/.boto")
      (subpath "/golden/home/.oci")
      (subpath "/golden/home/.config/doctl")
      (subpath "/golden/home/.config/hcloud")
      (subpath "/golden/home/.pki")
      (subpath "/golden/home/.mozilla")
      (subpath "/golden/home/.config/google-chrome")
      (subpath "/golden/home/.config/chromium")
      (subpath "/golden/home/.cache/huggingface/token")
      (subpath "/golden/home/.bash_history")
      (subpath "/golden/home/.zsh_history")
      (subpath "/golden/home/.python_history")
      (subpath "/golden/home/.psql_history")
      (subpath "/golden/home/.mysql_history")
      (subpath "/golden/home/.node_repl_history")
      (subpath "/golden/home/.sqlite_history")
      (subpath "/golden/home/.lesshst")
      (subpath "/golden/home/.viminfo")
      (regex #"^/etc/ssh/[^/]+_key$")
      (subpath "/golden/ws/.toolhost/toolhost.db")
      (subpath "/golden/ws/.toolhost/toolhost.db-wal")
      (subpath "/golden/ws/.toolhost/toolhost.db-shm")
      (subpath "/golden/ws/.toolhost/toolhost.db-journal")
      (subpath "/golden/ws/.toolhost/policy.json")
      (subpath "/golden/ws/.toolhost/data-dirs")
      (subpath "/golden/ws/.toolhost/cache")
      (subpath "/golden/ws/.toolhost/mcp-token")
      (subpath "/golden/ws/.toolhost/tools")
      (subpath "/golden/ws/.toolhost/tools.json")
      (subpath "/golden/ws/.toolhost/locks")
      (subpath "/private/etc/shadow")
      (subpath "/private/etc/shadow-")
      (subpath "/private/etc/gshadow")
      (subpath "/private/etc/gshadow-")
      (subpath "/private/etc/sudoers")
      (subpath "/private/etc/sudoers.d")
      (subpath "/private/etc/security/opasswd")
      (subpath "/private/var/run/secrets")
      (regex #"^/private/etc/ssh/[^/]+_key$")
      (literal "/golden/ws/.env")
      (literal "/golden/ws/.git")
      (literal "/golden/ws/.git/config")
      (literal "/golden/ws/modules-git")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[gG][iI][tT]/[hH][oO][oO][kK][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[tT][mM][pP]/\.[gG][iI][tT]/[hH][oO][oO][kK][sS](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[cC][oO][nN][fF][iI][gG](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[cC][oO][nN][fF][iI][gG]\.[wW][oO][rR][kK][tT][rR][eE][eE](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[hH][oO][oO][kK][sS](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[iI][nN][fF][oO](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[cC][oO][mM][mM][oO][nN][dD][iI][rR](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[gG][iI][tT][dD][iI][rR](/|$)")
      (regex #"/\.[gG][iI][tT]/[cC][oO][nN][fF][iI][gG]$")
      (regex #"/\.[gG][iI][tT][mM][oO][dD][uU][lL][eE][sS]$")
      (regex #"/\.[eE][nN][vV]$")
      (regex #"/\.[eE][nN][vV]\.[^/]+$")
      (regex #"/\.[bB][aA][sS][hH][rR][cC]$")
      (regex #"/\.[zZ][sS][hH][rR][cC]$")
      (regex #"/\.[pP][rR][oO][fF][iI][lL][eE]$")
      (regex #"/\.[bB][aA][sS][hH]_[pP][rR][oO][fF][iI][lL][eE]$")
      (regex #"/\.[gG][iI][tT][cC][oO][nN][fF][iI][gG]$")
      (regex #"^/[eE][tT][cC]/[sS][hH][aA][dD][oO][wW](/|$)")
      (regex #"^/[eE][tT][cC]/[sS][hH][aA][dD][oO][wW]-(/|$)")
      (regex #"^/[eE][tT][cC]/[gG][sS][hH][aA][dD][oO][wW](/|$)")
      (regex #"^/[eE][tT][cC]/[gG][sS][hH][aA][dD][oO][wW]-(/|$)")
      (regex #"^/[eE][tT][cC]/[sS][uU][dD][oO][eE][rR][sS](/|$)")
      (regex #"^/[eE][tT][cC]/[sS][uU][dD][oO][eE][rR][sS]\.[dD](/|$)")
      (regex #"^/[eE][tT][cC]/[sS][eE][cC][uU][rR][iI][tT][yY]/[oO][pP][aA][sS][sS][wW][dD](/|$)")
      (regex #"^/[rR][uU][nN]/[sS][eE][cC][rR][eE][tT][sS](/|$)")
      (regex #"^/[vV][aA][rR]/[rR][uU][nN]/[sS][eE][cC][rR][eE][tT][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[sS][sS][hH](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[gG][nN][uU][pP][gG](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[aA][wW][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[aA][zZ][uU][rR][eE](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[gG][cC][lL][oO][uU][dD](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[kK][uU][bB][eE](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[dD][oO][cC][kK][eE][rR](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[nN][eE][tT][rR][cC](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[gG][iI][tT]-[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[gG][hH](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][aA][rR][gG][oO]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]\.[tT][oO][mM][lL](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][aA][rR][gG][oO]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[nN][pP][mM][rR][cC](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][yY][pP][iI][rR][cC](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][lL][aA][uU][dD][eE]/\.[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]\.[jJ][sS][oO][nN](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][lL][aA][uU][dD][eE]\.[jJ][sS][oO][nN](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][dD][eE][xX]/[aA][uU][tT][hH]\.[jJ][sS][oO][nN](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[gG][iI][tT][hH][uU][bB]-[cC][oO][pP][iI][lL][oO][tT](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][pP][iI][lL][oO][tT](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[gG][eE][mM][iI][nN][iI](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[vV][aA][uU][lL][tT]-[tT][oO][kK][eE][nN](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][gG][pP][aA][sS][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[mM][yY]\.[cC][nN][fF](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[tT][eE][rR][rR][aA][fF][oO][rR][mM]\.[dD]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]\.[tT][fF][rR][cC]\.[jJ][sS][oO][nN](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[mM]2/[sS][eE][tT][tT][iI][nN][gG][sS]\.[xX][mM][lL](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[mM]2/[sS][eE][tT][tT][iI][nN][gG][sS]-[sS][eE][cC][uU][rR][iI][tT][yY]\.[xX][mM][lL](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[gG][rR][aA][dD][lL][eE]/[gG][rR][aA][dD][lL][eE]\.[pP][rR][oO][pP][eE][rR][tT][iI][eE][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[rR][cC][lL][oO][nN][eE](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[gG][eE][mM]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[hH][uU][bB](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[lL][oO][cC][aA][lL]/[sS][hH][aA][rR][eE]/[kK][eE][yY][rR][iI][nN][gG][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][aA][sS][sS][wW][oO][rR][dD]-[sS][tT][oO][rR][eE](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[oO][pP](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[yY][aA][rR][nN][rR][cC](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[yY][aA][rR][nN][rR][cC]\.[yY][mM][lL](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[bB][uU][nN][dD][lL][eE]/[cC][oO][nN][fF][iI][gG](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][mM][pP][oO][sS][eE][rR]/[aA][uU][tT][hH]\.[jJ][sS][oO][nN](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[cC][oO][mM][pP][oO][sS][eE][rR]/[aA][uU][tT][hH]\.[jJ][sS][oO][nN](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[nN][uU][gG][eE][tT]/[nN][uU][gG][eE][tT]/[nN][uU][gG][eE][tT]\.[cC][oO][nN][fF][iI][gG](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[nN][uU][gG][eE][tT]/[nN][uU][gG][eE][tT]\.[cC][oO][nN][fF][iI][gG](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[sS]3[cC][fF][gG](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[bB][oO][tT][oO](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[oO][cC][iI](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[dD][oO][cC][tT][lL](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[hH][cC][lL][oO][uU][dD](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][kK][iI](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[mM][oO][zZ][iI][lL][lL][aA](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[gG][oO][oO][gG][lL][eE]-[cC][hH][rR][oO][mM][eE](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][oO][nN][fF][iI][gG]/[cC][hH][rR][oO][mM][iI][uU][mM](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[cC][aA][cC][hH][eE]/[hH][uU][gG][gG][iI][nN][gG][fF][aA][cC][eE]/[tT][oO][kK][eE][nN](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[bB][aA][sS][hH]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[zZ][sS][hH]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][yY][tT][hH][oO][nN]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[pP][sS][qQ][lL]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[mM][yY][sS][qQ][lL]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[nN][oO][dD][eE]_[rR][eE][pP][lL]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[sS][qQ][lL][iI][tT][eE]_[hH][iI][sS][tT][oO][rR][yY](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[lL][eE][sS][sS][hH][sS][tT](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[hH][oO][mM][eE]/\.[vV][iI][mM][iI][nN][fF][oO](/|$)")
      (regex #"^/[eE][tT][cC]/[sS][sS][hH]/[^/]+_[kK][eE][yY]$")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][hH][oO][sS][tT]\.[dD][bB](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][hH][oO][sS][tT]\.[dD][bB]-[wW][aA][lL](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][hH][oO][sS][tT]\.[dD][bB]-[sS][hH][mM](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][hH][oO][sS][tT]\.[dD][bB]-[jJ][oO][uU][rR][nN][aA][lL](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[pP][oO][lL][iI][cC][yY]\.[jJ][sS][oO][nN](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[dD][aA][tT][aA]-[dD][iI][rR][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[cC][aA][cC][hH][eE](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[mM][cC][pP]-[tT][oO][kK][eE][nN](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[tT][oO][oO][lL][sS]\.[jJ][sS][oO][nN](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT]/[lL][oO][cC][kK][sS](/|$)")
      (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][hH][aA][dD][oO][wW](/|$)")
      (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][hH][aA][dD][oO][wW]-(/|$)")
      (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[gG][sS][hH][aA][dD][oO][wW](/|$)")
      (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[gG][sS][hH][aA][dD][oO][wW]-(/|$)")
      (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][uU][dD][oO][eE][rR][sS](/|$)")
      (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][uU][dD][oO][eE][rR][sS]\.[dD](/|$)")
      (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][eE][cC][uU][rR][iI][tT][yY]/[oO][pP][aA][sS][sS][wW][dD](/|$)")
      (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[vV][aA][rR]/[rR][uU][nN]/[sS][eE][cC][rR][eE][tT][sS](/|$)")
      (regex #"^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/[sS][sS][hH]/[^/]+_[kK][eE][yY]$")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[eE][nN][vV]$")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[gG][iI][tT]$")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[gG][iI][tT]/[cC][oO][nN][fF][iI][gG]$")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/[mM][oO][dD][uU][lL][eE][sS]-[gG][iI][tT]$")))))
(allow file-write*
  (require-all
    (literal "/golden/ws/.env")
    (require-not (require-any
      (subpath "/golden/ws/.toolhost")
      (subpath "/golden/ws/.git/hooks")
      (subpath "/golden/tmp/.git/hooks")
      (regex #"/\.git/(.*/)?config(/|$)")
      (regex #"/\.git/(.*/)?config\.worktree(/|$)")
      (regex #"/\.git/(.*/)?hooks(/|$)")
      (regex #"/\.git/(.*/)?info(/|$)")
      (regex #"/\.git/(.*/)?commondir(/|$)")
      (regex #"/\.git/(.*/)?gitdir(/|$)")
      (regex #"/\.git$")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[tT][oO][oO][lL][hH][oO][sS][tT](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[wW][sS]/\.[gG][iI][tT]/[hH][oO][oO][kK][sS](/|$)")
      (regex #"^/[gG][oO][lL][dD][eE][nN]/[tT][mM][pP]/\.[gG][iI][tT]/[hH][oO][oO][kK][sS](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[cC][oO][nN][fF][iI][gG](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[cC][oO][nN][fF][iI][gG]\.[wW][oO][rR][kK][tT][rR][eE][eE](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[hH][oO][oO][kK][sS](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[iI][nN][fF][oO](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[cC][oO][mM][mM][oO][nN][dD][iI][rR](/|$)")
      (regex #"/\.[gG][iI][tT]/(.*/)?[gG][iI][tT][dD][iI][rR](/|$)")
      (regex #"/\.[gG][iI][tT]$")))))
(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (regex #"^/dev/fd/"))
"#;

    #[test]
    fn off_macos_the_backend_is_unavailable_and_says_why() {
        if cfg!(target_os = "macos") {
            return;
        }
        match Seatbelt::new().available() {
            Availability::Unavailable { reason } => assert_eq!(reason, reasons::NOT_MACOS),
            a => panic!("{a:?}"),
        }
    }

    #[test]
    fn runner_failures_are_sandbox_execs_own() {
        let s = Seatbelt::new();
        for (code, stderr) in [
            (71, "sandbox-exec: sandbox_apply: Operation not permitted\n"),
            (65, "sandbox-exec: unbound variable: setenv at <input string>, line 5\n"),
            (71, "sandbox-exec: execvp() of '/bin/bash' failed: No such file or directory\n"),
        ] {
            assert_eq!(
                s.runner_failure(Some(code), stderr.as_bytes(), false).as_deref(),
                Some(stderr.trim_end()),
                "{stderr}"
            );
        }
        for (code, stderr) in [
            (Some(1), "sandbox-exec: sandbox_apply: Operation not permitted\n"),
            (Some(71), "cat: x: Operation not permitted\n"),
            (Some(0), "sandbox-exec: hi\n"),
            (None, "sandbox-exec: sandbox_apply: Operation not permitted\n"),
        ] {
            assert_eq!(s.runner_failure(code, stderr.as_bytes(), false), None, "{code:?} {stderr}");
        }
    }

    #[test]
    fn seatbelt_denials_are_marked_from_the_kernels_words() {
        // Seatbelt refuses with EPERM: BSD tools and bash print "Operation not permitted".
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let ws = base.join("ws");
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, &ws)
            .home(base.join("home"))
            .config(PolicyConfig { temp_dir: Some(base.join("tmp")), ..Default::default() })
            .build();
        let home = base.join("home").display().to_string();
        for (line, want) in [
            (
                "bash: line 1: .git/hooks/pre-commit: Operation not permitted".to_string(),
                ws.join(".git/hooks/pre-commit"),
            ),
            (
                format!("cat: {home}/.ssh/id_ed25519: Operation not permitted"),
                base.join("home/.ssh/id_ed25519"),
            ),
            (format!("ls: {home}/.aws: Operation not permitted"), base.join("home/.aws")),
            ("touch: /usr/local/x: Operation not permitted".to_string(), "/usr/local/x".into()),
            ("mkdir: /opt/x: Operation not permitted".to_string(), "/opt/x".into()),
            ("cp: .env: Operation not permitted".to_string(), ws.join(".env")),
        ] {
            let got = crate::bash::detect_denial(&line, &policy, &ws).map(|(p, _)| p);
            assert_eq!(got, Some(want), "{line}");
        }
        assert_eq!(
            crate::bash::detect_denial("cp: ws-file: Operation not permitted", &policy, &ws),
            None,
            "allowed by the policy: not a denial"
        );
    }
}
