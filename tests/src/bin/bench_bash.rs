//! `cargo xtask bench bash`: whole `toolhost call bash '{"command":"true"}'` against
//! `bash -c true` and against bare `bwrap … bash -c true` (target: ≤ 10 ms added over bare
//! bwrap), and `yes | head -c 2G` through the tool: host peak RSS vs an idle call (target:
//! < 32 MB more) and the spill file size (stops at 64 MiB).

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
    bwrap.args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--unshare-pid", "bash", "-c", "true"]);
    let bwrap_cost = median_cost(&mut bwrap, runs);
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
