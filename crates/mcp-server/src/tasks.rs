//! Which calls run as tasks (the `io.modelcontextprotocol/tasks` extension), and what a
//! running task says about itself.
//!
//! A client that declares the extension gets, for a call that may outlast its patience, a
//! `CreateTaskResult` at once instead of the result; it polls `tasks/get` (the latest progress
//! line as `statusMessage`, then the final `CallToolResult`) and may send `tasks/cancel`.
//! [`crate::task_store`] keeps the tasks (within bounds); [`crate::server`] starts them. Clients that do not
//! declare tasks wait for the result as before.

use toolhost_core::context::ToolProgress;
use toolhost_core::{ToolDefinition, ToolRisk};

/// Longest `statusMessage` a task reports, in bytes (cut at a character boundary).
pub const MAX_STATUS_BYTES: usize = 512;

/// Whether a call of `tool` runs as a task for a client that declared tasks: tools that run
/// programs (bash, the process tools), whose calls may take minutes.
pub fn eligible(tool: &ToolDefinition) -> bool {
    tool.risk == ToolRisk::ProcessExecution
}

/// The status line of a task running `tool` after progress `p`: the last non-empty line of
/// its output, or the tool's own message.
pub fn status_line(tool: &str, p: &ToolProgress) -> String {
    let text = match p {
        ToolProgress::Stdout { chunk } | ToolProgress::Stderr { chunk } => {
            chunk.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default()
        }
        ToolProgress::Message { message, .. } => message.as_str(),
    };
    let mut line = format!("{tool}: {}", text.trim_end());
    line.truncate(line.floor_char_boundary(MAX_STATUS_BYTES));
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_is_the_last_line_of_output_bounded() {
        let p = ToolProgress::Stdout { chunk: "one\ntwo\n\n".into() };
        assert_eq!(status_line("bash", &p), "bash: two");
        let p = ToolProgress::Message { message: "3 of 9 tests".into(), fraction: Some(0.3) };
        assert_eq!(status_line("workspace_tests", &p), "workspace_tests: 3 of 9 tests");
        let p = ToolProgress::Stderr { chunk: "é".repeat(1000) };
        let line = status_line("bash", &p);
        assert!(line.len() <= MAX_STATUS_BYTES && line.starts_with("bash: é"));
    }
}
