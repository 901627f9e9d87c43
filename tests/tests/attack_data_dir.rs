//! Attacks on toolhost's data dir through the built binary: the session store
//! holds every call's arguments and output (so anything ever shown, e.g. a secret read under
//! a one-call grant, stays readable there), `policy.json` widens every later sandbox and
//! `cache/` holds native code. None of it may be read or written by a tool or bash, and a
//! data dir inside the workspace must not be swappable by renaming it or its parent.

use std::path::Path;

use serde_json::json;
use toolhost_tests::attack::*;

/// Makes the store hold `marker` on a line of its own: a read of a workspace file whose
/// second line is the marker (the result text is recorded), then the file is removed so
/// only the store still has it.
fn record_marker(a: &Attack) -> String {
    let m = marker("STORE");
    a.put("notes.txt", format!("intro\n{m}\nend\n"));
    let out = a.call("read", json!({ "path": "notes.txt" }));
    assert!(out.text().contains(&m), "the legitimate read shows the file: {}", out.all());
    let out = a.call("write", json!({ "path": "copy.txt", "content": format!("{m}\n") }));
    assert_eq!(out.status(), "succeeded", "{}", out.all());
    std::fs::remove_file(a.ws.join("notes.txt")).unwrap();
    std::fs::remove_file(a.ws.join("copy.txt")).unwrap();
    m
}

/// How many lines the store file `name` has now.
fn line_count(data: &Path, name: &str) -> u64 {
    std::fs::read(data.join(name))
        .map(|b| b.iter().filter(|c| **c == b'\n').count() as u64 + 1)
        .unwrap_or(0)
}

#[test]
fn bash_cannot_read_the_session_store() {
    let a = Attack::new();
    if !a.sandbox_or_skip("bash_cannot_read_the_session_store") {
        return;
    }
    let m = record_marker(&a);
    let db = a.data.join("toolhost.db");
    let out =
        a.bash(&format!("cat '{}'* | grep -ao 'MARKER-STORE-[0-9a-f]*' | sort -u", db.display()));
    out.assert_hidden(&m, "bash cat toolhost.db");
    let out = a.bash(&format!(
        "command -v sqlite3 >/dev/null && sqlite3 'file:{}?mode=ro' .dump | grep -ao 'MARKER-STORE-[0-9a-f]*' | sort -u",
        db.display()
    ));
    out.assert_hidden(&m, "bash sqlite3 toolhost.db");
    let out = a.bash(&format!(
        "cp -r '{}' ./stolen 2>&1; grep -rao 'MARKER-STORE-[0-9a-f]*' ./stolen | sort -u",
        a.data.display()
    ));
    out.assert_hidden(&m, "bash cp -r of the data dir");
}

#[test]
fn the_read_tool_cannot_read_the_session_store() {
    let a = Attack::new();
    let m = record_marker(&a);
    // The agent pages through the store one line at a time: lines without a NUL byte (a
    // recorded result's text) are shown as text.
    let mut s = a.session(&[]);
    for name in ["toolhost.db", "toolhost.db-wal"] {
        let path = a.data.join(name).display().to_string();
        for line in 1..=line_count(&a.data, name) + 16 {
            let r = s.call(
                &format!("{name}-{line}"),
                "read",
                json!({ "path": path, "offset": line, "limit": 1 }),
            );
            hidden(&r.to_string(), &m, &format!("read {name} offset {line}"));
        }
    }
    let r = s.call(
        "g",
        "grep",
        json!({ "pattern": "MARKER-STORE-", "path": a.data.display().to_string() }),
    );
    hidden(&r.to_string(), &m, "grep over the data dir");
}

#[test]
fn policy_json_is_not_readable_by_bash_or_the_file_tools() {
    let a = Attack::new();
    let m = marker("POLICY");
    std::fs::write(a.data.join("policy.json"), json!({ "extra_sensitive": [m] }).to_string())
        .unwrap();
    let path = a.data.join("policy.json").display().to_string();
    a.call("read", json!({ "path": path })).assert_hidden(&m, "read policy.json");
    a.call("grep", json!({ "pattern": "MARKER-", "path": path }))
        .assert_hidden(&m, "grep policy.json");
    if a.sandbox_or_skip("policy_json_is_not_readable_by_bash") {
        a.bash(&format!("cat '{path}'")).assert_hidden(&m, "bash cat policy.json");
    }
}

/// bash (and the write tool) must not change the data dir at `data` (made by the caller).
fn data_dir_is_not_writable(a: &Attack, initial_policy: &str) {
    let policy = a.data.join("policy.json");
    std::fs::write(&policy, initial_policy).unwrap();
    let outside = a.outside_dir("outside");
    let payload = json!({ "extra_writable_roots": [outside] }).to_string();
    let cache = a.data.join("cache");
    let out = a.bash(&format!(
        "echo '{payload}' > '{p}'; touch '{c}/planted' '{c}/components/planted.cwasm'; ls -la '{c}' '{c}/components'",
        p = policy.display(),
        c = cache.display()
    ));
    let now = std::fs::read_to_string(&policy).unwrap();
    promise(now == initial_policy, || format!("bash rewrote policy.json: {now}\n{}", out.all()));
    for planted in ["planted", "components/planted.cwasm"] {
        promise(!cache.join(planted).exists(), || {
            format!("bash created cache/{planted}: {}", out.all())
        });
    }
    let mut s = a.session(&[]);
    s.try_call("r", "read", json!({ "path": policy.display().to_string() }));
    s.try_call("w", "write", json!({ "path": policy.display().to_string(), "content": payload }));
    s.try_call(
        "c",
        "write",
        json!({ "path": cache.join("planted2").display().to_string(), "content": "x" }),
    );
    drop(s);
    let now = std::fs::read_to_string(&policy).unwrap();
    promise(now == initial_policy, || format!("the write tool rewrote policy.json: {now}"));
    promise(!cache.join("planted2").exists(), || "the write tool created a file in cache/".into());
}

