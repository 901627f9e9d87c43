//! What a call returns: the structured value ([`TestsOutput`], the fields of
//! docs/workspace-tools.md) and the model-visible text, for a detection ([`detected`]), a
//! test run that ended ([`ran`]) or a call that did not happen ([`failed`]). The text is
//! bounded by the caller (`toolhost_workspace_run::display::bound_text`).

use schemars::JsonSchema;
use serde::Serialize;
use toolhost_sdk::process::Termination;
use toolhost_workspace_run::display::{command_display, how_it_ended, streams, termination};
use toolhost_workspace_run::{Ran, RunSpec};

use crate::detect::{Detected, DirFindings, Project};
use crate::failure::Failure;
use crate::input::TestsOperation;
use crate::parse::{FailureHint, Parsed};

/// The structured result of `workspace_tests`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TestsOutput {
    /// The operation: detect or run.
    pub operation: String,
    /// detect: whether detection worked (finding nothing is a success); run: whether the
    /// command ran and exited with code 0.
    pub success: bool,
    /// One line saying what was found or how the tests went (or why nothing ran).
    pub summary: String,
    /// detect: the best match — project_type, package_manager, test_framework,
    /// suggested_command {command, args}, confidence (high, medium, low), evidence [{file,
    /// reason}] — with `candidates` (the other toolchains in the directory); null when
    /// nothing was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Detected>")]
    pub detected_project: Option<Option<Detected>>,
    /// run: the command line run (or refused): each word as is when plain, else as a JSON
    /// string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_display: Option<String>,
    /// run: tests that passed, read from the output; null when it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<u64>")]
    pub passed: Option<Option<u64>>,
    /// run: tests that failed (errors included), read from the output; null when it could
    /// not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<u64>")]
    pub failed: Option<Option<u64>>,
    /// run: wall time of the run in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// run: the failed tests the output names (at most 50; best effort): name, and where
    /// known file, line and message (at most 500 bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_summary: Option<Vec<FailureHint>>,
    /// run: how the run ended: exited, timed_out, cancelled, signalled or spawn_failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination: Option<String>,
    /// run: stdout, whole when short, else its first 2 KiB and last 14 KiB around a line
    /// naming the file holding all of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// run: whether `stdout` is not all of it (head and tail kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout_truncated: Option<bool>,
    /// run: stderr, bounded like stdout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// run: whether `stderr` is not all of it (head and tail kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_truncated: Option<bool>,
    /// On failure: the `LOCAL_EXECUTOR_*` kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<String>,
    /// On failure: whether the same call will fail the same way again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal: Option<bool>,
    /// On failure: what went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl TestsOutput {
    fn new(operation: TestsOperation, success: bool, summary: String) -> Self {
        TestsOutput {
            operation: operation.name().into(),
            success,
            summary,
            detected_project: None,
            command_display: None,
            passed: None,
            failed: None,
            duration_ms: None,
            failure_summary: None,
            termination: None,
            stdout: None,
            stdout_truncated: None,
            stderr: None,
            stderr_truncated: None,
            error_kind: None,
            terminal: None,
            error: None,
        }
    }
}

/// The value and text of a call that did not happen: refused by this tool, or (with the
/// spec) by the host, or a detection that could not read the directory.
pub fn failed(
    operation: TestsOperation,
    spec: Option<&RunSpec>,
    failure: &Failure,
) -> (TestsOutput, String) {
    let shown = spec.map(|s| command_display(&s.program, &s.args));
    let verb = if operation == TestsOperation::Run { "not run" } else { "detect failed" };
    let mut output = TestsOutput::new(operation, false, format!("{verb}: {}", failure.message));
    output.command_display = shown.clone();
    output.error_kind = Some(failure.kind.name().into());
    output.terminal = Some(failure.kind.terminal());
    output.error = Some(failure.message.clone());
    let mut text = format!("{} ({})", failure.message, failure.kind.name());
    if let Some(shown) = shown {
        text.push_str(&format!("\ncommand: {shown}"));
    }
    (output, text)
}

