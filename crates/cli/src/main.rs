//! The `toolhost` command line (contract in DESIGN.md): `tools`, `call`, `session`,
//! `changes`, `undo`, `reapply`, `mcp`, and the global options. Exit codes: 0 succeeded, 1 the call did not succeed, 2 usage.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use toolhost::{Agent, SandboxMode, SandboxPolicy, ToolSessionContext, finalize};

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
    /// JSON Lines session on stdin/stdout (requests and events as in DESIGN.md).
    Session,
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
        /// request must send, instead of a random one per start (also: $TOOLHOST_MCP_TOKEN).
        #[arg(long, value_name = "FILE", requires = "listen")]
        token_file: Option<PathBuf>,
        /// Serve without a bearer token: only on a loopback address, and any local process
        /// (another user's, another workspace's sandbox) can then run these tools.
        #[arg(long, requires = "listen", conflicts_with = "token_file")]
        no_auth: bool,
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

/// glibc malloc: keep freed memory for reuse instead of returning it to the kernel at once.
/// A walk reads every file into a fresh buffer and frees it once the component has it; with
/// the defaults, large buffers are `mmap`ed and unmapped and the heap top is trimmed, so
/// each file's pages are faulted in anew (thousands of page faults per grep of a big tree).
/// Memory held this way is bounded by what the instances of a call hold at once: one batch
/// each (`WALK_BATCH_BYTES` plus at most one file).
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any other thread runs.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

fn main() -> ExitCode {
    // Helper mode inside the bash sandbox: apply Landlock, then exec. Before anything else.
    let mut args = std::env::args_os();
    if args.nth(1).is_some_and(|a| a == toolhost_sandbox::bwrap::SANDBOX_EXEC_ARG) {
        toolhost_sandbox::bwrap::sandbox_exec_main(args.collect());
    }
    keep_freed_memory();
    // As root, the file tools are refused what bash is refused: before any thread starts.
    if let toolhost::privileges::Dropped::Failed(e) = toolhost::privileges::drop_file_access_overrides() {
        eprintln!("toolhost: cannot drop CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH ({e}); refusing to run as root with them");
        return ExitCode::FAILURE;
    }
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("TOOLHOST_LOG"))
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
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
            eprintln!("toolhost: {}", toolhost::display::terminal_text(&format!("{e:#}")));
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

/// The Landlock helper bash's sandbox execs before bash: the small `toolhost-sandbox-exec`
/// next to this binary when it is there (one exec of a 0.7 MB binary instead of this one),
/// else this binary's own hidden `__sandbox-exec` mode.
#[cfg(not(target_os = "macos"))]
fn landlock_helper() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let small = exe.with_file_name("toolhost-sandbox-exec");
    Some(if small.is_file() { small } else { exe })
}

