//! The `workspace_tests` tool (docs/workspace-tools.md#workspace_tests): find a project's
//! test command (`detect`, read-only) and run an explicit one (`run`, after the user
//! approves it), reading passed/failed counts and the failures from its output.
//!
//! A call flows through:
//! * [`input`]: the input type (its doc comments are what the model reads) and
//!   [`input::plan`], which checks it into a [`input::Plan`]: detect in a directory, or the
//!   one [`RunSpec`](toolhost_workspace_run::RunSpec) of a run (`cwd` and `timeout_ms`
//!   through `toolhost_workspace_run::check`, the operator's `$operator` settings);
//! * `inspect` answers read-only for detect and for a refused input, and the run's approval
//!   text for run, so the host asks the user about exactly the run `execute` then makes;
//! * [`detect`]: the toolchain of a directory, read through the [`detect::Tree`] trait;
//! * a run goes through a [`TestRunner`] (the host's `process.run` in the component,
//!   [`host::HostTestRunner`]), and [`parse`] reads its output — the whole of each stream
//!   when the host saved it, else the head and tail the run returned;
//! * [`report`]: the structured value and the text (bounded by
//!   `toolhost_workspace_run::display::bound_text`).
//!
//! Every failure — invalid input, a policy refusal, a host refusal, a failed, timed-out or
//! unstartable run, an unreadable directory — is a structured value with `success: false`
//! and an `error_kind` ([`failure`]); only cancellation is an error of the call itself.

pub mod detect;
pub mod failure;
pub mod host;
pub mod input;
pub mod parse;
pub mod report;
#[cfg(test)]
mod tests;

use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::process::Termination;
use toolhost_sdk::scan::CANCELLED;
use toolhost_sdk::{Inspection, Output, Risk, Tool, ToolError};
use toolhost_workspace_run::display::{Sink, bound_text};
use toolhost_workspace_run::host::HostSink;
use toolhost_workspace_run::{Ran, RunSpec, Runner};

use detect::Tree;
use input::{Plan, TestsInput};
use report::TestsOutput;

/// A [`Runner`] whose last run's streams can also be read whole, past the head and tail a
/// [`Ran`] keeps.
pub trait TestRunner: Runner {
    /// The whole stdout and stderr of the last run where the host saved them; none where
    /// the [`Ran`]'s text is all there is to read.
    fn whole(&mut self) -> [Option<String>; 2] {
        [None, None]
    }
}

/// Detects a project's tests and runs them.
#[derive(Default)]
pub struct WorkspaceTests;

impl Tool for WorkspaceTests {
    type Input = TestsInput;

    fn id(&self) -> &'static str {
        "workspace_tests"
    }

    fn description(&self) -> &'static str {
        "Find and run a project's tests. `detect` (read-only, never asks) reads the directory \
         (`cwd`, default the workspace root; a monorepo package's directory works) and says \
         which toolchain it is — Cargo, npm/pnpm/yarn with jest or vitest, pytest, Go — with a \
         suggested command, a confidence and the files that said so. `run` runs the explicit \
         test command you give in `command` + `args` (no shell; e.g. command=\"cargo\", \
         args=[\"test\"]) after the user approves it, sandboxed (workspace writable, network off \
         unless allowed), and returns the passed and failed counts and the failing tests (name, \
         file, line, message) read from the output of cargo test, pytest, jest, vitest or go \
         test (for go, pass -v to count passes), with the bounded stdout and stderr. \
         `timeout_ms` defaults to 300000 (at most 600000) and kills the whole process tree, \
         keeping the output and counts so far."
    }

    fn risk(&self) -> Risk {
        Risk::ProcessExecution
    }

    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(toolhost_sdk::output_schema::<TestsOutput>())
    }

    fn inspect(&self, input: &TestsInput) -> Inspection {
        match input::plan(input) {
            Ok(Plan::Run(spec)) => Inspection::Runs(spec.to_json()),
            Ok(Plan::Detect { .. }) | Err(_) => Inspection::ReadOnly,
        }
    }

    fn execute(&self, input: TestsInput) -> Result<String, ToolError> {
        self.run(input).map(|output| output.text)
    }

    fn run(&self, input: TestsInput) -> Result<Output, ToolError> {
        call(
            &input,
            &mut host::HostTree,
            &mut host::HostTestRunner::default(),
            &mut HostSink::default(),
        )
    }
}

/// One call: plan it, then detect through `tree` or run with `runner` (only a planned run,
/// once) and parse the output; the text bounded with `sink` holding the whole of a long one.
/// A cancelled run is the SDK's cancelled error.
pub fn call(
    input: &TestsInput,
    tree: &mut dyn Tree,
    runner: &mut dyn TestRunner,
    sink: &mut dyn Sink,
) -> Result<Output, ToolError> {
    let operation = input.operation;
    let (value, text) = match input::plan(input) {
        Err(failure) => report::failed(operation, None, &failure),
        Ok(Plan::Detect { cwd }) => match detect::detect(tree, cwd.as_deref()) {
            Ok(found) => report::detected(found),
            Err(failure) if failure.kind == ErrorKind::Cancelled => {
                return Err(ToolError::cancelled(failure.message));
            }
            Err(failure) => report::failed(operation, None, &failure),
        },
        Ok(Plan::Run(spec)) => match runner.run(&spec) {
            Err(failure) if failure.kind == ErrorKind::Cancelled => {
                return Err(ToolError::cancelled(failure.message));
            }
            Err(failure) => report::failed(operation, Some(&spec), &failure),
            Ok(ran) if ran.termination == Termination::Cancelled => {
                return Err(ToolError::cancelled(CANCELLED));
            }
            Ok(ran) => {
                let parsed = parse_run(&spec, &ran, runner.whole());
                report::ran(&spec, &ran, parsed.as_ref())
            }
        },
    };
    Output::structured(bound_text(text, sink), &value)
}

/// Reads the run's output: each stream whole where the runner has it, else as `ran` holds it.
fn parse_run(spec: &RunSpec, ran: &Ran, whole: [Option<String>; 2]) -> Option<parse::Parsed> {
    if ran.termination == Termination::SpawnFailed {
        return None;
    }
    let [stdout, stderr] = whole;
    let stdout = stdout.unwrap_or_else(|| ran.stdout.clone());
    let stderr = stderr.unwrap_or_else(|| ran.stderr.clone());
    parse::parse(parse::format_named(&spec.program, &spec.args), &stdout, &stderr)
}

toolhost_sdk::export_tool!(WorkspaceTests);
