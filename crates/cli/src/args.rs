//! The command line's options and commands, as clap parses them (docs/cli.md): the global
//! options in [`Cli`], one [`Command`] variant per command with its own options.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use toolhost::{Agent, SandboxMode};

use crate::commands;

#[derive(Parser)]
#[command(name = "toolhost", version, about = "Host for the tools an AI coding agent calls")]
pub struct Cli {
    /// The workspace (default: the current directory).
    #[arg(long, global = true)]
    pub workspace: Option<PathBuf>,
    /// Where spill files, the component cache and the session store live
    /// (default: $TOOLHOST_HOME, else ~/.toolhost).
    #[arg(long, global = true)]
    pub data_dir: Option<PathBuf>,
    /// The sandbox mode of the session.
    #[arg(long, global = true, value_enum, default_value = "workspace-write")]
    pub mode: SandboxMode,
    /// Which agent's toolset to serve: `default` (read write edit grep glob list bash, then
    /// installed and `--tool` tools), `explorer` (read grep glob list bash, then read-only
    /// installed tools), `workspace` (the default's, then the five workspace tools
    /// workspace_git, workspace_markdown, workspace_preview, workspace_shell and
    /// workspace_tests, then installed and `--tool` tools), `patch` (read apply_patch grep
    /// glob list bash), `claude` (Anthropic's str_replace_based_edit_tool and bash) or
    /// `openai` (OpenAI's one-operation apply_patch and shell).
    #[arg(long, global = true, value_enum, default_value = "default")]
    pub agent: Agent,
    /// Serve exactly these tools, in this order, instead of an agent's toolset: built-in,
    /// workspace, installed or `--tool` ids, comma-separated (e.g. `read,grep,workspace_git`).
    #[arg(long, global = true, value_name = "ID[,ID…]", value_parser = toolhost::builtins::parse_tools, conflicts_with = "agent")]
    pub tools: Option<toolhost::builtins::ToolIds>,
    /// The session id (default: a new one).
    #[arg(long, global = true)]
    pub session: Option<String>,
    /// Approve every escalation (`sandboxPermissions`) and every run of the tools that ask
    /// before each run (workspace_shell, workspace_tests run) without asking: for scripted
    /// use. Without it, such calls are asked (a terminal for `call`, the client for `session
    /// --client-approves` and `mcp`) or denied.
    #[arg(long, global = true)]
    pub allow_escalation: bool,
    /// Use the tool component FILE for this run only, granted its declared risk (repeatable).
    #[arg(long = "tool", id = "extra_tool", global = true, value_name = "FILE")]
    pub extra_tools: Vec<PathBuf>,
    /// Confine reads (file tools and bash) to the workspace, the read roots and the system
    /// directories programs need. Without it, or policy.json's "reads", every path but
    /// credentials is readable.
    #[arg(long, global = true)]
    pub confine_reads: bool,
    /// A directory the model may read but never write, besides the workspace; confines reads
    /// (repeatable).
    #[arg(long = "read-root", global = true, value_name = "DIR")]
    pub read_roots: Vec<PathBuf>,
    /// The session store: `sqlite` (the default: toolhost.db in the data dir) or
    /// `postgres://USER@HOST:PORT/DB`, shared by a fleet (default: $TOOLHOST_STORE, else
    /// policy.json's "store").
    #[arg(long, global = true, value_name = "URL")]
    pub store: Option<String>,
    #[command(subcommand)]
    pub(crate) command: Command,
}

impl Cli {
    /// Whether this command runs tools over the workspace (and so must not take a directory
    /// shared by everything for one without `--workspace`: `setup::refuse_shared_workspace`).
    pub fn runs_tools(&self) -> bool {
        matches!(self.command, Command::Call { .. } | Command::Session { .. } | Command::Mcp { .. })
    }

