//! The run of a tool that asks before every run: the one its call's gate holds, exactly,
//! once ([`take`]), and it runs as its question said (`toolhost_core::approval::RunFacts`,
//! [`hold`]): the program file found before asking, by its absolute path and only if
//! unchanged since; in the directory named; under the policy whose writable places were
//! named ([`run_policy`] plus the session's private cache dir, [`run_cache_parent`]); with
//! that cache dir as its `XDG_CACHE_HOME`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use toolhost_core::approval::{RunApproval, RunGate};
use toolhost_policy::SandboxPolicy;

use super::command::check_command;
use crate::host::types::err;
use crate::wit::latest::toolhost::tool::{process, types};

/// Where a session's approved runs keep their private cache dir
/// (`toolhost_core::approval::RunCache`): the one place that decides it. Today the policy's
/// temp dir (a writable root in workspace-write mode).
pub(crate) fn run_cache_parent(policy: &SandboxPolicy) -> PathBuf {
    policy.temp_dir().to_path_buf()
}

/// The policy a program this call runs gets: the call's, or narrowed to reading
/// ([`SandboxPolicy::read_only`]) for a component not granted process-execution.
pub(crate) fn run_policy(call: &SandboxPolicy, grant: &crate::grant::RiskGrant) -> SandboxPolicy {
    if grant.runs_programs_read_only() { call.read_only() } else { call.clone() }
}

/// The approved run as the `process.run` command it must be.
fn approved_command(run: &RunApproval) -> process::Command {
    let spec = &run.spec;
    process::Command {
        program: spec.program.clone(),
        args: spec.args.clone(),
        cwd: spec.cwd.clone(),
        env: spec.env.clone(),
        timeout_ms: Some(spec.timeout_ms),
    }
}

/// Whether `command` is exactly the approved `run`.
fn is_run(run: &RunApproval, command: &process::Command) -> bool {
    let spec = &run.spec;
    spec.program == command.program
        && spec.args == command.args
        && spec.cwd == command.cwd
        && spec.env == command.env
        && Some(spec.timeout_ms) == command.timeout_ms
}

/// What `process.run` would refuse of `run` before it starts (program, arguments,
/// environment under `policy`), checked before anyone is asked to approve it.
pub(crate) fn check_approved_run(
    run: &RunApproval,
    policy: &SandboxPolicy,
    policy_file: &Path,
) -> Result<(), types::ToolError> {
    check_command(&approved_command(run), policy, policy_file)
}

/// The run `gate` lets `command` (shown as `shown`) make: the approved one, taken, when
/// `command` is exactly it; refused otherwise (another run, a second run, none approved).
pub(super) fn take(
    gate: &RunGate,
    command: &process::Command,
    shown: &str,
) -> Result<RunApproval, types::ToolError> {
    gate.take().filter(|run| is_run(run, command)).ok_or_else(|| {
        err(
            types::ErrorCode::PermissionDenied,
            format!(
                "the run of `{shown}` was not approved: this tool runs only the one program \
                 its call was approved for, exactly as approved, once; nothing ran"
            ),
        )
    })
}

/// How an approved run starts, held to what its question named.
pub(super) enum Held {
    /// Its program file, by absolute path, under its policy, with its cache dir if any.
    Starts { program: OsString, policy: Box<SandboxPolicy>, cache: Option<PathBuf> },
    /// It cannot start (no program file of its name): what it returns, nothing ran.
    NotStarted(process::Finished),
}

/// What the approved `run` (shown as `shown`) executes in `cwd`, the directory its command
/// names now: exactly its facts, or a refusal when the directory or the program file is no
/// longer the one its approval named. `policy` is the policy a run would get otherwise.
pub(super) fn hold(
    run: &RunApproval,
    cwd: &Path,
    shown: &str,
    policy: &SandboxPolicy,
) -> Result<Held, types::ToolError> {
    let facts = &run.facts;
    if facts.cwd != cwd {
        return Err(err(
            types::ErrorCode::PermissionDenied,
            format!(
                "the working directory of `{shown}` is no longer the one its approval named ({}); nothing ran",
                facts.cwd.display()
            ),
        ));
    }
    let Some(file) = &facts.program else {
        let why = facts.not_found.as_deref().unwrap_or("no program file was found");
        return Ok(Held::NotStarted(not_started(shown, why)));
    };
    if !file.unchanged() {
        return Err(err(
            types::ErrorCode::PermissionDenied,
            format!(
                "the program file {} changed after the run was approved; nothing ran",
                file.path.display()
            ),
        ));
    }
    Ok(Held::Starts {
        program: file.path.clone().into_os_string(),
        policy: Box::new(facts.policy.clone().unwrap_or_else(|| policy.read_only())),
        cache: facts.cache.clone(),
    })
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
