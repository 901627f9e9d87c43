//! What a tool call returns (docs/contract.md#results): `ToolResult`, its status, content,
//! artifacts and typed error. The JSON shape is a contract (docs/contract.md#results) and is fixed
//! by serde here.

use serde::{Deserialize, Serialize};

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolResultStatus {
    Succeeded,
    Failed,
    Denied,
    Cancelled,
    OutcomeUnknown,
}

/// Why a call did not succeed (docs/contract.md#results).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    ToolNotFound,
    InvalidArguments,
    PermissionDenied,
    Cancelled,
    Timeout,
    ExecutionFailed,
    OutcomeUnknown,
    SandboxUnavailable,
}

impl ErrorCode {
    /// The status a result with this error carries.
    pub fn status(self) -> ToolResultStatus {
        match self {
            ErrorCode::Cancelled => ToolResultStatus::Cancelled,
            ErrorCode::OutcomeUnknown => ToolResultStatus::OutcomeUnknown,
            _ => ToolResultStatus::Failed,
        }
    }
}

/// A failed call's error: the message is also the model-visible text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    pub retryable: bool,
}

impl ToolError {
    /// An error that retrying the same call will not fix.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError { code, message: message.into(), retryable: false }
    }

    /// `invalid_arguments` with this message.
    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArguments, message)
    }

    /// `execution_failed` with this message.
    pub fn execution_failed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ExecutionFailed, message)
    }

    /// `permission_denied` with this message.
    pub fn permission_denied(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PermissionDenied, message)
    }
}

/// One piece of model-visible content (docs/contract.md#results: text only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolResultContent {
    Text { text: String },
}

/// One hunk of a file change, with three lines of context (docs/contract.md#file-changes-and-undo).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffHunk {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    /// Lines prefixed with ` `, `-` or `+`, without line endings.
    pub lines: Vec<String>,
}

/// Whether a change created the file, modified it or deleted it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileChangeKind {
    Created,
    Modified,
    /// The file was removed (`apply_patch`'s Delete File, or the source of a Move): its
    /// `afterContent` and `afterHash` are empty.
    Deleted,
}

/// A file change made by write, edit or apply_patch: enough to show the diff and to undo it
/// (docs/contract.md#file-changes-and-undo).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    pub change_id: String,
    pub path: String,
    pub kind: FileChangeKind,
    pub additions: u32,
    pub deletions: u32,
    pub hunks: Vec<DiffHunk>,
    pub before_hash: String,
    pub after_hash: String,
    pub before_content: String,
    pub after_content: String,
    pub undone: bool,
    /// The permission bits (`0o777` of the mode) of a deleted file, or of a file created with
    /// another's (a move's destination): what undo and reapply recreate it with. Absent for
    /// every other change, which keeps or defaults its file's mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
}

/// Data that travels with a result but never reaches the model (docs/contract.md#results).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolResultArtifact {
    FileChange(FileChange),
}

/// The one final result of a tool call (docs/contract.md#results). Two results are equal when they
/// say the same thing: `usage` (what the call happened to cost) is not compared.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolResult {
    pub status: ToolResultStatus,
    pub content: Vec<ToolResultContent>,
    pub artifacts: Vec<ToolResultArtifact>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<ToolError>,
    pub sandbox_denied: bool,
    /// The structured value of a succeeded call whose tool declares an output schema (MCP
    /// `structuredContent`), checked against that schema; the text says the same.
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none", default)]
    pub structured: Option<serde_json::Value>,
    /// What a component call cost (none for host-native tools such as bash).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub usage: Option<ToolUsage>,
}

/// What one component call cost: wall time and the most linear memory its instances held at
/// once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUsage {
    /// Wall time of the call in the runtime, microseconds.
    pub wall_us: u64,
    /// Peak linear memory of the call's instances, bytes (summed over parallel parts).
    pub peak_memory_bytes: u64,
}

impl PartialEq for ToolResult {
    fn eq(&self, other: &Self) -> bool {
        self.status == other.status
            && self.content == other.content
            && self.artifacts == other.artifacts
            && self.error == other.error
            && self.sandbox_denied == other.sandbox_denied
            && self.structured == other.structured
    }
}

impl Eq for ToolResult {}

impl ToolResult {
    /// A succeeded result with this text.
    pub fn success(text: impl Into<String>) -> Self {
        ToolResult {
            status: ToolResultStatus::Succeeded,
            content: vec![ToolResultContent::Text { text: text.into() }],
            artifacts: Vec::new(),
            error: None,
            sandbox_denied: false,
            structured: None,
            usage: None,
        }
    }

    /// A result for this error; its text equals the error message (docs/contract.md#results).
    pub fn from_error(error: ToolError) -> Self {
        ToolResult {
            status: error.code.status(),
            content: vec![ToolResultContent::Text { text: error.message.clone() }],
            artifacts: Vec::new(),
            error: Some(error),
            sandbox_denied: false,
            structured: None,
            usage: None,
        }
    }

    /// The model-visible text: all text content, concatenated.
    pub fn text(&self) -> String {
        self.content.iter().map(|ToolResultContent::Text { text }| text.as_str()).collect()
    }

    /// True when the call succeeded.
    pub fn succeeded(&self) -> bool {
        self.status == ToolResultStatus::Succeeded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_exactly_as_the_contract() {
        let mut r = ToolResult::from_error(ToolError::invalid_arguments("bad"));
        r.sandbox_denied = true;
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "status": "failed",
                "content": [{"type": "text", "text": "bad"}],
                "artifacts": [],
                "error": {"code": "invalid_arguments", "message": "bad", "retryable": false},
                "sandbox_denied": true
            })
        );
        let ok = serde_json::to_value(ToolResult::success("x")).unwrap();
        assert!(ok.get("error").is_none());
        assert_eq!(ok["status"], "succeeded");
    }

    #[test]
    fn cancelled_and_unknown_errors_carry_their_own_status() {
        assert_eq!(ErrorCode::Cancelled.status(), ToolResultStatus::Cancelled);
        assert_eq!(ErrorCode::OutcomeUnknown.status(), ToolResultStatus::OutcomeUnknown);
        assert_eq!(ErrorCode::Timeout.status(), ToolResultStatus::Failed);
        let v = serde_json::to_value(ErrorCode::ToolNotFound).unwrap();
        assert_eq!(v, "tool_not_found");
    }
}
