//! A write the record would miss is closed by a protocol (docs/sessions.md#what-is-not-atomic-the-crash-window):
//! a call's changes are recorded as pending before the host writes them, and what a toolhost
//! that died left pending is settled by the hashes of the files at the next start. Each test
//! kills a real `toolhost session` between a write and its call's record (the test tool
//! `stall` keeps running after its write) and then uses toolhost the way a user does.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, Session};
use toolhost_tests::test_components_dir;

/// An attack fixture with `stall` installed and `notes.txt` holding "old\n".
fn fixture() -> Attack {
    let a = Attack::new();
    let stall = test_components_dir().join("stall.wasm");
    let out = a.run(&[], &["tool", "add", stall.to_str().unwrap(), "--yes"]);
    assert_eq!(out.code, Some(0), "tool add stall: {}", out.all());
    a.put("notes.txt", "old\n");
    a
}

/// Starts a session, has `stall` write `text` to `notes.txt` and keep running, and kills
/// the session (SIGKILL, no chance to record anything) once the file holds `text`.
fn die_after_the_write(a: &Attack, text: &str) {
    let mut s: Session = a.session(&[]);
    let r = s.call("r", "read", json!({"path": "notes.txt"}));
    assert_eq!(r["status"], "succeeded", "{r}");
    s.send(&json!({"id": "w", "tool": "stall",
        "arguments": {"path": "notes.txt", "text": text, "then_hang": true}}));
    let file = a.ws.join("notes.txt");
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::fs::read_to_string(&file).unwrap_or_default() != text {
        assert!(Instant::now() < deadline, "stall never wrote; {}", s.proc.stderr());
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &s.proc.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    s.proc.ending(Duration::from_secs(10));
}

fn listed(a: &Attack) -> Vec<Value> {
    let out = a.run(&[], &["changes", "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    serde_json::from_str::<Value>(&out.stdout).unwrap().as_array().unwrap().clone()
}

/// The change a toolhost wrote just before it was killed is listed by the next `toolhost
/// changes` (found by the file's hash) and `toolhost undo` takes it back.
#[test]
fn a_change_written_by_a_toolhost_that_died_is_listed_at_the_next_start_and_undone() {
    let a = fixture();
    die_after_the_write(&a, "written, then killed\n");
    let changes = listed(&a);
    assert_eq!(
        changes.len(),
        1,
        "the write of the killed call is on disk and must be listed: {changes:?}"
    );
    let change = &changes[0];
    assert_eq!(change["path"], "notes.txt", "{change}");
    assert_eq!(change["kind"], "modified", "{change}");
    let id = change["changeId"].as_str().unwrap();
    let undo = a.run(&[], &["undo", id]);
    assert_eq!(undo.code, Some(0), "{}", undo.all());
    assert_eq!(std::fs::read_to_string(a.ws.join("notes.txt")).unwrap(), "old\n");
    // Found once: a later start records nothing again.
    assert_eq!(listed(&a).len(), 1);
}

/// When the file was changed by something else after the killed write, the change is listed
/// all the same, and its undo is refused rather than overwrite what is there now.
#[test]
fn a_left_change_overwritten_since_is_listed_and_its_undo_refused() {
    let a = fixture();
    die_after_the_write(&a, "written, then killed\n");
    a.put("notes.txt", "the user's own edit\n");
    let changes = listed(&a);
    assert_eq!(changes.len(), 1, "{changes:?}");
    let id = changes[0]["changeId"].as_str().unwrap();
    let undo = a.run(&[], &["undo", id]);
    assert_eq!(undo.code, Some(1), "{}", undo.all());
    assert!(undo.stderr.contains("changed by something else"), "{}", undo.stderr);
    assert_eq!(std::fs::read_to_string(a.ws.join("notes.txt")).unwrap(), "the user's own edit\n");
}
