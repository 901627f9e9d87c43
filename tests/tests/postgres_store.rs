//! The session store on PostgreSQL (docs/sessions.md#a-fleet-on-postgresql), through the
//! built binary against a real server the tests start (`toolhost_tests::postgres`): a tool
//! turn written by one process read back exactly by another, two undos racing, a change of
//! another workspace copy refused, and the faults (an unreachable store, a lost connection,
//! a bad URL), with the password never shown.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};
use toolhost_tests::jsonl::{SessionProc, change_of};
use toolhost_tests::postgres::{Postgres, USER};
use toolhost_tests::*;

/// `toolhost` over `fx`'s workspace with `data` as its data dir and `store` as its store.
fn toolhost_on(fx: &Fixture, data: &Path, store: &str) -> Command {
    let mut cmd = Command::new(toolhost_bin());
    cmd.arg("--workspace").arg(fx.root()).arg("--data-dir").arg(data).env("TOOLHOST_STORE", store);
    cmd
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// A session on `store` that reads and edits `a.txt`; the edit's result.
fn one_edit(fx: &Fixture, data: &Path, store: &str, instance: &str) -> Value {
    let mut cmd = toolhost_on(fx, data, store);
    cmd.env("TOOLHOST_INSTANCE", instance);
    let mut s = SessionProc::from_command(cmd, &[]);
    let r = s.call("c1", "read", json!({"path": "a.txt"}));
    assert_eq!(r["status"], "succeeded", "{r}");
    let r =
        s.call("c2", "edit", json!({"filePath": "a.txt", "oldString": "5", "newString": "five"}));
    assert_eq!(r["status"], "succeeded", "{r}");
    let (status, _, stderr) = s.finish();
    assert!(status.success(), "{stderr}");
    r
}

#[test]
fn a_tool_turn_written_by_one_process_is_read_back_exactly_by_another_with_its_own_data_dir() {
    let pg = Postgres::start();
    let store = pg.create_db();
    let fx = Fixture::new();
    let f = fx.write("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    let r = one_edit(&fx, fx.data.path(), &store, "pod");
    let artifact = change_of(&r).clone();
    // Another instance: its own data dir, the same PostgreSQL.
    let other = tempfile::tempdir().unwrap();
    let out = toolhost_on(&fx, other.path(), &store)
        .env("TOOLHOST_INSTANCE", "pod")
        .args(["changes", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed, json!([artifact]), "the record is the artifact, byte for byte");
    assert!(!other.path().join("toolhost.db").exists(), "nothing was kept in SQLite");
    // It undoes and reapplies what the first recorded.
    let id = artifact["changeId"].as_str().unwrap();
    let undo = |verb: &str| {
        toolhost_on(&fx, other.path(), &store)
            .env("TOOLHOST_INSTANCE", "pod")
            .args([verb, id])
            .output()
            .unwrap()
    };
    let out = undo("undo");
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    let out = undo("reapply");
    assert!(out.status.success(), "{}", text(&out));
    assert!(std::fs::read_to_string(&f).unwrap().contains("five"));
    // policy.json's "store" names it as well as the variable does.
    let third = tempfile::tempdir().unwrap();
    std::fs::write(third.path().join("policy.json"), json!({ "store": store }).to_string())
        .unwrap();
    let out = Command::new(toolhost_bin())
        .arg("--workspace")
        .arg(fx.root())
        .arg("--data-dir")
        .arg(third.path())
        .args(["changes", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap()[0]["changeId"], id);
}

#[test]
fn two_undos_of_one_change_race_and_exactly_one_applies() {
    let pg = Postgres::start();
    let store = pg.create_db();
    let fx = Fixture::new();
    let f = fx.write("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    let r = one_edit(&fx, fx.data.path(), &store, "pod");
    let id = change_of(&r)["changeId"].as_str().unwrap().to_string();
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for round in 0..6 {
        let verb = if round % 2 == 0 { "undo" } else { "reapply" };
        let start = |data: &Path| {
            toolhost_on(&fx, data, &store)
                .env("TOOLHOST_INSTANCE", "pod")
                .args([verb, id.as_str()])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (start(d1.path()), start(d2.path()));
        let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
        let won: Vec<&Output> = outs.iter().filter(|o| o.status.success()).collect();
        assert_eq!(won.len(), 1, "round {round} ({verb}): exactly one applies: {outs:?}");
        let lost = outs.iter().find(|o| !o.status.success()).unwrap();
        let why = String::from_utf8_lossy(&lost.stderr);
        let state = if verb == "undo" { "already undone" } else { "already applied" };
        assert!(
            why.contains(state) || why.contains("by another toolhost right now"),
            "round {round}: the other is told why: {why}"
        );
        let want = if verb == "undo" { "5" } else { "five" };
        assert_eq!(std::fs::read_to_string(&f).unwrap().lines().nth(4), Some(want));
    }
}

#[test]
fn a_change_of_another_instances_copy_of_the_same_path_is_not_undone() {
    let pg = Postgres::start();
    let store = pg.create_db();
    let fx = Fixture::new();
    let f = fx.write("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    let r = one_edit(&fx, fx.data.path(), &store, "pod-a");
    let id = change_of(&r)["changeId"].as_str().unwrap().to_string();
    let other = tempfile::tempdir().unwrap();
    for verb in ["undo", "reapply"] {
        let out = toolhost_on(&fx, other.path(), &store)
            .env("TOOLHOST_INSTANCE", "pod-b")
            .args([verb, id.as_str()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let why = text(&out);
        assert!(why.contains("pod-a:") && why.contains("does not serve"), "{why}");
        assert!(std::fs::read_to_string(&f).unwrap().contains("five"), "nothing was written");
    }
    // A session of pod-b refuses it too.
    let mut cmd = toolhost_on(&fx, other.path(), &store);
    cmd.env("TOOLHOST_INSTANCE", "pod-b");
    let mut s = SessionProc::from_command(cmd, &[]);
    let ev = s.request(json!({"id": "u", "undo": id}));
    assert!(ev["error"].as_str().unwrap().contains("does not serve"), "{ev}");
    drop(s);
    // The instance that made it undoes it.
    let out = toolhost_on(&fx, other.path(), &store)
        .env("TOOLHOST_INSTANCE", "pod-a")
        .args(["undo", id.as_str()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn an_unreachable_store_or_a_bad_url_is_one_line_and_exit_2_and_never_shows_the_password() {
    let fx = Fixture::new();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let unreachable = format!("postgres://{USER}:hunter2secret@127.0.0.1:{closed}/db");
    let commands: [&[&str]; 4] =
        [&["changes"], &["session"], &["call", "list", "{}"], &["undo", "x"]];
    for command in commands {
        let out = toolhost_command(&fx)
            .env_remove("TOOLHOST_STORE")
            .arg("--store")
            .arg(&unreachable)
            .args(command)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {}", text(&out));
        assert_eq!(stderr.trim_end().lines().count(), 1, "{command:?}: one line: {stderr}");
        assert!(
            stderr.contains(&format!("postgres://{USER}:***@127.0.0.1:{closed}/db"))
                && stderr.contains("unreachable"),
            "{command:?}: names the store: {stderr}"
        );
        assert!(!text(&out).contains("hunter2secret"), "{command:?}: the password: {stderr}");
    }
    for bad in [
        "postgres://u:hunter2secret@127.0.0.1:notaport/db",
        "postgres://127.0.0.1/db",
        "mysql://u:hunter2secret@h/db",
    ] {
        let out = toolhost_command(&fx).env("TOOLHOST_STORE", bad).arg("changes").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", text(&out));
        assert_eq!(stderr.trim_end().lines().count(), 1, "{bad}: one line: {stderr}");
        assert!(!text(&out).contains("hunter2secret"), "{bad}: the password: {stderr}");
    }
}

#[test]
fn a_lost_connection_fails_the_call_with_the_store_named_and_the_session_goes_on_when_it_returns() {
    let pg = Postgres::start();
    let store = pg.create_db();
    let fx = Fixture::new();
    let f = fx.write("a.txt", "one\ntwo\n");
    let mut s = SessionProc::from_command(toolhost_on(&fx, fx.data.path(), &store), &[]);
    assert_eq!(s.call("c1", "read", json!({"path": "a.txt"}))["status"], "succeeded");
    pg.stop();
    let r =
        s.call("c2", "edit", json!({"filePath": "a.txt", "oldString": "one", "newString": "ONE"}));
    assert_eq!(r["status"], "failed", "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("127.0.0.1:{}", pg.port())) && message.contains("not run"),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "one\ntwo\n", "no write the store misses");
    pg.start_server();
    let r =
        s.call("c3", "edit", json!({"filePath": "a.txt", "oldString": "one", "newString": "ONE"}));
    assert_eq!(r["status"], "succeeded", "{r}");
    let id = change_of(&r)["changeId"].as_str().unwrap().to_string();
    let ev = s.request(json!({"id": "u", "undo": id}));
    assert_eq!(ev, json!({"id": "u", "ok": true}));
    let (status, _, stderr) = s.finish();
    assert!(status.success(), "{stderr}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "one\ntwo\n");
    let out =
        toolhost_on(&fx, fx.data.path(), &store).args(["changes", "--json"]).output().unwrap();
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed[0]["undone"], true);
}

/// `stall` (a test tool that writes a file and can keep running, tools/testing/stall) installed for `fx`.
fn add_stall(fx: &Fixture, store: &str) {
    let stall = test_components_dir().join("stall.wasm");
    let out = toolhost_on(fx, fx.data.path(), store)
        .args(["tool", "add", stall.to_str().unwrap(), "--yes"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

/// The store goes away while a tool runs, before it writes: the change cannot be recorded
/// first, so it is not written, and the call says so. Once the store is back the session
/// goes on, and nothing is listed that was not written.
#[test]
fn a_write_the_store_cannot_record_first_is_not_made_and_the_session_goes_on() {
    let pg = Postgres::start();
    let store = pg.create_db();
    let fx = Fixture::new();
    let f = fx.write("a.txt", "one\n");
    add_stall(&fx, &store);
    let mut s = SessionProc::from_command(toolhost_on(&fx, fx.data.path(), &store), &[]);
    assert_eq!(s.call("c1", "read", json!({"path": "a.txt"}))["status"], "succeeded");
    s.send(&json!({"id": "c2", "tool": "stall",
        "arguments": {"path": "a.txt", "text": "two\n", "wait_for": "go"}}));
    let progress = s.next_event();
    assert!(progress.get("progress").is_some(), "stall is running: {progress}");
    pg.stop();
    fx.write("go", "");
    let ev = s.next_event();
    let r = &ev["result"];
    assert_eq!(r["status"], "failed", "{ev}");
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("cannot record the change first"), "{message}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "one\n", "no write the store misses");
    pg.start_server();
    let r =
        s.call("c3", "edit", json!({"filePath": "a.txt", "oldString": "one", "newString": "ONE"}));
    assert_eq!(r["status"], "succeeded", "{r}");
    let (status, _, stderr) = s.finish();
    assert!(status.success(), "{stderr}");
    let out =
        toolhost_on(&fx, fx.data.path(), &store).args(["changes", "--json"]).output().unwrap();
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "only the edit: {listed}");
}

/// `BOOT/PIDNS/PID/START` of a process that has exited (as toolhost names a claim's holder).
fn dead_owner() -> String {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    let ns = std::fs::read_link("/proc/self/ns/pid").unwrap();
    let ns = ns.to_string_lossy().trim_start_matches("pid:[").trim_end_matches(']').to_string();
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    format!("{}/{ns}/{pid}/1", boot.trim())
}

/// A toolhost that died holding an undo's claim does not hold the change for ever: the next
/// undo takes the claim over. When the dead undo had already rewritten the file, that is
/// found by its hash and the change settles as undone; when it had not, the undo runs.
#[test]
fn a_claim_left_by_a_dead_toolhost_is_taken_over() {
    let pg = Postgres::start();
    let store = pg.create_db();
    for rewritten in [false, true] {
        let fx = Fixture::new();
        let f = fx.write("a.txt", "1\n2\n3\n4\n5\n");
        let r = one_edit(&fx, fx.data.path(), &store, "here");
        let id = change_of(&r)["changeId"].as_str().unwrap().to_string();
        let now_ms =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis();
        pg.psql(
            &store,
            &format!(
                "UPDATE changes SET pending = 'undo', pending_at = {now_ms}, claimed_by = '{}' WHERE change_id = '{id}'",
                dead_owner()
            ),
        );
        if rewritten {
            std::fs::write(&f, "1\n2\n3\n4\n5\n").unwrap();
        }
        let mut undo = toolhost_on(&fx, fx.data.path(), &store);
        let out = undo.env("TOOLHOST_INSTANCE", "here").args(["undo", &id]).output().unwrap();
        assert!(out.status.success(), "rewritten: {rewritten}: {}", text(&out));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "1\n2\n3\n4\n5\n");
        let out =
            toolhost_on(&fx, fx.data.path(), &store).args(["changes", "--json"]).output().unwrap();
        let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(listed[0]["undone"], true, "{listed}");
    }
}

/// A claim held by a live toolhost stays held: the undo is refused with the reason.
#[test]
fn a_claim_held_by_a_live_toolhost_is_not_taken_over() {
    let pg = Postgres::start();
    let store = pg.create_db();
    let fx = Fixture::new();
    let f = fx.write("a.txt", "1\n2\n3\n4\n5\n");
    let r = one_edit(&fx, fx.data.path(), &store, "here");
    let id = change_of(&r)["changeId"].as_str().unwrap().to_string();
    let mut holder = Command::new("sleep").arg("60").spawn().unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", holder.id())).unwrap();
    let start =
        stat[stat.rfind(')').unwrap() + 1..].split_whitespace().nth(19).unwrap().to_string();
    let owner = dead_owner();
    let (prefix, _) = owner.rsplit_once('/').unwrap();
    let (prefix, _) = prefix.rsplit_once('/').unwrap();
    let live = format!("{prefix}/{}/{start}", holder.id());
    pg.psql(
        &store,
        &format!(
            "UPDATE changes SET pending = 'undo', pending_at = 0, claimed_by = '{live}' WHERE change_id = '{id}'"
        ),
    );
    let out = toolhost_on(&fx, fx.data.path(), &store)
        .env("TOOLHOST_INSTANCE", "here")
        .args(["undo", &id])
        .output()
        .unwrap();
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("being undone by another toolhost"), "{}", text(&out));
    assert_ne!(std::fs::read_to_string(&f).unwrap(), "1\n2\n3\n4\n5\n");
}
