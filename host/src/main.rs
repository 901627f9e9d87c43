//! The `toolhost` command line (contract in DESIGN.md): `tools`, `call`, and the global
//! options. Exit codes: 0 succeeded, 1 the call did not succeed, 2 usage.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use toolhost::{Agent, SandboxMode, SandboxPolicy, ToolCallContext, ToolSessionContext, finalize};

/// Exit code for a usage error (bad flags, malformed JSON arguments).
const EXIT_USAGE: u8 = 2;

#[derive(Parser)]
#[command(name = "toolhost", version, about = "Host for the tools an AI coding agent calls")]
struct Cli {
    /// The workspace (default: the current directory).
    #[arg(long, global = true)]
    workspace: Option<PathBuf>,
    /// Where spill files, the component cache and the session store live
    /// (default: $TOOLHOST_HOME, else ~/.toolhost).
    #[arg(long, global = true)]
    data_dir: Option<PathBuf>,
    /// The sandbox mode of the session.
    #[arg(long, global = true, value_enum, default_value = "workspace-write")]
    mode: SandboxMode,
    /// Which agent's toolset to serve.
    #[arg(long, global = true, value_enum, default_value = "default")]
    agent: Agent,
    /// The session id (default: a new one).
    #[arg(long, global = true)]
    session: Option<String>,
    /// Approve every escalation (`sandboxPermissions`) without asking: for scripted use.
    /// Without it, calls that ask for extra paths are denied.
    #[arg(long, global = true)]
    allow_escalation: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
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
        /// The tool's input as a JSON object.
        input: String,
        /// Print the whole ToolResult as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    // Helper mode inside the bash sandbox: apply Landlock, then exec. Before anything else.
    let mut args = std::env::args_os();
    if args.nth(1).is_some_and(|a| a == toolhost_sandbox::bwrap::SANDBOX_EXEC_ARG) {
        toolhost_sandbox::bwrap::sandbox_exec_main(args.collect());
    }
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("TOOLHOST_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("toolhost: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("toolhost: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn data_dir(cli: &Cli) -> Result<PathBuf> {
    if let Some(dir) = &cli.data_dir {
        return Ok(dir.clone());
    }
    if let Some(dir) = std::env::var_os("TOOLHOST_HOME") {
        return Ok(PathBuf::from(dir));
    }
    let home = std::env::var_os("HOME").context("neither --data-dir, TOOLHOST_HOME nor HOME is set")?;
    Ok(PathBuf::from(home).join(".toolhost"))
}

fn new_session_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("s{nanos:x}-{}", std::process::id())
}

async fn run(cli: Cli) -> Result<ExitCode> {
    let workspace = match &cli.workspace {
        Some(w) => w.clone(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let workspace = workspace
        .canonicalize()
        .with_context(|| format!("workspace {} is not accessible", workspace.display()))?;
    let data_dir = data_dir(&cli)?;
    toolhost::spill::remove_expired(&data_dir);
    let session_id = cli.session.clone().unwrap_or_else(new_session_id);
    let mut sandbox = toolhost_sandbox::bwrap::Bubblewrap::new();
    if let Ok(exe) = std::env::current_exe() {
        sandbox = sandbox.with_landlock_helper(exe);
    }
    let mut session = ToolSessionContext::local(&workspace, &data_dir, session_id)
        .with_sandbox(std::sync::Arc::new(sandbox));
    if cli.allow_escalation {
        session = session.with_approver(std::sync::Arc::new(toolhost::approval::AllowEscalations));
    }
    let runtime = toolhost::runtime::ComponentRuntime::new(Some(data_dir.join("cache").join("components")))?;
    let registry = toolhost::builtin_registry(&runtime).await?;
    let toolset = finalize(&registry, &cli.agent.toolset(), session)?;

    match cli.command {
        Command::Tools { json } => {
            if json {
                println!("{}", serde_json::to_string_pretty(toolset.definitions())?);
            } else {
                for def in toolset.definitions() {
                    let summary = def.description.lines().next().unwrap_or("");
                    println!("{}\t{}", def.id, summary);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Call { tool, input, json } => {
            let input: serde_json::Value = match serde_json::from_str(&input) {
                Ok(v @ serde_json::Value::Object(_)) => v,
                Ok(_) => {
                    eprintln!("toolhost: the tool input must be a JSON object, e.g. '{{\"path\": \".\"}}'");
                    return Ok(ExitCode::from(EXIT_USAGE));
                }
                Err(e) => {
                    eprintln!("toolhost: the tool input is not valid JSON: {e}");
                    return Ok(ExitCode::from(EXIT_USAGE));
                }
            };
            let policy = SandboxPolicy::builder(cli.mode, &workspace).data_dir(&data_dir).build();
            let call = ToolCallContext::new(format!("call-{}", new_session_id()), policy);
            let result = toolset.call(&tool, input, call).await;
            if json {
                println!("{}", serde_json::to_string(&result)?);
            } else {
                println!("{}", result.text());
            }
            Ok(if result.succeeded() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
    }
}