/// The deployment's additions to the policy's tier lists: `<data-dir>/policy.json`, if any.
fn policy_config(data_dir: &std::path::Path) -> Result<toolhost_sandbox::policy::PolicyConfig> {
    let path = data_dir.join(POLICY_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).with_context(|| format!("{} is not a valid policy config", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Default::default()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// The policy config file inside the data dir (hard-protected: tools cannot change it).
const POLICY_FILE: &str = "policy.json";

/// `toolhost doctor`: whether bash can run sandboxed here, and each isolation it gets, on or
/// off with the reason, in plain words.
fn doctor(sandbox: &dyn toolhost_sandbox::SandboxBackend, policy: &SandboxPolicy) -> ExitCode {
    use toolhost::display::terminal_line;
    use toolhost_sandbox::bwrap::Availability;
    let available = sandbox.available();
    for line in sandbox.report(policy) {
        println!("{}", terminal_line(&line));
    }
    match available {
        Availability::Available => {
            println!("sandbox: available ({}); bash runs sandboxed.", sandbox.describe());
            ExitCode::SUCCESS
        }
        Availability::Unavailable { reason } => {
            println!("sandbox: UNAVAILABLE — {}.", toolhost::display::terminal_text(&reason));
            println!("Until this is fixed, bash returns sandbox_unavailable and never runs; the file tools still work.");
            ExitCode::FAILURE
        }
    }
}

/// bash's sandbox on macOS: Seatbelt (`/usr/bin/sandbox-exec`).
#[cfg(target_os = "macos")]
fn sandbox_backend(_check_cache: Option<PathBuf>) -> std::sync::Arc<dyn toolhost_sandbox::SandboxBackend> {
    std::sync::Arc::new(toolhost_sandbox::seatbelt::Seatbelt::new())
}

/// bash's sandbox elsewhere: bubblewrap (`TOOLHOST_BWRAP` or a trusted system one) with the
/// Landlock helper, its passed self-check remembered in `check_cache` when given.
#[cfg(not(target_os = "macos"))]
fn sandbox_backend(check_cache: Option<PathBuf>) -> std::sync::Arc<dyn toolhost_sandbox::SandboxBackend> {
    let mut sandbox = toolhost_sandbox::bwrap::Bubblewrap::new();
    if let Some(bwrap) = std::env::var_os("TOOLHOST_BWRAP") {
        sandbox = sandbox.with_bwrap(bwrap);
    }
    if let Some(file) = check_cache {
        sandbox = sandbox.with_check_cache(file);
    }
    if let Some(helper) = landlock_helper() {
        sandbox = sandbox.with_landlock_helper(helper);
    }
    std::sync::Arc::new(sandbox)
}

fn new_session_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("s{nanos:x}-{}", std::process::id())
}

/// What every entry point works with, built once from the options: the workspace, the data
/// dir, and the one policy (mode, HOME, the data dir, `policy.json`) that `call`, `session`,
/// `mcp`, `undo`, `reapply`, `changes` and `doctor` all use.
struct Setup {
    workspace: PathBuf,
    data_dir: PathBuf,
    policy: SandboxPolicy,
}

fn setup(cli: &Cli) -> Result<Setup> {
    let workspace = match &cli.workspace {
        Some(w) => w.clone(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let workspace = workspace
        .canonicalize()
        .with_context(|| format!("workspace {} is not accessible", workspace.display()))?;
    let data_dir = data_dir(cli)?;
    // The data dir must exist before the policy is built: bash's sandbox pins and hides it.
    create_private_dir(&data_dir)?;
    let mut builder = SandboxPolicy::builder(cli.mode, &workspace).data_dir(&data_dir).config(policy_config(&data_dir)?);
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        builder = builder.home(home);
    }
    Ok(Setup { workspace, data_dir, policy: builder.build() })
}

/// Create the data dir (mode 0700: it holds every call's arguments and results) if missing.
fn create_private_dir(dir: &std::path::Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir) {
        Ok(()) => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot create the data dir {}", dir.display())),
    }
}

async fn run(cli: Cli) -> Result<ExitCode> {
    let Setup { workspace, data_dir, policy } = setup(&cli)?;
    if let Some(code) = store_command(&cli, &workspace, &data_dir, &policy).await? {
        return Ok(code);
    }
    toolhost::spill::remove_expired(&data_dir);
    let session_id = cli.session.clone().unwrap_or_else(new_session_id);
    // doctor always runs the real check.
    let check_cache = (!matches!(cli.command, Command::Doctor)).then(|| data_dir.join("cache").join("sandbox-check"));
    let sandbox = sandbox_backend(check_cache);
    if matches!(cli.command, Command::Doctor) {
        return Ok(doctor(&*sandbox, &policy));
    }
    let mut session = ToolSessionContext::local(&workspace, &data_dir, session_id).with_sandbox(sandbox);
    if cli.allow_escalation {
        session = session.with_approver(std::sync::Arc::new(toolhost::approval::AllowEscalations));
    } else if matches!(cli.command, Command::Mcp { .. }) {
        // Ask the MCP client's user (elicitation) when it can; deny otherwise.
        session = session.with_approver(std::sync::Arc::new(toolhost::mcp::ElicitEscalations));
    } else if matches!(cli.command, Command::Call { .. }) && {
        use std::io::IsTerminal;
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    } {
        session = session.with_approver(std::sync::Arc::new(toolhost::approval::TerminalApprover));
    }
    // One call: skip setting up the pooling allocator (milliseconds of mmap/mprotect at start
    // and exit); sessions and servers make many calls and use it.
    let allocation = match cli.command {
        Command::Tools { .. } | Command::Call { .. } => toolhost::runtime::Allocation::OnDemand,
        _ => toolhost::runtime::Allocation::Pooling,
    };
    let runtime =
        toolhost::runtime::ComponentRuntime::with_allocation(Some(data_dir.join("cache").join("components")), allocation)?;
    let registry = toolhost::builtin_registry(&runtime).await?;
    let toolset = finalize(&registry, &cli.agent.toolset(), session)?;

    match cli.command {
        Command::Tools { json } => {
            if json {
                println!("{}", toolhost::display::json_text(&serde_json::to_string_pretty(toolset.definitions())?));
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
            // Recorded like a session's calls, so `toolhost changes`/`undo` see what it did.
            let store = match toolhost::store::Store::open(&data_dir) {
                Ok(store) => Some(store),
                Err(e) => {
                    eprintln!("toolhost: the session store is unavailable ({e}); this call will not be recorded");
                    None
                }
            };
            let session = toolhost::session::SessionRuntime::new(toolset, policy, store)?;
            let cancel = session.cancel_token().child_token();
            let on_interrupt = cancel.clone();
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    // Ctrl-C cancels the call (bash's process group is killed) instead of
                    // abandoning it.
                    on_interrupt.cancel();
                }
            });
            let result = session.call(&session.next_call_id(), &tool, input, cancel, None).await;
            if json {
                println!("{}", toolhost::display::json_text(&serde_json::to_string(&result)?));
            } else if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                // What a file or a command printed is shown, not run, on a terminal.
                println!("{}", toolhost::display::terminal_text(&result.text()));
            } else {
                println!("{}", result.text());
            }
            Ok(if result.succeeded() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Command::Session => {
            let store = toolhost::store::Store::open(&data_dir)?;
            let session = std::sync::Arc::new(toolhost::session::SessionRuntime::new(toolset, policy, Some(store))?);
            let stdin = tokio::io::BufReader::new(tokio::io::stdin());
            session.serve_jsonl(stdin, tokio::io::stdout()).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Mcp { listen, allow_hosts, token_file, no_auth } => {
            let store = toolhost::store::Store::open(&data_dir)?;
            let definitions = toolset.definitions().to_vec();
            let session = std::sync::Arc::new(toolhost::session::SessionRuntime::new(toolset, policy, Some(store))?);
            let server = toolhost::mcp::McpServer::new(session, &definitions);
            let Some(listen) = listen else {
                server.serve_stdio().await?;
                return Ok(ExitCode::SUCCESS);
            };
            let auth = if no_auth { Auth::Off } else { Auth::Token(token_file) };
            serve_http(server, &listen, allow_hosts, auth, &data_dir).await
        }
        Command::Changes { .. } | Command::Undo { .. } | Command::Reapply { .. } | Command::Doctor => {
            unreachable!("handled above")
        }
    }
}

/// How `mcp --listen` authenticates requests.
enum Auth {
    /// A bearer token: `--token-file`'s, `$TOOLHOST_MCP_TOKEN`, or a random one per start.
    Token(Option<PathBuf>),
    /// `--no-auth` (loopback only).
    Off,
}

/// `toolhost mcp --listen ADDR`: bind, set up the bearer token, print the URL and the token,
/// serve until SIGINT/SIGTERM.
async fn serve_http(
    server: toolhost::mcp::McpServer,
    listen: &str,
    allowed_hosts: Vec<String>,
    auth: Auth,
    data_dir: &std::path::Path,
) -> Result<ExitCode> {
    use toolhost::mcp::auth::{self, Authenticator};
    use toolhost::mcp::http::{HttpEndpoint, HttpOptions, parse_listen_addr};
    let usage = |message: String| {
        eprintln!("toolhost: {message}");
        Ok(ExitCode::from(EXIT_USAGE))
    };
    let addr = match parse_listen_addr(listen) {
        Ok(addr) => addr,
        Err(e) => return usage(e.to_string()),
    };
    // A fixed token is checked before binding; a random one is written only once the port is ours.
    let fixed = match &auth {
        Auth::Off if !addr.ip().is_loopback() => {
            return usage(format!(
                "--no-auth is refused on {addr}: it is not a loopback address, so anyone who can reach it could run these tools; drop --no-auth (clients then send the bearer token)"
            ));
        }
        Auth::Off => None,
        Auth::Token(file) => match auth::fixed(file.as_deref(), std::env::var_os(auth::TOKEN_ENV)) {
            Ok(fixed) => fixed,
            Err(e) => return usage(e.to_string()),
        },
    };
    let endpoint = HttpEndpoint::bind(HttpOptions { addr, allowed_hosts, auth: None })
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let token = match (&auth, fixed) {
        (Auth::Off, _) => None,
        (Auth::Token(_), Some(fixed)) => Some(fixed),
        (Auth::Token(_), None) => match auth::generated(data_dir) {
            Ok(generated) => Some(generated),
            Err(e) => {
                eprintln!("toolhost: {e}");
                return Ok(ExitCode::FAILURE);
            }
        },
    };
    let endpoint = endpoint.with_auth(token.as_ref().map(|(token, source)| Authenticator::new(token, source)));
    if !addr.ip().is_loopback() {
        eprintln!("toolhost: warning: {addr} is not a loopback address; anyone who can reach it and has the token can run these tools");
    }
    // The lines a supervisor (or a test) reads to find the endpoint and its token.
    eprintln!("toolhost: MCP (Streamable HTTP) listening at {}", endpoint.url()?);
    match &token {
        Some((token, _)) => eprintln!("toolhost: MCP bearer token: {token}"),
        None => eprintln!(
            "toolhost: warning: --no-auth: requests need no bearer token; any local process (another user's, another workspace's bash) can run these tools"
        ),
    }
    let shutdown = tokio_util::sync::CancellationToken::new();
    let on_signal = shutdown.clone();
    tokio::spawn(async move {
        // SIGINT or SIGTERM: stop accepting, cancel calls in flight, let connections close, exit 0.
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        let sigterm = async {
            match term.as_mut() {
                Some(t) => {
                    t.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = sigterm => {}
        }
        on_signal.cancel();
    });
    endpoint.serve(server, shutdown).await?;
    Ok(ExitCode::SUCCESS)
}

/// `changes`, `undo` and `reapply` work from the session store alone (no toolset needed).
async fn store_command(
    cli: &Cli,
    workspace: &std::path::Path,
    data_dir: &std::path::Path,
    policy: &SandboxPolicy,
) -> Result<Option<ExitCode>> {
    use toolhost::session::{apply_recorded, render_changes, stdout_wants_color};
    use toolhost::undo::Direction;
    let (ids, direction) = match &cli.command {
        Command::Changes { json } => {
            let store = toolhost::store::Store::open(data_dir)?;
            let changes = store.recorded_changes(cli.session.as_deref())?;
            if *json {
                let list: Vec<_> =
                    changes.into_iter().map(|r| toolhost::result::ToolResultArtifact::FileChange(r.change)).collect();
                println!("{}", toolhost::display::json_text(&serde_json::to_string_pretty(&list)?));
            } else {
                print!("{}", render_changes(&changes, stdout_wants_color()));
            }
            return Ok(Some(ExitCode::SUCCESS));
        }
        Command::Undo { change_ids } => (change_ids, Direction::Undo),
        Command::Reapply { change_ids } => (change_ids, Direction::Reapply),
        _ => return Ok(None),
    };
    let store = toolhost::store::Store::open(data_dir)?;
    let session = ToolSessionContext::local(workspace, data_dir, cli.session.clone().unwrap_or_else(new_session_id));
    match apply_recorded(&store, &session, policy, ids, direction).await {
        Ok(()) => {
            let verb = if direction == Direction::Undo { "Undid" } else { "Reapplied" };
            println!("{verb} {}", ids.join(", "));
            Ok(Some(ExitCode::SUCCESS))
        }
        Err(e) => {
            eprintln!("toolhost: {}", toolhost::display::terminal_text(&e.to_string()));
            Ok(Some(ExitCode::FAILURE))
        }
    }
}
