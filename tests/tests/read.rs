//! `read` (docs/contract.md#read) through the host and the real component: the three bounds, the
//! footers, long lines, CRLF, BOM, empty, binary, past-the-end, directories and bad limits.

use serde_json::json;
use toolhost::{ErrorCode, ToolResult, ToolResultStatus};
use toolhost_tests::*;

async fn read(fx: &Fixture, input: serde_json::Value) -> ToolResult {
    let ts = toolset(fx, &["read"]).await;
    call(&ts, fx, "read", input).await
}

fn numbered(n: usize, f: impl Fn(usize) -> String) -> String {
    (1..=n).map(|i| f(i) + "\n").collect()
}

fn assert_failed(r: &ToolResult, code: ErrorCode, needles: &[&str]) {
    assert_eq!(r.status, ToolResultStatus::Failed, "{}", r.text());
    assert_eq!(r.error.as_ref().unwrap().code, code, "{}", r.text());
    for n in needles {
        assert!(r.text().contains(n), "{:?} should contain {n:?}", r.text());
    }
}

#[tokio::test]
async fn acc_20_default_read_stops_at_the_first_limit_and_says_how_to_continue() {
    let fx = Fixture::new();
    // Short lines: the 2000-line bound comes first.
    fx.write("short.txt", numbered(5000, |i| format!("line {i}")));
    let r = read(&fx, json!({"path": "short.txt"})).await;
    assert!(r.succeeded(), "{}", r.text());
    let text = r.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2001);
    assert_eq!(lines[0], "1\tline 1");
    assert_eq!(lines[1999], "2000\tline 2000");
    assert_eq!(lines[2000], "[showing lines 1-2000 of 5000. Continue with offset=2001]");

    // Long lines: the 31,488-byte bound comes first, and stops at the last whole line.
    let body = |i: usize| format!("{i:>6} {}", "x".repeat(53));
    fx.write("long.txt", numbered(5000, body));
    let r = read(&fx, json!({"path": "long.txt"})).await;
    let text = r.text();
    assert!(text.len() <= 32_000);
    let (page, footer) = text.rsplit_once('\n').unwrap();
    assert!(page.len() <= 31_488, "{}", page.len());
    let shown = page.lines().count();
    for (i, line) in page.lines().enumerate() {
        assert_eq!(line, format!("{}\t{}", i + 1, body(i + 1)), "never a partial line");
    }
    let next_line = format!("{}\t{}", shown + 1, body(shown + 1));
    assert!(page.len() + 1 + next_line.len() > 31_488, "one more line would not fit");
    assert_eq!(
        footer,
        format!(
            "[showing lines 1-{shown} of 5000; stopped at 32 KB. Continue with offset={}]",
            shown + 1
        )
    );

    // Continuing from the footer's offset picks up at the next line.
    let r = read(&fx, json!({"path": "long.txt", "offset": shown + 1, "limit": 1})).await;
    assert!(r.text().starts_with(&format!("{}\t{}\n", shown + 1, body(shown + 1))), "{}", r.text());
}

#[tokio::test]
async fn acc_21_long_lines_are_cut_to_2000_chars_and_marked() {
    let fx = Fixture::new();
    let long: String = "é".repeat(10_000);
    fx.write("wide.txt", format!("{long}\nnext\n"));
    let r = read(&fx, json!({"path": "wide.txt"})).await;
    assert!(r.succeeded(), "{}", r.text());
    let expected = format!("1\t{} ... (line truncated to 2000 chars)\n2\tnext", "é".repeat(2000));
    assert_eq!(r.text(), expected);
}

#[tokio::test]
async fn reads_a_one_based_page_with_original_line_numbers() {
    let fx = Fixture::new();
    fx.write("four.txt", "a\nb\nc\nd\n");
    let r = read(&fx, json!({"path": "four.txt", "offset": 2, "limit": 2})).await;
    assert_eq!(r.text(), "2\tb\n3\tc\n[showing lines 2-3 of 4. Continue with offset=4]");
    // The last page has no footer; offset 0 reads from line 1.
    let r = read(&fx, json!({"path": "four.txt", "offset": 3})).await;
    assert_eq!(r.text(), "3\tc\n4\td");
    let r = read(&fx, json!({"path": "four.txt", "offset": 0, "limit": 1})).await;
    assert_eq!(r.text(), "1\ta\n[showing lines 1-1 of 4. Continue with offset=2]");
    // The same page twice is the same text (a stable order).
    let again = read(&fx, json!({"path": "four.txt", "offset": 2, "limit": 2})).await;
    assert_eq!(again.text(), "2\tb\n3\tc\n[showing lines 2-3 of 4. Continue with offset=4]");
}

