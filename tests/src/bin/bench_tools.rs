//! `cargo xtask bench tools`: a third-party tool's cost. The grep component, built once more
//! under the id `grep3p` (xtask passes its path), is installed with `toolhost tool add`
//! (cold: a fresh data dir, so it is validated, compiled and described once) and then called
//! warm beside the built-in grep — the same component, the same tree and pattern, in the same
//! run, interleaved — whole process (`toolhost call`, which also verifies the pin) and inside
//! one session (the call alone). Targets: add ≤ 2 s; the installed tool's warm call within
//! 10 % of the built-in's. Then `toolhost conformance` of the built-in grep with the default
//! number of cases (target: ≤ 10 s), with the time per check group, and of `stuck`, whose
//! `execute` never returns (target: ≤ 30 s). Last, what an installed tool costs the calls of
//! other tools: `toolhost call read` with `bulky` (18 MB, the size of a componentize-py tool)
//! installed ÷ with nothing installed, time and peak memory (target: ≤ 1.10).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use toolhost_tests::{measure, toolhost_bin};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn toolhost(ws: &Path, data: &Path) -> Command {
    let mut cmd = Command::new(toolhost_bin());
    cmd.arg("--workspace").arg(ws).arg("--data-dir").arg(data);
    cmd
}

fn run(cmd: &mut Command) -> Duration {
    let t = Instant::now();
    let out = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).output().expect("spawn toolhost");
    let took = t.elapsed();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// Calls `tool` `n` times in one session, alternating with nothing else; each call's time.
fn session_calls(ws: &Path, data: &Path, tool: &str, pattern: &str, n: usize) -> Vec<Duration> {
    let mut child = toolhost(ws, data)
        .arg("session")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn session");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut times = Vec::with_capacity(n);
    for i in 0..n + 2 {
        let req = serde_json::json!({"id": i, "tool": tool, "arguments": {"pattern": pattern, "outputMode": "count"}});
        let t = Instant::now();
        writeln!(stdin, "{req}").unwrap();
        loop {
            let line = lines.next().expect("a session event").unwrap();
            if line.contains("\"result\"") {
                assert!(line.contains("\"succeeded\""), "{line}");
                break;
            }
        }
        if i >= 2 {
            times.push(t.elapsed()); // the first two warm the instance pool
        }
    }
    drop(stdin);
    let _ = child.wait();
    times
}

fn main() {
    let mut args = std::env::args().skip(1);
    let component = PathBuf::from(args.next().expect("usage: bench_tools GREP3P.wasm [TREE]"));
    let tree = args.next().map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().unwrap()
    });
    let size = std::fs::metadata(&component).map(|m| m.len()).unwrap_or(0);
    let base = tempfile::tempdir().unwrap();

    let mut adds = Vec::new();
    for i in 0..3 {
        let data = base.path().join(format!("cold-{i}"));
        adds.push(run(toolhost(&tree, &data).args(["tool", "add"]).arg(&component).arg("--yes")));
    }
    let add = median(adds);
    println!(
        "tool add of a {:.1} MB component, cold (validate, compile, describe; 3 fresh data dirs): median {:.0} ms (target: <= 2000 ms)",
        size as f64 / 1e6,
        ms(add)
    );

    let data = base.path().join("cold-0");
    let pattern = "fn [a-z_]+\\(";
    let input = |tool: &str| {
        vec![
            "call".to_string(),
            tool.to_string(),
            serde_json::json!({"pattern": pattern, "outputMode": "count"}).to_string(),
        ]
    };
    for tool in ["grep", "grep3p"] {
        run(toolhost(&tree, &data).args(input(tool)));
    }
    let (mut builtin, mut installed) = (Vec::new(), Vec::new());
    for _ in 0..15 {
        builtin.push(run(toolhost(&tree, &data).args(input("grep"))));
        installed.push(run(toolhost(&tree, &data).args(input("grep3p"))));
    }
    let (b, t) = (median(builtin), median(installed));
    println!(
        "whole process `toolhost call` over {} (15 each, interleaved): built-in grep {:.1} ms, installed grep3p {:.1} ms, ratio {:.3} (target: <= 1.10)",
        tree.display(),
        ms(b),
        ms(t),
        t.as_secs_f64() / b.as_secs_f64()
    );
    let (mut builtin, mut installed) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        builtin.extend(session_calls(&tree, &data, "grep", pattern, 10));
        installed.extend(session_calls(&tree, &data, "grep3p", pattern, 10));
    }
    let (b, t) = (median(builtin), median(installed));
    println!(
        "in one session (30 calls each, sessions interleaved): built-in grep {:.1} ms, installed grep3p {:.1} ms, ratio {:.3} (target: <= 1.10)",
        ms(b),
        ms(t),
        t.as_secs_f64() / b.as_secs_f64()
    );

    // `toolhost conformance` of the built-in grep with the default number of cases, on a
    // cold cache (a fresh data dir: the compile is part of it) and a warm one.
    let grep = toolhost_tests::components_dir().join("grep.wasm");
    for (label, data) in
        [("cold", base.path().join("conformance")), ("warm", base.path().join("conformance"))]
    {
        let t = Instant::now();
        let out = toolhost(&tree, &data)
            .arg("conformance")
            .arg(&grep)
            .output()
            .expect("spawn toolhost conformance");
        let took = t.elapsed();
        let text = String::from_utf8_lossy(&out.stdout);
        let summary = text.lines().last().unwrap_or_default();
        println!(
            "conformance of the built-in grep, default cases, {label} cache: {:.2} s (target: <= 10 s); {summary}",
            took.as_secs_f64()
        );
    }

    installed_cost(base.path());

    // `toolhost conformance` of a component whose `execute` never returns (`stuck`): bounded
    // by the run's budget, whatever the component does.
    let stuck = toolhost_tests::test_components_dir().join("stuck.wasm");
    if stuck.is_file() {
        let data = base.path().join("conformance");
        let t = Instant::now();
        let out = toolhost(&tree, &data)
            .arg("conformance")
            .arg(&stuck)
            .output()
            .expect("spawn toolhost conformance");
        let took = t.elapsed();
        let text = String::from_utf8_lossy(&out.stdout);
        let summary = text.lines().last().unwrap_or_default();
        println!(
            "conformance of a component that never returns (stuck), default cases: {:.2} s (target: <= 30 s); {summary}",
            took.as_secs_f64()
        );
    } else {
        println!(
            "conformance of stuck: skipped, {} is not built (`cargo xtask build`)",
            stuck.display()
        );
    }
}

