//! `go test` output, plain, `-v` or `-json`: the `--- PASS: TestName` / `--- FAIL: TestName`
//! lines (or the `pass` / `fail` events of `-json`), counted per package over the leaf tests
//! only (a test with subtests passes or fails with them, so it is not counted again); the
//! message of a failure from its `file_test.go:12: message` line and the lines indented
//! under it, or its `panic:` line. Plain output lists only failing tests, so `passed` is
//! unknown without `-v` or `-json`; a package that did not build is a failure of its own.

use serde::Deserialize;

use super::{FailureHint, Format, Hints, Parsed, location};

/// Why `passed` is none for plain `go test` output.
pub const NO_PASSES: &str =
    "go test lists passing tests only with -v or -json, so the passed count is unknown";

/// How one test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Pass,
    Fail,
    Skip,
}

/// One package's tests, in the order they ended, and the lines each printed.
#[derive(Debug, Default)]
struct Package {
    outcomes: Vec<(String, Outcome)>,
    output: Vec<(String, Vec<String>)>,
}

impl Package {
    fn end(&mut self, test: &str, outcome: Outcome) {
        self.outcomes.retain(|(t, _)| t != test);
        self.outcomes.push((test.to_owned(), outcome));
    }

    fn print(&mut self, test: &str, line: &str) {
        match self.output.iter_mut().find(|(t, _)| t == test) {
            Some((_, lines)) => lines.push(line.to_owned()),
            None => self.output.push((test.to_owned(), vec![line.to_owned()])),
        }
    }

    /// `(passed, failed)` leaves, pushing each failed leaf to `hints`.
    fn count(&self, hints: &mut Hints) -> (u64, u64) {
        let (mut passed, mut failed) = (0, 0);
        for (test, outcome) in &self.outcomes {
            let prefix = format!("{test}/");
            if self.outcomes.iter().any(|(other, _)| other.starts_with(&prefix)) {
                continue;
            }
            match outcome {
                Outcome::Pass => passed += 1,
                Outcome::Fail => {
                    failed += 1;
                    let lines = self.output.iter().find(|(t, _)| t == test).map(|(_, l)| &l[..]);
                    hints.push(message_of(FailureHint::named(test), lines.unwrap_or(&[])));
                }
                Outcome::Skip => {}
            }
        }
        (passed, failed)
    }
}

/// One event of `go test -json`.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Event {
    action: String,
    #[serde(default)]
    package: String,
    #[serde(default)]
    test: Option<String>,
    #[serde(default)]
    output: Option<String>,
}

/// Counts and failures of `go test` output; none when it has no test or package result.
pub fn parse(text: &str) -> Option<Parsed> {
    let events: Vec<Event> = text
        .lines()
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| serde_json::from_str::<Event>(l).ok())
        .collect();
    let mut hints = Hints::default();
    let mut parsed = if events.is_empty() {
        parse_text(text, &mut hints)?
    } else {
        parse_events(&events, &mut hints)
    };
    build_failures(text, &mut hints);
    parsed.failures_found = hints.found;
    parsed.failures = hints.list;
    Some(parsed)
}

/// A failure for each `FAIL pkg [build failed]` line, its message the compiler's first
/// error under `# pkg` (which go writes to stderr).
fn build_failures(text: &str, hints: &mut Hints) {
    let lines: Vec<&str> = text.lines().collect();
    for line in &lines {
        let Some((package, true)) = package_line(line) else { continue };
        let errors: Vec<String> = lines
            .iter()
            .position(|l| {
                l.strip_prefix("# ").and_then(|h| h.split_whitespace().next()) == Some(package)
            })
            .map(|start| {
                lines[start + 1..]
                    .iter()
                    .take_while(|l| {
                        l.starts_with("./") || l.starts_with('\t') || l.contains(".go:")
                    })
                    .map(|l| format!("\t{}", l.trim_start_matches("./")))
                    .collect()
            })
            .unwrap_or_default();
        hints.push(message_of(FailureHint::named(format!("{package} [build failed]")), &errors));
    }
}

