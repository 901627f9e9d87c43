//! `toolhost mcp`: the Model Context Protocol server over one session, on stdio or, with
//! `--listen`, Streamable HTTP with a bearer token.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::Cli;
use crate::commands::EXIT_USAGE;
use crate::setup::Setup;

/// Serve `--agent`'s toolset (or `--tools`'); the options are `mcp`'s own (see `Command::Mcp`).
pub async fn run(
    setup: &Setup,
    cli: &Cli,
    listen: Option<String>,
    allow_hosts: Vec<String>,
    token_file: Option<PathBuf>,
    no_auth: bool,
) -> Result<ExitCode> {
    // Say what is served: an MCP client's user rarely sees the command line it was started with.
    eprintln!(
        "toolhost: serving the workspace {} ({} mode)",
        toolhost::display::terminal_text(&setup.workspace.display().to_string()),
        match cli.mode {
            toolhost::SandboxMode::ReadOnly => "read-only",
            toolhost::SandboxMode::WorkspaceWrite => "workspace-write",
        }
    );
    // And what the model may read: the default is every file but credentials.
    let reads = match setup.policy.reads_confined() {
        false => "every file but credentials (the default; --confine-reads, --read-root or policy.json \"reads\" confine them)".to_string(),
        true => {
            let roots: Vec<String> =
                setup.policy.read_roots().iter().map(|r| r.display().to_string()).collect();
            format!(
                "confined to the workspace, {} and the system directories; a client's MCP roots narrow them",
                if roots.is_empty() { "no other root".to_string() } else { format!("the read roots {}", roots.join(", ")) }
            )
        }
    };
    eprintln!("toolhost: reads: {}", toolhost::display::terminal_text(&reads));
    // Ask the MCP client's user (elicitation) when it can; deny otherwise.
    let context = setup.session_context(cli, Some(Arc::new(toolhost::mcp::ElicitApprovals)));
    let runtime = setup.runtime(toolhost::runtime::Allocation::Pooling)?;
    let selection = cli.selection();
    let toolset = setup.toolset_on(&selection, &cli.extra_tools, context.clone(), &runtime).await?;
    let store = setup.open_store()?;
    let session = Arc::new(toolhost::session::SessionRuntime::new(
        toolset,
        setup.policy.clone(),
        Some(store),
    )?);
    let server = toolhost::mcp::McpServer::new(session);
    tokio::spawn(follow_installed(
        setup.clone(),
        selection,
        cli.extra_tools.clone(),
        context,
        runtime,
        server.clone(),
    ));
    let Some(listen) = listen else {
        toolhost::mcp::stdio::serve(server).await?;
        return Ok(ExitCode::SUCCESS);
    };
    let auth = if no_auth { Auth::Off } else { Auth::Token(token_file) };
    serve_http(server, &listen, allow_hosts, auth, setup).await
}

