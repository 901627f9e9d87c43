//! The `workspace_git` tool (docs/workspace-tools.md#workspace_git): read-only git
//! inspection — status, diff, log, show, branch — with structured, bounded results.
//!
//! A call flows through:
//! * [`input`]: the input type (its doc comments are what the model reads) and every check
//!   of `cwd`, `pathspecs` and the bounds; [`revision`] checks a revision's syntax, then
//!   resolves it to a full hash by asking git;
//! * [`flow`]: the operation, over the [`runner::Git`] trait — first the repository's
//!   filter/diff/merge drivers are listed and disabled ([`hardening`], which also holds the
//!   global options and environment every run gets), then the command runs and its output
//!   is parsed ([`status`], [`log`], [`branch`]; paths through [`paths`]) or kept within
//!   `max_bytes` ([`toolhost_sdk::head_tail`], rendered with [`GIT_OUTPUT`]);
//! * [`report`]: the structured value (bounded for the host), the failure value, and the
//!   text bounded to `MAX_RESULT_BYTES` with the whole text in a spill file;
//! * [`host`]: the component's runner (`process.run`, reading a long stdout back from the
//!   file the host saved it to) and spill.
//!
//! Every failure — invalid input, not a repository, a git error, a refused or failed run —
//! is a structured value with `success: false` and an `error_kind` ([`failure`]); only
//! cancellation is an error of the call itself.

pub mod branch;
pub mod failure;
pub mod flow;
pub mod hardening;
pub mod host;
pub mod input;
pub mod log;
pub mod paths;
pub mod report;
pub mod revision;
pub mod runner;
pub mod status;
#[cfg(test)]
mod tests;

use toolhost_sdk::error_kinds::ErrorKind;

/// What the line standing for the omitted middle of a kept output names.
pub const GIT_OUTPUT: &str = "git's output";
use toolhost_sdk::{Output, Risk, Tool, ToolError};

use failure::GitFailure;
use flow::Done;
use input::{GitInput, GitOperation};
use report::{GitOutput, Sink};

/// Read-only git inspection.
#[derive(Default)]
pub struct WorkspaceGit;

impl Tool for WorkspaceGit {
    type Input = GitInput;

    fn id(&self) -> &'static str {
        "workspace_git"
    }

    fn description(&self) -> &'static str {
        "Inspect a git repository in the workspace, read-only: `status` (changed, staged and \
         untracked files and the current branch), `diff` (the patch of unstaged changes, or of \
         everything since `revision`), `log` (recent commits: hash, author, date, subject), \
         `show` (one commit's message and patch) and `branch` (local branches). Results are \
         structured and bounded; long diffs keep their start and end. It never changes the \
         repository and never runs hooks, filters or external diff programs. Revisions are \
         local only: HEAD, HEAD~N, a local branch or a commit hash."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(toolhost_sdk::output_schema::<GitOutput>())
    }

    fn execute(&self, input: GitInput) -> Result<String, ToolError> {
        self.run(input).map(|output| output.text)
    }

    fn run(&self, input: GitInput) -> Result<Output, ToolError> {
        let operation = input.operation;
        let result = input::check(&input).and_then(|checked| {
            let mut git = host::HostGit { cwd: checked.cwd.clone() };
            flow::run(&mut git, &checked)
        });
        finish(operation, result, &mut host::HostSink::default())
    }
}

/// The call's output from what the flow did: the structured value (bounded) and the text
/// (bounded, spilled to `sink` when long); a cancelled call is the SDK's cancelled error.
pub fn finish(
    operation: GitOperation,
    result: Result<Done, GitFailure>,
    sink: &mut dyn Sink,
) -> Result<Output, ToolError> {
    let (mut value, text, kept) = match result {
        Ok(done) => (done.output, done.text, done.kept),
        Err(failure) if failure.kind == ErrorKind::Cancelled => {
            return Err(ToolError::cancelled(failure.message));
        }
        Err(failure) => {
            let (value, text) = report::failed(operation, &failure);
            (value, text, None)
        }
    };
    report::fit(&mut value, kept.as_ref());
    Output::structured(report::bound_text(text, sink), &value)
}

toolhost_sdk::export_tool!(WorkspaceGit);
