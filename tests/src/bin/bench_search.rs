//! `cargo xtask bench search TREE`: whole-process `toolhost call grep` against `rg` for four
//! patterns, and `toolhost call glob '**/*.rs'` against `fd -e rs`, on the tree xtask
//! generated. Target: every ratio ≤ 1.5. Prints a table of medians and ratios.
//!
//! Each case runs toolhost and its peer alternately, 9 times each (`median_pair`), so a
//! busy phase of the machine hits both. Spill files of earlier runs are deleted before each
//! run (untimed): 64 MiB a run would otherwise be written back to disk during later runs.

use std::process::Command;

use serde_json::json;
use toolhost_tests::*;

fn main() {
    let tree = std::env::args().nth(1).expect("usage: bench_search TREE");
    let runs = 9;
    let fx = Fixture::new();
    let fd = ["fd", "fdfind"].into_iter().find(|b| Command::new(b).arg("--version").output().is_ok());
    let cases: [(&str, &str, Vec<&str>); 4] = [
        ("rare literal", "XYZZY_RARE", vec![]),
        ("common literal", "return", vec![]),
        ("regex with classes and alternation", r"fn [a-z_]+_[0-9]+\((self|ctx)", vec![]),
        ("case-insensitive word", r"(?i)\berror\b", vec!["-i", "-w"]),
    ];
    println!("{:<38} {:>12} {:>12} {:>7}", "case", "toolhost ms", "peer ms", "ratio");
    let mut warm = toolhost_command(&fx);
    warm.args(["call", "list", "{}"]);
    measure(&mut warm);
    for (name, pattern, rg_flags) in &cases {
        let mut th = toolhost_command(&fx);
        th.args(["call", "grep", &json!({"pattern": pattern, "path": tree}).to_string()]);
        let mut rg = Command::new("rg");
        let rg_pattern = if rg_flags.is_empty() { pattern.to_string() } else { "error".to_string() };
        rg.arg("-n").args(rg_flags).arg(&rg_pattern).arg(&tree);
        // rg exits 1 on no match; every pattern here matches.
        let (t, p) = median_pair(&mut th, &mut rg, runs, || clear_spills(&fx));
        println!("{:<38} {:>12.0} {:>12.0} {:>6.2}x", format!("grep: {name}"), ms(t.wall), ms(p.wall), t.wall.as_secs_f64() / p.wall.as_secs_f64());
    }
    let mut th = toolhost_command(&fx);
    th.args(["call", "glob", &json!({"pattern": "**/*.rs", "path": tree}).to_string()]);
    match fd {
        Some(fd) => {
            let mut peer = Command::new(fd);
            peer.args(["-e", "rs", ".", &tree]);
            let (t, p) = median_pair(&mut th, &mut peer, runs, || clear_spills(&fx));
            println!("{:<38} {:>12.0} {:>12.0} {:>6.2}x", "glob **/*.rs vs fd -e rs", ms(t.wall), ms(p.wall), t.wall.as_secs_f64() / p.wall.as_secs_f64());
        }
        None => {
            let t = median_cost(&mut th, runs);
            println!("{:<38} {:>12.0} {:>12} (fd not installed)", "glob **/*.rs", ms(t.wall), "-")
        }
    }
}

/// Delete the spill files earlier runs left in the fixture's data dir.
fn clear_spills(fx: &Fixture) {
    let _ = std::fs::remove_dir_all(fx.data.path().join("spill"));
}
