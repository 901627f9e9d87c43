//! The words and text a run's result uses: [`termination`] (the `termination` field),
//! [`command_display`] (the `command_display` field, one unambiguous line), [`streams`] (a
//! run's output for the model) and [`bound_text`], which keeps the model-visible text within
//! `MAX_RESULT_BYTES` (head and tail, the whole text in a [`Sink`]).

use toolhost_sdk::limits::{FOOTER_RESERVE_BYTES, MAX_RESULT_BYTES};
use toolhost_sdk::process::Termination;

use toolhost_sdk::error_kinds::ErrorKind;

use crate::runner::Ran;
use crate::spec::RunSpec;

/// The `termination` word: exited, timed_out, cancelled, signalled or spawn_failed.
pub fn termination(t: Termination) -> &'static str {
    match t {
        Termination::Exited => "exited",
        Termination::TimedOut => "timed_out",
        Termination::Cancelled => "cancelled",
        Termination::Signalled => "signalled",
        Termination::SpawnFailed => "spawn_failed",
    }
}

/// Whether `word` is shown as is: non-empty and only `[A-Za-z0-9_./=:,+@%-]`.
fn plain(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "_./=:,+@%-".contains(c))
}

/// The command line as one line: each of the program and its arguments as is when
/// [`plain`], else as a JSON string literal (so a space, quote, newline or control
/// character can never make two words look like one, or one like two).
pub fn command_display(program: &str, args: &[String]) -> String {
    std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .map(|word| {
            if plain(word) {
                word.to_owned()
            } else {
                serde_json::to_string(word).expect("a string encodes")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A run's output for the model: each stream under its name (an empty one said to be
/// empty), a stream the host cut noted as such.
pub fn streams(ran: &Ran) -> String {
    let mut text = String::new();
    for (name, body, cut) in [
        ("stdout", &ran.stdout, ran.stdout_truncated),
        ("stderr", &ran.stderr, ran.stderr_truncated),
    ] {
        if body.is_empty() {
            text.push_str(&format!("{name}: (empty)\n"));
            continue;
        }
        let note = if cut { " (its start and end; the middle was cut)" } else { "" };
        text.push_str(&format!("{name}{note}:\n{body}"));
        if !body.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

/// Where the whole text goes when it is too long to return (a host spill in the component).
pub trait Sink {
    /// Appends one line.
    fn line(&mut self, line: &str);
    /// Closes the file: its path and whether it was capped, or none when saving failed.
    fn finish(&mut self) -> Option<(String, bool)>;
}

/// `text` within `MAX_RESULT_BYTES`: whole, or its head and tail around a line naming the
/// file `sink` saved the whole text to (one line per append).
pub fn bound_text(text: String, sink: &mut dyn Sink) -> String {
    if text.len() <= MAX_RESULT_BYTES {
        return text;
    }
    for line in text.split('\n') {
        sink.line(line);
    }
    let saved = match sink.finish() {
        Some((path, capped)) => format!(
            "; the whole text is saved to {path}{}",
            if capped { " (only the first 64 MB were saved)" } else { "" }
        ),
        None => String::new(),
    };
    let budget = MAX_RESULT_BYTES - FOOTER_RESERVE_BYTES;
    let head_end = text.floor_char_boundary(budget / 2);
    let head_end = text[..head_end].rfind('\n').map_or(head_end, |i| i + 1);
    let tail_start = text.ceil_char_boundary(text.len() - budget / 2);
    let tail_start = text[tail_start..].find('\n').map_or(tail_start, |i| tail_start + i + 1);
    let omitted = tail_start - head_end;
    format!(
        "{}[... {omitted} bytes of this result omitted here{saved} ...]\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

/// How a run of `spec` ended, as the words after its command line in a summary, and the
/// failure kind (none for exit 0): a non-zero exit or a signal is a failed command, a timeout
/// a timeout (`kept` says what of its output is kept), a program that could not start a spawn
/// failure.
pub fn how_it_ended(spec: &RunSpec, ran: &Ran, kept: &str) -> (String, Option<ErrorKind>) {
    let ms = ran.duration_ms;
    match ran.termination {
        Termination::Exited if ran.exit_code == Some(0) => {
            (format!("exited with code 0 in {ms} ms"), None)
        }
        Termination::Exited => (
            format!("exited with code {} in {ms} ms", ran.exit_code.unwrap_or(-1)),
            Some(ErrorKind::CommandFailed),
        ),
        Termination::TimedOut => (
            format!(
                "did not finish within its timeout of {} ms and was killed with its process tree; {kept}",
                spec.timeout_ms
            ),
            Some(ErrorKind::Timeout),
        ),
        Termination::Signalled => (
            format!("was killed by signal {} after {ms} ms", ran.signal.unwrap_or(0)),
            Some(ErrorKind::CommandFailed),
        ),
        Termination::SpawnFailed => (
            format!(
                "could not be started: {}",
                ran.stderr.lines().next().unwrap_or("no reason given").trim()
            ),
            Some(ErrorKind::SpawnFailed),
        ),
        Termination::Cancelled => ("was cancelled".to_owned(), Some(ErrorKind::Cancelled)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Lines(Vec<String>, bool);

    impl Sink for Lines {
        fn line(&mut self, line: &str) {
            self.0.push(line.to_owned());
        }
        fn finish(&mut self) -> Option<(String, bool)> {
            self.1 = true;
            Some(("/spill/x.txt".into(), false))
        }
    }

    #[test]
    fn terminations_have_the_seed_s_words() {
        assert_eq!(termination(Termination::Exited), "exited");
        assert_eq!(termination(Termination::TimedOut), "timed_out");
        assert_eq!(termination(Termination::Cancelled), "cancelled");
        assert_eq!(termination(Termination::Signalled), "signalled");
        assert_eq!(termination(Termination::SpawnFailed), "spawn_failed");
    }

    #[test]
    fn command_display_quotes_only_what_is_not_plain() {
        let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            command_display("cargo", &args(&["test", "--features=a,b", "-p", "x@1.0", "50%"])),
            "cargo test --features=a,b -p x@1.0 50%"
        );
        assert_eq!(
            command_display("sh", &args(&["-c", "ls | wc -l", "", "a\nb", "it's", "\u{1b}[2J"])),
            r#"sh -c "ls | wc -l" "" "a\nb" "it's" "\u001b[2J""#
        );
        assert_eq!(command_display("./my tool", &[]), r#""./my tool""#);
        assert_eq!(command_display("caf\u{e9}", &[]), "\"caf\u{e9}\"");
    }

    fn ran(stdout: &str, cut: bool, stderr: &str) -> Ran {
        Ran {
            termination: Termination::Exited,
            exit_code: Some(0),
            signal: None,
            stdout: stdout.into(),
            stdout_truncated: cut,
            stderr: stderr.into(),
            stderr_truncated: false,
            duration_ms: 1,
        }
    }

    #[test]
    fn streams_name_each_stream() {
        assert_eq!(streams(&ran("a\nb\n", false, "")), "stdout:\na\nb\nstderr: (empty)\n");
        assert_eq!(streams(&ran("", false, "warn")), "stdout: (empty)\nstderr:\nwarn\n");
        assert!(
            streams(&ran("x", true, ""))
                .starts_with("stdout (its start and end; the middle was cut):\nx\n")
        );
    }

    #[test]
    fn long_text_keeps_head_and_tail_and_spills_every_line() {
        let text: String = (0..5000).map(|i| format!("line {i} \u{e9}\n")).collect();
        let mut sink = Lines::default();
        let bounded = bound_text(text.clone(), &mut sink);
        assert!(bounded.len() <= MAX_RESULT_BYTES, "{}", bounded.len());
        assert!(bounded.starts_with("line 0 \u{e9}\n") && bounded.ends_with("line 4999 \u{e9}\n"));
        assert!(bounded.contains(
            "bytes of this result omitted here; the whole text is saved to /spill/x.txt"
        ));
        assert_eq!(sink.0.join("\n"), text);
        assert!(sink.1);
        let mut unused = Lines::default();
        assert_eq!(bound_text("short".into(), &mut unused), "short");
        assert!(unused.0.is_empty() && !unused.1);
    }
}
