//! Jest output (it writes its report to stderr): the `Tests:       2 failed, 1 skipped,
//! 2 passed, 5 total` line, the failures from the `● Suite › name` blocks — the lines before
//! the code frame as the message, the first `at … (file:line:col)` frame outside
//! `node_modules` as the place, the `FAIL path` line above as the file otherwise. Without
//! the `Tests:` line (a run stopped at its timeout), the `✓`/`✕` lines so far are counted.

use super::{FailureHint, Format, Hints, Parsed, location};

/// Counts and failures of Jest output; none without its `Tests:` line.
pub fn parse(text: &str) -> Option<Parsed> {
    let (passed, failed) =
        match text.lines().rev().find_map(|l| l.trim_start().strip_prefix("Tests:")) {
            Some(counts) => counts_of(counts)?,
            None => progress(text)?,
        };
    let lines: Vec<&str> = text.lines().collect();
    let mut hints = Hints::default();
    let mut suite_file: Option<&str> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(file) = line.strip_prefix("FAIL ").or_else(|| line.strip_prefix("PASS ")) {
            suite_file = file.split_whitespace().next();
        }
        let Some(name) = line.trim_start().strip_prefix("● ") else {
            i += 1;
            continue;
        };
        let end = (i + 1..lines.len())
            .find(|&j| {
                let l = lines[j];
                l.trim_start().starts_with("● ") || (!l.is_empty() && !l.starts_with(' '))
            })
            .unwrap_or(lines.len());
        let block = &lines[i + 1..end];
        let frame =
            block.iter().position(|l| is_code_frame(l) || l.trim_start().starts_with("at "));
        let message: Vec<&str> = block[..frame.unwrap_or(block.len())]
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect();
        let place = block.iter().find_map(|l| stack_frame(l));
        let mut hint = FailureHint::named(name.trim()).with_message(message.join("\n"));
        match place {
            Some(place) => hint = hint.at(Some(place)),
            None => hint.file = suite_file.map(str::to_owned),
        }
        hints.push(hint);
        i = end;
    }
    Some(Parsed::new(Format::Jest, Some(passed), Some(failed)).with_failures(hints))
}

/// `(passed, failed)` of the `Tests:` line's `2 failed, 1 skipped, 2 passed, 5 total`.
fn counts_of(counts: &str) -> Option<(u64, u64)> {
    let (mut passed, mut failed) = (0, 0);
    for part in counts.split(',') {
        let (n, word) = part.trim().split_once(' ')?;
        let n: u64 = n.parse().ok()?;
        match word {
            "passed" => passed += n,
            "failed" => failed += n,
            _ => {}
        }
    }
    Some((passed, failed))
}

/// `(passed, failed)` so far of a run stopped before its `Tests:` line, from the `✓ name` and
/// `✕ name` lines Jest prints under a `PASS`/`FAIL file` line (one file, or `--verbose`).
fn progress(text: &str) -> Option<(u64, u64)> {
    let (mut passed, mut failed, mut seen) = (0, 0, false);
    for line in text.lines() {
        seen |= line.starts_with("PASS ") || line.starts_with("FAIL ");
        if !seen || !line.starts_with("  ") {
            continue;
        }
        match line.trim_start().split_once(' ').map(|(mark, _)| mark) {
            Some("✓") => passed += 1,
            Some("✕") => failed += 1,
            _ => {}
        }
    }
    (seen && passed + failed > 0).then_some((passed, failed))
}

/// A line of the code excerpt Jest prints under a failure (`  >  9 |     expect(…)`, `     |  ^`).
fn is_code_frame(line: &str) -> bool {
    let l = line.trim_start().trim_start_matches('>').trim_start();
    let digits = l.chars().take_while(char::is_ascii_digit).count();
    l[digits..].trim_start().starts_with('|')
}

/// The place of a stack frame `at fn (file:line:col)` or `at file:line:col` outside
/// `node_modules` and Node's internals.
fn stack_frame(line: &str) -> Option<(String, u32)> {
    let frame = line.trim_start().strip_prefix("at ")?;
    let place = match frame.strip_suffix(')') {
        Some(inner) => inner.rsplit_once('(')?.1,
        None => frame,
    };
    if place.contains("node_modules") || place.starts_with("node:") {
        return None;
    }
    location(place)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::fixtures::text;

    #[test]
    fn failing_run_names_each_failed_test_and_where() {
        let parsed = parse(&text("jest_failing")).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(2), Some(2)));
        assert_eq!(
            parsed.failures,
            [
                FailureHint {
                    name: "math › adds wrong".into(),
                    file: Some("sum.test.js".into()),
                    line: Some(9),
                    message: Some(
                        "expect(received).toBe(expected) // Object.is equality\nExpected: 4\nReceived: 3"
                            .into()
                    ),
                },
                FailureHint {
                    name: "math › nested › throws".into(),
                    file: Some("sum.test.js".into()),
                    line: Some(14),
                    message: Some("kaboom in nested".into()),
                },
            ]
        );
    }

    #[test]
    fn passing_run_and_a_suite_that_failed_to_run() {
        let passing = parse(&text("jest_passing")).unwrap();
        assert_eq!((passing.passed, passing.failed), (Some(4), Some(0)));
        assert!(passing.failures.is_empty());
        let out = "FAIL src/broken.test.js\n  ● Test suite failed to run\n\n    Cannot find module './nope' from 'src/broken.test.js'\n\n      at Resolver._throwModNotFoundError (node_modules/jest-resolve/build/resolver.js:427:11)\n\nTest Suites: 1 failed, 1 total\nTests:       0 total\n";
        let parsed = parse(out).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(0), Some(0)));
        assert_eq!(parsed.failures[0].name, "Test suite failed to run");
        assert_eq!(parsed.failures[0].file.as_deref(), Some("src/broken.test.js"));
        assert_eq!(parsed.failures[0].line, None);
        assert!(parsed.failures[0].message.as_deref().unwrap().starts_with("Cannot find module"));
    }

    #[test]
    fn several_files_and_a_suite_that_did_not_load() {
        let parsed = parse(&text("jest_multi")).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(1), Some(2)));
        let places: Vec<(&str, Option<&str>, Option<u32>)> =
            parsed.failures.iter().map(|f| (f.name.as_str(), f.file.as_deref(), f.line)).collect();
        assert_eq!(
            places,
            [
                ("a fails", Some("src/a.test.js"), Some(2)),
                ("c › c fails too", Some("src/c.test.js"), Some(1)),
                ("Test suite failed to run", Some("src/b.test.js"), Some(1)),
            ]
        );
        assert_eq!(
            parsed.failures[2].message.as_deref(),
            Some("Cannot find module './nope' from 'src/b.test.js'")
        );
        assert!(parsed.failures[0].message.as_deref().unwrap().contains("+   \"x\": 1,"));
    }

    #[test]
    fn a_run_stopped_midway_counts_the_marks_so_far() {
        let full = text("jest_failing");
        let cut = full.find("Test Suites:").unwrap();
        let parsed = parse(&full[..cut]).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(2), Some(2)));
        assert_eq!(parsed.failures.len(), 2);
        assert_eq!(progress("  ✓ looks like jest\n"), None, "no PASS/FAIL line above");
    }

    #[test]
    fn lookalikes_are_not_jest() {
        assert_eq!(parse("Tests:  we have some\n"), None);
        assert_eq!(parse(&text("vitest_plain")), None);
    }
}