/// `toolhost call read` in a data dir with `bulky` (18 MB) installed ÷ in one with nothing
/// installed: medians of 21 runs each, interleaved, after one warm-up call each (the
/// installed set's first load hashes the file and keeps its stamp).
fn installed_cost(base: &Path) {
    let bulky = toolhost_tests::test_components_dir().join("bulky.wasm");
    if !bulky.is_file() {
        println!(
            "call read with an 18 MB tool installed: skipped, {} is not built",
            bulky.display()
        );
        return;
    }
    let (none, with) = (base.join("installed-none"), base.join("installed-bulky"));
    let ws = base.join("installed-ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("notes.txt"), "one line of notes\n".repeat(200)).unwrap();
    let tree = ws.as_path();
    run(toolhost(tree, &with).args(["tool", "add"]).arg(&bulky).arg("--yes"));
    // A stamp is kept only for a file unchanged for a while (INSTALLED_STAMP_QUIESCENT_MS).
    std::thread::sleep(Duration::from_millis(toolhost_limits::INSTALLED_STAMP_QUIESCENT_MS + 200));
    let read = ["call", "read", r#"{"path":"notes.txt"}"#];
    for data in [&none, &with] {
        run(toolhost(tree, data).args(read));
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..21 {
        a.push(measure(toolhost(tree, &none).args(read)));
        b.push(measure(toolhost(tree, &with).args(read)));
    }
    let wall = |v: &[toolhost_tests::ProcessCost]| median(v.iter().map(|c| c.wall).collect());
    let rss = |v: &[toolhost_tests::ProcessCost]| {
        let mut r: Vec<i64> = v.iter().map(|c| c.max_rss_kib).collect();
        r.sort();
        r[r.len() / 2]
    };
    let size = std::fs::metadata(&bulky).map(|m| m.len()).unwrap_or(0);
    println!(
        "`toolhost call read` (21 each, interleaved): nothing installed {:.1} ms / {:.1} MiB peak; a {:.1} MB tool installed {:.1} ms / {:.1} MiB peak; ratio {:.3} time, {:.3} memory (target: <= 1.10)",
        ms(wall(&a)),
        rss(&a) as f64 / 1024.0,
        size as f64 / 1e6,
        ms(wall(&b)),
        rss(&b) as f64 / 1024.0,
        wall(&b).as_secs_f64() / wall(&a).as_secs_f64(),
        rss(&b) as f64 / rss(&a) as f64,
    );
}
