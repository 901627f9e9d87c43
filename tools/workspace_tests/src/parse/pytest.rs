//! pytest output: the final `=== 3 failed, 3 passed, 1 skipped, 1 error in 0.06s ===` line
//! (without the `=` under `-q`; errors count as failed), the failures from the
//! `short test summary info` lines (`FAILED path::name - message`, `ERROR path::name`),
//! each completed from its `___ name ___` section: the `E   ` lines as the message and the
//! `path:line: Error` line as the place. Without a short summary, the sections alone; without
//! the summary line (a run stopped at its timeout), the counts of the progress lines so far.

use super::{FailureHint, Format, Hints, Parsed};

/// The words of pytest's summary line.
const OUTCOMES: [&str; 12] = [
    "passed",
    "failed",
    "error",
    "errors",
    "skipped",
    "deselected",
    "xfailed",
    "xpassed",
    "warning",
    "warnings",
    "rerun",
    "subtests",
];

/// Counts and failures of pytest output; none without its summary line.
pub fn parse(text: &str) -> Option<Parsed> {
    let (passed, failed) = match text.lines().rev().find_map(summary_line) {
        Some(counts) => counts,
        None => progress(text)?,
    };
    let lines: Vec<&str> = text.lines().collect();
    let sections = sections(&lines);
    let mut hints = Hints::default();
    for line in &lines {
        let Some((node, message)) = short_summary(line) else { continue };
        let (file, name) = node.split_once("::").unwrap_or((node, node));
        let key = name.replace("::", ".");
        let section = sections.iter().find(|s| s.key == key || s.key == node);
        let mut hint = FailureHint::named(name);
        hint.file = Some(file.to_owned());
        match section {
            Some(s) => {
                hint = hint.with_message(if s.message.is_empty() { message } else { &s.message });
                hint.line = s.place.iter().rev().find(|(f, _)| f == file).map(|(_, l)| *l);
            }
            None => hint = hint.with_message(message),
        }
        hints.push(hint);
    }
    if hints.list.is_empty() {
        for s in &sections {
            let (file, line) = s.place.last().cloned().unzip();
            let mut hint = FailureHint::named(&s.key).with_message(&s.message);
            (hint.file, hint.line) = (file, line);
            hints.push(hint);
        }
    }
    Some(Parsed::new(Format::Pytest, Some(passed), Some(failed)).with_failures(hints))
}

/// `(passed, failed + errors)` of a summary line: `N outcome, …` then ` in 1.23s`, inside
/// `=` rules or not; `no tests ran in 0.01s` is zero of both.
fn summary_line(line: &str) -> Option<(u64, u64)> {
    let line = line.trim().trim_matches('=').trim();
    let (counts, time) = line.rsplit_once(" in ")?;
    let time = time.split(" (").next()?;
    let seconds = time.strip_suffix('s')?;
    if seconds.is_empty() || !seconds.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    if counts == "no tests ran" {
        return Some((0, 0));
    }
    let (mut passed, mut failed) = (0, 0);
    for part in counts.split(", ") {
        let (n, word) = part.split_once(' ')?;
        let n: u64 = n.parse().ok()?;
        // `2 subtests passed` has two words.
        let word = word.split(' ').next()?;
        if !OUTCOMES.contains(&word) {
            return None;
        }
        match word {
            "passed" => passed += n,
            "failed" | "error" | "errors" => failed += n,
            _ => {}
        }
    }
    Some((passed, failed))
}