/// One line naming a project: type, manager, framework, command, confidence.
fn describe(project: &Project) -> String {
    let command =
        command_display(&project.suggested_command.command, &project.suggested_command.args);
    let framework = project.test_framework.as_deref().map_or(String::new(), |f| format!(", {f}"));
    format!(
        "{} ({}{framework}): `{command}`, {} confidence",
        project.project_type,
        project.package_manager,
        project.confidence.name()
    )
}

/// The value and text of a detection.
pub fn detected(found: DirFindings) -> (TestsOutput, String) {
    let Some(detected) = found.detected else {
        let mut summary = format!(
            "no Cargo, Node, pytest or Go project found in {} (no Cargo.toml, package.json, go.mod, pytest configuration or test files)",
            found.dir
        );
        if !found.subprojects.is_empty() {
            let list: Vec<String> = found
                .subprojects
                .iter()
                .map(|(dir, manifest)| format!("{dir} ({manifest})"))
                .collect();
            summary.push_str(&format!(
                "; subdirectories with a project: {} — pass one as `cwd`",
                list.join(", ")
            ));
        }
        let mut output = TestsOutput::new(TestsOperation::Detect, true, summary.clone());
        output.detected_project = Some(None);
        return (output, summary);
    };
    let summary = format!("detected in {}: {}", found.dir, describe(&detected.project));
    let mut text = summary.clone();
    text.push_str("\nevidence:");
    for e in &detected.project.evidence {
        text.push_str(&format!("\n  {}: {}", e.file, e.reason));
    }
    if !detected.candidates.is_empty() {
        text.push_str("\nother toolchains here:");
        for c in &detected.candidates {
            text.push_str(&format!("\n  {}", describe(c)));
        }
    }
    text.push_str(
        "\nTo run the tests, call run with this command (the user is asked to approve it).",
    );
    let mut output = TestsOutput::new(TestsOperation::Detect, true, summary);
    output.detected_project = Some(Some(detected));
    (output, text)
}

/// "3 passed, 1 failed" as far as the output said.
fn counts(parsed: Option<&Parsed>) -> String {
    let Some(parsed) = parsed else {
        return "the passed/failed counts could not be read from the output (not recognisably cargo test, pytest, jest, vitest or go test output)".into();
    };
    let n = |v: Option<u64>| v.map_or("? ".into(), |n| format!("{n} "));
    let mut text =
        format!("{}: {}passed, {}failed", parsed.format.name(), n(parsed.passed), n(parsed.failed));
    if parsed.passed.is_none() && parsed.failed.is_none() {
        text = format!(
            "{}: the passed/failed counts could not be read from the output",
            parsed.format.name()
        );
    }
    if let Some(note) = parsed.note {
        text.push_str(&format!(" ({note})"));
    }
    text
}

