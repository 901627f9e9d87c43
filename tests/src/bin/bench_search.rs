//! `cargo xtask bench search`: whole-process `toolhost call grep` against `rg` for the kinds
//! of pattern agents search with, and `toolhost call glob '**/*.rs'` against `fd -e rs`, on
//! each tree xtask names (`--tree NAME=PATH`: the generated one, and the crate sources of
//! the machine's cargo registry). Targets: every grep case ≤ 1.5× ripgrep, glob ≤ 1.0× fd.
//! Prints a table of medians and ratios per tree, with both on every core and with both
//! pinned to one (`taskset -c 0`), where the parallel parts give no advantage and the
//! WebAssembly tax shows alone.
//!
//! Each case runs toolhost and its peer alternately, 9 times each (`median_pair`), so a
//! busy phase of the machine hits both. Spill files of earlier runs are deleted before each
//! run (untimed): 64 MiB a run would otherwise be written back to disk during later runs.
//!
//! Options: `--runs N`; `--cases TEXT` (only cases whose name contains it); `--cores all`,
//! `--cores 1` (default both); `--against DIR`: instead of the peers, toolhost with the
//! components in DIR (an older build's `components/`) — an interleaved A/B of two builds.

use std::process::Command;

use serde_json::json;
use toolhost_tests::*;

/// One grep case: the pattern toolhost gets, and what ripgrep gets before the path.
struct Case {
    name: &'static str,
    pattern: &'static str,
    rg: Vec<&'static str>,
}

impl Case {
    fn new(name: &'static str, pattern: &'static str) -> Case {
        Case { name, pattern, rg: vec![pattern] }
    }
}

/// The cases for a tree: the rare literal is one that is rare in that tree; the rest are the
/// same everywhere.
fn cases(tree: &str) -> Vec<Case> {
    let rare = if tree == "generated" { "XYZZY_RARE" } else { "unreachable_unchecked" };
    vec![
        Case::new("rare literal", rare),
        Case::new("common literal", "return"),
        Case::new("regex with classes and alternation", r"fn [a-z_]+_[0-9]+\((self|ctx)"),
        Case {
            name: "case-insensitive word",
            pattern: r"(?i)\berror\b",
            rg: vec!["-i", "-w", "error"],
        },
        Case::new("alternation in \\b, \\s+, \\w+", r"\b(impl|struct)\s+[A-Z]\w+Error\b"),
        Case::new("alternation of literals in \\b", r"\bfn (new|default)\b"),
        Case::new("alternation then \\w+", r"\b(get|set)_\w+"),
        Case::new("TODO|FIXME|XXX", "(TODO|FIXME|XXX)"),
        Case::new("case-insensitive alternation", "(?i)(todo|fixme|xxx)"),
        Case::new("case-insensitive literal", "(?i)cancel"),
        Case::new("non-ASCII literal", "é"),
    ]
}

struct Options {
    trees: Vec<(String, String)>,
    runs: usize,
    only: Option<String>,
    cores: Vec<bool>,
    against: Option<String>,
}

fn options() -> Options {
    let mut o =
        Options { trees: Vec::new(), runs: 9, only: None, cores: vec![false, true], against: None };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--tree" => {
                let v = value();
                let (name, path) = v.split_once('=').expect("--tree NAME=PATH");
                o.trees.push((name.to_owned(), path.to_owned()));
            }
            "--runs" => o.runs = value().parse().expect("--runs N"),
            "--cases" => o.only = Some(value()),
            "--cores" => {
                o.cores = match value().as_str() {
                    "all" => vec![false],
                    "1" => vec![true],
                    other => panic!("--cores all|1, not {other}"),
                }
            }
            "--against" => o.against = Some(value()),
            other => panic!("unknown option {other}; see the doc of bench_search.rs"),
        }
    }
    assert!(!o.trees.is_empty(), "usage: bench_search --tree NAME=PATH… [options]");
    o
}