/// `(passed, failed + errors)` so far of a run stopped before its summary line, from its
/// progress: `tests/test_x.py .F.E [ 40%]` (`-q`: `.F.E [ 40%]`), or under `-v`
/// `tests/test_x.py::test_a PASSED [ 20%]`; none when there is none.
fn progress(text: &str) -> Option<(u64, u64)> {
    let (mut passed, mut failed, mut seen) = (0, 0, false);
    for line in text.lines() {
        let line = line.trim_end();
        let (body, percent) = match line.rsplit_once(" [") {
            Some((body, pct)) if pct.trim_start().ends_with("%]") => (body.trim_end(), true),
            _ => (line, false),
        };
        if let Some((node, outcome)) = body.split_once(' ')
            && node.contains("::")
        {
            match outcome.split(' ').next().unwrap_or_default() {
                "PASSED" => passed += 1,
                "FAILED" | "ERROR" => failed += 1,
                "SKIPPED" | "XFAIL" | "XPASS" => {}
                _ => continue,
            }
            seen = true;
            continue;
        }
        let marks = match body.split_once(' ') {
            Some((file, marks)) if file.ends_with(".py") => marks,
            None if percent => body,
            _ => continue,
        };
        if marks.is_empty() || !marks.chars().all(|c| ".FEsxX".contains(c)) {
            continue;
        }
        passed += marks.chars().filter(|c| *c == '.').count() as u64;
        failed += marks.chars().filter(|c| matches!(c, 'F' | 'E')).count() as u64;
        seen = true;
    }
    seen.then_some((passed, failed))
}

/// `FAILED node - message` / `ERROR node` of the short test summary.
fn short_summary(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("FAILED ").or_else(|| line.strip_prefix("ERROR "))?;
    let (node, message) = rest.split_once(" - ").unwrap_or((rest, ""));
    (!node.contains(' ')).then_some((node, message))
}

/// One `____ name ____` section of the FAILURES or ERRORS part.
struct Section {
    /// Its name, `ERROR at setup of ` / `ERROR collecting ` removed (`TestGroup.test_x`).
    key: String,
    /// The `E   ` lines, their prefix removed.
    message: String,
    /// Every `path:line: …` line in it, in order.
    place: Vec<(String, u32)>,
}

