//! Third-party tool components through the built binary (issue: install a .wasm, grant it by
//! its declared risk, pin it, contain it, undo what it did): `toolhost tool add|list|show|remove`,
//! `--tool`, the grants held at the capability, and containment of misbehaving components —
//! each run the way a user runs it, with a fake HOME full of fake secrets.
//!
//! The components are the test ones under `tools/testing/`: `misbehave` (declares read-only,
//! and traps, loops, hoards memory, floods or writes on request), `scribe` (workspace-mutation:
//! writes a file), `runner` (process-execution: runs a program through the sandboxed
//! `process` capability), `legacy` (built against the frozen toolhost:tool 0.1.0).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, promise, result_text, run_limited};
use toolhost_tests::test_components_dir;

fn component(id: &str) -> PathBuf {
    test_components_dir().join(format!("{id}.wasm"))
}

fn path_str(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// `toolhost tool add FILE --yes`, asserted to succeed.
fn install(a: &Attack, id: &str) {
    let out = a.run(&[], &["tool", "add", path_str(&component(id)), "--yes"]);
    assert_eq!(out.code, Some(0), "tool add {id}: {}", out.all());
}

#[test]
fn add_list_show_remove_round_trip() {
    let a = Attack::new();
    let out = a.run(&[], &["tool", "add", path_str(&component("scribe")), "--yes"]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    for field in ["id:          scribe", "risk:        workspace-mutation", "sha256:", "size:"] {
        assert!(out.stdout.contains(field), "the summary lacks {field:?}: {}", out.stdout);
    }
    assert!(out.stdout.contains("installed `scribe`"), "{}", out.stdout);

    let list = a.run(&[], &["tool", "list", "--json"]);
    assert_eq!(list.code, Some(0), "{}", list.all());
    let rows: Value = serde_json::from_str(&list.stdout).unwrap();
    let row = &rows[0];
    assert_eq!(row["id"], "scribe");
    assert_eq!(row["risk"], "workspace_mutation");
    assert_eq!(row["loaded"], true);
    assert_eq!(row["sha256"].as_str().unwrap().len(), 64);
    assert!(row["source"].as_str().unwrap().ends_with("scribe.wasm"));
    assert!(row["added"].as_str().unwrap().ends_with('Z'));
    let text = a.run(&[], &["tool", "list"]);
    assert!(text.stdout.starts_with("scribe\tworkspace-mutation\t"), "{}", text.stdout);

    let show = a.run(&[], &["tool", "show", "scribe", "--json"]);
    assert_eq!(show.code, Some(0), "{}", show.all());
    let shown: Value = serde_json::from_str(&show.stdout).unwrap();
    assert_eq!(shown["definition"]["id"], "scribe");
    assert_eq!(shown["definition"]["input_schema"]["type"], "object");

    let tools = a.run(&[], &["tools"]);
    let ids: Vec<&str> = tools.stdout.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(
        ids,
        ["read", "write", "edit", "grep", "glob", "list", "bash", "scribe"],
        "{}",
        tools.all()
    );
    let explorer = a.run(&["--agent", "explorer"], &["tools"]);
    assert!(
        !explorer.stdout.contains("scribe"),
        "the explorer got a workspace-mutation tool: {}",
        explorer.stdout
    );

    // Adding the same id again is an upgrade.
    let again = a.run(&[], &["tool", "add", path_str(&component("scribe")), "--yes"]);
    assert_eq!(again.code, Some(0), "{}", again.all());
    assert!(
        again.stdout.contains("upgrades:") && again.stdout.contains("upgraded `scribe`"),
        "{}",
        again.stdout
    );

    let removed = a.run(&[], &["tool", "remove", "scribe"]);
    assert_eq!(removed.code, Some(0), "{}", removed.all());
    assert_eq!(a.run(&[], &["tool", "remove", "scribe"]).code, Some(1));
    assert_eq!(a.run(&[], &["tool", "show", "scribe"]).code, Some(1));
    assert!(!a.run(&[], &["tools"]).stdout.contains("scribe"));
    let left: Vec<_> = std::fs::read_dir(a.data.join("tools")).unwrap().collect();
    assert!(left.is_empty(), "removing left files behind: {left:?}");
}

#[test]
fn a_read_only_tool_is_offered_to_the_explorer_too() {
    let a = Attack::new();
    install(&a, "misbehave");
    let explorer = a.run(&["--agent", "explorer"], &["tools"]);
    let ids: Vec<&str> = explorer.stdout.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(ids, ["read", "grep", "glob", "list", "bash", "misbehave"], "{}", explorer.all());
}

#[test]
fn add_refuses_without_a_yes_off_a_terminal() {
    let a = Attack::new();
    let mut cmd = a.command(&[]);
    cmd.args(["tool", "add", path_str(&component("scribe"))]);
    let out =
        run_limited(&mut cmd, Some(Vec::new()), Duration::from_secs(120)).expect("tool add ran");
    assert_eq!(out.code, Some(1), "{}", out.all());
    assert!(
        out.stderr.contains("--yes"),
        "the refusal does not say how to proceed: {}",
        out.stderr
    );
    assert!(a.run(&[], &["tool", "list"]).stdout.is_empty(), "it was installed anyway");
}

/// On a real pseudo-terminal (util-linux `script`): "n" (or just Enter) refuses, "y" installs.
#[test]
fn add_asks_on_a_terminal_and_defaults_to_no() {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!(
            "add_asks_on_a_terminal_and_defaults_to_no: skipped (no `script` for a pseudo-terminal)"
        );
        return;
    }
    let a = Attack::new();
    let ask = |answer: &[u8]| {
        let inner = format!(
            "{} --workspace {} --data-dir {} tool add {}",
            toolhost_tests::toolhost_bin().display(),
            a.ws.display(),
            a.data.display(),
            component("scribe").display()
        );
        let mut cmd = std::process::Command::new("script");
        cmd.args(["-qec", &inner, "/dev/null"]).env("HOME", &a.home);
        run_limited(&mut cmd, Some(answer.to_vec()), Duration::from_secs(120)).expect("script ran")
    };
    for answer in [&b"\n"[..], b"n\n"] {
        let out = ask(answer);
        assert!(
            out.stdout.contains("Install `scribe`? [y/N]"),
            "no question was asked: {:?}",
            out.stdout
        );
        assert!(
            a.run(&[], &["tool", "list"]).stdout.is_empty(),
            "answer {answer:?} installed it: {}",
            out.stdout
        );
    }
    let out = ask(b"y\n");
    assert!(out.stdout.contains("installed `scribe`"), "{:?}", out.stdout);
    assert!(a.run(&[], &["tool", "list"]).stdout.starts_with("scribe\t"));
}

#[test]
fn add_refuses_what_is_not_an_installable_tool() {
    let a = Attack::new();
    let junk = a.outside_dir("junk");
    std::fs::write(junk.join("text.wasm"), "not wasm at all").unwrap();
    // The smallest core module: magic and version 1.
    std::fs::write(junk.join("core.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let cases: Vec<(PathBuf, &str)> = vec![
        (toolhost_tests::components_dir().join("read.wasm"), "taken by a built-in"),
        (component("foreign"), "imports `test:foreign/net`, which toolhost does not provide"),
        (component("noexport"), "does not export `toolhost:tool/tool`"),
        (component("describetrap"), "its `describe` failed"),
        (component("badid"), "is not 1 to 64 characters"),
        (component("blankdesc"), "description is blank"),
        (component("badschema"), "not valid JSON Schema"),
        (
            component("badoutput"),
            "output schema must have \"type\": \"object\" (a structured result is a JSON object)",
        ),
        (junk.join("text.wasm"), "not WebAssembly"),
        (junk.join("core.wasm"), "core WebAssembly module"),
        (junk.join("missing.wasm"), "cannot read"),
    ];
    for (file, why) in cases {
        let out = a.run(&[], &["tool", "add", path_str(&file), "--yes"]);
        assert_eq!(out.code, Some(1), "{} was not refused: {}", file.display(), out.all());
        assert!(
            out.stderr.contains(why),
            "{}: the refusal does not say {why:?}: {}",
            file.display(),
            out.stderr
        );
    }
    assert!(a.run(&[], &["tool", "list"]).stdout.is_empty());
}

#[test]
fn a_tampered_installed_component_is_not_loaded_and_says_why() {
    let a = Attack::new();
    install(&a, "misbehave");
    let file = std::fs::read_dir(a.data.join("tools")).unwrap().next().unwrap().unwrap().path();
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"\0");
    std::fs::write(&file, bytes).unwrap();
    let tools = a.run(&[], &["tools"]);
    assert_eq!(tools.code, Some(0), "{}", tools.all());
    promise(!tools.stdout.contains("misbehave"), || {
        format!("a tampered component was loaded: {}", tools.stdout)
    });
    assert!(
        tools.stderr.contains("misbehave") && tools.stderr.contains("SHA-256"),
        "stderr does not say why: {}",
        tools.stderr
    );
    let list = a.run(&[], &["tool", "list", "--json"]);
    let rows: Value = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(rows[0]["loaded"], false);
    assert!(rows[0]["notLoaded"].as_str().unwrap().contains("pinned"));
    let call = a.call("misbehave", json!({"action": "echo"}));
    assert_eq!(call.json()["error"]["code"], "tool_not_found", "{}", call.all());
}

#[test]
fn a_tool_given_with_tool_is_used_for_that_run_only() {
    let a = Attack::new();
    let misbehave = component("misbehave");
    let flag = ["--tool", path_str(&misbehave)];
    let out = a.call_with(&flag, "misbehave", json!({"action": "echo"}));
    assert_eq!(out.status(), "succeeded", "{}", out.all());
    assert_eq!(out.text(), "ok");
    assert!(a.run(&[], &["tool", "list"]).stdout.is_empty(), "--tool installed it");
    assert!(!a.run(&[], &["tools"]).stdout.contains("misbehave"));
    // Its id may not collide with an installed one.
    install(&a, "misbehave");
    let twice = a.run(&flag, &["tools"]);
    assert_ne!(twice.code, Some(0), "{}", twice.all());
    assert!(twice.stderr.contains("taken by an installed tool"), "{}", twice.stderr);
}

/// A read-only grant gets no draft: the write fails `permission_denied`, naming the tool and
/// its risk, and nothing is written.
#[test]
fn a_read_only_tool_cannot_write() {
    let a = Attack::new();
    install(&a, "misbehave");
    let out = a.call("misbehave", json!({"action": "write", "path": "planted.txt", "text": "x"}));
    assert_eq!(out.json()["error"]["code"], "permission_denied", "{}", out.all());
    assert!(out.text().contains("misbehave") && out.text().contains("read-only"), "{}", out.text());
    promise(!a.ws.join("planted.txt").exists(), || "a read-only tool wrote a file".into());
}

/// What a workspace-mutation tool writes is a file_change artifact, listed by `toolhost
/// changes`, and `toolhost undo` takes it back.
#[test]
fn a_mutation_tools_write_is_recorded_and_undone() {
    let a = Attack::new();
    install(&a, "scribe");
    let out = a.call("scribe", json!({"path": "notes.txt", "text": "hello\n"}));
    assert_eq!(out.status(), "succeeded", "{}", out.all());
    let artifacts = out.json()["artifacts"].clone();
    assert_eq!(artifacts[0]["type"], "file_change", "{}", out.stdout);
    assert_eq!(artifacts[0]["kind"], "created");
    assert_eq!(std::fs::read_to_string(a.ws.join("notes.txt")).unwrap(), "hello\n");
    let ids = a.change_ids();
    assert_eq!(ids.len(), 1, "{ids:?}");
    let undo = a.run(&[], &["undo", &ids[0]]);
    assert_eq!(undo.code, Some(0), "{}", undo.all());
    assert!(!a.ws.join("notes.txt").exists(), "undo left the file");
    // Its writes go through the same fence as write's: never into the data dir or HOME.
    for target in [a.data.join("tools.json"), a.home.join(".bashrc")] {
        let out = a.call("scribe", json!({"path": path_str(&target), "text": "owned\n"}));
        assert_ne!(out.status(), "succeeded", "scribe wrote {}: {}", target.display(), out.all());
    }
    assert!(a.run(&[], &["tools"]).stdout.contains("scribe"), "the installed set was damaged");
}

/// No sandboxed bash can change what is installed.
#[test]
fn bash_cannot_touch_the_installed_set() {
    let a = Attack::new();
    if !a.sandbox_or_skip("bash_cannot_touch_the_installed_set") {
        return;
    }
    install(&a, "misbehave");
    let before = std::fs::read(a.data.join("tools.json")).unwrap();
    let script = format!(
        "echo '{{\"tools\":[]}}' > {d}/tools.json; for f in {d}/tools/*; do echo x >> \"$f\"; done; rm -rf {d}/tools; cat {d}/tools.json",
        d = a.data.display()
    );
    let out = a.bash(&script);
    assert_eq!(
        std::fs::read(a.data.join("tools.json")).unwrap(),
        before,
        "bash changed tools.json: {}",
        out.all()
    );
    let tools = a.run(&[], &["tools"]);
    promise(tools.stdout.contains("misbehave"), || {
        format!("bash damaged an installed tool: {}", tools.all())
    });
}

/// Every containment case through one session: after each, the same session serves the next
/// call.
#[test]
fn misbehaving_components_are_contained_and_the_session_goes_on() {
    let a = Attack::new();
    install(&a, "misbehave");
    let mut s = a.session(&[]);
    let echo = |s: &mut toolhost_tests::attack::Session, id: &str| {
        let r = s.call(id, "misbehave", json!({"action": "echo"}));
        assert_eq!(
            result_text(&r),
            "ok",
            "the session stopped serving after a misbehaving call: {r}"
        );
    };

    let trap = s.call("t1", "misbehave", json!({"action": "trap"}));
    assert_eq!(trap["error"]["code"], "execution_failed", "{trap}");
    let msg = trap["error"]["message"].as_str().unwrap();
    assert!(
        !msg.contains('\n') && msg.len() < 300,
        "a trap gave more than a one-line reason: {msg:?}"
    );
    echo(&mut s, "e1");

    let started = Instant::now();
    let ev = s.request(json!({"id": "l1", "tool": "misbehave", "arguments": {"action": "loop"}, "timeoutMs": 1000}));
    assert_eq!(ev["result"]["error"]["code"], "timeout", "{ev}");
    eprintln!("an endless loop stopped {:?} after a 1 s deadline", started.elapsed());
    echo(&mut s, "e2");

    s.send(&json!({"id": "l2", "tool": "misbehave", "arguments": {"action": "loop"}}));
    std::thread::sleep(Duration::from_millis(300));
    let cancelled_at = Instant::now();
    s.send(&json!({"id": "x", "cancel": "l2"}));
    let mut got = Vec::new();
    while got.len() < 2 {
        got.push(s.next_final());
    }
    let result = got.iter().find(|e| e["id"] == "l2").expect("the loop's result");
    assert_eq!(result["result"]["error"]["code"], "cancelled", "{result}");
    eprintln!("cancel stopped an endless loop in {:?}", cancelled_at.elapsed());
    echo(&mut s, "e3");

    let alloc = s.call("a1", "misbehave", json!({"action": "alloc"}));
    assert_eq!(alloc["status"], "failed", "{alloc}");
    assert!(
        alloc["error"]["message"].as_str().unwrap().contains("512 MiB"),
        "the cap is not named: {alloc}"
    );
    echo(&mut s, "e4");

    let big = s.call("b1", "misbehave", json!({"action": "big", "bytes": 5_000_000}));
    let text = result_text(&big);
    assert!(
        text.len() <= 32_000,
        "more than 32,000 bytes of a 5 MB result reached the model: {}",
        text.len()
    );
    let spill_dir = a.data.join("spill");
    let named = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "()`'\".,;:".contains(c)))
        .find(|w| w.starts_with(path_str(&spill_dir)));
    let spill = named.unwrap_or_else(|| {
        panic!("the cut names no spill file: {}", &text[text.len().saturating_sub(400)..])
    });
    assert_eq!(
        std::fs::metadata(spill).map(|m| m.len()).unwrap_or(0),
        5_000_000,
        "the spill file {spill} does not hold the whole result"
    );
    echo(&mut s, "e5");

    let flood = s.call("f1", "misbehave", json!({"action": "flood", "bytes": 64_000_000}));
    assert_eq!(result_text(&flood), "flooded", "{flood}");
    echo(&mut s, "e6");
    let rss = peak_rss_kib(s.proc.pid());
    eprintln!("the session's peak RSS after a 4 GiB allocation and a 128 MB flood: {rss:?} KiB");
    if let Some(kib) = rss {
        assert!(kib < 1_500_000, "the host's memory was not bounded: peak RSS {kib} KiB");
    }
}

