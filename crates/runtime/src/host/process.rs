//! `process`: programs a component runs. Each run goes through
//! `toolhost_sandbox::run::run_sandboxed`, the path bash takes: the same OS sandbox made from
//! this call's policy (network off unless it allows it) for a component granted
//! process-execution, and from that policy narrowed to reading (`SandboxPolicy::read_only`:
//! nothing writable, network off) for any other, the same cgroup, the same sweep of
//! what it may not create, and nothing runs when the sandbox is unavailable. What is checked
//! here first: the program and its arguments, the working directory (fenced, inside
//! the workspace) and the environment ([`env_refusal`]). stdout and stderr are captured apart,
//! each bounded like bash's output (head + tail, the rest in a spill file).
//!
//! The run of a tool that asks before every run is the one its call's gate holds, exactly,
//! once, and it runs as its question said (`toolhost_core::approval::RunFacts`): the program
//! file found before asking, by its absolute path and only if unchanged since; in the
//! directory named; under the policy whose writable places were named ([`run_policy`] plus
//! the session's private cache dir, [`run_cache_parent`]); with that cache dir as its
//! `XDG_CACHE_HOME`.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use toolhost_core::approval::RunApproval;
use toolhost_core::context::ToolProgress;
use toolhost_core::fence::Intent;
use toolhost_core::spill::spill_path;
use toolhost_limits::{APPROVED_RUN_MAX_TIMEOUT_MS, BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS};
use toolhost_sandbox::capture::{Capture, Stream};
use toolhost_sandbox::denial::detect_denial;
use toolhost_sandbox::policy::{Access, SandboxPolicy};
use toolhost_sandbox::process::{ProcessEnd, ProgressFn};
use toolhost_sandbox::run::{NotRun, SandboxedRun, run_sandboxed, within_deadline_ms};

use super::state::CallState;
use super::types::{WitResult, err};
use crate::wit::latest::toolhost::tool::{process, types};

/// Variables a component may set for a run, at most.
pub const MAX_PROCESS_ENV: usize = 64;

/// Bytes of one argument or environment value, at most.
pub const MAX_PROCESS_ARG_BYTES: usize = 32 * 1024;

/// Arguments of one run, at most.
pub const MAX_PROCESS_ARGS: usize = 4096;

/// Names a component may never set, not even when `policy.json` allows them: `PATH` decides
/// which program runs; the loader's and the shells' and interpreters' start-up hooks run code
/// of the caller's choosing before the program's own. Prefixes end with `_`; compared in any
/// case.
pub const REFUSED_ENV: &[&str] = &[
    "PATH",
    "LD_",
    "DYLD_",
    "BASH_ENV",
    "ENV",
    "BASH_FUNC_",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "IFS",
    "CDPATH",
    "GLOBIGNORE",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONINSPECT",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_CONFIG_",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GCONV_PATH",
    "MALLOC_",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "HOME",
    "TMPDIR",
];

/// What value an allowed variable may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvValue {
    /// Any value: the variable is a switch (`NO_COLOR`, `CI`).
    Any,
    /// Digits only (`COLUMNS`, `SOURCE_DATE_EPOCH`).
    Number,
    /// A locale name (`en_US.UTF-8`, `C`): letters, digits, `_ . - @`; no `/` or `..`, which
    /// would make the C library load locale data from a file the tool chose.
    Locale,
    /// Locale names separated by `:` (`LANGUAGE`).
    LocaleList,
    /// A time zone (`Europe/Berlin`, `UTC`, `EST5EDT,M3.2.0,M11.1.0`): relative to the
    /// system's zone files, no `..`, not a path (`/…`, `:/…`).
    TimeZone,
    /// A terminal name (`xterm-256color`): letters, digits, `. _ + -`; no `/` or `..`.
    Terminal,
    /// Exactly this value: a switch that only takes something away (`GIT_CONFIG_NOSYSTEM=1`),
    /// allowed although its prefix is refused.
    Only(&'static str),
}

