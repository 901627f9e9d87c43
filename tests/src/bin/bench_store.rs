//! `cargo xtask bench store [sqlite|postgres]`: how much the session store grows per 1,000
//! one-line edits of a 100 KB file, made through one `toolhost session`, on SQLite (the data
//! dir's `toolhost.db` and its write-ahead log) and on PostgreSQL (`pg_database_size`, on a
//! server the bench starts: `toolhost_tests::postgres`). Target: at most 10 MB per 1,000
//! edits on each. With `TOOLHOST_TEST_BIN_DIR` it measures another build (a `before`).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use toolhost_tests::postgres::Postgres;
use toolhost_tests::*;

const EDITS: usize = 1000;
const LINES: usize = 2000;

fn line(i: usize) -> String {
    format!("{i:06} one line of a one hundred kilobyte file, fifty bytes\n")
}

/// 1,000 one-line edits through one session on `store` (None: SQLite); the wall time.
fn edits(fx: &Fixture, store: Option<&str>) -> std::time::Duration {
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
    let start = Instant::now();
    for i in 0..EDITS {
        let old = format!("{i:06} one");
        let new = format!("{i:06} ONE");
        let args = serde_json::json!({"filePath": "big.txt", "oldString": old, "newString": new});
        request(
            serde_json::json!({"id": format!("e{i}"), "tool": "edit", "arguments": args})
                .to_string(),
        );
    }
    let took = start.elapsed();
    drop(stdin);
    let _ = child.wait();
    took
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
    let file: String = (0..LINES).map(line).collect();
    println!(
        "{EDITS} one-line edits of a {} KB file, through one `toolhost session`:",
        file.len() / 1000
    );
    if which.is_empty() || which == "sqlite" {
        let fx = Fixture::new();
        fx.write("big.txt", &file);
        let took = edits(&fx, None);
        let grown = sqlite_bytes(fx.data.path());
        println!(
            "  SQLite:     {:7.1} MB (toolhost.db + its WAL) per {EDITS} edits, {:.1} KB per edit; {:.1} ms per edit",
            mb(grown),
            grown as f64 / EDITS as f64 / 1e3,
            took.as_secs_f64() * 1e3 / EDITS as f64
        );
    }
    if which.is_empty() || which == "postgres" {
        let pg = Postgres::start();
        let url = pg.create_db();
        let fx = Fixture::new();
        fx.write("big.txt", &file);
        // The schema first (one call), so the growth is the edits' alone.
        let size =
            || pg.psql(&url, "SELECT pg_database_size(current_database())").parse::<u64>().unwrap();
        let out = Command::new(toolhost_bin())
            .arg("--workspace")
            .arg(fx.root())
            .arg("--data-dir")
            .arg(fx.data.path())
            .env("TOOLHOST_STORE", &url)
            .arg("changes")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let before = size();
        let took = edits(&fx, Some(&url));
        pg.psql(&url, "CHECKPOINT");
        let grown = size().saturating_sub(before);
        println!(
            "  PostgreSQL: {:7.1} MB (pg_database_size) per {EDITS} edits, {:.1} KB per edit; {:.1} ms per edit",
            mb(grown),
            grown as f64 / EDITS as f64 / 1e3,
            took.as_secs_f64() * 1e3 / EDITS as f64
        );
    }
}