#[tokio::test]
async fn a_200_line_file_reads_whole_with_no_footer() {
    let fx = Fixture::new();
    fx.write("f.txt", numbered(200, |i| format!("row {i}")));
    let r = read(&fx, json!({"path": "f.txt"})).await;
    let expected: Vec<String> = (1..=200).map(|i| format!("{i}\trow {i}")).collect();
    assert_eq!(r.text(), expected.join("\n"));
}

#[tokio::test]
async fn a_3_mb_single_line_is_cut_and_the_read_succeeds() {
    let fx = Fixture::new();
    fx.write("big.txt", "y".repeat(3 * 1024 * 1024));
    let r = read(&fx, json!({"path": "big.txt"})).await;
    assert!(r.succeeded(), "{}", r.text());
    assert_eq!(r.text(), format!("1\t{} ... (line truncated to 2000 chars)", "y".repeat(2000)));
}

#[tokio::test]
async fn crlf_loses_its_cr_and_a_bom_is_not_shown() {
    let fx = Fixture::new();
    fx.write("crlf.txt", "one\r\ntwo\r\n");
    assert_eq!(read(&fx, json!({"path": "crlf.txt"})).await.text(), "1\tone\n2\ttwo");
    fx.write("bom.txt", b"\xEF\xBB\xBFfirst\nsecond\n");
    assert_eq!(read(&fx, json!({"path": "bom.txt"})).await.text(), "1\tfirst\n2\tsecond");
}

#[tokio::test]
async fn an_empty_file_says_so() {
    let fx = Fixture::new();
    fx.write("empty.txt", "");
    let r = read(&fx, json!({"path": "empty.txt"})).await;
    assert!(r.succeeded());
    assert_eq!(r.text(), "[empty file]");
}

#[tokio::test]
async fn binary_past_end_directory_and_bad_utf8_are_errors_that_say_what_next() {
    let fx = Fixture::new();
    fx.write("bin.dat", b"text\n\x00\x01\x02\n");
    let r = read(&fx, json!({"path": "bin.dat"})).await;
    assert_failed(&r, ErrorCode::InvalidArguments, &["bin.dat"]);
    fx.write("latin1.txt", b"caf\xE9\n");
    let r = read(&fx, json!({"path": "latin1.txt"})).await;
    assert_eq!(r.status, ToolResultStatus::Failed, "{}", r.text());
    assert!(r.text().contains("latin1.txt"), "{}", r.text());
    fx.write("two.txt", "a\nb\n");
    let r = read(&fx, json!({"path": "two.txt", "offset": 3})).await;
    assert_failed(&r, ErrorCode::InvalidArguments, &["two.txt", "2"]);
    fx.write("dir/x", "x");
    let r = read(&fx, json!({"path": "dir"})).await;
    assert_eq!(r.status, ToolResultStatus::Failed, "{}", r.text());
    assert!(r.text().contains("dir") && r.text().contains("list"), "points at list: {}", r.text());
    let r = read(&fx, json!({"path": "missing.txt"})).await;
    assert_eq!(r.status, ToolResultStatus::Failed, "{}", r.text());
    assert!(r.text().contains("missing.txt"), "{}", r.text());
}

#[tokio::test]
async fn limits_outside_1_to_2000_are_invalid_arguments() {
    let fx = Fixture::new();
    fx.write("a.txt", "a\n");
    for limit in [0, 2001] {
        let r = read(&fx, json!({"path": "a.txt", "limit": limit})).await;
        assert_failed(&r, ErrorCode::InvalidArguments, &[]);
        assert_eq!(r.text(), format!("limit must be between 1 and 2000, got {limit}"));
    }
    assert!(read(&fx, json!({"path": "a.txt", "limit": 2000})).await.succeeded());
}
