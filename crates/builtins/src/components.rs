// The built-in file tools that are WebAssembly components: (guest crate, tool id). The one
// list of them: `build.rs` embeds each crate's `wasm32-wasip2` build in the `toolhost`
// binary under its id, `cargo xtask build` builds and copies them, and the registry loads
// them in this order. (Plain Rust with no `use`, so build.rs and xtask `include!` it.)

/// The built-in component tools: (guest crate, tool id).
pub const BUILTIN_COMPONENT_CRATES: &[(&str, &str)] = &[
    ("toolhost-tool-read", "read"),
    ("toolhost-tool-write", "write"),
    ("toolhost-tool-edit", "edit"),
    ("toolhost-tool-grep", "grep"),
    ("toolhost-tool-glob", "glob"),
    ("toolhost-tool-list", "list"),
];

/// The workspace tools that are WebAssembly components: (guest crate, tool id). Embedded like
/// the file tools, but registered only for a toolset that names them (`--agent workspace`,
/// `--tools`).
pub const WORKSPACE_COMPONENT_CRATES: &[(&str, &str)] = &[
    ("toolhost-tool-workspace-git", "workspace_git"),
    ("toolhost-tool-workspace-markdown", "workspace_markdown"),
    ("toolhost-tool-workspace-preview", "workspace_preview"),
    ("toolhost-tool-workspace-shell", "workspace_shell"),
    ("toolhost-tool-workspace-tests", "workspace_tests"),
];

/// The file tools offered only when a toolset names them (`--tools …,apply_patch`,
/// `--agent patch`): (guest crate, tool id). Embedded and registered like the workspace tools,
/// but not held to the workspace beyond the fence every file tool has.
pub const ON_DEMAND_FILE_TOOL_CRATES: &[(&str, &str)] = &[
    ("toolhost-tool-apply-patch", "apply_patch"),
    ("toolhost-tool-multi-edit", "multi_edit"),
    ("toolhost-tool-text-editor", "str_replace_based_edit_tool"),
];

/// The components only an agent's toolset offers, under a tool id another built-in has too:
/// (guest crate, the name it is embedded under). OpenAI's one-operation `apply_patch` shares
/// its id with codex's, so it is offered by `--agent openai` alone and never beside it.
pub const AGENT_ONLY_CRATES: &[(&str, &str)] =
    &[("toolhost-tool-openai-apply-patch", "openai_apply_patch")];

/// The workspace tools that ask a person before every program they run, and run only what was
/// approved (docs/workspace-tools.md#approvals).
pub const ASKS_BEFORE_EACH_RUN: &[&str] = &["workspace_shell", "workspace_tests"];