fn parse_events(events: &[Event], hints: &mut Hints) -> Parsed {
    let mut packages: Vec<(String, Package)> = Vec::new();
    for event in events {
        let Some(test) = &event.test else { continue };
        let index = match packages.iter().position(|(p, _)| *p == event.package) {
            Some(i) => i,
            None => {
                packages.push((event.package.clone(), Package::default()));
                packages.len() - 1
            }
        };
        let package = &mut packages[index].1;
        match event.action.as_str() {
            "pass" => package.end(test, Outcome::Pass),
            "fail" => package.end(test, Outcome::Fail),
            "skip" => package.end(test, Outcome::Skip),
            "output" => {
                let line = event.output.as_deref().unwrap_or("").trim_end_matches('\n');
                if !is_marker(line) {
                    package.print(test, line);
                }
            }
            _ => {}
        }
    }
    let (mut passed, mut failed) = (0, 0);
    for (_, package) in &packages {
        let (p, f) = package.count(hints);
        (passed, failed) = (passed + p, failed + f);
    }
    Parsed::new(Format::Go, Some(passed), Some(failed))
}

/// A `=== RUN` or `--- PASS:` line, which is no test's message.
fn is_marker(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("=== ") || t.starts_with("--- ")
}

/// `--- FAIL: TestName (0.01s)` as the outcome and the name.
fn result_line(line: &str) -> Option<(Outcome, &str)> {
    let rest = line.trim_start().strip_prefix("--- ")?;
    let (word, rest) = rest.split_once(": ")?;
    let outcome = match word {
        "PASS" => Outcome::Pass,
        "FAIL" => Outcome::Fail,
        "SKIP" => Outcome::Skip,
        _ => return None,
    };
    Some((outcome, rest.split(' ').next()?))
}

/// The package of an `ok  \tpkg\t0.01s`, `FAIL\tpkg …` or `?   \tpkg\t[no test files]` line,
/// and whether it did not build.
fn package_line(line: &str) -> Option<(&str, bool)> {
    let rest = ["ok ", "FAIL\t", "FAIL ", "? "].iter().find_map(|p| line.strip_prefix(p))?;
    let mut words = rest.split_whitespace();
    let package = words.next()?;
    let tail: Vec<&str> = words.collect();
    let looks = tail.first().is_some_and(|w| {
        w.ends_with('s') && w[..w.len() - 1].parse::<f64>().is_ok()
            || w.starts_with('(')
            || w.starts_with('[')
    });
    looks.then(|| (package, tail.join(" ").contains("failed]")))
}

fn parse_text(text: &str, hints: &mut Hints) -> Option<Parsed> {
    let verbose = text.lines().any(|l| l.starts_with("=== RUN"));
    let mut package = Package::default();
    let mut seen = false;
    let mut current: Option<String> = None;
    let (mut passed, mut failed) = (0, 0);
    for line in text.lines() {
        if package_line(line).is_some() || line.starts_with("# ") {
            seen |= !line.starts_with("# ");
            current = None;
            let (p, f) = std::mem::take(&mut package).count(hints);
            (passed, failed) = (passed + p, failed + f);
            continue;
        }
        if let Some(marker) = line.strip_prefix("=== ") {
            let mut words = marker.split_whitespace();
            if let (Some(kind), Some(test)) = (words.next(), words.next()) {
                current = (kind != "PAUSE").then(|| test.to_owned());
            }
            continue;
        }
        if let Some((outcome, test)) = result_line(line) {
            seen = true;
            package.end(test, outcome);
            if !verbose {
                current = (outcome == Outcome::Fail).then(|| test.to_owned());
            }
            continue;
        }
        if let Some(test) = &current {
            package.print(test, line);
        }
    }
    if !seen {
        return None;
    }
    let (p, f) = package.count(hints);
    (passed, failed) = (passed + p, failed + f);
    let mut parsed = Parsed::new(Format::Go, Some(passed), Some(failed));
    if !verbose {
        parsed.passed = None;
        parsed.note = Some(NO_PASSES);
    }
    Some(parsed)
}

