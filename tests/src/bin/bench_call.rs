//! `cargo xtask bench call`: the cost of one component call.
//!
//! In-process: `list` on a 10-entry directory, instantiate + call + drop store, ≥10,000
//! calls, median and p99. Whole process with a warm component cache: `toolhost call list`
//! against `ls -la` on the same directory, as a ratio measured in the same run.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use toolhost_tests::*;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn time_command(cmd: &mut Command, runs: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let status = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status().expect("spawn");
        times.push(t.elapsed());
        assert!(status.success(), "{cmd:?} failed");
    }
    times.sort();
    times
}

fn main() {
    let calls: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let fx = Fixture::new();
    for i in 0..10 {
        fx.write(&format!("entry-{i}.txt"), "x");
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let mut times = rt.block_on(async {
        let ts = toolset(&fx, &["list"]).await;
        for _ in 0..200 {
            call(&ts, &fx, "list", json!({})).await;
        }
        let mut times = Vec::with_capacity(calls);
        let policy = fx.policy();
        for i in 0..calls {
            let ctx = toolhost::ToolCallContext::new(format!("c{i}"), policy.clone());
            let input = json!({});
            let t = Instant::now();
            let r = ts.call("list", input, ctx).await;
            times.push(t.elapsed());
            assert!(r.succeeded());
        }
        times
    });
    times.sort();
    println!(
        "in-process list call ({calls} calls, 10 entries): median {:.1} µs, p99 {:.1} µs (target: median < 50 µs)",
        micros(percentile(&times, 0.5)),
        micros(percentile(&times, 0.99))
    );

    let runs = 100;
    let mut toolhost = Command::new(toolhost_bin());
    toolhost.arg("--workspace").arg(fx.root()).arg("--data-dir").arg(fx.data.path()).args([
        "call",
        "list",
        r#"{"path":"."}"#,
    ]);
    time_command(&mut toolhost, 3); // warm the component cache
    let th = time_command(&mut toolhost, runs);
    let mut ls = Command::new("ls");
    ls.arg("-la").arg(fx.root());
    let ls_t = time_command(&mut ls, runs);
    let (a, b) = (percentile(&th, 0.5), percentile(&ls_t, 0.5));
    println!(
        "whole process, warm cache ({runs} runs): toolhost call list median {:.2} ms, ls -la median {:.2} ms, ratio {:.1}x (target: < 10x)",
        a.as_secs_f64() * 1e3,
        b.as_secs_f64() * 1e3,
        a.as_secs_f64() / b.as_secs_f64()
    );
}
