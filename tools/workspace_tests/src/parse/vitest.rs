//! Vitest output: the `      Tests  2 failed | 2 passed | 1 skipped (5)` line, the failures
//! from the `FAIL  file > suite > name` lines of its "Failed Tests" report (consecutive ones
//! share the error below them), the error line(s) after them as the message and the
//! `❯ file:line:col` line as the place. Without the `Tests` line (a run stopped at its
//! timeout), the `(N tests | M failed)` of each file that finished are summed.

use super::{FailureHint, Format, Hints, Parsed, location};

/// Counts and failures of Vitest output; none without its `Tests` line.
pub fn parse(text: &str) -> Option<Parsed> {
    let (passed, failed) = match text.lines().rev().find_map(counts) {
        Some(counts) => counts,
        None => progress(text)?,
    };
    let mut hints = Hints::default();
    let mut pending: Vec<FailureHint> = Vec::new();
    let mut message: Vec<&str> = Vec::new();
    let mut place: Option<(String, u32)> = None;
    let mut flush =
        |pending: &mut Vec<FailureHint>, message: &mut Vec<&str>, place: &mut Option<_>| {
            for hint in pending.drain(..) {
                hints.push(hint.with_message(message.join("\n")).at(place.clone()));
            }
            message.clear();
            *place = None;
        };
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(test) = trimmed.strip_prefix("FAIL ") {
            if !message.is_empty() || place.is_some() {
                flush(&mut pending, &mut message, &mut place);
            }
            let test = test.trim();
            let hint = match test.split_once(" > ") {
                Some((file, name)) => {
                    let mut hint = FailureHint::named(name);
                    hint.file = Some(file.to_owned());
                    hint
                }
                // A file that failed as a whole: `FAIL  file [ file ]`.
                None => {
                    let file = test.split(" [").next().unwrap_or(test);
                    let mut hint = FailureHint::named(file);
                    hint.file = Some(file.to_owned());
                    hint
                }
            };
            pending.push(hint);
            continue;
        }
        if pending.is_empty() {
            continue;
        }
        if trimmed.starts_with('⎯') {
            flush(&mut pending, &mut message, &mut place);
        } else if let Some(at) = trimmed.strip_prefix("❯ ") {
            if place.is_none() {
                place = location(at.split(' ').next().unwrap_or(at));
            }
        } else if place.is_none() && !trimmed.is_empty() && message.len() < 8 {
            message.push(trimmed);
        }
    }
    flush(&mut pending, &mut message, &mut place);
    Some(Parsed::new(Format::Vitest, Some(passed), Some(failed)).with_failures(hints))
}

/// `(passed, failed)` so far of a run stopped before its `Tests` line, from the line of each
/// file that finished: `✓ a.test.ts (5 tests | 1 skipped) 5ms`, `❯ b.test.ts (2 tests |
/// 1 failed) 11ms` (what is neither failed nor skipped or todo passed).
fn progress(text: &str) -> Option<(u64, u64)> {
    let (mut passed, mut failed, mut seen) = (0, 0, false);
    for line in text.lines() {
        let Some((mark, rest)) = line.trim_start().split_once(' ') else { continue };
        if !matches!(mark, "✓" | "❯" | "×") {
            continue;
        }
        let Some(inner) =
            rest.split_once(" (").and_then(|(_, r)| r.split_once(')')).map(|(i, _)| i)
        else {
            continue;
        };
        let (mut tests, mut not_passed, mut file_failed) = (None, 0, 0);
        for part in inner.split(" | ") {
            let Some((n, word)) = part.split_once(' ') else { continue };
            let Ok(n) = n.parse::<u64>() else { continue };
            match word {
                "test" | "tests" => tests = Some(n),
                "failed" => (file_failed, not_passed) = (n, not_passed + n),
                "skipped" | "todo" => not_passed += n,
                _ => {}
            }
        }
        let Some(tests) = tests else { continue };
        passed += tests.saturating_sub(not_passed);
        failed += file_failed;
        seen = true;
    }
    seen.then_some((passed, failed))
}

