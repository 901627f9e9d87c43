//! Escalation through the file tools (docs/contract.md#escalation-parameters; file tools with a
//! write grant were untested before): a grant widens one call, never hard-protected paths.

use std::sync::Arc;

use serde_json::json;
use toolhost::{ErrorCode, ToolResultStatus, ToolsetConfig, finalize};
use toolhost_tests::*;

#[tokio::test]
async fn a_write_grant_lets_write_reach_outside_but_never_the_data_dir() {
    let fx = Fixture::new();
    let session = fx.session().with_approver(Arc::new(toolhost::approval::AllowApprovals));
    let ts = finalize(
        &registry_with_test_tools().await,
        &ToolsetConfig::new(["write", "edit"]),
        session,
    )
    .unwrap();
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = outside.path().canonicalize().unwrap().join("granted.txt");
    let grant =
        |p: &std::path::Path| json!({"paths": [{"path": p, "access": "write", "scope": "exact"}]});

    // Without a grant: refused, marked as a sandbox denial.
    let r = call(&ts, &fx, "write", json!({"path": target, "content": "x\n"})).await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());
    assert!(!target.exists());

    // With an approved grant: this call writes there.
    let r = call(&ts, &fx, "write", json!({"path": target, "content": "x\n", "sandboxPermissions": grant(&target), "justification": "the user asked"})).await;
    assert!(r.succeeded(), "{}", r.text());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "x\n");

    // The next call has no grant again.
    let r = call(&ts, &fx, "edit", json!({"filePath": target, "oldString": "x", "newString": "y"}))
        .await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());

    // A grant never unlocks the data dir (spill files, cache, store).
    let spill = fx.data.path().canonicalize().unwrap().join("spill/mine.txt");
    let r = call(&ts, &fx, "write", json!({"path": spill, "content": "x", "sandboxPermissions": {"paths": [{"path": fx.data.path(), "access": "write", "scope": "subtree"}]}, "justification": "please"})).await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());
    assert!(!spill.exists());
}

#[tokio::test]
async fn without_an_approver_an_escalated_write_is_denied_and_nothing_is_written() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["write"]).await;
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = outside.path().join("x.txt");
    let r = call(&ts, &fx, "write", json!({"path": target, "content": "x", "sandboxPermissions": {"paths": [{"path": target, "access": "write", "scope": "exact"}]}, "justification": "j"})).await;
    assert_eq!(r.status, ToolResultStatus::Denied, "{}", r.text());
    assert!(r.text().contains("--allow-escalation"), "says how to grant it: {}", r.text());
    assert!(!target.exists());
    // Unknown fields inside sandboxPermissions are rejected.
    let r = call(&ts, &fx, "write", json!({"path": "a", "content": "x", "sandboxPermissions": {"paths": [], "extra": 1}, "justification": "j"})).await;
    assert_eq!(r.error.unwrap().code, ErrorCode::InvalidArguments);
}