/// The value and text of a test run that ended (not cancelled: that is the call's error):
/// exit 0 succeeds; a non-zero exit or a signal is a failed command, a timeout a timeout
/// (its output and counts so far kept), a program that could not start a spawn failure.
pub fn ran(spec: &RunSpec, ran: &Ran, parsed: Option<&Parsed>) -> (TestsOutput, String) {
    let shown = command_display(&spec.program, &spec.args);
    let (how, kind) = how_it_ended(spec, ran, "the output and counts so far are kept");
    let started = ran.termination != Termination::SpawnFailed;
    let mut summary = format!("`{shown}` {how}");
    if started {
        summary.push_str(&format!("; {}", counts(parsed)));
    }
    let failures: Vec<FailureHint> = parsed.map(|p| p.failures.clone()).unwrap_or_default();
    let mut output = TestsOutput::new(TestsOperation::Run, kind.is_none(), summary.clone());
    output.command_display = Some(shown);
    output.passed = Some(parsed.and_then(|p| p.passed));
    output.failed = Some(parsed.and_then(|p| p.failed));
    output.duration_ms = Some(ran.duration_ms);
    output.failure_summary = Some(failures.clone());
    output.termination = Some(termination(ran.termination).into());
    output.stdout = Some(ran.stdout.clone());
    output.stdout_truncated = Some(ran.stdout_truncated);
    output.stderr = Some(ran.stderr.clone());
    output.stderr_truncated = Some(ran.stderr_truncated);
    output.error_kind = kind.map(|k| k.name().into());
    output.terminal = kind.map(|k| k.terminal());
    output.error = kind.map(|_| summary.clone());

    let mut text = summary;
    if let Some(kind) = kind {
        text.push_str(&format!(" ({})", kind.name()));
    }
    text.push_str(&format!("\ncwd: {}\n", spec.cwd.as_deref().unwrap_or(".")));
    if let Some(parsed) = parsed.filter(|p| p.failures_found > 0) {
        let listed = if parsed.failures_found > parsed.failures.len() {
            format!(" (the first {} of {})", parsed.failures.len(), parsed.failures_found)
        } else {
            String::new()
        };
        text.push_str(&format!("failures{listed}:\n"));
        for f in &parsed.failures {
            text.push_str(&format!("- {}", f.name));
            match (&f.file, f.line) {
                (Some(file), Some(line)) => text.push_str(&format!(" at {file}:{line}")),
                (Some(file), None) => text.push_str(&format!(" in {file}")),
                _ => {}
            }
            if let Some(message) = &f.message {
                let indented = message.replace('\n', "\n    ");
                text.push_str(&format!("\n    {indented}"));
            }
            text.push('\n');
        }
    }
    text.push_str(&streams(ran));
    (output, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::error_kinds::ErrorKind;
    use toolhost_sdk::output_schema;

    #[test]
    fn schema_names_exactly_the_seed_s_fields() {
        let schema = output_schema::<TestsOutput>();
        let mut names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        names.sort();
        let mut expected = [
            "operation",
            "success",
            "summary",
            "detected_project",
            "command_display",
            "passed",
            "failed",
            "duration_ms",
            "failure_summary",
            "termination",
            "stdout",
            "stdout_truncated",
            "stderr",
            "stderr_truncated",
            "error_kind",
            "terminal",
            "error",
        ];
        expected.sort();
        assert_eq!(names, expected);
        assert_eq!(schema["required"], serde_json::json!(["operation", "success", "summary"]));
        let text = schema.to_string();
        for inner in ["suggested_command", "confidence", "evidence", "candidates", "project_type"] {
            assert!(text.contains(inner), "{inner}");
        }
    }

    #[test]
    fn a_refusal_says_its_kind_first() {
        let f = Failure::new(ErrorKind::InvalidInput, "`run` needs `command`");
        let (value, text) = failed(TestsOperation::Run, None, &f);
        assert_eq!(text, "`run` needs `command` (LOCAL_EXECUTOR_INVALID_INPUT)");
        let json = serde_json::to_value(&value).unwrap();
        assert_eq!(json["success"], false);
        assert_eq!(json["operation"], "run");
        assert_eq!(json["error_kind"], "LOCAL_EXECUTOR_INVALID_INPUT");
        assert_eq!(json["terminal"], true);
        assert!(json.get("passed").is_none() && json.get("detected_project").is_none());
    }

    #[test]
    fn nothing_detected_is_a_success_with_a_null_project() {
        let found = DirFindings {
            dir: ".".into(),
            detected: None,
            subprojects: vec![("web".into(), "package.json".into())],
        };
        let (value, text) = detected(found);
        let json = serde_json::to_value(&value).unwrap();
        assert_eq!(json["success"], true);
        assert_eq!(json["detected_project"], serde_json::Value::Null);
        assert!(json.as_object().unwrap().contains_key("detected_project"));
        assert!(text.starts_with("no Cargo, Node, pytest or Go project found in ."));
        assert!(text.contains("web (package.json) — pass one as `cwd`"), "{text}");
    }
}
