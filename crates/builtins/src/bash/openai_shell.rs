//! OpenAI's `shell` client tool (docs/contract.md#openai-shell): the Responses API's
//! `shell_call` action — `commands` run in order, `timeout_ms`, `max_output_length` —
//! answered with what `shell_call_output` carries: one output per command with its `stdout`,
//! its `stderr` and its `outcome` (`{"type":"exit","exit_code":N}` or `{"type":"timeout"}`),
//! each command's output cut to `max_output_length` characters.
//!
//! Each command runs exactly as [`super::Bash`] runs one (`/bin/bash -c` in the workspace
//! root, inside the sandbox of the call's policy, a fresh shell each); the streams are taken
//! apart from the progress the run reports, so stdout and stderr stay separate. The text the
//! model reads is each command's bash result after a `$ command` line; the structured value is
//! the `shell_call_output` shape.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::result::{ErrorCode, ToolError};
use toolhost_core::tool::{CallInspection, NativeTool, ToolId, ToolOutput, ToolRisk};
use toolhost_limits::{BASH_HEAD_BYTES, BASH_TAIL_BYTES, SHELL_MAX_COMMANDS};
use toolhost_sandbox::capture::Stream;

use super::{BashStatus, bash_request, error_code, run_bash};

/// Input of OpenAI's `shell`: the call's `action`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellInput {
    /// The commands, run in order, each by `/bin/bash -c` in the workspace root.
    pub commands: Vec<String>,
    /// Milliseconds each command may run: default 30000, clamped to 1–120000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Characters of each command's output (stdout, then stderr) returned.
    #[serde(default)]
    pub max_output_length: Option<u64>,
}

/// One command's output, as `shell_call_output.output[]` carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CommandOutput {
    /// What the command wrote to stdout (cut to the bound).
    pub stdout: String,
    /// What it wrote to stderr (cut to what the bound leaves).
    pub stderr: String,
    /// How it ended.
    pub outcome: Outcome,
}

/// How one command ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Outcome {
    /// It exited (a signal is 128 + its number, as a shell reports it).
    Exit {
        /// The exit code.
        exit_code: i32,
    },
    /// It ran past `timeout_ms` and was killed.
    Timeout,
}

/// The structured value: `shell_call_output`'s `output` and `max_output_length`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ShellOutput {
    /// One per command, in order.
    pub output: Vec<CommandOutput>,
    /// The call's `max_output_length`, passed back as the API asks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_length: Option<u64>,
}

/// Characters of a command's output kept when the call gives no `max_output_length`: what
/// bash keeps of one run.
const DEFAULT_OUTPUT_CHARS: u64 = (BASH_HEAD_BYTES + BASH_TAIL_BYTES) as u64;

/// OpenAI's shell client tool, over toolhost's sandboxed bash.
pub struct OpenAiShell;

#[async_trait]
impl NativeTool for OpenAiShell {
    type Input = ShellInput;

    fn id(&self) -> ToolId {
        ToolId::new("shell")
    }