/// VmHWM of `pid`, in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// A component that crashes on three calls in a row is disabled for the rest of the session:
/// its next call fails at once with the reason, while other tools go on; a new session starts
/// afresh. Crashes not in a row do not count.
#[test]
fn three_crashes_in_a_row_disable_a_tool_for_the_session() {
    let a = Attack::new();
    install(&a, "misbehave");
    let mut s = a.session(&[]);
    for (i, action) in ["trap", "trap", "echo", "trap", "trap"].iter().enumerate() {
        s.call(&format!("warm{i}"), "misbehave", json!({"action": action}));
    }
    let still = s.call("still", "misbehave", json!({"action": "echo"}));
    assert_eq!(result_text(&still), "ok", "two crashes, an echo and two more disabled it: {still}");
    for i in 0..3 {
        let r = s.call(&format!("t{i}"), "misbehave", json!({"action": "trap"}));
        assert_eq!(r["error"]["code"], "execution_failed", "{r}");
    }
    let disabled = s.call("after", "misbehave", json!({"action": "echo"}));
    assert_eq!(disabled["error"]["code"], "execution_failed", "{disabled}");
    let text = result_text(&disabled);
    assert!(
        text.contains("`misbehave`") && text.contains("disabled for the rest of this session"),
        "{text}"
    );
    let other = s.call("list", "list", json!({"path": "."}));
    assert_eq!(other["status"], "succeeded", "{other}");
    drop(s);
    let fresh = a.call("misbehave", json!({"action": "echo"}));
    assert_eq!(fresh.text(), "ok", "a new session inherited the disabled state: {}", fresh.all());
}