/// `(passed, failed)` of the `Tests  2 failed | 2 passed | 1 skipped (5)` line.
fn counts(line: &str) -> Option<(u64, u64)> {
    let rest = line.trim_start().strip_prefix("Tests ")?.trim();
    let rest = rest.rsplit_once(" (").map_or(rest, |(counts, _)| counts);
    let (mut passed, mut failed) = (0, 0);
    for part in rest.split('|') {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::fixtures::text;

    #[test]
    fn failing_run_plain_and_coloured() {
        for fixture in ["vitest_plain", "vitest_color"] {
            let parsed = parse(&text(fixture)).unwrap();
            assert_eq!((parsed.passed, parsed.failed), (Some(2), Some(2)), "{fixture}");
            assert_eq!(
                parsed.failures,
                [
                    FailureHint {
                        name: "math > adds wrong".into(),
                        file: Some("sum.test.js".into()),
                        line: Some(10),
                        message: Some(
                            "AssertionError: expected 3 to be 4 // Object.is equality\n- Expected\n+ Received\n- 4\n+ 3"
                                .into()
                        ),
                    },
                    FailureHint {
                        name: "math > nested > throws".into(),
                        file: Some("sum.test.js".into()),
                        line: Some(15),
                        message: Some("Error: kaboom in nested".into()),
                    },
                ],
                "{fixture}"
            );
        }
    }

    #[test]
    fn passing_run_and_shared_errors() {
        let passing = parse(&text("vitest_passing")).unwrap();
        assert_eq!((passing.passed, passing.failed), (Some(4), Some(0)));
        assert!(passing.failures.is_empty());
        let out = " FAIL  a.test.ts > one\n FAIL  a.test.ts > two\nError: shared\n ❯ a.test.ts:3:9\n\n⎯⎯[1/1]⎯\n\n FAIL  b.test.ts [ b.test.ts ]\nError: Cannot find module './x'\n\n⎯⎯[1/1]⎯\n\n      Tests  2 failed (2)\n";
        let parsed = parse(out).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(0), Some(2)));
        let names: Vec<_> = parsed.failures.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["one", "two", "b.test.ts"]);
        assert_eq!(parsed.failures[1].line, Some(3));
        assert_eq!(parsed.failures[1].message.as_deref(), Some("Error: shared"));
        assert_eq!(parsed.failures[2].message.as_deref(), Some("Error: Cannot find module './x'"));
    }

    #[test]
    fn several_files_and_a_suite_that_did_not_load() {
        let parsed = parse(&text("vitest_multi")).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(1), Some(2)));
        let places: Vec<(&str, Option<&str>, Option<u32>)> =
            parsed.failures.iter().map(|f| (f.name.as_str(), f.file.as_deref(), f.line)).collect();
        assert_eq!(
            places,
            [
                ("src/b.test.js", Some("src/b.test.js"), Some(1)),
                ("a fails", Some("src/a.test.js"), Some(3)),
                ("c > c fails too", Some("src/c.test.js"), Some(2)),
            ]
        );
        assert!(
            parsed.failures[0].message.as_deref().unwrap().starts_with("Error: Cannot find module")
        );
        assert_eq!(
            parsed.failures[2].message.as_deref(),
            Some("AssertionError: expected [ 1, 2 ] to include 3")
        );
    }

    #[test]
    fn a_run_stopped_midway_counts_the_files_that_finished() {
        let full = text("vitest_multi");
        let cut = full.find(" Test Files").unwrap();
        assert_eq!(progress(&full[..cut]), Some((1, 2)));
        let full = text("vitest_plain");
        let cut = full.find(" Test Files").unwrap();
        let parsed = parse(&full[..cut]).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(2), Some(2)));
        assert_eq!(progress("✓ done (in 3 ms)\n"), None);
    }

    #[test]
    fn jest_output_is_not_vitest() {
        assert_eq!(parse(&text("jest_failing")), None);
    }
}
