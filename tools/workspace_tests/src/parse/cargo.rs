//! `cargo test` (libtest) output: one `test result: ok. 3 passed; 1 failed; …` line per
//! test binary (unit tests, each integration test file, doc-tests), summed, plus the
//! `test name ... ok` lines of a binary that never finished (a run killed at its timeout);
//! the failures
//! from the `---- name stdout ----` blocks (`thread 'name' panicked at file:line:col:` and
//! the message lines after it, or the older `panicked at 'message', file:line:col`), and
//! from the `test name ... FAILED` lines for a test whose block is missing.

use super::{FailureHint, Format, Hints, Parsed, location};

/// Counts and failures of `cargo test` output; none without a `test result:` line or a
/// `test name ... ok` line. The result lines are summed; the tests of a binary still running
/// (a run stopped at its timeout) are counted from their own lines.
pub fn parse(text: &str) -> Option<Parsed> {
    let (mut passed, mut failed, mut seen) = (0u64, 0u64, false);
    // Per-test lines since the last result line: the binary that has not finished.
    let (mut running_passed, mut running_failed) = (0u64, 0u64);
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("test ") {
            if rest.ends_with(" ... ok") {
                running_passed += 1;
                seen = true;
            } else if rest.ends_with(" ... FAILED") {
                running_failed += 1;
                seen = true;
            }
        }
        let Some(rest) = line.trim().strip_prefix("test result: ") else { continue };
        let Some((_, counts)) = rest.split_once(". ") else { continue };
        for part in counts.split(';') {
            let Some((n, word)) = part.trim().split_once(' ') else { continue };
            let Ok(n) = n.parse::<u64>() else { continue };
            match word {
                "passed" => passed += n,
                "failed" => failed += n,
                _ => {}
            }
        }
        (running_passed, running_failed) = (0, 0);
        seen = true;
    }
    if !seen {
        return None;
    }
    let (passed, failed) = (passed + running_passed, failed + running_failed);
    let mut hints = Hints::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let Some(name) = block_name(lines[i]) else {
            i += 1;
            continue;
        };
        let end = (i + 1..lines.len())
            .find(|&j| block_name(lines[j]).is_some() || lines[j] == "failures:")
            .unwrap_or(lines.len());
        hints.push(read_block(name, &lines[i + 1..end]));
        i = end;
    }
    for line in &lines {
        if let Some(name) = line.strip_prefix("test ").and_then(|l| l.strip_suffix(" ... FAILED"))
            && !hints.has(name)
        {
            hints.push(FailureHint::named(name));
        }
    }
    Some(Parsed::new(Format::Cargo, Some(passed), Some(failed)).with_failures(hints))
}

/// The test a `---- name stdout ----` line opens a block for.
fn block_name(line: &str) -> Option<&str> {
    let inner = line.strip_prefix("---- ")?;
    inner.strip_suffix(" stdout ----").or_else(|| inner.strip_suffix(" stderr ----"))
}

/// The failure one block describes: where it panicked and with what message.
fn read_block(name: &str, block: &[&str]) -> FailureHint {
    let hint = FailureHint::named(name);
    let Some(at) = block.iter().position(|l| l.contains(" panicked at ")) else {
        // No panic (a test returning `Err`, a timeout): the block's text is the message.
        let text: Vec<&str> =
            block.iter().copied().filter(|l| !l.trim().is_empty()).take(8).collect();
        return hint.with_message(text.join("\n"));
    };
    let (_, after) = block[at].split_once(" panicked at ").unwrap_or_default();
    if let Some(old) = after.strip_prefix('\'') {
        // Before Rust 1.73: panicked at 'message', src/lib.rs:10:5
        let (message, place) = old.rsplit_once("', ").unwrap_or((old, ""));
        return hint.with_message(message).at(location(place));
    }
    let message: Vec<&str> = block[at + 1..]
        .iter()
        .copied()
        .take_while(|l| {
            !l.trim().is_empty()
                && !l.starts_with("stack backtrace:")
                && !l.starts_with("note: ")
                && !l.starts_with("thread '")
        })
        .collect();
    hint.with_message(message.join("\n")).at(location(after))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::fixtures::text;

    #[test]
    fn failing_run_sums_every_binary_and_names_the_failures() {
        let parsed = parse(&text("cargo_failing")).unwrap();
        // unit tests 1 passed 2 failed, integration 1 passed, doc-test 1 passed.
        assert_eq!((parsed.passed, parsed.failed), (Some(3), Some(2)));
        assert_eq!(parsed.failures.len(), 2);
        let wrong = parsed.failures.iter().find(|f| f.name == "tests::adds_wrong").unwrap();
        assert_eq!(wrong.file.as_deref(), Some("src/lib.rs"));
        assert_eq!(wrong.line, Some(21));
        assert_eq!(
            wrong.message.as_deref(),
            Some("assertion `left == right` failed: one plus two\n  left: 3\n right: 4")
        );
        let boom = parsed.failures.iter().find(|f| f.name == "tests::panics_plain").unwrap();
        assert_eq!((boom.file.as_deref(), boom.line), (Some("src/lib.rs"), Some(26)));
        assert_eq!(boom.message.as_deref(), Some("boom: the widget broke"));
    }

    #[test]
    fn a_backtrace_is_not_part_of_the_message() {
        let parsed = parse(&text("cargo_backtrace")).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(3), Some(2)));
        let boom = parsed.failures.iter().find(|f| f.name == "tests::panics_plain").unwrap();
        assert_eq!(boom.message.as_deref(), Some("boom: the widget broke"));
        assert_eq!(boom.line, Some(26));
    }

    #[test]
    fn coloured_passing_and_broken_runs() {
        let colour = parse(&text("cargo_color")).unwrap();
        assert_eq!((colour.passed, colour.failed), (Some(3), Some(2)));
        assert_eq!(colour.failures.len(), 2);
        let passing = parse(&text("cargo_passing")).unwrap();
        assert_eq!((passing.passed, passing.failed), (Some(5), Some(0)));
        assert!(passing.failures.is_empty());
        // A build error runs no test: nothing to count.
        assert_eq!(parse(&text("cargo_compile_error")), None);
    }

    #[test]
    fn a_run_stopped_midway_counts_what_finished() {
        // The real output cut where a timeout would cut it: the unit tests done, the
        // integration tests started.
        let full = text("cargo_failing");
        let cut = full.find("test integration_passes ... ok").unwrap();
        let partial = format!("{}test integration_passes ... ok\n", &full[..cut]);
        let parsed = parse(&partial).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(2), Some(2)));
        let early = "\nrunning 3 tests\ntest a ... ok\ntest b ... FAILED\n";
        let parsed = parse(early).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(1), Some(1)));
        assert_eq!(parsed.failures, [FailureHint::named("b")]);
    }

    #[test]
    fn older_panic_format_and_failed_lines_without_a_block() {
        let out = "test a ... FAILED\ntest b ... FAILED\n\nfailures:\n\n---- a stdout ----\n\
                   thread 'a' panicked at 'assertion failed: x', src/a.rs:3:5\n\nfailures:\n    a\n    b\n\n\
                   test result: FAILED. 0 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out\n";
        let parsed = parse(out).unwrap();
        assert_eq!(parsed.failed, Some(2));
        assert_eq!(parsed.failures[0].message.as_deref(), Some("assertion failed: x"));
        assert_eq!(parsed.failures[0].line, Some(3));
        assert_eq!(parsed.failures[1], FailureHint::named("b"));
    }
}