/// Every component call reports what it cost: wall time and peak guest memory (`usage` in the
/// ToolResult JSON); a call that hoards memory shows it.
#[test]
fn component_calls_report_their_usage() {
    let a = Attack::new();
    install(&a, "misbehave");
    let echo = a.call("misbehave", json!({"action": "echo"}));
    let usage = &echo.json()["usage"];
    assert!(usage["wallUs"].as_u64().is_some_and(|us| us > 0), "{}", echo.stdout);
    let small = usage["peakMemoryBytes"].as_u64().unwrap_or(0);
    assert!(small > 0 && small < 64 << 20, "an echo's peak memory is {small}: {}", echo.stdout);
    let hoard = a.call("misbehave", json!({"action": "alloc"}));
    let big = hoard.json()["usage"]["peakMemoryBytes"].as_u64().unwrap_or(0);
    assert!(big >= 256 << 20, "a 4 GiB hoard's peak memory is {big}: {}", hoard.stdout);
    let list = a.call("list", json!({"path": "."}));
    assert!(
        list.json()["usage"]["peakMemoryBytes"].as_u64().is_some(),
        "a built-in component reports no usage: {}",
        list.stdout
    );
    let bash = a.call("bash", json!({"command": "true"}));
    assert!(
        bash.json().get("usage").is_none(),
        "host-native bash reports a component usage: {}",
        bash.stdout
    );
}