fn sections(lines: &[&str]) -> Vec<Section> {
    let header = |line: &str| -> Option<String> {
        let inner = line.strip_prefix("___")?.strip_suffix("___")?.trim_matches('_').trim();
        let inner = ["ERROR at setup of ", "ERROR at teardown of ", "ERROR collecting "]
            .iter()
            .find_map(|p| inner.strip_prefix(p))
            .unwrap_or(inner);
        (!inner.is_empty()).then(|| inner.to_owned())
    };
    let mut out: Vec<Section> = Vec::new();
    let mut current: Option<Section> = None;
    for line in lines {
        if let Some(key) = header(line) {
            out.extend(current.take());
            current = Some(Section { key, message: String::new(), place: Vec::new() });
            continue;
        }
        let Some(section) = current.as_mut() else { continue };
        if line.starts_with("====") {
            out.extend(current.take());
            continue;
        }
        if let Some(e) = line.strip_prefix('E').filter(|r| r.is_empty() || r.starts_with(' ')) {
            if !section.message.is_empty() {
                section.message.push('\n');
            }
            section.message.push_str(e.trim());
        } else if let Some((path, rest)) = line.split_once(".py:") {
            let number = rest.split(':').next().unwrap_or_default();
            if !path.contains(' ')
                && let Ok(n) = number.parse()
            {
                section.place.push((format!("{path}.py"), n));
            }
        }
    }
    out.extend(current);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::fixtures::text;

    fn find<'a>(parsed: &'a Parsed, name: &str) -> &'a FailureHint {
        parsed.failures.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("{name}"))
    }

    #[test]
    fn failing_run_counts_errors_as_failed() {
        for fixture in ["pytest_failing", "pytest_quiet"] {
            let parsed = parse(&text(fixture)).unwrap();
            // 3 failed + 1 error; 3 passed; the skipped one is neither.
            assert_eq!((parsed.passed, parsed.failed), (Some(3), Some(4)), "{fixture}");
            assert_eq!(parsed.failures.len(), 4);
            let wrong = find(&parsed, "test_adds_wrong");
            assert_eq!(wrong.file.as_deref(), Some("tests/test_math.py"));
            assert_eq!(wrong.line, Some(13));
            assert_eq!(wrong.message.as_deref(), Some("assert 3 == 4\n+  where 3 = add(1, 2)"));
            let class = find(&parsed, "TestGroup::test_in_class");
            assert_eq!(class.line, Some(18));
            assert!(class.message.as_deref().unwrap().starts_with("AssertionError: assert 'ABC'"));
            assert_eq!(find(&parsed, "test_param[2]").line, Some(40));
            let broken = find(&parsed, "test_uses_broken");
            assert_eq!(broken.message.as_deref(), Some("RuntimeError: fixture exploded"));
            assert_eq!(broken.line, Some(26));
        }
    }

    #[test]
    fn passing_coloured_and_collection_errors() {
        let passing = parse(&text("pytest_passing")).unwrap();
        assert_eq!((passing.passed, passing.failed), (Some(2), Some(0)));
        assert!(passing.failures.is_empty());
        let colour = parse(&text("pytest_color")).unwrap();
        assert_eq!((colour.passed, colour.failed), (Some(1), Some(1)));
        assert_eq!(find(&colour, "test_adds_wrong").line, Some(13));
        let collect = parse(&text("pytest_collect_error")).unwrap();
        assert_eq!((collect.passed, collect.failed), (Some(0), Some(1)));
        let broken = find(&collect, "test_broken.py");
        assert_eq!(broken.file.as_deref(), Some("test_broken.py"));
        assert_eq!(broken.line, Some(1));
        assert_eq!(
            broken.message.as_deref(),
            Some("ModuleNotFoundError: No module named 'nonexistent_mod'")
        );
    }

    #[test]
    fn summary_lines_and_lookalikes() {
        assert_eq!(summary_line("==== 2 passed, 1 warning in 0.12s ===="), Some((2, 0)));
        assert_eq!(summary_line("1 failed, 2 errors in 3.00s (0:00:03)"), Some((0, 3)));
        assert_eq!(summary_line("=== no tests ran in 0.01s ==="), Some((0, 0)));
        assert_eq!(summary_line("3 passed, 2 subtests passed in 0.1s"), Some((3, 0)));
        assert_eq!(summary_line("test result: ok. 1 passed; 0 failed; finished in 0.00s"), None);
        assert_eq!(summary_line("we passed in 2s"), None);
        assert_eq!(summary_line("2 apples in 3s"), None);
    }

    #[test]
    fn a_run_stopped_midway_counts_its_progress() {
        // The real output up to the end of its progress line, as a timeout would cut it.
        let full = text("pytest_failing");
        let cut = full.find("[100%]").unwrap() + "[100%]".len();
        assert_eq!(progress(&full[..cut]), Some((3, 4)));
        let parsed = parse(&full[..cut]).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(3), Some(4)));
        let quiet = text("pytest_quiet");
        let cut = quiet.find("[100%]").unwrap() + "[100%]".len();
        assert_eq!(progress(&quiet[..cut]), Some((3, 4)));
        let verbose = "tests/t.py::test_a PASSED                  [ 33%]\ntests/t.py::test_b FAILED [ 66%]\ntests/t.py::test_c SKIPPED (why) [100%]\n";
        assert_eq!(progress(verbose), Some((1, 1)));
        assert_eq!(progress("collected 3 items\nsome text here\n"), None);
        assert_eq!(progress("a.py is fine\n"), None);
    }

    #[test]
    fn sections_alone_without_a_short_summary() {
        let out = "___ test_x ___\n\n    def test_x():\n>       assert 0\nE       assert 0\n\n\
                   t.py:2: AssertionError\n=== 1 failed in 0.01s ===\n";
        let parsed = parse(out).unwrap();
        assert_eq!(
            parsed.failures,
            [FailureHint {
                name: "test_x".into(),
                file: Some("t.py".into()),
                line: Some(2),
                message: Some("assert 0".into())
            }]
        );
    }
}