/// Attack: an MCP elicitation that read "Extra access to ~ … (Approving this lets the bash
/// call read README.md only.)" was a write grant on all of HOME, and bash then appended to
/// `~/.bashrc`. Through the built binary and the official MCP Python SDK: the elicitation
/// names write, subtree and the path; the model's reason is one quoted, escaped line marked
/// as its own; the terminal prompt (on a pseudo-terminal through `script`) shows the very
/// same words. Declined, nothing is written.
#[test]
fn the_approval_request_names_access_scope_and_path_the_same_in_mcp_and_on_the_terminal() {
    use toolhost_tests::attack::{Attack, promise, run_limited};
    let a = Attack::new();
    if !a.sandbox_or_skip("the_approval_request_names_access_scope_and_path") {
        return;
    }
    let bashrc = a.home.join(".bashrc");
    let justification = "Extra access to ~ for the README.\n(Approving this lets the bash call read README.md only.)";
    let arguments = json!({
        "command": format!("echo pwned >> {}", bashrc.display()),
        "sandboxPermissions": {"paths": [{"path": a.home, "access": "write", "scope": "subtree"}]},
        "justification": justification,
    });
    let bin = toolhost_bin();
    let arguments_json = arguments.to_string();
    let args = [
        bin.as_os_str(),
        a.ws.as_os_str(),
        a.data.as_os_str(),
        std::ffi::OsStr::new(&arguments_json),
        std::ffi::OsStr::new("decline"),
    ];
    let (report, _) =
        toolhost_tests::mcp::run_client_script("elicit_client.py", &args, Some(&a.home));
    assert_eq!(report["asked"].as_array().map(Vec::len), Some(1), "{report}");
    let message = report["asked"][0]["message"].as_str().unwrap();
    let home = serde_json::to_string(&a.home).unwrap();
    let grant = message
        .lines()
        .find(|l| l.contains(&home))
        .unwrap_or_else(|| panic!("the path is not named: {message}"));
    promise(
        grant.contains("write")
            && grant.contains("subtree")
            && grant.contains("everything below it"),
        || {
            format!(
                "the elicitation does not say it grants writing everything under {home}: {message}"
            )
        },
    );
    let reason: Vec<&str> = message.lines().filter(|l| l.contains("Approving this")).collect();
    promise(
        reason.len() == 1
            && reason[0].contains(r#""Extra access to ~ for the README.\n(Approving this"#),
        || format!("the model's reason is not one quoted, escaped line: {message:?}"),
    );
    promise(reason[0].contains("model's reason"), || {
        format!("the reason is not marked as the model's: {message:?}")
    });
    assert_eq!(report["call"]["meta"]["toolhost/status"], "denied", "{report}");
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        a.bashrc,
        "declined, yet .bashrc changed"
    );

    // The terminal prompt: the same words.
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("terminal half skipped: no `script` for a pseudo-terminal");
        return;
    }
    let inner = format!(
        "{} --workspace {} --data-dir {} call bash '{}'",
        bin.display(),
        a.ws.display(),
        a.data.display(),
        arguments.to_string().replace('\'', r"'\''")
    );
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qec", &inner, "/dev/null"]).env("HOME", &a.home);
    let out = run_limited(&mut cmd, Some(b"n\n".to_vec()), std::time::Duration::from_secs(60))
        .expect("script ran");
    let shown = out.stdout.replace("\r\n", "\n");
    promise(shown.contains(&format!("toolhost: {message} [y/N]")), || {
        format!(
            "the terminal prompt is not the elicitation's words:\nterminal: {shown:?}\nMCP: {message:?}"
        )
    });
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), a.bashrc, "refused, yet .bashrc changed");
}

/// A stateless 2026-07-28 client (the official Python SDK's `Client`, which forbids the
/// server's own requests) approves an escalation through an input-required round: asked in
/// the terminal prompt's words, run once approved. Attack: the round's request state is the
/// client's to echo — changed, reused for other arguments (a write on HOME), sent without the
/// answer, or replayed after it was used, it approves nothing.
#[test]
fn a_stateless_client_approves_an_escalation_in_a_round_whose_state_cannot_be_forged_or_replayed() {
    use toolhost_tests::attack::{Attack, promise};
    let a = Attack::new();
    if !a.sandbox_or_skip("a_stateless_client_approves_an_escalation_in_a_round") {
        return;
    }
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let outside = outside.path().canonicalize().unwrap();
    let bashrc = a.home.join(".bashrc");
    let run = |answer: &str, marker: &std::path::Path| {
        let arguments = json!({
            "command": format!("echo approved >> {}", marker.display()),
            "sandboxPermissions": {"paths": [{"path": outside, "access": "write", "scope": "subtree"}]},
            "justification": "the test writes one file\noutside the workspace",
        });
        let other = json!({
            "command": format!("echo pwned >> {}", bashrc.display()),
            "sandboxPermissions": {"paths": [{"path": a.home, "access": "write", "scope": "subtree"}]},
            "justification": "the test writes one file\noutside the workspace",
        });
        let (arguments, other) = (arguments.to_string(), other.to_string());
        let bin = toolhost_bin();
        let args = [
            bin.as_os_str(),
            a.ws.as_os_str(),
            a.data.as_os_str(),
            std::ffi::OsStr::new(&arguments),
            std::ffi::OsStr::new(&other),
            std::ffi::OsStr::new(answer),
        ];
        toolhost_tests::mcp::run_client_script("approve_stateless_client.py", &args, Some(&a.home))
            .0
    };

    let marker = outside.join("approved.txt");
    let report = run("accept", &marker);
    let auto = &report["automatic"];
    assert_eq!(auto["asked"].as_array().map(Vec::len), Some(1), "{report:#}");
    let message = auto["asked"][0]["message"].as_str().unwrap();
    let path = serde_json::to_string(&outside).unwrap();
    promise(message.lines().any(|l| l.contains(&path) && l.contains("write, subtree")), || {
        format!("the round does not name the write grant on {path}: {message}")
    });
    promise(message.contains(r#""the test writes one file\noutside the workspace""#), || {
        format!("the model's reason is not one quoted, escaped line: {message:?}")
    });
    assert_eq!(auto["call"]["isError"], false, "{report:#}");

    let hand = &report["by_hand"];
    assert_eq!(hand["first"]["input_required"], true, "{report:#}");
    assert_eq!(hand["first"]["keys"], json!(["approval"]), "{report:#}");
    for (label, says) in [
        ("tampered", "does not belong to this call"),
        ("other_arguments", "does not belong to this call"),
        ("state_only", "must carry both"),
        ("replayed", "already answered once"),
    ] {
        let error = hand[label]["error"].as_str().unwrap_or_default();
        promise(error.contains(says), || {
            format!("{label}: the round's state was not refused ({says}): {:#}", hand[label])
        });
    }
    assert_eq!(hand["genuine"]["call"]["isError"], false, "{report:#}");
    // Approved twice (the SDK's round, the genuine answer by hand): two runs, no more.
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "approved\napproved\n");
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), a.bashrc, "other arguments ran");

    // Declined: denied, nothing ran (the by-hand part answers "accept" once, genuinely).
    let marker = outside.join("declined.txt");
    let report = run("decline", &marker);
    let auto = &report["automatic"];
    assert_eq!(auto["call"]["meta"]["toolhost/status"], "denied", "{report:#}");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "approved\n", "declined, yet it ran");
}

