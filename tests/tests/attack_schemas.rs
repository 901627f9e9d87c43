//! Untrusted definitions through the built binary (untrusted schemas must not
//! take the host down). A third-party component's `describe` is untrusted data the host compiles,
//! validates against and hands to models, so it is bounded before anything reads it, by one
//! checker on every path (`toolhost_runtime::definition`), and a structured result is checked
//! on a linear-time regex engine within the call's deadline.
//!
//! The hostile definitions are test components under `tools/testing/` (each built from raw
//! WIT through the shared fixture `tools/testing/definition/fixture.rs`): `refloop` (an output
//! schema `$ref` loop a → b → a), `deepanyof` (an output schema `anyOf` chain 40 levels deep,
//! each level referring twice to the next), `selfref` (an input schema that is `oneOf` itself),
//! `hugedesc` (a 32 MiB description, a 300,000-value `enum`), `bashid` (the id `Bash`), and
//! `backtrack` (an output schema that passes every bound, with a `pattern` that a backtracking
//! engine takes exponential time on, under `not`, and results that trigger it).
//!
//! Every run is watched: a host past [`MAX_RSS`] of resident memory is killed and the test
//! fails (on the unfixed host `refloop` reached 4 GB in 5 s).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, Out, promise};
use toolhost_tests::test_components_dir;
use toolhost_tests::watchdog::Watchdog;

/// Most resident memory a toolhost process of these tests may reach before it is killed.
const MAX_RSS: u64 = 1 << 30;

/// The longest any one run may take here (a slow shared machine; the assertions are on
/// memory, answers and exit codes, not speed).
const RUN_LIMIT: Duration = Duration::from_secs(180);

