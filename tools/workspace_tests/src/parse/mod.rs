//! Reading a test run's output: how many tests passed and failed, and which failed where.
//!
//! One module per runner, each reading the lines that runner prints (their real output is
//! kept in `fixtures/` and read by the tests): [`cargo`] (`cargo test`), [`pytest`],
//! [`jest`], [`vitest`] and [`gotest`] (`go test`, plain, `-v` and `-json`). [`parse`] picks
//! the runner the command names first, then tries every parser in turn on the run's stdout
//! and stderr with their ANSI colour codes removed ([`ansi`]); the first that recognises its
//! summary wins. Every parser is best effort: what it cannot read stays `None`, and
//! [`Hints`] keeps the failures within [`MAX_FAILURES`] entries of [`MAX_MESSAGE_BYTES`].

pub mod ansi;
pub mod cargo;
pub mod gotest;
pub mod jest;
pub mod pytest;
pub mod vitest;

use schemars::JsonSchema;
use serde::Serialize;

/// Most entries `failure_summary` lists.
pub const MAX_FAILURES: usize = 50;
/// Most bytes of one entry's `message` (and of its `name`).
pub const MAX_MESSAGE_BYTES: usize = 500;

/// The runner whose output was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `cargo test` (libtest).
    Cargo,
    /// pytest.
    Pytest,
    /// Jest.
    Jest,
    /// Vitest.
    Vitest,
    /// `go test`.
    Go,
}

impl Format {
    /// The name the summary uses.
    pub fn name(self) -> &'static str {
        match self {
            Format::Cargo => "cargo test",
            Format::Pytest => "pytest",
            Format::Jest => "jest",
            Format::Vitest => "vitest",
            Format::Go => "go test",
        }
    }

    /// Every format, in the order they are tried when the command names none.
    pub const ALL: [Format; 5] =
        [Format::Cargo, Format::Go, Format::Vitest, Format::Jest, Format::Pytest];

    fn parse(self, text: &str) -> Option<Parsed> {
        match self {
            Format::Cargo => cargo::parse(text),
            Format::Pytest => pytest::parse(text),
            Format::Jest => jest::parse(text),
            Format::Vitest => vitest::parse(text),
            Format::Go => gotest::parse(text),
        }
    }
}

/// One failed test, as far as the output says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FailureHint {
    /// The test's name as the runner prints it (`tests::adds`, `math › adds`, `TestAdd/two`).
    pub name: String,
    /// The file the failure points at, as printed (relative to where the runner ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The line in `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The assertion or error message (at most 500 bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl FailureHint {
    /// A failure of `name` with nothing else known.
    pub fn named(name: impl Into<String>) -> Self {
        FailureHint { name: bound(name.into()), file: None, line: None, message: None }
    }

    /// The same failure with its message (bounded; blank is none).
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        let message = message.into();
        let message = message.trim();
        self.message = (!message.is_empty()).then(|| bound(message.to_owned()));
        self
    }

    /// The same failure at `location` (`file:line` or `file:line:col`), when it is one.
    pub fn at(mut self, location: Option<(String, u32)>) -> Self {
        if let Some((file, line)) = location {
            self.file = Some(bound(file));
            self.line = Some(line);
        }
        self
    }
}

/// What a run's output said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// Whose output it was.
    pub format: Format,
    /// Tests that passed, when the output says.
    pub passed: Option<u64>,
    /// Tests that failed (errors included), when the output says.
    pub failed: Option<u64>,
    /// The failures found, at most [`MAX_FAILURES`].
    pub failures: Vec<FailureHint>,
    /// How many failures were found in all (more than listed when the list was cut).
    pub failures_found: usize,
    /// A note on what could not be read (e.g. `go test` without `-v` lists no passes).
    pub note: Option<&'static str>,
}

impl Parsed {
    /// Output of `format` with the counts given and no failures yet.
    pub fn new(format: Format, passed: Option<u64>, failed: Option<u64>) -> Self {
        Parsed { format, passed, failed, failures: Vec::new(), failures_found: 0, note: None }
    }

    /// The same with the failures `hints` collected.
    pub fn with_failures(mut self, hints: Hints) -> Self {
        self.failures_found = hints.found;
        self.failures = hints.list;
        self
    }
}

/// Failures collected in order, the first [`MAX_FAILURES`] kept, each distinct name once.
#[derive(Debug, Default)]
pub struct Hints {
    list: Vec<FailureHint>,
    found: usize,
}

impl Hints {
    /// Adds `hint` unless one of the same name and file is there already.
    pub fn push(&mut self, hint: FailureHint) {
        if self.list.iter().any(|h| h.name == hint.name && h.file == hint.file) {
            return;
        }
        self.found += 1;
        if self.list.len() < MAX_FAILURES {
            self.list.push(hint);
        }
    }

    /// Whether a failure of this name was kept.
    pub fn has(&self, name: &str) -> bool {
        self.list.iter().any(|h| h.name == name)
    }
}

/// `text` cut to [`MAX_MESSAGE_BYTES`] at a character boundary, `…` marking a cut.
pub fn bound(text: String) -> String {
    if text.len() <= MAX_MESSAGE_BYTES {
        return text;
    }
    let end = text.floor_char_boundary(MAX_MESSAGE_BYTES - '…'.len_utf8());
    format!("{}…", &text[..end])
}