    fn description(&self) -> &'static str {
        "Run shell commands in order, each with /bin/bash -c in the workspace root, inside a \
         sandbox: the workspace is writable, most of the rest of the filesystem is read-only, \
         credentials are hidden. Each command is a fresh shell. Returns each command's stdout, \
         stderr and exit code (or timeout). `timeout_ms` bounds each command (default 30000, \
         at most 120000); `max_output_length` the characters returned per command."
    }

    fn risk(&self) -> ToolRisk {
        ToolRisk::ProcessExecution
    }

    fn inspect(&self, input: &ShellInput) -> CallInspection {
        CallInspection::Runs(input.commands.join("\n"))
    }

    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(toolhost_core::tool::input_schema::<ShellOutput>())
    }

    async fn execute(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: ShellInput,
    ) -> Result<ToolOutput, ToolError> {
        if input.commands.is_empty() || input.commands.len() > SHELL_MAX_COMMANDS {
            return Err(ToolError::new(
                ErrorCode::InvalidArguments,
                format!(
                    "commands holds {} commands; give 1 to {SHELL_MAX_COMMANDS}",
                    input.commands.len()
                ),
            ));
        }
        let limit = input.max_output_length.unwrap_or(DEFAULT_OUTPUT_CHARS);
        let mut output = Vec::with_capacity(input.commands.len());
        let mut text = String::new();
        let mut denied = false;
        for command in &input.commands {
            let streams = Arc::new(Mutex::new(Streams::new(limit)));
            let tap_streams = streams.clone();
            let tap: toolhost_sandbox::process::ProgressFn = Arc::new(move |stream, bytes| {
                tap_streams.lock().unwrap_or_else(|e| e.into_inner()).push(stream, bytes);
            });
            let mut request =
                bash_request(session, &call, command.clone(), input.timeout_ms, Some(tap));
            // Each command's output is bounded here; no spill file is shared between them.
            request.spill_path = None;
            let outcome =
                run_bash(session.sandbox.as_ref(), session.process_backend.as_ref(), request).await;
            let ended = match outcome.status {
                BashStatus::Completed { exit_code, signal } => {
                    Outcome::Exit { exit_code: exit_code.or(signal.map(|s| 128 + s)).unwrap_or(-1) }
                }
                BashStatus::TimedOut { .. } => Outcome::Timeout,
                ref other => {
                    // Cancelled, or the sandbox could not run it: the call ends here.
                    return Err(ToolError::new(error_code(other), outcome.text));
                }
            };
            denied |= outcome.sandbox_denied;
            text.push_str(&format!("$ {command}\n{}\n", outcome.text));
            let (stdout, stderr) =
                std::mem::take(&mut *streams.lock().unwrap_or_else(|e| e.into_inner())).finish();
            output.push(CommandOutput { stdout, stderr, outcome: ended });
        }
        let structured = ShellOutput { output, max_output_length: input.max_output_length };
        Ok(ToolOutput {
            text: text.trim_end().to_owned(),
            sandbox_denied: denied,
            structured: serde_json::to_value(&structured).ok(),
            ..Default::default()
        })
    }
}

/// One command's stdout and stderr as they arrive, each kept up to `limit` characters' worth
/// of bytes (a character is at most 4 bytes), cut to `limit` characters in all at the end.
#[derive(Default)]
struct Streams {
    limit: u64,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl Streams {
    fn new(limit: u64) -> Self {
        Streams { limit, ..Default::default() }
    }

    fn push(&mut self, stream: Stream, bytes: &[u8]) {
        let keep = usize::try_from(self.limit.saturating_mul(4)).unwrap_or(usize::MAX);
        let buf = match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        };
        let room = keep.saturating_sub(buf.len());
        buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// stdout cut to `limit` characters, then stderr to what is left.
    fn finish(self) -> (String, String) {
        let limit = usize::try_from(self.limit).unwrap_or(usize::MAX);
        let stdout: String = String::from_utf8_lossy(&self.stdout).chars().take(limit).collect();
        let left = limit - stdout.chars().count();
        let stderr: String = String::from_utf8_lossy(&self.stderr).chars().take(left).collect();
        (stdout, stderr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_is_cut_to_the_characters_asked_stdout_first() {
        let mut s = Streams::new(5);
        s.push(Stream::Stdout, "héllo world".as_bytes());
        s.push(Stream::Stderr, b"err");
        assert_eq!(s.finish(), ("héllo".to_owned(), String::new()));
        let mut s = Streams::new(6);
        s.push(Stream::Stdout, b"ab");
        s.push(Stream::Stderr, b"cdefgh");
        assert_eq!(s.finish(), ("ab".to_owned(), "cdef".to_owned()));
    }

    #[test]
    fn outcomes_serialise_as_the_api_has_them() {
        let o = CommandOutput {
            stdout: "x".into(),
            stderr: String::new(),
            outcome: Outcome::Exit { exit_code: 2 },
        };
        assert_eq!(
            serde_json::to_value(&o).unwrap(),
            serde_json::json!({"stdout": "x", "stderr": "", "outcome": {"type": "exit", "exit_code": 2}})
        );
        assert_eq!(
            serde_json::to_value(Outcome::Timeout).unwrap(),
            serde_json::json!({"type": "timeout"})
        );
    }
}
