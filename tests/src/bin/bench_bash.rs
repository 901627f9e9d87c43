//! `cargo xtask bench bash`: whole `toolhost call bash '{"command":"true"}'` against
//! `bash -c true` and against bare `bwrap … bash -c true` (target: ≤ 10 ms added over bare
//! bwrap), and `yes | head -c 2G` through the tool: host peak RSS vs an idle call (target:
//! < 32 MB more) and the spill file size (stops at 64 MiB).
//!
//! With `TOOLHOST_BENCH_BASELINE_DIR` (a directory holding an older build's `toolhost`,
//! `toolhost-sandbox-exec` and `components/`), the same call through that build is measured in
//! the same run, interleaved, and the difference is printed: what the isolation added since
//! (network namespace, socket masks, git pins and sweep, per-call cgroup, start marker;
//! target ≤ 3 ms). Bare bwrap is also measured with `--unshare-net`, the namespace bash now has.

use std::process::Command;

use toolhost_tests::*;

fn main() {
    let runs = 30;
    let fx = Fixture::new();
    let mut tool = toolhost_command(&fx);
    tool.args(["call", "bash", r#"{"command":"true"}"#]);
    measure(&mut tool);
    let tool_cost = median_cost(&mut tool, runs);
    let mut bare = Command::new("bash");
    bare.args(["-c", "true"]);
    let bare_cost = median_cost(&mut bare, runs);
    let mut bwrap = Command::new("bwrap");
    bwrap.args([
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "bash",
        "-c",
        "true",
    ]);
    let bwrap_cost = median_cost(&mut bwrap, runs);
    let mut bwrap_net = Command::new("bwrap");
    bwrap_net.args([
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "--unshare-net",
        "bash",
        "-c",
        "true",
    ]);
    let bwrap_net_cost = median_cost(&mut bwrap_net, runs);
    println!(
        "bare bwrap with --unshare-net {:.1} ms (+{:.1} ms for the network namespace)",
        ms(bwrap_net_cost.wall),
        ms(bwrap_net_cost.wall) - ms(bwrap_cost.wall)
    );
    if let Some(dir) = std::env::var_os("TOOLHOST_BENCH_BASELINE_DIR") {
        let baseline_data = tempfile::tempdir().unwrap();
        let mut old = Command::new(std::path::Path::new(&dir).join("toolhost"));
        old.arg("--workspace").arg(fx.root()).arg("--data-dir").arg(baseline_data.path());
        old.args(["call", "bash", r#"{"command":"true"}"#]);
        measure(&mut old);
        let (new_cost, old_cost) = median_pair(&mut tool, &mut old, runs, || {});
        println!(
            "isolation added over the baseline build: {:.1} ms (toolhost call {:.1} ms vs baseline {:.1} ms, interleaved; target ≤ 3 ms)",
            ms(new_cost.wall) - ms(old_cost.wall),
            ms(new_cost.wall),
            ms(old_cost.wall)
        );
    }
    println!(
        "bash true: toolhost call {:.1} ms, bash -c {:.1} ms, bare bwrap {:.1} ms; added over bare bwrap {:.1} ms (target ≤ 10 ms)",
        ms(tool_cost.wall),
        ms(bare_cost.wall),
        ms(bwrap_cost.wall),
        ms(tool_cost.wall) - ms(bwrap_cost.wall)
    );
    let mut yes = toolhost_command(&fx);
    yes.args(["call", "bash", r#"{"command":"yes | head -c 2G","timeoutMs":120000}"#]);
    let yes_cost = measure(&mut yes);
    let spill_dir = fx.data.path().join("spill");
    let biggest = walk_sizes(&spill_dir).into_iter().max().unwrap_or(0);
    println!(
        "yes | head -c 2G: {:.1} s, host peak RSS {} MB vs idle call {} MB (+{} MB; target < 32 MB); spill file {} bytes (cap 67108864)",
        yes_cost.wall.as_secs_f64(),
        yes_cost.max_rss_kib / 1024,
        tool_cost.max_rss_kib / 1024,
        (yes_cost.max_rss_kib - tool_cost.max_rss_kib) / 1024,
        biggest
    );
}

fn walk_sizes(dir: &std::path::Path) -> Vec<u64> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk_sizes(&p));
            } else if let Ok(m) = p.metadata() {
                out.push(m.len());
            }
        }
    }
    out
}