/// The next event of `s` that is not progress, within `limit`; None when none came (the
/// session hangs) or it ended.
fn next_event_within(
    s: &mut toolhost_tests::attack::Session,
    limit: std::time::Duration,
) -> Option<serde_json::Value> {
    let until = std::time::Instant::now() + limit;
    loop {
        let left = until.checked_duration_since(std::time::Instant::now())?;
        let line = s.proc.next_line(left)?;
        let ev: serde_json::Value = serde_json::from_str(&line).ok()?;
        if ev.get("progress").is_none() {
            return Some(ev);
        }
    }
}

/// Attack: an escalation's approval was awaited without a deadline, so a
/// `session --client-approves` client that never answered held the bash call — and every
/// call queued behind it — for ever (a run's approval already ended at the call's deadline).
/// One wait rule for both now: unanswered, the call ends at its deadline (`timeout`), or at
/// its cancel (`cancelled`), and nothing runs; the session goes on.
#[test]
fn an_unanswered_escalation_ends_at_the_calls_deadline_or_cancel_and_nothing_runs() {
    use std::time::Duration;
    use toolhost_tests::attack::{Attack, Session, promise};
    let a = Attack::new();
    if !a.sandbox_or_skip("an_unanswered_escalation_ends_at_the_calls_deadline") {
        return;
    }
    let outside = a.outside_dir("granted");
    let marker = outside.join("ran.txt");
    let arguments = json!({
        "command": format!("echo ran >> {}", marker.display()),
        "sandboxPermissions": {"paths": [{"path": outside, "access": "write", "scope": "subtree"}]},
        "justification": "the test writes one file outside the workspace",
    });
    let mut cmd = a.command(&[]);
    cmd.args(["session", "--client-approves"]);
    let mut s = Session::spawn(cmd);
    let absent = |what: &str| {
        promise(!marker.exists(), || format!("{what}: {} exists, so bash ran", marker.display()))
    };

    // Never answered: the call ends at its deadline.
    s.send(&json!({"id": "c1", "tool": "bash", "arguments": arguments, "timeoutMs": 1500}));
    let asked = s.next_final();
    assert_eq!(asked["approval"]["tool"], "bash", "{asked}");
    let ended = next_event_within(&mut s, Duration::from_secs(60));
    let Some(r) = ended else {
        promise(false, || {
            "an unanswered escalation held its call 60 s past its 1.5 s deadline".to_string()
        });
        return;
    };
    assert_eq!(r["id"], "c1", "{r}");
    assert_eq!(r["result"]["error"]["code"], "timeout", "{r}");
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("nothing ran"), "{r}");
    absent("unanswered until the deadline");

    // Cancelled while it waits: cancelled, nothing runs.
    s.send(&json!({"id": "c2", "tool": "bash", "arguments": arguments}));
    let asked = s.next_final();
    assert_eq!(asked["id"], "c2", "{asked}");
    assert!(asked.get("approval").is_some(), "{asked}");
    s.send(&json!({"id": "x1", "cancel": "c2"}));
    let mut events = Vec::new();
    for _ in 0..2 {
        match next_event_within(&mut s, Duration::from_secs(60)) {
            Some(ev) => events.push(ev),
            None => break,
        }
    }
    let result = events.iter().find(|e| e["id"] == "c2").cloned();
    promise(result.as_ref().is_some_and(|r| r["result"]["status"] == "cancelled"), || {
        format!("a cancel did not end the escalation's wait: {events:?}")
    });
    absent("cancelled while it waited");

    // The session goes on: an answered one runs.
    s.send(&json!({"id": "c3", "tool": "bash", "arguments": arguments, "timeoutMs": 60000}));
    let asked = s.next_final();
    assert!(asked.get("approval").is_some(), "{asked}");
    s.send(&json!({"id": "a3", "approve": "c3", "allow": true}));
    let (first, second) = (s.next_final(), s.next_final());
    let r = if first["id"] == "c3" { first } else { second };
    assert_eq!(r["result"]["status"], "succeeded", "{r}");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "ran\n");
}