    /// The tools this run offers: `--tools`' list, else `--agent`'s toolset.
    pub fn selection(&self) -> toolhost::Selection {
        match &self.tools {
            Some(ids) => toolhost::Selection::Tools(ids.0.clone()),
            None => toolhost::Selection::Agent(self.agent),
        }
    }
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Print the finalized toolset's definitions, in toolset order.
    Tools {
        /// Print the definitions as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Make one tool call and print the model-visible text.
    Call {
        /// The tool id.
        tool: String,
        /// The tool's input as a JSON object, or `-` to read it from stdin (e.g. a `write`
        /// whose content is a whole file).
        input: String,
        /// Print the whole ToolResult as JSON.
        #[arg(long)]
        json: bool,
    },
    /// JSON Lines session on stdin/stdout (requests and events as in docs/sessions.md).
    Session {
        /// Ask the client for approvals (escalations, and every run of workspace_shell and
        /// workspace_tests run): an `approval` event, answered by an `approve` request.
        /// Without it (and without --allow-escalation) such calls are denied.
        #[arg(long)]
        client_approves: bool,
    },
    /// Say whether bash's sandbox works here, and if not why and what to do.
    Doctor,
    /// Model Context Protocol server on stdio (or Streamable HTTP with `--listen`), serving
    /// `--agent`'s toolset over `--workspace`.
    Mcp {
        /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio: PORT (loopback),
        /// IP:PORT or [IPv6]:PORT.
        #[arg(long, value_name = "ADDR")]
        listen: Option<String>,
        /// A host name to accept in `Host`/`Origin` besides localhost, 127.0.0.1 and ::1
        /// (repeatable; requests naming any other host are refused against DNS rebinding).
        #[arg(long = "allow-host", value_name = "NAME", requires = "listen")]
        allow_hosts: Vec<String>,
        /// Use FILE's content (trimmed, at least 32 characters) as the bearer token every
        /// request must send, instead of the one kept in the data dir (also: $TOOLHOST_MCP_TOKEN).
        #[arg(long, value_name = "FILE", requires = "listen")]
        token_file: Option<PathBuf>,
        /// Serve without a bearer token: only on a loopback address, and any local process
        /// (another user's, another workspace's sandbox) can then run these tools.
        #[arg(long, requires = "listen", conflicts_with = "token_file")]
        no_auth: bool,
    },
    /// Check a tool component against the host's contract (exit 0 no check failed, 1 one
    /// did, 2 the file cannot be checked).
    Conformance {
        /// The component (`.wasm`).
        file: PathBuf,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Also write the report as JUnit XML to FILE.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// How many inputs to generate from the schema (default 64).
        #[arg(long, value_name = "N")]
        cases: Option<usize>,
        /// The generator's seed (the report prints the one it used).
        #[arg(long, value_name = "S")]
        seed: Option<u64>,
    },
    /// Print a `toolhost:tool` WIT package this host links (the newest by default).
    Wit {
        /// The package version, e.g. 0.1.0.
        #[arg(long, value_name = "V")]
        version: Option<String>,
    },
    /// Create a tool project in Rust, Python or JavaScript that passes `toolhost conformance`.
    ///
    /// The project builds with one command and passes `toolhost conformance` as it is: the WIT
    /// (`wit/tool.wit`, as `toolhost wit` prints it), a skeleton tool that reads a workspace
    /// file, its build tools pinned, and a README (build, conformance, `tool add`, call, MCP).
    /// Exit 0 created, 1 the directory is not empty (nothing written), 2 a name no tool may
    /// have.
    New {
        /// The tool's id: 1 to 64 characters of A-Z, a-z, 0-9, `_` and `-`, not a built-in's.
        name: String,
        /// The language: rust (wit-bindgen), python (componentize-py) or javascript
        /// (componentize-js).
        #[arg(long, value_enum)]
        lang: commands::new::Lang,
        /// The directory to create it in (default: ./NAME); it must not exist or be empty.
        #[arg(long, value_name = "D")]
        dir: Option<PathBuf>,
    },
    /// Install, list, show or remove third-party tool components.
    Tool {
        #[command(subcommand)]
        action: commands::tool::ToolAction,
    },
    /// List the recorded file changes with their diffs (only `--session`'s when given).
    Changes {
        /// Print the file-change artifacts as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Undo recorded file changes (newest first); refused if a file changed since.
    Undo {
        /// The change ids (as shown by `toolhost changes`).
        #[arg(required = true)]
        change_ids: Vec<String>,
    },
    /// Reapply undone file changes (oldest first); refused if a file changed since.
    Reapply {
        /// The change ids (as shown by `toolhost changes`).
        #[arg(required = true)]
        change_ids: Vec<String>,
    },
}
