//! `cargo xtask bench session`: 1,000 `list` calls through one `toolhost session`, one
//! request at a time (write a line, read its result): calls per second and p50/p99 latency.
//! Target: ≥ 2,000 calls/s.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use toolhost_tests::*;

fn main() {
    let calls = 1000;
    let fx = Fixture::new();
    for i in 0..10 {
        fx.write(&format!("f{i}"), "");
    }
    let mut child = Command::new(toolhost_bin())
        .arg("--workspace")
        .arg(fx.root())
        .arg("--data-dir")
        .arg(fx.data.path())
        .arg("session")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("toolhost session");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut roundtrip = |i: usize| {
        writeln!(stdin, r#"{{"id":"c{i}","tool":"list","arguments":{{}}}}"#).unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        loop {
            line.clear();
            stdout.read_line(&mut line).unwrap();
            if line.contains("\"result\"") {
                break;
            }
        }
    };
    for i in 0..20 {
        roundtrip(i);
    }
    let mut times = Vec::with_capacity(calls);
    let start = Instant::now();
    for i in 0..calls {
        let t = Instant::now();
        roundtrip(100 + i);
        times.push(t.elapsed());
    }
    let total = start.elapsed();
    drop(stdin);
    let _ = child.wait();
    times.sort();
    println!(
        "toolhost session, {calls} list calls one at a time: {:.0} calls/s (target ≥ 2000), p50 {:.3} ms, p99 {:.3} ms",
        calls as f64 / total.as_secs_f64(),
        ms(times[calls / 2]),
        ms(times[calls * 99 / 100])
    );
}