/// The only variables a component may set for a program it runs without the operator's say
/// (`policy.json` `process_env_allow` adds more): none of them names a program, a
/// configuration file, a directory to load code or configuration from, or options a program
/// parses, and those that name a system file (locale, zone, terminal) must stay a name.
/// Everything else (`GIT_DIR`, `XDG_CONFIG_HOME`, `PAGER`, `EDITOR`, `GOFLAGS`, `CC`, …) can
/// make a harmless-looking `git status` run the tool's code.
pub const ALLOWED_ENV: &[(&str, EnvValue)] = &[
    ("LANG", EnvValue::Locale),
    ("LANGUAGE", EnvValue::LocaleList),
    ("LC_ALL", EnvValue::Locale),
    ("LC_ADDRESS", EnvValue::Locale),
    ("LC_COLLATE", EnvValue::Locale),
    ("LC_CTYPE", EnvValue::Locale),
    ("LC_IDENTIFICATION", EnvValue::Locale),
    ("LC_MEASUREMENT", EnvValue::Locale),
    ("LC_MESSAGES", EnvValue::Locale),
    ("LC_MONETARY", EnvValue::Locale),
    ("LC_NAME", EnvValue::Locale),
    ("LC_NUMERIC", EnvValue::Locale),
    ("LC_PAPER", EnvValue::Locale),
    ("LC_TELEPHONE", EnvValue::Locale),
    ("LC_TIME", EnvValue::Locale),
    ("TZ", EnvValue::TimeZone),
    ("TERM", EnvValue::Terminal),
    ("NO_COLOR", EnvValue::Any),
    ("CLICOLOR", EnvValue::Any),
    ("CLICOLOR_FORCE", EnvValue::Any),
    ("FORCE_COLOR", EnvValue::Any),
    ("CI", EnvValue::Any),
    ("COLUMNS", EnvValue::Number),
    ("LINES", EnvValue::Number),
    ("SOURCE_DATE_EPOCH", EnvValue::Number),
    // git's switches that only take away: no system or global config, no optional locks, no
    // prompt, no system attributes, no replace refs, no fetch of missing objects.
    ("GIT_CONFIG_NOSYSTEM", EnvValue::Only("1")),
    ("GIT_CONFIG_GLOBAL", EnvValue::Only("/dev/null")),
    ("GIT_OPTIONAL_LOCKS", EnvValue::Only("0")),
    ("GIT_TERMINAL_PROMPT", EnvValue::Only("0")),
    ("GIT_ATTR_NOSYSTEM", EnvValue::Only("1")),
    ("GIT_NO_REPLACE_OBJECTS", EnvValue::Only("1")),
    ("GIT_NO_LAZY_FETCH", EnvValue::Only("1")),
];

impl EnvValue {
    /// Whether `value` is one this kind allows.
    fn allows(self, value: &str) -> bool {
        let locale = |v: &str| {
            !v.contains("..")
                && v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '@'))
        };
        match self {
            EnvValue::Any => true,
            EnvValue::Number => value.chars().all(|c| c.is_ascii_digit()),
            EnvValue::Locale => locale(value),
            EnvValue::LocaleList => value.split(':').all(locale),
            EnvValue::TimeZone => {
                let name = value.strip_prefix(':').unwrap_or(value);
                !name.starts_with('/')
                    && !name.split('/').any(|part| part == "..")
                    && value.chars().all(|c| c.is_ascii_alphanumeric() || "_-+.,:/<>".contains(c))
            }
            EnvValue::Only(only) => value == only,
            EnvValue::Terminal => {
                !value.contains("..")
                    && value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '+'))
            }
        }
    }

    /// What this kind allows, for a refusal.
    fn rule(self) -> std::borrow::Cow<'static, str> {
        match self {
            EnvValue::Only(only) => format!("exactly {only:?}").into(),
            EnvValue::Any => "any value".into(),
            EnvValue::Number => "digits only".into(),
            EnvValue::Locale => {
                "a locale name (letters, digits, `_`, `.`, `-`, `@`; not a path)".into()
            }
            EnvValue::LocaleList => "locale names separated by `:` (not paths)".into(),
            EnvValue::TimeZone => "a zone name or rule (no `..`, not a path)".into(),
            EnvValue::Terminal => {
                "a terminal name (letters, digits, `_`, `.`, `-`, `+`; not a path)".into()
            }
        }
    }
}