#[test]
fn bash_cannot_write_policy_json_or_the_cache_of_a_data_dir_outside_the_roots() {
    let a = Attack::new();
    if !a.sandbox_or_skip(
        "bash_cannot_write_policy_json_or_the_cache_of_a_data_dir_outside_the_roots",
    ) {
        return;
    }
    data_dir_is_not_writable(&a, "{}");
}

#[test]
fn bash_cannot_write_policy_json_or_the_cache_of_a_data_dir_in_the_temp_dir() {
    // `TOOLHOST_HOME=/tmp/…` with `policy.json` naming that temp dir: the data dir lies in a
    // writable root of bash's sandbox. (The system temp dir itself is no longer one.)
    let mut a = Attack::new();
    let tmp = tempfile::Builder::new().prefix("toolhost-attack-data-").tempdir_in("/tmp").unwrap();
    if !a
        .sandbox_or_skip("bash_cannot_write_policy_json_or_the_cache_of_a_data_dir_in_the_temp_dir")
    {
        return;
    }
    let tmp = tmp.path().canonicalize().unwrap();
    a.move_data_dir(&tmp.join("data"));
    data_dir_is_not_writable(&a, &json!({ "temp_dir": tmp }).to_string());
}

/// With the data dir at `ws/<rel>`, bash's `attack` (run in the workspace) must not make a
/// planted `policy.json` take effect: a later bash call still cannot write outside.
fn swapped_data_dir_does_not_widen_the_sandbox(rel: &str) {
    let mut a = Attack::new();
    // Asked before the move: a toolhost that refuses such a data dir must not read as a skip.
    if !a.sandbox_or_skip(&format!("swapped data dir {rel}")) {
        return;
    }
    let to = a.ws.join(rel);
    a.move_data_dir(&to);
    let outside = a.outside_dir("outside");
    let payload = json!({ "extra_writable_roots": [outside] }).to_string();
    let parent = Path::new(rel).parent().filter(|p| !p.as_os_str().is_empty());
    let mut attack = format!("mv '{rel}' '{rel}.old' 2>&1; ");
    if let Some(p) = parent {
        attack.push_str(&format!("mv '{p}' '{p}.old' 2>&1; ", p = p.display()));
    }
    attack.push_str(&format!(
        "mkdir -p '{rel}' && echo '{payload}' > '{rel}/policy.json'; ls -la '{rel}'"
    ));
    let first = a.bash(&attack);
    let second = a.bash(&format!("echo pwned > '{}/pwned.txt'", outside.display()));
    promise(!outside.join("pwned.txt").exists(), || {
        format!(
            "a planted policy.json widened the sandbox:\nattack: {}\nsecond: {}",
            first.all(),
            second.all()
        )
    });
}

#[test]
fn a_data_dir_in_the_workspace_cannot_be_swapped_by_renaming_its_parent() {
    swapped_data_dir_does_not_widen_the_sandbox("state/toolhost-data");
}

#[test]
fn a_data_dir_at_the_workspace_top_cannot_be_swapped() {
    swapped_data_dir_does_not_widen_the_sandbox(".toolhost-data");
}

/// The journal of a change in progress holds the earlier contents of the files it changes:
/// no tool and no bash reads it, and none plants one for the next start to "put back".
#[test]
fn the_journal_of_a_change_is_neither_readable_nor_writable() {
    let a = Attack::new();
    let m = marker("JOURNAL");
    let dir = a.data.join("journal");
    std::fs::create_dir_all(&dir).unwrap();
    let journal = dir.join("0123456789abcdef.json");
    std::fs::write(&journal, format!("{{\"call_id\":\"{m}\",\"entries\":[]}}")).unwrap();
    // Held as a live commit holds it, so no start takes it for an interrupted one.
    let held = std::fs::File::open(&journal).unwrap();
    // SAFETY: an open descriptor.
    assert_eq!(unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&held), libc::LOCK_EX) }, 0);
    let path = journal.display().to_string();
    a.call("read", json!({ "path": path })).assert_hidden(&m, "read the journal");
    a.call("grep", json!({ "pattern": "JOURNAL", "path": dir.display().to_string() }))
        .assert_hidden(&m, "grep the journal dir");
    let planted = dir.join("planted.json").display().to_string();
    let w = a.call("write", json!({ "path": planted, "content": "{}" }));
    assert_eq!(w.status(), "failed", "{}", w.all());
    assert!(!dir.join("planted.json").exists());
    if a.sandbox_or_skip("the_journal_of_a_change_is_neither_readable_nor_writable") {
        a.bash(&format!("cat {path}; echo x > {}/planted2.json", dir.display()))
            .assert_hidden(&m, "bash cat the journal");
        assert!(!dir.join("planted2.json").exists(), "bash planted a journal");
    }
    assert!(journal.exists(), "the held journal was taken for an interrupted change");
}