fn component(id: &str) -> PathBuf {
    test_components_dir().join(format!("{id}.wasm"))
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The hostile definitions every path must refuse, with what the refusal must say.
const REFUSED: &[(&str, &[&str])] = &[
    ("refloop", &["output schema has a `$ref` cycle", "#/$defs/a"]),
    ("deepanyof", &["output schema", "MAX_SCHEMA_"]),
    ("selfref", &["input schema has a `$ref` cycle"]),
    ("hugedesc", &["description is 3", "MAX_DESCRIPTION_BYTES"]),
    ("bashid", &["the id `Bash` is taken by a built-in tool (`bash`"]),
];

/// Runs `cmd` to its end under a [`Watchdog`] of [`MAX_RSS`] and [`RUN_LIMIT`]; panics if it
/// hung or went past [`MAX_RSS`].
fn run_watched(mut cmd: Command, what: &str) -> Out {
    toolhost_tests::attack::run_watched(&mut cmd, None, RUN_LIMIT, MAX_RSS, what)
        .unwrap_or_else(|| panic!("{what}: toolhost hung past {RUN_LIMIT:?}"))
}

/// The session's next line that is not progress, within `limit`.
fn final_line(session: &mut toolhost_tests::attack::Session, limit: Duration) -> Option<String> {
    let until = Instant::now() + limit;
    loop {
        let line = session.proc.next_line(until.saturating_duration_since(Instant::now()))?;
        let progress =
            serde_json::from_str::<Value>(&line).ok().is_some_and(|v| v.get("progress").is_some());
        if !progress {
            return Some(line);
        }
    }
}

fn says_all(text: &str, parts: &[&str]) -> bool {
    parts.iter().all(|p| text.contains(p))
}

/// `tool add` refuses every hostile definition (exit 1, saying which limit or rule and what
/// to change), prints none of it, and installs nothing.
#[test]
fn tool_add_refuses_hostile_definitions() {
    let a = Attack::new();
    for (id, why) in REFUSED {
        let mut cmd = a.command(&[]);
        cmd.args(["tool", "add", path_str(&component(id)), "--yes"]);
        let out = run_watched(cmd, &format!("tool add {id}"));
        promise(out.code == Some(1), || {
            format!("tool add {id} was not refused (exit {:?}): {}", out.code, out.all())
        });
        promise(says_all(&out.stderr, why) && out.stderr.contains("is refused"), || {
            format!("tool add {id}: the refusal does not say {why:?}: {}", out.stderr)
        });
        promise(out.raw.len() < 4096 && out.stderr.len() < 4096, || {
            format!("tool add {id} printed {} + {} bytes", out.raw.len(), out.stderr.len())
        });
        promise(!out.stdout.contains("HUGE-DESCRIPTION"), || {
            format!("tool add {id} printed the description")
        });
    }
    assert!(a.run(&[], &["tool", "list"]).stdout.is_empty(), "something was installed");
}

/// `--tool` refuses them too: the command fails before any tool is offered or called, saying
/// why, within the memory bound.
#[test]
fn tool_flag_refuses_hostile_definitions() {
    let a = Attack::new();
    for (id, why) in REFUSED {
        let file = component(id);
        let mut cmd = a.command(&["--tool", path_str(&file)]);
        cmd.args(["call", id, "{}", "--json"]);
        let out = run_watched(cmd, &format!("--tool {id} call"));
        promise(out.code != Some(0) && out.code.is_some(), || {
            format!("--tool {id} was used (exit {:?}): {}", out.code, out.all())
        });
        promise(says_all(&out.stderr, why), || {
            format!("--tool {id}: the refusal does not say {why:?}: {}", out.stderr)
        });
        promise(!out.stdout.contains("HUGE-DESCRIPTION") && out.raw.len() < 4096, || {
            format!("--tool {id} printed {} bytes", out.raw.len())
        });
    }
}

/// `conformance` cannot check a definition past a limit: exit 2, "cannot be checked" and
/// why, no crash, and no scratch directory left in TMPDIR. `Bash` is checkable (a warning:
/// `tool add` refuses it).
#[test]
fn conformance_cannot_check_hostile_definitions() {
    let mut a = Attack::new();
    let tmp = a.outside_dir("tmp");
    a.env.push(("TMPDIR".into(), tmp.clone().into_os_string()));
    for (id, why) in REFUSED.iter().filter(|(id, _)| *id != "bashid") {
        let mut cmd = a.command(&[]);
        cmd.args(["conformance", path_str(&component(id)), "--json", "--seed", "1"]);
        let out = run_watched(cmd, &format!("conformance {id}"));
        promise(out.code == Some(2), || {
            format!("conformance {id}: exit {:?}, not 2: {}", out.code, out.all())
        });
        promise(out.stderr.contains("cannot be checked") && says_all(&out.stderr, why), || {
            format!("conformance {id}: the refusal does not say {why:?}: {}", out.stderr)
        });
        let left: Vec<String> = std::fs::read_dir(&tmp)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        promise(left.is_empty(), || format!("conformance {id} left {left:?} in TMPDIR"));
    }
    let mut cmd = a.command(&[]);
    cmd.args([
        "conformance",
        path_str(&component("bashid")),
        "--json",
        "--seed",
        "1",
        "--cases",
        "8",
    ]);
    let out = run_watched(cmd, "conformance bashid");
    let report: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", out.all()));
    let id = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "describe.id")
        .cloned()
        .unwrap_or_default();
    assert_eq!(id["outcome"], "warn", "{id}");
    assert!(id["message"].as_str().unwrap_or_default().contains("built-in"), "{id}");
}

