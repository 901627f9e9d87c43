//! `runner`: a test-only third-party tool of process-execution risk. It runs one program
//! through the host's `process` capability (toolhost:tool 0.2.0: inside bash's OS sandbox,
//! under the call's policy) and answers twice, completely each time: a text for the model,
//! and a structured value matching its declared output schema (MCP `structuredContent`).
//!
//! `inspect` answers `runs(...)` with the program and its arguments, so an approver sees them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolhost_sdk::process::{self, Captured, Command, Termination};
use toolhost_sdk::{Inspection, Output, Risk, Tool, ToolError, output_schema};

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunnerInput {
    /// The program: a name on the host's PATH, or a path. No shell is involved.
    pub program: String,
    /// Its arguments, passed literally.
    #[serde(default)]
    pub args: Vec<String>,
    /// The working directory, inside the workspace (default: its root).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Environment variables to set for it, as `NAME=value` strings.
    #[serde(default)]
    pub env: Vec<String>,
    /// Milliseconds before the program is killed (default 30000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// One captured stream in the structured result.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "Stream")]
pub struct RunnerStream {
    /// The stream, or its head and tail when long.
    pub text: String,
    /// Bytes the program wrote to it.
    pub total_bytes: u64,
    /// Where the whole stream was saved when `text` could not hold it.
    pub spill_path: Option<String>,
}

/// The structured result.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "Ran")]
pub struct RunnerOutput {
    /// How it ended: exited, timed-out, cancelled, signalled or spawn-failed.
    pub termination: String,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Its standard output.
    pub stdout: RunnerStream,
    /// Its standard error.
    pub stderr: RunnerStream,
    /// Wall time of the run in milliseconds.
    pub duration_ms: u64,
}

fn stream(c: Captured) -> RunnerStream {
    RunnerStream { text: c.text, total_bytes: c.total_bytes, spill_path: c.spill_path }
}

fn termination(t: Termination) -> &'static str {
    match t {
        Termination::Exited => "exited",
        Termination::TimedOut => "timed-out",
        Termination::Cancelled => "cancelled",
        Termination::Signalled => "signalled",
        Termination::SpawnFailed => "spawn-failed",
    }
}

/// The runner test tool.
#[derive(Default)]
pub struct RunnerTool;

impl Tool for RunnerTool {
    type Input = RunnerInput;

    fn id(&self) -> &'static str {
        "runner"
    }

    fn description(&self) -> &'static str {
        "Test-only tool that runs one program (no shell) inside the host's sandbox and reports how it ended and what it printed."
    }

    fn risk(&self) -> Risk {
        Risk::ProcessExecution
    }

    fn inspect(&self, input: &RunnerInput) -> Inspection {
        let mut shown = vec![input.program.clone()];
        shown.extend(input.args.iter().cloned());
        Inspection::Runs(shown.join(" "))
    }

    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(output_schema::<RunnerOutput>())
    }

    fn execute(&self, input: RunnerInput) -> Result<String, ToolError> {
        self.run(input).map(|o| o.text)
    }

    fn run(&self, input: RunnerInput) -> Result<Output, ToolError> {
        let mut env = Vec::with_capacity(input.env.len());
        for pair in &input.env {
            let Some((name, value)) = pair.split_once('=') else {
                return Err(ToolError::invalid_arguments(format!(
                    "{}env: {pair:?} is not NAME=value",
                    toolhost_sdk::INVALID_INPUT_PREFIX
                )));
            };
            env.push((name.to_owned(), value.to_owned()));
        }
        let finished = process::run(&Command {
            program: input.program.clone(),
            args: input.args.clone(),
            cwd: input.cwd.clone(),
            env,
            timeout_ms: input.timeout_ms,
        })?;
        let ran = RunnerOutput {
            termination: termination(finished.termination).to_owned(),
            exit_code: finished.exit_code,
            signal: finished.signal,
            stdout: stream(finished.stdout),
            stderr: stream(finished.stderr),
            duration_ms: finished.duration_ms,
        };
        let mut text = format!("{} {}", input.program, ran.termination);
        if let Some(code) = ran.exit_code {
            text.push_str(&format!(" with code {code}"));
        }
        if let Some(signal) = ran.signal {
            text.push_str(&format!(" by signal {signal}"));
        }
        text.push_str(&format!(" after {} ms\n", ran.duration_ms));
        for (name, s) in [("stdout", &ran.stdout), ("stderr", &ran.stderr)] {
            if !s.text.is_empty() {
                text.push_str(&format!(
                    "--- {name} ({} bytes) ---\n{}\n",
                    s.total_bytes,
                    s.text.trim_end()
                ));
            }
        }
        Output::structured(text, &ran)
    }
}

toolhost_sdk::export_tool!(RunnerTool);