/// The names of [`ALLOWED_ENV`], for texts.
fn allowed_names() -> String {
    let mut names: Vec<&str> = ALLOWED_ENV
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !n.starts_with("LC_") || *n == "LC_ALL")
        .collect();
    names.insert(names.iter().position(|n| *n == "LC_ALL").map_or(0, |i| i + 1), "LC_*");
    names.join(", ")
}

/// Why a component may not set the variable `name` to `value` under `policy` (whose
/// `process_env_allow` adds names); `None` if it may. `policy_file` is where an operator
/// allows more.
pub fn env_refusal(
    name: &str,
    value: &str,
    policy: &toolhost_sandbox::policy::SandboxPolicy,
    policy_file: &std::path::Path,
) -> Option<String> {
    let well_formed = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !well_formed {
        return Some(format!(
            "the environment variable name {name:?} is not allowed: use letters, digits and `_`, not starting with a digit"
        ));
    }
    if let Some((_, kind @ EnvValue::Only(_))) = ALLOWED_ENV.iter().find(|(n, _)| *n == name) {
        return (!kind.allows(value)).then(|| {
            format!("a tool may set {name} for a program it runs only to {}", kind.rule())
        });
    }
    let upper = name.to_ascii_uppercase();
    if let Some(r) = REFUSED_ENV
        .iter()
        .find(|r| if r.ends_with('_') { upper.starts_with(*r) } else { upper == **r })
    {
        return Some(format!(
            "a tool may not set {name} for a program it runs ({r}{} decides what code runs); the host's value is used",
            if r.ends_with('_') { "*" } else { "" }
        ));
    }
    if let Some((_, kind)) = ALLOWED_ENV.iter().find(|(n, _)| *n == name) {
        return (!kind.allows(value)).then(|| {
            format!("a tool may set {name} for a program it runs only to {}; this value could name a file of its own", kind.rule())
        });
    }
    if policy.process_env_allowed(name) {
        return None;
    }
    Some(format!(
        "a tool may not set {name} for a program it runs: only {} are passed on, since any other variable may name a program, a configuration file or options the program parses (GIT_DIR, XDG_CONFIG_HOME, PAGER, …); an operator allows it by adding \"{name}\" to \"process_env_allow\" in {}",
        allowed_names(),
        policy_file.display()
    ))
}

fn invalid(message: String) -> types::ToolError {
    err(types::ErrorCode::InvalidArguments, message)
}

/// The program, arguments and environment of `command`, checked; `policy` and `policy_file`
/// as for [`env_refusal`].
fn check_command(
    command: &process::Command,
    policy: &toolhost_sandbox::policy::SandboxPolicy,
    policy_file: &std::path::Path,
) -> Result<(), types::ToolError> {
    if command.program.trim().is_empty() {
        return Err(invalid("process.run needs a program to run".into()));
    }
    if command.args.len() > MAX_PROCESS_ARGS {
        return Err(invalid(format!(
            "process.run takes at most {MAX_PROCESS_ARGS} arguments; got {}",
            command.args.len()
        )));
    }
    if command.env.len() > MAX_PROCESS_ENV {
        return Err(invalid(format!(
            "process.run takes at most {MAX_PROCESS_ENV} environment variables; got {}",
            command.env.len()
        )));
    }
    let texts = std::iter::once(&command.program)
        .chain(&command.args)
        .chain(command.env.iter().map(|(_, v)| v));
    for text in texts {
        if text.contains('\0') {
            return Err(invalid("a program, argument or environment value contains a NUL byte, which no program can receive".into()));
        }
        if text.len() > MAX_PROCESS_ARG_BYTES {
            return Err(invalid(format!(
                "an argument or environment value is {} bytes; at most {MAX_PROCESS_ARG_BYTES}",
                text.len()
            )));
        }
    }
    for (name, value) in &command.env {
        if let Some(refusal) = env_refusal(name, value, policy, policy_file) {
            return Err(err(types::ErrorCode::PermissionDenied, refusal));
        }
    }
    Ok(())
}

