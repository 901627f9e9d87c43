//! `cargo xtask bench store [sqlite|postgres]`: how much the session store grows per 1,000
//! one-line edits of a 100 KB file, made through one `toolhost session` (2,000 edits, each
//! of another line): the first 1,000 (which also store the file once, and fill SQLite's
//! write-ahead log) and the next 1,000, on SQLite (the data dir's `toolhost.db` and its
//! write-ahead log) and on PostgreSQL (`pg_database_size`, on a server the bench starts:
//! `toolhost_tests::postgres`). Target: at most 10 MB per 1,000 edits on each. With
//! `TOOLHOST_TEST_BIN_DIR` it measures another build (a `before`).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use toolhost_tests::postgres::Postgres;
use toolhost_tests::*;

const EDITS: usize = 1000;
const ROUNDS: usize = 2;

fn line(i: usize) -> String {
    format!("{i:06} one line of a 100 KB file, fifty bytes long\n")
}

/// 2 × 1,000 one-line edits through one session on `store` (None: SQLite): `size()` before,
/// and after each 1,000; the wall time of all.
fn edits(fx: &Fixture, store: Option<&str>, size: &dyn Fn() -> u64) -> (Vec<u64>, f64) {
    let mut cmd = Command::new(toolhost_bin());
    cmd.arg("--workspace").arg(fx.root()).arg("--data-dir").arg(fx.data.path());
    if let Some(url) = store {
        cmd.env("TOOLHOST_STORE", url);
    }
    let mut child = cmd
        .arg("session")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("toolhost session");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut request = |line: String| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        assert!(answer.contains("\"succeeded\""), "{answer}");
    };
    request(r#"{"id":"r","tool":"read","arguments":{"path":"big.txt","limit":1}}"#.into());
    let mut sizes = vec![size()];
    let start = Instant::now();
    for i in 0..EDITS * ROUNDS {
        let old = format!("{i:06} one");
        let new = format!("{i:06} ONE");
        let args = serde_json::json!({"filePath": "big.txt", "oldString": old, "newString": new});
        request(
            serde_json::json!({"id": format!("e{i}"), "tool": "edit", "arguments": args})
                .to_string(),
        );
        if (i + 1) % EDITS == 0 {
            sizes.push(size());
        }
    }
    let per_edit_ms = start.elapsed().as_secs_f64() * 1e3 / (EDITS * ROUNDS) as f64;
    drop(stdin);
    let _ = child.wait();
    (sizes, per_edit_ms)
}

fn report(engine: &str, what: &str, (sizes, per_edit_ms): (Vec<u64>, f64)) {
    for (round, pair) in sizes.windows(2).enumerate() {
        let grown = pair[1].saturating_sub(pair[0]);
        println!(
            "  {engine:<11} edits {:>4}–{:<4}: {:6.1} MB ({what}), {:5.1} KB per edit",
            round * EDITS + 1,
            (round + 1) * EDITS,
            mb(grown),
            grown as f64 / EDITS as f64 / 1e3,
        );
    }
    println!("  {engine:<11} {per_edit_ms:.1} ms per edit (request to result)");
}

fn sqlite_bytes(data: &Path) -> u64 {
    ["toolhost.db", "toolhost.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(data.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let file: String = (0..EDITS * ROUNDS).map(line).collect();
    println!(
        "{} one-line edits of a {} KB file, through one `toolhost session`:",
        EDITS * ROUNDS,
        file.len() / 1000
    );
    if which.is_empty() || which == "sqlite" {
        let fx = Fixture::new();
        fx.write("big.txt", &file);
        let data = fx.data.path().to_path_buf();
        let measured = edits(&fx, None, &|| sqlite_bytes(&data));
        report("SQLite", "toolhost.db + its WAL", measured);
    }
    if which.is_empty() || which == "postgres" {
        let pg = Postgres::start();
        let url = pg.create_db();
        let fx = Fixture::new();
        fx.write("big.txt", &file);
        let size = || {
            pg.psql(&url, "CHECKPOINT");
            pg.psql(&url, "SELECT pg_database_size(current_database())").parse::<u64>().unwrap()
        };
        let measured = edits(&fx, Some(&url), &size);
        report("PostgreSQL", "pg_database_size", measured);
    }
}