/// `file:line` or `file:line:col` (a trailing `:` allowed) as the file and the line.
pub fn location(text: &str) -> Option<(String, u32)> {
    let text = text.trim().trim_end_matches(':');
    let mut parts = text.rsplitn(3, ':');
    let last = parts.next()?;
    let before = parts.next()?;
    let (file, line) = match (before.parse::<u32>(), last.parse::<u32>()) {
        // file:line:col
        (Ok(line), Ok(_)) => (parts.next()?, line),
        // file:line
        (Err(_), Ok(line)) => (text.rsplit_once(':')?.0, line),
        _ => return None,
    };
    (!file.is_empty() && !file.contains(char::is_whitespace)).then(|| (file.to_owned(), line))
}

/// The runner the command names: its program or one of its arguments (`npx vitest`,
/// `python -m pytest`, `uv run pytest`); none for a script runner like `npm test`.
pub fn format_named(program: &str, args: &[String]) -> Option<Format> {
    std::iter::once(program).chain(args.iter().map(String::as_str)).find_map(|word| {
        let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
        let base = base.strip_suffix(".exe").unwrap_or(base);
        match base {
            "cargo" | "cargo-nextest" => Some(Format::Cargo),
            "pytest" | "py.test" => Some(Format::Pytest),
            "jest" => Some(Format::Jest),
            "vitest" => Some(Format::Vitest),
            "go" => Some(Format::Go),
            _ => None,
        }
    })
}

/// Reads counts and failures from a run's `stdout` and `stderr`: the runner `named` first
/// (see [`format_named`]), then every other; none when no parser recognises the output.
pub fn parse(named: Option<Format>, stdout: &str, stderr: &str) -> Option<Parsed> {
    let text = ansi::strip(&format!("{stdout}\n{stderr}"));
    named
        .into_iter()
        .chain(Format::ALL.into_iter().filter(|f| Some(*f) != named))
        .find_map(|format| format.parse(&text))
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! The real outputs in `fixtures/`, made by running each runner on a small project.

    /// stdout and stderr of fixture `name` (`name.stdout.txt`, `name.stderr.txt`; a missing
    /// stderr is empty).
    pub fn read(name: &str) -> (String, String) {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/parse/fixtures");
        let stdout = std::fs::read_to_string(format!("{dir}/{name}.stdout.txt"))
            .unwrap_or_else(|e| panic!("fixture {name}: {e}"));
        let stderr =
            std::fs::read_to_string(format!("{dir}/{name}.stderr.txt")).unwrap_or_default();
        (stdout, stderr)
    }

    /// The fixture as the parsers see it: both streams, colour codes removed.
    pub fn text(name: &str) -> String {
        let (stdout, stderr) = read(name);
        super::ansi::strip(&format!("{stdout}\n{stderr}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_with_and_without_columns() {
        assert_eq!(location("src/lib.rs:26:9:"), Some(("src/lib.rs".into(), 26)));
        assert_eq!(location("calc_test.go:13"), Some(("calc_test.go".into(), 13)));
        assert_eq!(location("C:\\x\\a.js:3:4"), Some(("C:\\x\\a.js".into(), 3)));
        assert_eq!(location("no location here"), None);
        assert_eq!(location("file.rs:x:y"), None);
        assert_eq!(location(":3"), None);
    }

    #[test]
    fn bound_cuts_at_a_char_boundary() {
        let long = "é".repeat(400);
        let cut = bound(long);
        assert!(cut.len() <= MAX_MESSAGE_BYTES && cut.ends_with('…'), "{}", cut.len());
        assert_eq!(bound("short".into()), "short");
    }

    #[test]
    fn hints_keep_fifty_and_count_all() {
        let mut hints = Hints::default();
        for i in 0..73 {
            hints.push(FailureHint::named(format!("t{i}")));
        }
        hints.push(FailureHint::named("t1"));
        let parsed = Parsed::new(Format::Cargo, Some(0), Some(73)).with_failures(hints);
        assert_eq!((parsed.failures.len(), parsed.failures_found), (MAX_FAILURES, 73));
    }

    #[test]
    fn the_command_names_its_runner() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(format_named("cargo", &args(&["test"])), Some(Format::Cargo));
        assert_eq!(format_named("python3", &args(&["-m", "pytest"])), Some(Format::Pytest));
        assert_eq!(format_named("npx", &args(&["vitest", "run"])), Some(Format::Vitest));
        assert_eq!(format_named("/usr/bin/go", &args(&["test", "./..."])), Some(Format::Go));
        assert_eq!(format_named("npm", &args(&["test"])), None);
    }

    #[test]
    fn every_fixture_is_read_by_its_own_parser_whatever_the_command() {
        for (name, format) in [
            ("cargo_failing", Format::Cargo),
            ("cargo_passing", Format::Cargo),
            ("pytest_failing", Format::Pytest),
            ("pytest_quiet", Format::Pytest),
            ("jest_failing", Format::Jest),
            ("vitest_plain", Format::Vitest),
            ("vitest_color", Format::Vitest),
            ("go_failing", Format::Go),
            ("go_verbose", Format::Go),
            ("go_json", Format::Go),
            ("go_build_failed", Format::Go),
            ("jest_multi", Format::Jest),
            ("vitest_multi", Format::Vitest),
            ("pytest_collect_error", Format::Pytest),
            ("cargo_backtrace", Format::Cargo),
        ] {
            let (stdout, stderr) = fixtures::read(name);
            let parsed = parse(None, &stdout, &stderr).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(parsed.format, format, "{name}");
            for named in Format::ALL {
                let again = parse(Some(named), &stdout, &stderr).unwrap();
                assert_eq!(again.format, format, "{name} named {named:?}");
            }
        }
    }

    #[test]
    fn output_no_parser_knows_is_none() {
        assert_eq!(parse(None, "hello\nworld\n", ""), None);
        assert_eq!(parse(Some(Format::Cargo), "", "make: *** [test] Error 2"), None);
    }
}
