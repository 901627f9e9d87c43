//! The `process` capability of toolhost:tool 0.2.0, through the built binary with a fake HOME
//! full of fake secrets: the test component `runner` (process-execution) given with `--tool`,
//! and `misbehave` (read-only), whose programs run with nothing writable. Every run goes through bash's OS sandbox, so
//! what bash may not do (write outside, read HOME's secrets, reach the network) a program a
//! component runs may not do either; timeouts and cancellation kill the whole process group;
//! output is bounded head + tail with the rest in a spill file; the environment a component
//! sets is an allow-list.

use std::net::TcpListener;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, marker, promise};
use toolhost_tests::test_components_dir;

fn component(id: &str) -> PathBuf {
    test_components_dir().join(format!("{id}.wasm"))
}

fn runner_flag() -> [String; 2] {
    ["--tool".into(), component("runner").to_str().unwrap().into()]
}

/// `toolhost --tool runner.wasm call runner INPUT --json`: the whole ToolResult.
fn run(a: &Attack, input: Value) -> Value {
    let flag = runner_flag();
    let out = a.call_with(&[&flag[0], &flag[1]], "runner", input);
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not a ToolResult ({e}): {}", out.all()))
}

fn text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_process_tool_runs_a_program_and_answers_in_text_and_structure() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_process_tool_runs_a_program") {
        return;
    }
    a.put("sub/here.txt", "x");
    let r = run(
        &a,
        json!({"program": "sh", "args": ["-c", "echo hello; pwd; echo oops >&2; exit 3"], "cwd": "sub"}),
    );
    assert_eq!(r["status"], "succeeded", "{r}");
    let s = &r["structuredContent"];
    assert_eq!(s["termination"], "exited", "{r}");
    assert_eq!(s["exitCode"], 3, "{r}");
    assert_eq!(s["stdout"]["text"], format!("hello\n{}\n", a.ws.join("sub").display()), "{r}");
    assert_eq!(s["stderr"]["text"], "oops\n", "{r}");
    assert!(s["stdout"]["spillPath"].is_null());
    // The text says the same on its own.
    let t = text(&r);
    assert!(t.contains("exited with code 3") && t.contains("hello") && t.contains("oops"), "{t}");
    // A program that is not there.
    let r = run(&a, json!({"program": "no-such-program-here"}));
    assert_eq!(r["structuredContent"]["termination"], "spawn-failed", "{r}");
}

/// A component granted read-only (or workspace-mutation) may run programs, but each runs with
/// every path read-only and the network off: it changes nothing, in the workspace or out.
#[test]
fn a_read_only_components_programs_change_nothing() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_read_only_components_programs_change_nothing") {
        return;
    }
    a.put("keep.txt", "original\n");
    let outside = a.outside_dir("outside");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let m = marker("RO");
    let script = format!(
        "cat keep.txt; echo {m} > made.txt; echo {m} > keep.txt; echo {m} > {out}/made.txt; echo {m} > /dev/tcp/127.0.0.1/{port} && echo connected; true",
        out = outside.display()
    );
    let misbehave = component("misbehave");
    let out = a.call_with(
        &["--tool", misbehave.to_str().unwrap()],
        "misbehave",
        json!({"action": "run", "program": "bash", "args": ["-c", script]}),
    );
    let r = out.json();
    // It ran (and could read the workspace) ...
    assert_eq!(r["status"], "succeeded", "{}", out.all());
    assert!(text(&r).contains("original"), "{}", out.all());
    // ... but wrote nothing anywhere and reached no one.
    promise(!a.ws.join("made.txt").exists(), || {
        format!("a read-only tool's program created a file: {}", out.all())
    });
    promise(std::fs::read_to_string(a.ws.join("keep.txt")).unwrap() == "original\n", || {
        format!("a read-only tool's program changed a file: {}", out.all())
    });
    promise(!outside.join("made.txt").exists(), || {
        format!("a read-only tool's program wrote outside: {}", out.all())
    });
    std::thread::sleep(Duration::from_millis(200));
    promise(listener.accept().is_err() && !text(&r).contains("connected"), || {
        format!("a read-only tool's program reached the network: {}", out.all())
    });
}