/// A stream as the component gets it.
fn captured(capture: &Capture) -> process::Captured {
    process::Captured {
        text: capture.render(),
        total_bytes: capture.total_bytes(),
        spill_path: capture.spill_path().map(|p| p.to_string_lossy().into_owned()),
    }
}

/// The approved run as the `process.run` command it must be.
fn approved_command(run: &RunApproval) -> process::Command {
    process::Command {
        program: run.program.clone(),
        args: run.args.clone(),
        cwd: run.cwd.clone(),
        env: run.env.clone(),
        timeout_ms: Some(run.timeout_ms),
    }
}

/// Where a session's approved runs keep their private cache dir
/// (`toolhost_core::approval::RunCache`): the one place that decides it. Today the policy's
/// temp dir (a writable root in workspace-write mode).
pub(crate) fn run_cache_parent(policy: &SandboxPolicy) -> std::path::PathBuf {
    policy.temp_dir().to_path_buf()
}

/// The policy a program this call runs gets: the call's, or narrowed to reading
/// ([`SandboxPolicy::read_only`]) for a component not granted process-execution.
pub(crate) fn run_policy(call: &SandboxPolicy, grant: &crate::grant::RiskGrant) -> SandboxPolicy {
    if grant.runs_programs_read_only() { call.read_only() } else { call.clone() }
}

/// What a run that was approved without a question, because it cannot start (no program
/// file of its name, no working directory), returns: nothing ran.
fn not_started(shown: &str, why: &str) -> process::Finished {
    let text = format!("cannot run {shown}: {why}");
    process::Finished {
        termination: process::Termination::SpawnFailed,
        exit_code: None,
        signal: None,
        stdout: process::Captured { text: String::new(), total_bytes: 0, spill_path: None },
        stderr: process::Captured { total_bytes: text.len() as u64, text, spill_path: None },
        duration_ms: 0,
    }
}

/// Whether `command` is exactly the approved `run`.
fn is_run(run: &RunApproval, command: &process::Command) -> bool {
    run.program == command.program
        && run.args == command.args
        && run.cwd == command.cwd
        && run.env == command.env
        && Some(run.timeout_ms) == command.timeout_ms
}

/// What `process.run` would refuse of `run` before it starts (program, arguments,
/// environment under `policy`), checked before anyone is asked to approve it.
pub(crate) fn check_approved_run(
    run: &RunApproval,
    policy: &toolhost_sandbox::policy::SandboxPolicy,
    policy_file: &std::path::Path,
) -> Result<(), types::ToolError> {
    check_command(&approved_command(run), policy, policy_file)
}