fn main() {
    let o = options();
    let fx = Fixture::new();
    let fd =
        ["fd", "fdfind"].into_iter().find(|b| Command::new(b).arg("--version").output().is_ok());
    let mut warm = toolhost_command(&fx);
    warm.args(["call", "list", "{}"]);
    measure(&mut warm);
    let peer_name = if o.against.is_some() { "A ms" } else { "peer ms" };
    for (tree_name, tree) in &o.trees {
        for &one_core in &o.cores {
            let cores = if one_core { "one core (taskset -c 0)" } else { "all cores" };
            println!("\n{tree_name} tree ({tree}), {cores}, medians of {} runs", o.runs);
            println!(
                "{:<40} {:>11} {:>9} {:>7} {:>8}",
                "case", "toolhost ms", peer_name, "ratio", "cpu ratio"
            );
            // A command, pinned to core 0 when asked.
            let command = |program: &str| {
                let mut cmd = Command::new(if one_core { "taskset" } else { program });
                if one_core {
                    cmd.args(["-c", "0", program]);
                }
                cmd
            };
            let toolhost = |components: Option<&str>, args: &[&str]| {
                let mut cmd = command(&toolhost_bin().display().to_string());
                cmd.arg("--workspace")
                    .arg(fx.root())
                    .arg("--data-dir")
                    .arg(fx.data.path())
                    .args(args);
                if let Some(dir) = components {
                    cmd.env("TOOLHOST_COMPONENTS", dir);
                }
                cmd
            };
            for case in cases(tree_name) {
                if o.only.as_ref().is_some_and(|only| !case.name.contains(only.as_str())) {
                    continue;
                }
                let input = json!({"pattern": case.pattern, "path": tree}).to_string();
                let mut th = toolhost(None, &["call", "grep", &input]);
                let mut peer = match &o.against {
                    Some(dir) => toolhost(Some(dir), &["call", "grep", &input]),
                    None => {
                        // The same files as toolhost: its walk reads `.gitignore` outside git
                        // repositories too.
                        let mut rg = command("rg");
                        rg.args(["--no-require-git", "-n"]).args(&case.rg).arg(tree);
                        rg
                    }
                };
                // rg exits 1 when nothing matches (every case here matches in both trees).
                let (t, p) = median_pair(&mut th, &mut peer, o.runs, || clear_spills(&fx));
                row(&format!("grep: {}", case.name), t, p);
            }
            if o.only.as_ref().is_some_and(|only| !"glob".contains(only.as_str())) {
                continue;
            }
            let input = json!({"pattern": "**/*.rs", "path": tree}).to_string();
            let mut th = toolhost(None, &["call", "glob", &input]);
            let peer = match (&o.against, fd) {
                (Some(dir), _) => Some(toolhost(Some(dir), &["call", "glob", &input])),
                (None, Some(fd)) => {
                    let mut peer = command(fd);
                    peer.args(["-e", "rs", ".", tree]);
                    Some(peer)
                }
                (None, None) => None,
            };
            match peer {
                Some(mut peer) => {
                    let (t, p) = median_pair(&mut th, &mut peer, o.runs, || clear_spills(&fx));
                    row("glob **/*.rs vs fd -e rs", t, p);
                }
                None => {
                    let t = median_cost(&mut th, o.runs);
                    println!(
                        "{:<40} {:>11.0} {:>9} (fd not installed)",
                        "glob **/*.rs",
                        ms(t.wall),
                        "-"
                    )
                }
            }
        }
    }
}

/// One line of the table: the medians, the wall-time ratio and the CPU-time ratio (user +
/// system, of the same median runs).
fn row(name: &str, t: ProcessCost, p: ProcessCost) {
    let ratio = t.wall.as_secs_f64() / p.wall.as_secs_f64();
    let cpu = t.cpu.as_secs_f64() / p.cpu.as_secs_f64().max(1e-6);
    println!("{name:<40} {:>11.0} {:>9.0} {ratio:>6.2}x {cpu:>7.2}x", ms(t.wall), ms(p.wall));
}

/// Delete the spill files earlier runs left in the fixture's data dir.
fn clear_spills(fx: &Fixture) {
    let _ = std::fs::remove_dir_all(fx.data.path().join("spill"));
}