/// `hint` completed from the lines its test printed: the first `file.go:12: message` line
/// as the place and message (with the lines indented under it), else a `panic:` line with
/// the first `_test.go:12` frame of its stack.
fn message_of(hint: FailureHint, lines: &[String]) -> FailureHint {
    let indent = |l: &str| l.len() - l.trim_start().len();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let Some((place, message)) = trimmed.split_once(": ") else { continue };
        if !place.ends_with(".go") && !place.contains(".go:") {
            continue;
        }
        let Some(at) = location(place) else { continue };
        let mut text = vec![message.to_owned()];
        text.extend(
            lines[i + 1..]
                .iter()
                .take_while(|l| indent(l) > indent(line) && !l.trim().is_empty())
                .take(8)
                .map(|l| l.trim().to_owned()),
        );
        return hint.with_message(text.join("\n")).at(Some(at));
    }
    if let Some(panic) = lines.iter().find(|l| l.starts_with("panic: ")) {
        let frame = lines.iter().find_map(|l| {
            let place = l.trim().split(' ').next()?;
            place.contains("_test.go:").then(|| location(place)).flatten()
        });
        return hint.with_message(panic.as_str()).at(frame);
    }
    hint
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::fixtures::text;

    fn expected() -> [FailureHint; 2] {
        [
            FailureHint {
                name: "TestAddWrong".into(),
                file: Some("calc_test.go".into()),
                line: Some(13),
                message: Some("Add(1, 2) = 3, want 4".into()),
            },
            FailureHint {
                name: "TestTable/two".into(),
                file: Some("calc_test.go".into()),
                line: Some(21),
                message: Some("got 4 want 5".into()),
            },
        ]
    }

    #[test]
    fn plain_output_counts_failed_leaves_and_cannot_count_passes() {
        let parsed = parse(&text("go_failing")).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (None, Some(2)));
        assert_eq!(parsed.note, Some(NO_PASSES));
        assert_eq!(parsed.failures, expected());
        let passing = parse(&text("go_passing")).unwrap();
        assert_eq!((passing.passed, passing.failed), (None, Some(0)));
    }

    #[test]
    fn verbose_and_json_count_both() {
        for fixture in ["go_verbose", "go_json"] {
            let parsed = parse(&text(fixture)).unwrap();
            // TestAdd, TestTable/one, TestSubOK pass; TestSkipped is neither; TestTable is
            // a parent.
            assert_eq!((parsed.passed, parsed.failed), (Some(3), Some(2)), "{fixture}");
            assert_eq!(parsed.failures, expected(), "{fixture}");
            assert_eq!(parsed.note, None);
        }
    }

    #[test]
    fn panics_and_build_failures() {
        let panic = "=== RUN   TestBoom\n--- FAIL: TestBoom (0.00s)\npanic: runtime error: index out of range [3] with length 0 [recovered]\n\tpanicked: runtime error\n\ngoroutine 7 [running]:\nexample.com/m.TestBoom(0xc000007860)\n\t/src/m/boom_test.go:8 +0x1d\nFAIL\texample.com/m\t0.004s\nFAIL\n";
        let parsed = parse(panic).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (Some(0), Some(1)));
        let boom = &parsed.failures[0];
        assert_eq!(boom.name, "TestBoom");
        assert_eq!((boom.file.as_deref(), boom.line), (Some("/src/m/boom_test.go"), Some(8)));
        assert!(boom.message.as_deref().unwrap().starts_with("panic: runtime error: index"));

        // go writes the compiler's errors to stderr, after the results on stdout.
        let parsed = parse(&text("go_build_failed")).unwrap();
        assert_eq!((parsed.passed, parsed.failed), (None, Some(0)));
        assert_eq!(
            parsed.failures,
            [FailureHint {
                name: "example.com/gom [build failed]".into(),
                file: Some("calc.go".into()),
                line: Some(4),
                message: Some("undefined: x".into()),
            }]
        );
    }

    #[test]
    fn other_output_is_not_go() {
        assert_eq!(parse("ok then\nFAIL is a word\n"), None);
        assert_eq!(parse(&text("cargo_failing")), None);
        assert_eq!(parse(&text("pytest_failing")), None);
    }
}