impl process::Host for CallState {
    async fn run(&mut self, command: process::Command) -> WitResult<process::Finished> {
        let shown = toolhost_core::display::terminal_line(&command.program).into_owned();
        let policy_file = self.session.data_dir.join(toolhost_sandbox::policy::POLICY_FILE);
        // A tool that asks before every run runs the one run a person approved, exactly, once.
        let mut approved = None;
        if let Some(gate) = &self.call.run_gate {
            approved = gate.take().filter(|run| is_run(run, &command));
            if approved.is_none() {
                return Err(err(
                    types::ErrorCode::PermissionDenied,
                    format!(
                        "the run of `{shown}` was not approved: this tool runs only the one program \
                         its call was approved for, exactly as approved, once; nothing ran"
                    ),
                )
                .into());
            }
        }
        check_command(&command, &self.call.sandbox_policy, &policy_file)?;
        let workspace = self.session.working_directory.clone();
        let cwd = match &command.cwd {
            None => workspace.clone(),
            Some(dir) => {
                let checked = self.check(dir, Access::Read, Intent::MustExist)?;
                if !checked.as_path().starts_with(&workspace) {
                    return Err(err(
                        types::ErrorCode::PermissionDenied,
                        format!(
                            "{dir} is outside the workspace; a program runs in a directory inside it"
                        ),
                    ).into());
                }
                if !checked.as_path().is_dir() {
                    return Err(invalid(format!("{dir} is not a directory")).into());
                }
                checked.as_path().to_path_buf()
            }
        };
        let mut env = self.session.process_environment(&self.call.sandbox_policy);
        env.extend(command.env.iter().cloned());
        // An approved run executes what its question named: the program file found before
        // asking (never a name looked up again), in that directory, under that policy.
        let mut program = std::ffi::OsString::from(&command.program);
        let mut policy = run_policy(&self.call.sandbox_policy, &self.share.grant);
        if let Some(run) = &approved {
            let facts = &run.facts;
            if facts.cwd != cwd {
                return Err(err(
                    types::ErrorCode::PermissionDenied,
                    format!(
                        "the working directory of `{shown}` is no longer the one its approval named ({}); nothing ran",
                        facts.cwd.display()
                    ),
                )
                .into());
            }
            let Some(file) = &facts.program else {
                let why = facts.not_found.as_deref().unwrap_or("no program file was found");
                return Ok(not_started(&shown, why));
            };
            if !file.unchanged() {
                return Err(err(
                    types::ErrorCode::PermissionDenied,
                    format!(
                        "the program file {} changed after the run was approved; nothing ran",
                        file.path.display()
                    ),
                )
                .into());
            }
            program = file.path.clone().into_os_string();
            policy = facts.policy.clone().unwrap_or_else(|| policy.read_only());
            // HOME is not writable in the sandbox: an approved run's toolchains (go's build
            // cache, pip's, …) cache in the session's private cache dir.
            if let Some(cache) = &facts.cache {
                env.entry("XDG_CACHE_HOME".into())
                    .or_insert_with(|| cache.to_string_lossy().into_owned());
            }
        }

        let mut noted = vec![shown.clone()];
        noted.extend(
            command.args.iter().map(|a| toolhost_core::display::terminal_line(a).into_owned()),
        );
        self.share.grant.note_run(noted.join(" "));
        let n = self.share.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let spill = |stream: &str| {
            spill_path(
                &self.session.data_dir,
                &self.session.session_id,
                &format!("{}-run{n}-{stream}", self.call.call_id.0),
            )
        };
        // The run's two spill files are reserved whole against the call's spill bounds; when
        // they do not fit, its output is still bounded (head and tail) but not saved.
        let reserve = self.share.reserve_run_spills();
        let (out_spill, err_spill) =
            if reserve { (Some(spill("stdout")), Some(spill("stderr"))) } else { (None, None) };
        self.share.run_spills.lock().unwrap_or_else(|e| e.into_inner()).extend(
            [&out_spill, &err_spill]
                .into_iter()
                .flatten()
                .map(|p| p.to_string_lossy().into_owned()),
        );
        let streams = Arc::new(Mutex::new((Capture::new(out_spill), Capture::new(err_spill))));
        let sink = streams.clone();
        // An approved run's output reaches the client as it comes, as bash's does.
        let reporter = self.call.run_gate.is_some().then(|| self.call.clone());
        let progress: ProgressFn = Arc::new(move |stream, bytes: &[u8]| {
            if let Some(call) = &reporter {
                let chunk = String::from_utf8_lossy(bytes).into_owned();
                call.report_progress(match stream {
                    Stream::Stdout => ToolProgress::Stdout { chunk },
                    Stream::Stderr => ToolProgress::Stderr { chunk },
                });
            }
            let mut s = sink.lock().unwrap_or_else(|e| e.into_inner());
            match stream {
                Stream::Stdout => s.0.push(Stream::Stdout, bytes),
                Stream::Stderr => s.1.push(Stream::Stderr, bytes),
            }
        });
        // bash's rule (the WIT's `timeout-ms`): default 30000, clamped to 1–120000 and to the
        // call's deadline; an approved run up to 600000 (docs/workspace-tools.md#approvals).
        let max = if self.call.run_gate.is_some() {
            APPROVED_RUN_MAX_TIMEOUT_MS
        } else {
            BASH_MAX_TIMEOUT_MS
        };
        let timeout_ms = within_deadline_ms(
            command.timeout_ms.unwrap_or(BASH_DEFAULT_TIMEOUT_MS).clamp(1, max),
            self.call.deadline,
            Instant::now(),
        );
        let mut argv: Vec<std::ffi::OsString> = vec![program];
        argv.extend(command.args.iter().map(Into::into));
        let run = run_sandboxed(
            self.session.sandbox.as_ref(),
            self.session.process_backend.as_ref(),
            SandboxedRun {
                argv,
                cwd: cwd.clone(),
                policy: &policy,
                env,
                timeout: std::time::Duration::from_millis(timeout_ms),
                cancel: self.call.cancel.clone(),
                spill_path: None,
                progress: Some(progress),
            },
        )
        .await;
        let run = match run {
            Ok(run) => run,
            Err(NotRun { text }) => {
                return Err(err(types::ErrorCode::SandboxUnavailable, text).into());
            }
        };
        let (stdout, mut stderr) = {
            let mut s = streams.lock().unwrap_or_else(|e| e.into_inner());
            let empty = || Capture::new(None);
            (std::mem::replace(&mut s.0, empty()), std::mem::replace(&mut s.1, empty()))
        };
        if reserve {
            self.share.settle_run_spills([&stdout, &stderr].map(|c| {
                c.spill_path().and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len())
            }));
        }
        let (termination, exit_code, signal) = match run.end {
            ProcessEnd::Exited { code: Some(code), .. } => {
                (process::Termination::Exited, Some(code), None)
            }
            ProcessEnd::Exited { code: None, signal } => {
                (process::Termination::Signalled, None, signal)
            }
            ProcessEnd::TimedOut => (process::Termination::TimedOut, None, None),
            ProcessEnd::Cancelled => (process::Termination::Cancelled, None, None),
            ProcessEnd::SpawnFailed(reason) => {
                stderr = Capture::new(None);
                // The sandbox helper's own text already names the program.
                let text = if reason.starts_with(toolhost_sandbox::helper::EXEC_FAILED) {
                    reason
                } else {
                    format!("cannot run {shown}: {reason}")
                };
                stderr.push(Stream::Stderr, text.as_bytes());
                (process::Termination::SpawnFailed, None, None)
            }
            ProcessEnd::PipeFailed(e) => {
                return Err(err(
                    types::ErrorCode::ExecutionFailed,
                    format!("{shown} ran but its output could not be read: {e}"),
                )
                .into());
            }
            ProcessEnd::OutcomeUnknown(e) => {
                return Err(err(
                    types::ErrorCode::OutcomeUnknown,
                    toolhost_sandbox::texts::outcome_unknown(&e),
                )
                .into());
            }
        };
        let stdout = captured(&stdout);
        let mut stderr = captured(&stderr);
        // What the kernel refused that the policy forbids, and what the sweep removed, as bash
        // marks them (after stderr, which the component reads last).
        let mut notes = Vec::new();
        // A program reports a refusal on stderr; stdout is its data (a diff may well hold
        // the words "Permission denied").
        let denial = detect_denial(&stderr.text, &policy, &cwd);
        if let Some((_, denial)) = &denial {
            notes.push(toolhost_sandbox::texts::denial_marker(&denial.message));
        }
        if let Some(line) = run.limit_hit {
            notes.push(line);
        }
        if !run.swept.is_empty() {
            let names: Vec<String> = run.swept.iter().map(|p| p.display().to_string()).collect();
            notes.push(toolhost_sandbox::texts::swept(&shown, &names.join(", ")));
        }
        self.process_denied |= denial.is_some() || !run.swept.is_empty();
        for note in notes {
            if !stderr.text.is_empty() && !stderr.text.ends_with('\n') {
                stderr.text.push('\n');
            }
            stderr.text.push_str(&note);
        }
        Ok(process::Finished {
            termination,
            exit_code,
            signal,
            stdout,
            stderr,
            duration_ms: run.duration.as_millis() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sandbox::policy::{PolicyConfig, SandboxMode, SandboxPolicy};

    fn policy(allow: &[&str]) -> SandboxPolicy {
        let config = PolicyConfig {
            process_env_allow: allow.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        SandboxPolicy::builder(SandboxMode::WorkspaceWrite, "/ws").config(config).build()
    }

    #[test]
    fn the_environment_a_tool_may_set_is_an_allow_list() {
        let file = std::path::Path::new("/data/policy.json");
        let none = policy(&[]);
        for (ok, value) in [
            ("CI", "true"),
            ("NO_COLOR", "1"),
            ("LANG", "en_US.UTF-8"),
            ("LC_ALL", "C"),
            ("LANGUAGE", "de:en"),
            ("TZ", "Europe/Berlin"),
            ("TZ", "EST5EDT,M3.2.0,M11.1.0"),
            ("TZ", "UTC"),
            ("TERM", "xterm-256color"),
            ("COLUMNS", "80"),
        ] {
            assert_eq!(env_refusal(ok, value, &none, file), None, "{ok}={value}");
        }
        for refused in [
            "PATH",
            "path",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "DYLD_INSERT_LIBRARIES",
            "BASH_ENV",
            "BASH_FUNC_x%%",
            "GIT_CONFIG_COUNT",
            "NODE_OPTIONS",
            "PYTHONPATH",
            "HOME",
        ] {
            assert!(env_refusal(refused, "x", &none, file).is_some(), "{refused}");
        }
        // Not on the list: refused, saying how an operator allows it.
        for unknown in [
            "GIT_DIR",
            "XDG_CONFIG_HOME",
            "PAGER",
            "EDITOR",
            "GOFLAGS",
            "CC",
            "RUST_BACKTRACE",
            "lang",
            "cargo_term_color",
        ] {
            let why = env_refusal(unknown, "x", &none, file)
                .unwrap_or_else(|| panic!("{unknown} was allowed"));
            assert!(
                why.contains(&format!("may not set {unknown}"))
                    && why.contains(&format!(
                        "\"{unknown}\" to \"process_env_allow\" in /data/policy.json"
                    )),
                "{why}"
            );
        }
        // A name that must stay a name.
        for (name, value) in [
            ("LANG", "/ws/locale"),
            ("LC_CTYPE", "../x"),
            ("LC_ALL", ".."),
            ("LANGUAGE", "en:/ws/x"),
            ("LANGUAGE", "de:.."),
            ("TZ", "/ws/zone"),
            ("TZ", ":/ws/zone"),
            ("TZ", "../../ws/zone"),
            ("TERM", "../ws/t"),
            ("COLUMNS", "80x"),
        ] {
            let why = env_refusal(name, value, &none, file)
                .unwrap_or_else(|| panic!("{name}={value} was allowed"));
            assert!(
                why.contains(&format!("may set {name} for a program it runs only to")),
                "{why}"
            );
        }
        // policy.json adds names, never one that decides what code runs.
        let some = policy(&["GOFLAGS", "MYAPP_*", "PATH", "LD_*"]);
        assert_eq!(env_refusal("GOFLAGS", "-x", &some, file), None);
        assert_eq!(env_refusal("MYAPP_LEVEL", "3", &some, file), None);
        assert!(env_refusal("GIT_DIR", "x", &some, file).is_some());
        assert!(env_refusal("PATH", "/x", &some, file).unwrap().contains("decides what code runs"));
        assert!(
            env_refusal("LD_PRELOAD", "/x", &some, file)
                .unwrap()
                .contains("decides what code runs")
        );
        for malformed in ["", "A=B", "1X", "A B", "Ä"] {
            assert!(
                env_refusal(malformed, "x", &some, file).unwrap().contains("is not allowed"),
                "{malformed}"
            );
        }
    }
}