#[test]
fn a_program_cannot_write_outside_or_read_homes_secrets() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_program_cannot_write_outside_or_read_homes_secrets") {
        return;
    }
    let outside = a.outside_dir("outside");
    let target = outside.join("pwned");
    let secret = a.secrets[0].path.clone();
    let script = format!(
        "echo pwned > {}; cat {}; echo written > inside.txt",
        target.display(),
        secret.display()
    );
    let r = run(&a, json!({"program": "sh", "args": ["-c", script]}));
    promise(!target.exists(), || {
        format!("a program a component ran wrote outside the workspace: {r}")
    });
    for s in &a.secrets {
        promise(!r.to_string().contains(&s.marker), || {
            format!("a program a component ran read {}: {r}", s.rel)
        });
    }
    // The workspace itself is writable, and the refusal is marked as the sandbox's.
    assert_eq!(std::fs::read_to_string(a.ws.join("inside.txt")).unwrap(), "written\n", "{r}");
    assert_eq!(r["sandbox_denied"], true, "{r}");
    // A cwd outside the workspace is refused before anything runs.
    let r = run(&a, json!({"program": "true", "cwd": outside.to_str().unwrap()}));
    assert_eq!(r["error"]["code"], "permission_denied", "{r}");
}

#[test]
fn a_program_cannot_reach_the_network() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_program_cannot_reach_the_network") {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let m = marker("NET");
    let script = format!("echo {m} > /dev/tcp/127.0.0.1/{port} && echo connected");
    let r = run(&a, json!({"program": "bash", "args": ["-c", script]}));
    std::thread::sleep(Duration::from_millis(200));
    let reached = listener.accept().is_ok();
    promise(!reached, || format!("a program a component ran reached 127.0.0.1:{port}: {r}"));
    assert!(!text(&r).contains("\nconnected"), "{r}");
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_timeout_kills_the_whole_process_group") {
        return;
    }
    let started = Instant::now();
    let r = run(
        &a,
        json!({"program": "sh", "args": ["-c", "(sleep 2; echo late > late.txt) & sleep 30"], "timeoutMs": 300}),
    );
    assert_eq!(r["structuredContent"]["termination"], "timed-out", "{r}");
    assert!(started.elapsed() < Duration::from_secs(20), "the timeout did not end the run: {r}");
    std::thread::sleep(Duration::from_secs(3));
    promise(!a.ws.join("late.txt").exists(), || {
        "a background process of a timed-out run lived on".into()
    });
}

#[test]
fn cancelling_the_call_kills_the_whole_process_group() {
    let a = Attack::new();
    if !a.sandbox_or_skip("cancelling_the_call_kills_the_whole_process_group") {
        return;
    }
    let flag = runner_flag();
    let mut s = a.session(&[&flag[0], &flag[1]]);
    let script = "(sleep 2; echo late > late.txt) & sleep 30";
    s.send(&json!({"id": "c1", "tool": "runner", "arguments": {"program": "sh", "args": ["-c", script]}}));
    std::thread::sleep(Duration::from_millis(700));
    let started = Instant::now();
    let ack = s.request(json!({"id": "x1", "cancel": "c1"}));
    let ended = if ack["id"] == "x1" { s.next_final() } else { ack };
    assert_eq!(ended["id"], "c1", "{ended}");
    assert!(started.elapsed() < Duration::from_secs(10), "cancel did not end the run: {ended}");
    let result = &ended["result"];
    let cancelled = result["status"] == "cancelled"
        || result["structuredContent"]["termination"] == "cancelled";
    assert!(cancelled, "{ended}");
    std::thread::sleep(Duration::from_secs(3));
    promise(!a.ws.join("late.txt").exists(), || {
        "a background process of a cancelled run lived on".into()
    });
}

#[test]
fn long_output_is_head_and_tail_with_the_rest_in_a_spill_file() {
    let a = Attack::new();
    if !a.sandbox_or_skip("long_output_is_head_and_tail") {
        return;
    }
    let r = run(&a, json!({"program": "seq", "args": ["1", "100000"]}));
    let out = &r["structuredContent"]["stdout"];
    let full: String = (1..=100_000).map(|n| format!("{n}\n")).collect();
    assert_eq!(out["totalBytes"], full.len(), "{r}");
    let shown = out["text"].as_str().unwrap();
    assert!(shown.len() < 20 * 1024, "{} bytes shown", shown.len());
    assert!(
        shown.starts_with("1\n2\n3\n") && shown.trim_end().ends_with("99999\n100000"),
        "{shown}"
    );
    let spill = out["spillPath"].as_str().unwrap_or_else(|| panic!("no spill file: {r}"));
    assert!(shown.contains(spill), "the text does not say where the rest is: {shown}");
    assert_eq!(std::fs::read_to_string(spill).unwrap(), full);
    assert!(spill.starts_with(a.data.to_str().unwrap()), "{spill} is not in the data dir");
}