/// A hostile component installed before this host checked definitions (written straight
/// into the installed set) is not loaded: `call`, `tools` and MCP go on without it, saying
/// why on stderr, within the memory bound.
#[test]
fn an_installed_hostile_definition_is_not_loaded() {
    let a = Attack::new();
    let store = toolhost::plugins::InstalledSet::new(&a.data);
    for id in ["refloop", "deepanyof", "selfref", "Bash"] {
        let file = component(if id == "Bash" { "bashid" } else { id });
        let bytes = std::fs::read(&file).unwrap();
        let record = toolhost::plugins::InstalledTool {
            id: id.into(),
            sha256: toolhost::observations::sha256_hex(&bytes),
            risk: toolhost::ToolRisk::ReadOnly,
            size: bytes.len() as u64,
            source: file.display().to_string(),
            added: "2026-01-01T00:00:00Z".into(),
            wit: "0.2.0".into(),
            oci: None,
        };
        let lock = store.lock().unwrap();
        store.install(&lock, record, &bytes).unwrap();
    }
    let mut cmd = a.command(&[]);
    cmd.args(["call", "refloop", "{}", "--json"]);
    let out = run_watched(cmd, "call refloop (installed)");
    assert_eq!(out.json()["error"]["code"], "tool_not_found", "{}", out.all());
    for (id, why) in [
        ("refloop", "`$ref` cycle"),
        ("deepanyof", "MAX_SCHEMA_"),
        ("selfref", "`$ref` cycle"),
        ("Bash", "taken by a built-in"),
    ] {
        promise(
            out.stderr.contains(&format!("tool `{id}` is not loaded")) && out.stderr.contains(why),
            || format!("stderr does not say why `{id}` is not loaded ({why}): {}", out.stderr),
        );
    }

    let mut cmd = a.command(&[]);
    cmd.arg("mcp");
    let mut mcp = toolhost_tests::attack::McpStdio::start(cmd);
    let dog = Watchdog::start(mcp.proc.pid(), MAX_RSS);
    let list = mcp.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    promise(!names.iter().any(|n| ["refloop", "deepanyof", "selfref", "Bash"].contains(n)), || {
        format!("offered: {names:?}")
    });
    let called = mcp.call_tool("refloop", json!({}));
    assert!(called.get("error").is_some() || called["result"]["isError"] == true, "{called}");
    let again = mcp.request("tools/list", json!({}));
    assert!(again["result"]["tools"].is_array(), "the MCP server stopped answering: {again}");
    dog.finish("mcp with hostile tools installed");
}

/// A `pattern` that backtracks catastrophically (under `not`) in an output schema that passes
/// every bound: the structured result is checked on a linear-time engine, within the call's
/// deadline (`timeoutMs`), and the session answers its next request.
#[test]
fn a_backtracking_pattern_does_not_outlive_the_call() {
    let a = Attack::new();
    let file = component("backtrack");
    let mut session = a.session(&["--tool", path_str(&file)]);
    let dog = Watchdog::start(session.proc.pid(), MAX_RSS);
    let started = Instant::now();
    session.send(&json!({"id": "slow", "tool": "backtrack", "arguments": {}, "timeoutMs": 3000}));
    let line = final_line(&mut session, Duration::from_secs(30));
    let took = started.elapsed();
    promise(line.is_some(), || {
        format!("no answer to a call with a 3 s deadline after {took:?}: {}", session.proc.stderr())
    });
    let ev: Value = serde_json::from_str(&line.unwrap()).unwrap();
    let status = ev["result"]["status"].as_str().unwrap_or_default().to_string();
    assert!(["succeeded", "timeout"].contains(&status.as_str()), "{ev}");
    if status == "succeeded" {
        assert_eq!(
            ev["result"]["structuredContent"]["words"].as_array().map(Vec::len),
            Some(1800),
            "{ev}"
        );
    }
    // The next request of the session is answered.
    session.send(&json!({"id": "next", "tool": "list", "arguments": {"path": "."}}));
    let next = final_line(&mut session, Duration::from_secs(30));
    promise(next.is_some(), || {
        format!("the session did not answer its next request: {}", session.proc.stderr())
    });
    let next: Value = serde_json::from_str(&next.unwrap()).unwrap();
    assert_eq!(next["id"], "next", "{next}");
    dog.finish("session with backtrack");

    // The same through MCP on stdio: the call is answered and the server goes on.
    let mut cmd = a.command(&["--tool", path_str(&file)]);
    cmd.arg("mcp");
    let mut mcp = toolhost_tests::attack::McpStdio::start(cmd);
    let dog = Watchdog::start(mcp.proc.pid(), MAX_RSS);
    let called = mcp.call_tool("backtrack", json!({}));
    assert!(called.get("result").is_some(), "{called}");
    let list = mcp.request("tools/list", json!({}));
    assert!(list["result"]["tools"].is_array(), "{list}");
    dog.finish("mcp with backtrack");
}