/// The grant is what `tools.json` records, not what the component declares: scribe recorded
/// as granted read-only cannot write. Adding it again is an upgrade that asks for more than it
/// was granted, and the summary says so before it is approved.
#[test]
fn the_recorded_grant_holds_and_an_upgrade_names_a_higher_risk() {
    let a = Attack::new();
    install(&a, "scribe");
    // As if it had been installed when it declared read-only (the user's own edit of the record).
    let record = a.data.join("tools.json");
    let text = std::fs::read_to_string(&record)
        .unwrap()
        .replace("\"workspace_mutation\"", "\"read_only\"");
    std::fs::write(&record, text).unwrap();
    let out = a.call("scribe", json!({"path": "notes.txt", "text": "x\n"}));
    assert_eq!(
        out.json()["error"]["code"],
        "permission_denied",
        "a read-only grant wrote: {}",
        out.all()
    );
    promise(!a.ws.join("notes.txt").exists(), || "a tool granted read-only wrote a file".into());
    let explorer = a.run(&["--agent", "explorer"], &["tools"]);
    assert!(
        explorer.stdout.contains("scribe"),
        "the explorer does not get a tool granted read-only: {}",
        explorer.stdout
    );

    let upgrade = a.run(&[], &["tool", "add", path_str(&component("scribe")), "--yes"]);
    assert_eq!(upgrade.code, Some(0), "{}", upgrade.all());
    assert!(
        upgrade.stdout.contains("upgrades:") && upgrade.stdout.contains("granted read-only"),
        "{}",
        upgrade.stdout
    );
    assert!(
        upgrade.stdout.contains("HIGHER RISK") && upgrade.stdout.contains("workspace-mutation"),
        "the higher risk is not named: {}",
        upgrade.stdout
    );
    let out = a.call("scribe", json!({"path": "notes.txt", "text": "x\n"}));
    assert_eq!(out.status(), "succeeded", "the upgraded grant does not hold: {}", out.all());
}

/// A refusal says its reason once, whichever command met it: `tool add`, `--tool` before a
/// call, `--tool` before `mcp` (the `--tool` paths print the error with its causes, and the
/// reason was both in the text and its cause).
#[test]
fn a_refusal_says_its_reason_once() {
    let a = Attack::new();
    let file = component("foreign");
    let reason = "imports `test:foreign/net`, which toolhost does not provide";
    let runs: [(&[&str], &[&str]); 3] = [
        (&[], &["tool", "add", path_str(&file), "--yes"]),
        (&["--tool", path_str(&file)], &["call", "foreign", "{}"]),
        (&["--tool", path_str(&file)], &["mcp"]),
    ];
    for (global, args) in runs {
        let out = a.run(global, args);
        assert!(
            out.code.is_some_and(|c| c != 0),
            "{global:?} {args:?} was not refused: {}",
            out.all()
        );
        assert_eq!(
            out.stderr.matches(reason).count(),
            1,
            "{global:?} {args:?} does not say the reason exactly once: {}",
            out.stderr
        );
        assert!(
            out.stderr.contains("docs/authoring.md#what-the-host-refuses"),
            "{global:?} {args:?} does not say where the fix is: {}",
            out.stderr
        );
    }
}
