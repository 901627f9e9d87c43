//! An installed tool costs nothing until it is called (docs/extending.md#what-a-session-pays-for-installed-tools):
//! a session whose installed component's file is unchanged since it was last hashed does not
//! read that file at all (its definition and compilation come from the cache) — measured as
//! the bytes the process read (`/proc/PID/io` `rchar`) beside a session with nothing
//! installed — and yet a component changed after that, even keeping its size, is still
//! refused. Through the built binary.

use std::time::Duration;

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, promise};
use toolhost_tests::test_components_dir;

/// Bytes `pid` has read so far (read() and friends, whatever the source).
fn rchar(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap();
    io.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no rchar in {io}"))
}

/// Bytes a fresh session in `a` reads up to the answer of one `read` call.
fn bytes_read_by_a_session(a: &Attack) -> u64 {
    let mut s = a.session(&[]);
    let r = s.call("1", "read", json!({"path": "README.md"}));
    assert_eq!(r["status"], "succeeded", "{r}");
    rchar(s.proc.pid())
}

fn install_misbehave(a: &Attack) -> std::path::PathBuf {
    let file = test_components_dir().join("misbehave.wasm");
    let out = a.run(&[], &["tool", "add", file.to_str().unwrap(), "--yes"]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    std::fs::read_dir(a.data.join("tools"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "wasm"))
        .unwrap()
}

#[test]
fn a_session_does_not_read_an_unchanged_installed_component() {
    let bare = Attack::new();
    bare.put("README.md", "hello\n");
    let without = bytes_read_by_a_session(&bare);

    let a = Attack::new();
    a.put("README.md", "hello\n");
    let file = install_misbehave(&a);
    let size = std::fs::metadata(&file).unwrap().len();
    // A stamp is kept only for a file unchanged for two seconds; the first session hashes it.
    std::thread::sleep(Duration::from_millis(2_200));
    let first = bytes_read_by_a_session(&a);
    assert!(first >= without + size, "the first session did not hash it ({first} vs {without})");
    let with = bytes_read_by_a_session(&a);
    promise(with < without + size / 4, || {
        format!(
            "a session read {with} bytes with a {size}-byte component installed, {without} without: it read the component"
        )
    });
    // And the tool still works when called.
    let mut s = a.session(&[]);
    let r = s.call("1", "misbehave", json!({"action": "echo"}));
    assert_eq!(r["status"], "succeeded", "{r}");
}

#[test]
fn a_component_changed_after_its_stamp_was_kept_is_still_refused() {
    let a = Attack::new();
    let file = install_misbehave(&a);
    std::thread::sleep(Duration::from_millis(2_200));
    let tools = a.run(&[], &["tools"]);
    assert!(tools.stdout.contains("misbehave"), "{}", tools.all());
    // Same size, one byte flipped, and the modification time set back as it was.
    let meta = std::fs::metadata(&file).unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(meta.modified().unwrap())
        .unwrap();
    let tools = a.run(&[], &["tools"]);
    promise(!tools.stdout.contains("misbehave"), || {
        format!("a changed component was loaded on the trust of its stamp: {}", tools.stdout)
    });
    assert!(tools.stderr.contains("SHA-256"), "{}", tools.stderr);
    let list = a.run(&[], &["tool", "list", "--json"]);
    let rows: Value = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(rows[0]["loaded"], false, "{rows}");
}