/// Attack: a bearer-token holder who answered 4,096 approval rounds in ~10 s
/// filled the remembered answers, and every approval was refused for the next 600 s. Over
/// `mcp --listen`, 4,200 rounds asked and declined as fast as the server answers: an approval
/// asked after them is still answered and runs, once; no answer of the flood is accepted
/// twice (a replay approves nothing).
#[test]
fn a_flood_of_answered_approval_rounds_locks_no_later_approval_out() {
    use toolhost_tests::attack::{Attack, promise};
    use toolhost_tests::http::stateless;
    use toolhost_tests::mcp::HttpServer;
    if !Attack::new().sandbox_or_skip("a_flood_of_answered_approval_rounds") {
        return;
    }
    let fx = Fixture::new();
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let outside = outside.path().canonicalize().unwrap();
    let server = HttpServer::start(&fx, &[]);
    let caps = json!({"elicitation": {"form": {}}});
    let grant = json!({"paths": [{"path": outside, "access": "write", "scope": "subtree"}]});
    let call = |arguments: &serde_json::Value, answer: Option<(&serde_json::Value, bool)>| {
        let mut params = json!({"name": "bash", "arguments": arguments});
        if let Some((state, approve)) = answer {
            params["requestState"] = state.clone();
            params["inputResponses"] =
                json!({"approval": {"action": "accept", "content": {"approve": approve}}});
        }
        stateless(server.url(), server.token(), "tools/call", Some("bash"), params, &caps)
    };
    let flood_marker = outside.join("flood.txt");
    let flood = json!({
        "command": format!("echo flood >> {}", flood_marker.display()),
        "sandboxPermissions": grant,
        "justification": "one of many",
    });

    // 4 clients × 1,050 rounds, each asked and declined.
    let (call, flood) = (&call, &flood);
    let (refused, first_states) = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(move || {
                    let (mut refused, mut first) = (0usize, None);
                    for _ in 0..1050 {
                        let asked = call(flood, None);
                        let state = asked["result"]["requestState"].clone();
                        assert!(state.is_string(), "not asked: {asked}");
                        let answered = call(flood, Some((&state, false)));
                        if answered.get("error").is_some() {
                            refused += 1;
                        }
                        first.get_or_insert(state);
                    }
                    (refused, first.unwrap())
                })
            })
            .collect::<Vec<_>>();
        let workers: Vec<(usize, serde_json::Value)> =
            workers.into_iter().map(|w| w.join().unwrap()).collect();
        let refused: usize = workers.iter().map(|(r, _)| r).sum();
        (refused, workers.into_iter().map(|(_, s)| s).collect::<Vec<_>>())
    });
    eprintln!("{refused} of 4,200 declined answers were refused during the flood");

    // Asked after the flood: answered, run once.
    let marker = outside.join("after.txt");
    let arguments = json!({
        "command": format!("echo approved >> {}", marker.display()),
        "sandboxPermissions": grant,
        "justification": "the approval after the flood",
    });
    let asked = call(&arguments, None);
    let state = asked["result"]["requestState"].clone();
    assert!(state.is_string(), "not asked: {asked}");
    let answered = call(&arguments, Some((&state, true)));
    promise(answered["result"]["isError"] == false, || {
        format!("an approval answered after 4,200 rounds was refused: {answered}")
    });
    promise(std::fs::read_to_string(&marker).ok().as_deref() == Some("approved\n"), || {
        format!("the approved call did not run once: {answered}")
    });
    let again = call(&arguments, Some((&state, true)));
    assert!(again.get("error").is_some(), "an answer was accepted twice: {again}");
    // The flood's first answers, forgotten or not, approve nothing when sent again.
    for state in &first_states {
        let replayed = call(flood, Some((state, true)));
        assert!(replayed.get("error").is_some(), "a replayed answer was accepted: {replayed}");
    }
    assert!(!flood_marker.exists(), "a declined or replayed round ran");
    promise(std::fs::read_to_string(&marker).ok().as_deref() == Some("approved\n"), || {
        "the approved call ran other than once".into()
    });
}