/// Keep the server's toolset the installed set's: when `tools.json` changes (`toolhost tool
/// add` or `remove` while the server runs), build the toolset again for the same session and
/// runtime and serve it; the server then sends `notifications/tools/list_changed`. A set that
/// cannot be loaded leaves the current toolset in place (and says why on stderr).
async fn follow_installed(
    setup: Setup,
    selection: toolhost::Selection,
    extra_tools: Vec<PathBuf>,
    context: toolhost::ToolSessionContext,
    runtime: Arc<toolhost::runtime::ComponentRuntime>,
    server: toolhost::mcp::McpServer,
) {
    let record = setup.data_dir.join(toolhost::plugins::installed::TOOLS_FILE);
    let stamp = || {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(&record).ok().map(|m| (m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
    };
    let mut last = stamp();
    let every = std::time::Duration::from_millis(toolhost_limits::MCP_INSTALLED_POLL_MS);
    loop {
        tokio::time::sleep(every).await;
        let now = stamp();
        if now == last {
            continue;
        }
        last = now;
        match setup.toolset_on(&selection, &extra_tools, context.clone(), &runtime).await {
            Ok(toolset) => {
                if let Err(e) = server.replace_toolset(toolset).await {
                    tracing::warn!(
                        "the installed tools changed, but the new toolset was not served: {e}"
                    );
                }
            }
            Err(e) => {
                let text = format!(
                    "toolhost: the installed tools changed, but they cannot be loaded (still serving the previous ones): {}",
                    crate::error_text(&e)
                );
                tracing::warn!("{text}");
                eprintln!("{}", toolhost::display::terminal_text(&text));
            }
        }
    }
}

/// How `mcp --listen` authenticates requests.
enum Auth {
    /// A bearer token: `--token-file`'s, `$TOOLHOST_MCP_TOKEN`, or the data dir's stored one.
    Token(Option<PathBuf>),
    /// `--no-auth` (loopback only).
    Off,
}

/// Where the bearer token is, for the start line on stderr (never the token itself).
fn token_whereabouts(source: &toolhost::mcp::auth::TokenSource, auth: &Auth) -> String {
    use toolhost::mcp::auth::{TOKEN_ENV, TokenSource};
    match (source, auth) {
        (TokenSource::Stored(path), _) => {
            format!(
                "MCP bearer token in {} (mode 0600, kept across restarts)",
                toolhost::display::terminal_text(&path.display().to_string())
            )
        }
        (TokenSource::File, Auth::Token(Some(file))) => {
            format!(
                "MCP bearer token from --token-file {}",
                toolhost::display::terminal_text(&file.display().to_string())
            )
        }
        (TokenSource::File, _) => "MCP bearer token from --token-file".into(),
        (TokenSource::Env, _) => format!("MCP bearer token from ${TOKEN_ENV}"),
    }
}

/// `toolhost mcp --listen ADDR`: bind, set up the bearer token, print the URL and where the
/// token is (never the token), serve until SIGINT/SIGTERM.
async fn serve_http(
    server: toolhost::mcp::McpServer,
    listen: &str,
    allowed_hosts: Vec<String>,
    auth: Auth,
    setup: &Setup,
) -> Result<ExitCode> {
    let data_dir = setup.data_dir.as_path();
    // `/readyz` reports whether bash's sandbox is available (checked once, then remembered).
    let sandbox = setup.sandbox(false);
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
        Auth::Token(file) => {
            match auth::fixed(file.as_deref(), std::env::var_os(auth::TOKEN_ENV)) {
                Ok(fixed) => fixed,
                Err(e) => return usage(e.to_string()),
            }
        }
    };
    let readiness = toolhost::mcp::probes::Readiness { sandbox: Some(sandbox) };
    let endpoint = HttpEndpoint::bind(HttpOptions { addr, allowed_hosts, auth: None, readiness })
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let token = match (&auth, fixed) {
        (Auth::Off, _) => None,
        (Auth::Token(_), Some(fixed)) => Some(fixed),
        (Auth::Token(_), None) => match auth::stored(data_dir) {
            Ok(generated) => Some(generated),
            Err(e) => {
                eprintln!("toolhost: {e}");
                return Ok(ExitCode::FAILURE);
            }
        },
    };
    let endpoint =
        endpoint.with_auth(token.as_ref().map(|(token, source)| Authenticator::new(token, source)));
    if !addr.ip().is_loopback() {
        eprintln!(
            "toolhost: warning: {addr} is not a loopback address; anyone who can reach it and has the token can run these tools"
        );
    }
    // The lines a supervisor (or a test) reads to find the endpoint and where its token is.
    // The token itself is never printed: stderr goes to logs, terminals and CI output.
    eprintln!("toolhost: MCP (Streamable HTTP) listening at {}", endpoint.url()?);
    match &token {
        Some((_, source)) => eprintln!("toolhost: {}", token_whereabouts(source, &auth)),
        None => eprintln!(
            "toolhost: warning: --no-auth: requests need no bearer token; any local process (another user's, another workspace's bash) can run these tools"
        ),
    }
    let shutdown = tokio_util::sync::CancellationToken::new();
    let on_signal = shutdown.clone();
    tokio::spawn(async move {
        // SIGINT or SIGTERM: stop accepting, cancel calls in flight, let connections close, exit 0.
        crate::termination_signal().await;
        on_signal.cancel();
    });
    endpoint.serve(server, shutdown).await?;
    Ok(ExitCode::SUCCESS)
}
