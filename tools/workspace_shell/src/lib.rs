//! The `workspace_shell` tool (docs/workspace-tools.md#workspace_shell): run one workspace
//! command — build, test, lint, diagnose — after the user approves it, with bounded output,
//! a timeout and cancellation.
//!
//! A call flows through:
//! * [`input`]: the input type (its doc comments are what the model reads) and [`input::plan`],
//!   which checks it — `command` + `args`, or a `shell_string` taken apart by [`split`]; the
//!   operator's `$operator` settings (raw shell strings, the program whitelist); `cwd`, `env`,
//!   `timeout_ms` through `toolhost_workspace_run::check` — into the one
//!   [`RunSpec`](toolhost_workspace_run::RunSpec) of the call;
//! * `inspect` answers that spec's approval text, so the host asks the user about exactly the
//!   run `execute` then makes, through a [`Runner`] (the host's `process.run` in the
//!   component);
//! * [`report`]: the structured value and the text, for a run that ended or a call that did
//!   not run; the text is bounded by `toolhost_workspace_run::display::bound_text`.
//!
//! Every failure — invalid input, a policy refusal, a host refusal, a failed, killed or
//! unstartable program — is a structured value with `success: false` and an `error_kind`;
//! only cancellation is an error of the call itself.

pub mod input;
pub mod report;
pub mod split;
#[cfg(test)]
mod tests;

use toolhost_sdk::process::Termination;
use toolhost_sdk::scan::CANCELLED;
use toolhost_sdk::{Inspection, Output, Risk, Tool, ToolError};
use toolhost_workspace_run::Runner;
use toolhost_workspace_run::display::{Sink, bound_text};
use toolhost_workspace_run::host::{HostRunner, HostSink};

use input::ShellInput;
use report::ShellOutput;

/// Runs one approved workspace command.
#[derive(Default)]
pub struct WorkspaceShell;

impl Tool for WorkspaceShell {
    type Input = ShellInput;

    fn id(&self) -> &'static str {
        "workspace_shell"
    }

    fn description(&self) -> &'static str {
        "Run one command in the workspace — build, test, lint, diagnose — and get its exit \
         code, stdout and stderr. Every run is shown to the user and runs only if they approve \
         it, so say why in `purpose`. Prefer `command` + `args` (e.g. command=\"cargo\", \
         args=[\"build\"]): the program runs directly, without a shell. `shell_string` takes a \
         simple command line like \"ls -la\"; shell syntax (pipes, redirection, `;`, `&&`, \
         variables, globbing, substitution) is refused unless the operator allowed it. The run \
         is sandboxed: the workspace is writable, credentials are hidden, the network is off \
         unless the policy allows it. `cwd` is relative to the workspace; `timeout_ms` defaults \
         to 60000 (at most 600000) and kills the whole process tree, keeping the output so \
         far. Long stdout and stderr keep their start and end; the whole streams are saved to \
         files the result names."
    }

    fn risk(&self) -> Risk {
        Risk::ProcessExecution
    }

    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(toolhost_sdk::output_schema::<ShellOutput>())
    }

    fn inspect(&self, input: &ShellInput) -> Inspection {
        match input::plan(input) {
            Ok(spec) => Inspection::Runs(spec.to_json()),
            Err(_) => Inspection::ReadOnly,
        }
    }

    fn execute(&self, input: ShellInput) -> Result<String, ToolError> {
        self.run(input).map(|output| output.text)
    }

    fn run(&self, input: ShellInput) -> Result<Output, ToolError> {
        call(&input, &mut HostRunner, &mut HostSink::default())
    }
}

/// One call: plan the run, run it with `runner` (only if planned), report it; the text
/// bounded with `sink` holding the whole of a long one. A cancelled run is the SDK's
/// cancelled error.
pub fn call(
    input: &ShellInput,
    runner: &mut dyn Runner,
    sink: &mut dyn Sink,
) -> Result<Output, ToolError> {
    let (value, text) = match input::plan(input) {
        Err(failure) => report::failed(None, &failure),
        Ok(spec) => match runner.run(&spec) {
            Err(failure) if failure.kind == toolhost_sdk::error_kinds::ErrorKind::Cancelled => {
                return Err(ToolError::cancelled(failure.message));
            }
            Err(failure) => report::failed(Some(&spec), &failure),
            Ok(ran) if ran.termination == Termination::Cancelled => {
                return Err(ToolError::cancelled(CANCELLED));
            }
            Ok(ran) => report::ran(&spec, &ran),
        },
    };
    Output::structured(bound_text(text, sink), &value)
}

toolhost_sdk::export_tool!(WorkspaceShell);
