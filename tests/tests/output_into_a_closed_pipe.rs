//! Output into a reader that went away ends quietly, as `cat` and `rg` do:
//! `toolhost tools --json | head -1` must not panic with "failed printing to stdout".

use std::process::{Command, Stdio};

use toolhost_tests::toolhost_bin;

#[test]
fn tools_into_a_closed_pipe_ends_quietly() {
    let ws = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    for args in [&["tools", "--json"][..], &["tools"][..], &["wit"][..]] {
        let mut child = Command::new(toolhost_bin())
            .arg("--workspace")
            .arg(ws.path())
            .arg("--data-dir")
            .arg(data.path())
            .args(["--agent", "workspace"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before the first byte is read.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}
