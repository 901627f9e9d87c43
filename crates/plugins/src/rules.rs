//! The rules a tool's definition must meet before the host offers it to a model, and what a
//! risk means. The rules and limits themselves live in one place,
//! [`toolhost_runtime::definition`] (the runtime checks every definition as soon as
//! `describe` returns); they are re-exported here for `tool add`, `--tool` and conformance.

use toolhost_core::tool::ToolRisk;

pub use toolhost_runtime::definition::{
    DefinitionError, MAX_ID_CHARS, PastLimit, SchemaKind, Taken, check_definition,
    check_output_schema, check_remembered, check_schema, valid_id,
};

/// The ids of the built-in tools, the default seven then the workspace tools: no third-party
/// tool may take one (compared ignoring case). The built-ins' own lists are checked against
/// this one by a test of the builtins crate.
pub const RESERVED_IDS: &[&str] = &[
    "read",
    "write",
    "edit",
    "grep",
    "glob",
    "list",
    "bash",
    "workspace_git",
    "workspace_markdown",
    "workspace_preview",
    "workspace_shell",
    "workspace_tests",
    "apply_patch",
    "multi_edit",
    "str_replace_based_edit_tool",
    "shell",
];

/// What a risk lets a component do, in words for the person who grants it.
pub fn risk_meaning(risk: ToolRisk) -> &'static str {
    match risk {
        ToolRisk::ReadOnly => {
            "it may read files the session's policy lets it read, and run programs that can only read (nothing writable, no network); it can never write a file"
        }
        ToolRisk::WorkspaceMutation => {
            "it may read, write files where the session's policy allows writes (every write is a recorded, undoable change), and run programs that can only read (nothing writable, no network)"
        }
        ToolRisk::ProcessExecution => {
            "it may read, write where the session's policy allows writes, and run programs: each program runs inside the same OS sandbox as bash, under the session's policy, with no network unless the policy allows it"
        }
    }
}

/// How much a risk allows, for comparing grants.
pub fn risk_rank(risk: ToolRisk) -> u8 {
    match risk {
        ToolRisk::ReadOnly => 0,
        ToolRisk::WorkspaceMutation => 1,
        ToolRisk::ProcessExecution => 2,
    }
}