#[test]
fn the_environment_a_component_sets_is_an_allow_list() {
    let a = Attack::new();
    if !a.sandbox_or_skip("the_environment_a_component_sets_is_an_allow_list") {
        return;
    }
    // The short list of harmless names passes.
    let r = run(
        &a,
        json!({"program": "printenv", "args": ["LANG", "TZ", "NO_COLOR"], "env": ["LANG=C.UTF-8", "TZ=Europe/Berlin", "NO_COLOR=1"]}),
    );
    assert_eq!(r["structuredContent"]["stdout"]["text"], "C.UTF-8\nEurope/Berlin\n1\n", "{r}");
    for refused in [
        "PATH=/tmp/evil",
        "LD_PRELOAD=/tmp/evil.so",
        "BASH_ENV=/tmp/evil.sh",
        "HOME=/tmp",
        "GIT_SSH_COMMAND=evil",
        "NODE_OPTIONS=--require=/tmp/x",
    ] {
        let r = run(&a, json!({"program": "true", "env": [refused]}));
        assert_eq!(r["error"]["code"], "permission_denied", "{refused} was not refused: {r}");
        let name = refused.split('=').next().unwrap();
        assert!(text(&r).contains(&format!("may not set {name}")), "{refused}: {r}");
    }
    // Anything else is refused, naming the variable and how an operator allows it; nothing runs.
    let policy_file = a.data.join("policy.json");
    for refused in [
        "GIT_DIR=.",
        "XDG_CONFIG_HOME=cfg",
        "PAGER=sh -c id",
        "GIT_EXTERNAL_DIFF=x",
        "GREETING=hi there",
    ] {
        let name = refused.split('=').next().unwrap();
        let r =
            run(&a, json!({"program": "touch", "args": [format!("ran-{name}")], "env": [refused]}));
        assert_eq!(r["error"]["code"], "permission_denied", "{refused} was not refused: {r}");
        let t = text(&r);
        assert!(t.contains(&format!("may not set {name}")), "{refused}: {r}");
        assert!(
            t.contains(&format!(
                "\"{name}\" to \"process_env_allow\" in {}",
                policy_file.display()
            )),
            "{refused}: {r}"
        );
        promise(!a.ws.join(format!("ran-{name}")).exists(), || {
            format!("the program ran with {refused}: {r}")
        });
    }
    // A locale or zone that would name a file of the tool's is refused too.
    for refused in ["LANG=/ws/locale", "TZ=../../ws/zone"] {
        let r = run(&a, json!({"program": "true", "env": [refused]}));
        assert_eq!(r["error"]["code"], "permission_denied", "{refused} was not refused: {r}");
    }
    // The operator allows a name in policy.json; PATH stays refused even then.
    std::fs::write(&policy_file, r#"{"process_env_allow": ["GREETING", "PATH"]}"#).unwrap();
    let r =
        run(&a, json!({"program": "printenv", "args": ["GREETING"], "env": ["GREETING=hi there"]}));
    assert_eq!(r["structuredContent"]["stdout"]["text"], "hi there\n", "{r}");
    let r = run(&a, json!({"program": "true", "env": ["PATH=/tmp/evil"]}));
    assert_eq!(r["error"]["code"], "permission_denied", "{r}");
    // The program gets the fake HOME the session was started with, not one the tool chose.
    let r = run(&a, json!({"program": "printenv", "args": ["HOME"]}));
    assert_eq!(r["structuredContent"]["stdout"]["text"], format!("{}\n", a.home.display()), "{r}");
}

/// The attack the allow-list stops: a process tool writes a git config of its own (here the
/// test writes it) and runs `git status` with `XDG_CONFIG_HOME` pointing at it. What an
/// approver reads as `runs("git status")` would run the config's `core.fsmonitor` command.
#[test]
fn git_status_cannot_be_pointed_at_a_config_the_tool_wrote() {
    let a = Attack::new();
    if !a.sandbox_or_skip("git_status_cannot_be_pointed_at_a_config_the_tool_wrote") {
        return;
    }
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .arg(&a.ws)
        .output()
        .expect("git init");
    assert!(init.status.success(), "{}", String::from_utf8_lossy(&init.stderr));
    let pwned = a.ws.join("fsmonitor-ran");
    a.put("cfg/git/config", format!("[core]\n\tfsmonitor = echo pwned > {}\n", pwned.display()));
    a.put("tracked.txt", "x\n");
    let r = run(
        &a,
        json!({"program": "git", "args": ["status", "--short"], "env": [format!("XDG_CONFIG_HOME={}", a.ws.join("cfg").display())]}),
    );
    promise(!pwned.exists(), || format!("`git status` ran the tool's core.fsmonitor command: {r}"));
    assert_eq!(r["error"]["code"], "permission_denied", "{r}");
    assert!(text(&r).contains("may not set XDG_CONFIG_HOME"), "{r}");
    // GIT_DIR at a repository of the tool's own: the same.
    let r =
        run(&a, json!({"program": "git", "args": ["status", "--short"], "env": ["GIT_DIR=cfg"]}));
    assert_eq!(r["error"]["code"], "permission_denied", "{r}");
    assert!(text(&r).contains("may not set GIT_DIR"), "{r}");
    // Without the variable, git status runs (the sandbox is not what refused it).
    let r = run(&a, json!({"program": "git", "args": ["status", "--short"]}));
    assert_eq!(r["structuredContent"]["exitCode"], 0, "{r}");
    assert!(!pwned.exists(), "{r}");
}

/// `tool add` grants process-execution with the words saying what it means, and the
/// definition carries the output schema.
#[test]
fn tool_add_grants_process_execution_and_says_what_it_means() {
    let a = Attack::new();
    let out = a.run(&[], &["tool", "add", component("runner").to_str().unwrap(), "--yes"]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(out.stdout.contains("installed `runner` (process-execution)"), "{}", out.all());
    let show = a.run(&[], &["tool", "show", "runner"]);
    assert!(
        show.stdout.contains("run programs") && show.stdout.contains("sandbox"),
        "{}",
        show.all()
    );
    let tools = a.run(&[], &["tools", "--json"]);
    let defs: Value = serde_json::from_str(&tools.stdout).unwrap();
    let runner = defs
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == "runner")
        .unwrap_or_else(|| panic!("{}", tools.stdout));
    assert_eq!(runner["output_schema"]["type"], "object", "{runner}");
}

/// When bash's sandbox is unavailable, a component's program does not run either: here the
/// binary and its Landlock helper are copied into a world-writable directory made for it,
/// where toolhost refuses to trust the helper (`toolhost doctor` says so), and `touch` must
/// not happen.
#[test]
fn nothing_runs_when_the_sandbox_is_unavailable() {
    use std::os::unix::fs::PermissionsExt;
    let a = Attack::new();
    let base = tempfile::tempdir().unwrap();
    let copies = base.path().join("open");
    std::fs::create_dir(&copies).unwrap();
    std::fs::set_permissions(&copies, std::fs::Permissions::from_mode(0o777)).unwrap();
    for bin in ["toolhost", "toolhost-sandbox-exec"] {
        std::fs::copy(toolhost_tests::bin_dir().join(bin), copies.join(bin)).unwrap();
    }
    let run = |args: &[&str]| {
        let mut cmd = std::process::Command::new(copies.join("toolhost"));
        cmd.env_clear().env("PATH", &a.path_var).env("HOME", &a.home);
        cmd.arg("--workspace").arg(&a.ws).arg("--data-dir").arg(&a.data).args(args);
        toolhost_tests::attack::run_limited(&mut cmd, None, Duration::from_secs(120))
            .expect("toolhost hung")
    };
    let doctor = run(&["doctor"]);
    assert_ne!(
        doctor.code,
        Some(0),
        "the copied helper was trusted, so this proves nothing: {}",
        doctor.all()
    );
    let runner = component("runner");
    let input = json!({"program": "touch", "args": ["ran.txt"]}).to_string();
    let out = run(&["--tool", runner.to_str().unwrap(), "call", "runner", &input, "--json"]);
    let r = out.json();
    assert_eq!(r["error"]["code"], "sandbox_unavailable", "{}", out.all());
    promise(!a.ws.join("ran.txt").exists(), || {
        format!("a program ran without the sandbox: {}", out.all())
    });
}
