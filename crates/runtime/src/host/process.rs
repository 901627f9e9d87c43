//! `process`: programs a component runs. Each run goes through
//! `toolhost_sandbox::run::run_sandboxed`, the path bash takes: the same OS sandbox made from
//! this call's policy (network off unless it allows it) for a component granted
//! process-execution, and from that policy narrowed to reading (`SandboxPolicy::read_only`:
//! nothing writable, network off) for any other, the same cgroup, the same sweep of
//! what it may not create, and nothing runs when the sandbox is unavailable.
//!
//! A run flows through: `approved` (a tool that asks before every run: only the one run its
//! call's gate holds, held to what its question named), `command` (what is refused of the
//! program, its arguments and its environment, with `env`'s allow list), the working
//! directory (fenced, inside the workspace), then the sandboxed run, and `output` (stdout
//! and stderr captured apart, each bounded like bash's output: head + tail, the rest in a
//! spill file; how it ended, as the component reads it).

mod approved;
mod command;
mod env;
mod output;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Instant;

use toolhost_core::approval::RunApproval;
use toolhost_core::fence::Intent;
use toolhost_limits::{APPROVED_RUN_MAX_TIMEOUT_MS, BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS};
use toolhost_policy::Access;
use toolhost_sandbox::run::{NotRun, SandboxedRun, run_sandboxed, within_deadline_ms};

pub(crate) use approved::{check_approved_run, run_cache_parent, run_policy};

use super::state::CallState;
use super::types::{WitResult, err};
use crate::wit::latest::toolhost::tool::{process, types};
use approved::Held;
use command::{check_command, invalid};
use output::Streams;

impl process::Host for CallState {
    async fn run(&mut self, command: process::Command) -> WitResult<process::Finished> {
        let shown = toolhost_core::display::terminal_line(&command.program).into_owned();
        let policy_file = self.session.data_dir.join(toolhost_policy::POLICY_FILE);
        // A tool that asks before every run runs the one run a person approved, exactly, once.
        let approved: Option<RunApproval> = match &self.call.run_gate {
            Some(gate) => Some(approved::take(gate, &command, &shown)?),
            None => None,
        };
        check_command(&command, &self.call.sandbox_policy, &policy_file)?;
        let cwd = self.run_dir(&command)?;
        let mut env = self.session.process_environment(&self.call.sandbox_policy);
        env.extend(command.env.iter().cloned());
        // An approved run executes what its question named: the program file found before
        // asking (never a name looked up again), in that directory, under that policy.
        let mut program = OsString::from(&command.program);
        let mut policy = run_policy(&self.call.sandbox_policy, &self.share.grant);
        if let Some(run) = &approved {
            match approved::hold(run, &cwd, &shown, &policy)? {
                Held::NotStarted(finished) => return Ok(finished),
                Held::Starts { program: file, policy: held, cache } => {
                    (program, policy) = (file, *held);
                    // HOME is not writable in the sandbox: an approved run's toolchains (go's
                    // build cache, pip's, …) cache in the session's private cache dir.
                    if let Some(cache) = cache {
                        env.entry("XDG_CACHE_HOME".into())
                            .or_insert_with(|| cache.to_string_lossy().into_owned());
                    }
                }
            }
        }
        let mut noted = vec![shown.clone()];
        noted.extend(
            command.args.iter().map(|a| toolhost_core::display::terminal_line(a).into_owned()),
        );
        self.share.grant.note_run(noted.join(" "));
        let streams = Streams::new(self);
        let gated = self.call.run_gate.is_some();
        let progress = streams.sink(gated.then(|| self.call.clone()));
        let mut argv: Vec<OsString> = vec![program];
        argv.extend(command.args.iter().map(Into::into));
        let run = run_sandboxed(
            self.session.sandbox.as_ref(),
            self.session.process_backend.as_ref(),
            SandboxedRun {
                argv,
                cwd: cwd.clone(),
                policy: &policy,
                env,
                timeout: std::time::Duration::from_millis(self.run_timeout_ms(&command)),
                cancel: self.call.cancel.clone(),
                spill_path: None,
                progress: Some(progress),
            },
        )
        .await
        .map_err(|NotRun { text }| err(types::ErrorCode::SandboxUnavailable, text))?;
        Ok(output::finished(self, run, streams, &shown, &policy, &cwd)?)
    }
}

impl CallState {
    /// The directory `command` runs in: the workspace root, or its `cwd` fenced for reading
    /// and inside the workspace.
    fn run_dir(&self, command: &process::Command) -> Result<PathBuf, types::ToolError> {
        let workspace = &self.session.working_directory;
        let Some(dir) = &command.cwd else { return Ok(workspace.clone()) };
        let checked = self.check(dir, Access::Read, Intent::MustExist)?;
        if !checked.as_path().starts_with(workspace) {
            return Err(err(
                types::ErrorCode::PermissionDenied,
                format!("{dir} is outside the workspace; a program runs in a directory inside it"),
            ));
        }
        if !checked.as_path().is_dir() {
            return Err(invalid(format!("{dir} is not a directory")));
        }
        Ok(checked.as_path().to_path_buf())
    }

    /// How long `command` may run, in milliseconds: bash's rule (the WIT's `timeout-ms`):
    /// default 30000, clamped to 1–120000 and to the call's deadline; an approved run up to
    /// 600000 (docs/workspace-tools.md#approvals).
    fn run_timeout_ms(&self, command: &process::Command) -> u64 {
        let max = if self.call.run_gate.is_some() {
            APPROVED_RUN_MAX_TIMEOUT_MS
        } else {
            BASH_MAX_TIMEOUT_MS
        };
        within_deadline_ms(
            command.timeout_ms.unwrap_or(BASH_DEFAULT_TIMEOUT_MS).clamp(1, max),
            self.call.deadline,
            Instant::now(),
        )
    }
}
