//! `cargo xtask bench patch`: one `apply_patch` call of about 2 MB over 200 files (10 hunks
//! each, 3 lines of context) through `toolhost session`, after the session read the 200
//! files, against GNU `patch` applying the same change as a unified diff (`diff -ruN`) to a
//! copy of the same tree in the same run. Both results are compared file by file. Target: the
//! call within a few seconds.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use toolhost_tests::*;

const FILES: usize = 200;
const HUNKS: usize = 10;
const LINES: usize = 200;

fn line(f: usize, l: usize) -> String {
    format!(
        "    let value_{f}_{l} = compute(\"{}\", {l}); // line {l} of file {f}\n",
        "x".repeat(60)
    )
}

fn main() {
    let base = tempfile::tempdir().unwrap();
    let (ws, data, peer_a, peer_b) = (
        base.path().join("ws"),
        base.path().join("data"),
        base.path().join("a"),
        base.path().join("b"),
    );
    let mut patch = String::from("*** Begin Patch\n");
    for f in 0..FILES {
        let before: Vec<String> = (0..LINES).map(|l| line(f, l)).collect();
        let mut after = before.clone();
        patch.push_str(&format!("*** Update File: src/f{f}.rs\n"));
        for h in 0..HUNKS {
            let at = 10 + h * (LINES / HUNKS);
            patch.push_str("@@\n");
            for context in &before[at - 3..at] {
                patch.push_str(&format!(" {context}"));
            }
            patch.push_str(&format!("-{}", before[at]));
            let new = before[at].replace("compute", "compute_faster");
            patch.push_str(&format!("+{new}"));
            after[at] = new;
            for context in &before[at + 1..at + 4] {
                patch.push_str(&format!(" {context}"));
            }
        }
        for (root, lines) in [(&ws, &before), (&peer_a, &before), (&peer_b, &after)] {
            let path = root.join(format!("src/f{f}.rs"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, lines.concat()).unwrap();
        }
    }
    patch.push_str("*** End Patch\n");
    std::fs::create_dir_all(&data).unwrap();

    let mut child = Command::new(toolhost_bin())
        .arg("--workspace")
        .arg(&ws)
        .arg("--data-dir")
        .arg(&data)
        .args(["--agent", "patch", "session"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("toolhost session");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut call = |id: &str, tool: &str, arguments: serde_json::Value| -> serde_json::Value {
        let request = serde_json::json!({"id": id, "tool": tool, "arguments": arguments});
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        loop {
            line.clear();
            stdout.read_line(&mut line).unwrap();
            let ev: serde_json::Value = serde_json::from_str(&line).unwrap();
            if let Some(result) = ev.get("result") {
                return result.clone();
            }
        }
    };
    for f in 0..FILES {
        let r = call(&format!("r{f}"), "read", serde_json::json!({"path": format!("src/f{f}.rs")}));
        assert_eq!(r["status"], "succeeded", "{r}");
    }
    let started = Instant::now();
    let r = call("patch", "apply_patch", serde_json::json!({"input": patch}));
    let ours = started.elapsed();
    assert_eq!(r["status"], "succeeded", "{r}");
    drop(stdin);
    let _ = child.wait();

    // The peer: the same change as a unified diff, applied by GNU patch to a copy.
    let diff = Command::new("diff").args(["-ruN", "a", "b"]).current_dir(base.path()).output();
    let Ok(diff) = diff else {
        println!(
            "apply_patch, {} KB over {FILES} files: {:.0} ms (no `diff` here: no peer)",
            patch.len() / 1024,
            ms(ours)
        );
        return;
    };
    let started = Instant::now();
    let mut peer = match Command::new("patch")
        .args(["-p1", "-s"])
        .current_dir(&peer_a)
        .stdin(Stdio::piped())
        .spawn()
    {
        Ok(p) => p,
        Err(_) => {
            println!(
                "apply_patch, {} KB over {FILES} files: {:.0} ms (no GNU `patch` here: no peer)",
                patch.len() / 1024,
                ms(ours)
            );
            return;
        }
    };
    peer.stdin.take().unwrap().write_all(&diff.stdout).unwrap();
    assert!(peer.wait().unwrap().success(), "GNU patch failed");
    let theirs = started.elapsed();
    for f in 0..FILES {
        let rel = format!("src/f{f}.rs");
        assert_eq!(
            read(&ws.join(&rel)),
            read(&peer_b.join(&rel)),
            "{rel} differs from the expected"
        );
        assert_eq!(
            read(&ws.join(&rel)),
            read(&peer_a.join(&rel)),
            "{rel} differs from GNU patch's"
        );
    }
    println!(
        "apply_patch, one call of {} KB over {FILES} files ({} hunks): {:.0} ms (target: a few seconds); GNU patch, the same change as a {} KB unified diff: {:.0} ms; ratio {:.1}x",
        patch.len() / 1024,
        FILES * HUNKS,
        ms(ours),
        diff.stdout.len() / 1024,
        ms(theirs),
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}