/// `toolhost call` on a pseudo-terminal (through `script`) whose question nobody answers,
/// stdin kept open: how it ended and whether it exited within `limit`.
fn unanswered_on_a_terminal(
    a: &toolhost_tests::attack::Attack,
    global: &str,
    tool: &str,
    arguments: &serde_json::Value,
    limit: std::time::Duration,
) -> (String, bool) {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    let inner = format!(
        "{} --workspace {} --data-dir {} {global} call {tool} '{}'",
        toolhost_bin().display(),
        a.ws.display(),
        a.data.display(),
        arguments.to_string().replace('\'', r"'\''")
    );
    let mut child = std::process::Command::new("script")
        .args(["-qec", &inner, "/dev/null"])
        .env("HOME", &a.home)
        .process_group(0)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("script starts");
    // Held open and never written: nobody answers, and no end of input says no.
    let _stdin = child.stdin.take();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let until = std::time::Instant::now() + limit;
    let exited = loop {
        if child.try_wait().ok().flatten().is_some() {
            break true;
        }
        if std::time::Instant::now() > until {
            // SAFETY: killing the process group this test started (`process_group(0)`).
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    (reader.join().unwrap_or_default().replace("\r\n", "\n"), exited)
}

/// Attack: on a terminal, an escalation (or a run) nobody answered ended its call at the
/// longest wait for an answer (`timeout`, nothing ran) — and then `toolhost call` never
/// exited: the read of the answer went on after its wait had ended, holding the process
/// until someone typed a line. The question's read now stops with its wait, by the one rule
/// for every channel: the call ends as `timeout`, nothing runs, and the command exits.
#[test]
fn an_unanswered_question_on_the_terminal_ends_with_its_call_and_the_command_exits() {
    use std::time::Duration;
    use toolhost_tests::attack::{Attack, promise};
    let a = Attack::new();
    if !a.sandbox_or_skip("an_unanswered_question_on_the_terminal_ends_with_its_call") {
        return;
    }
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` for a pseudo-terminal");
        return;
    }
    let outside = a.outside_dir("granted");
    let marker = outside.join("ran.txt");
    let escalation = json!({
        "command": format!("echo ran >> {}", marker.display()),
        "sandboxPermissions": {"paths": [{"path": outside, "access": "write", "scope": "subtree"}]},
        "justification": "the test writes one file outside the workspace",
    });
    let run = json!({"command": "touch", "args": ["ran.txt"], "purpose": "mark it"});
    // The call has no deadline of its own: it waits the longest an answer is waited for.
    let limit = Duration::from_millis(toolhost_limits::APPROVAL_MAX_WAIT_MS + 60_000);
    let (asked, ran) = std::thread::scope(|scope| {
        let asked = scope.spawn(|| unanswered_on_a_terminal(&a, "", "bash", &escalation, limit));
        let ran = scope.spawn(|| {
            let tools = "--tools workspace_shell";
            unanswered_on_a_terminal(&a, tools, "workspace_shell", &run, limit)
        });
        (asked.join().unwrap(), ran.join().unwrap())
    });
    for ((shown, exited), what, file) in
        [(asked, "an escalation", &marker), (ran, "a run", &a.ws.join("ran.txt"))]
    {
        assert!(shown.contains("[y/N]"), "{what}: not asked on the terminal: {shown:?}");
        promise(shown.contains("reached its deadline while it waited for approval"), || {
            format!("{what}: the unanswered call did not end at its deadline: {shown:?}")
        });
        promise(exited, || {
            format!(
                "{what}: `toolhost call` was still running {} s after its question was asked, \
                 long after its call ended: {shown:?}",
                limit.as_secs()
            )
        });
        assert!(!file.exists(), "{what}: {} exists, so it ran", file.display());
    }
}
