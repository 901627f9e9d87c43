//! The whole call against real programs and a real directory: [`NativeRunner`] runs exactly
//! the spec the component gives `process.run` (without the host's sandbox or approval) and
//! [`NativeTree`] reads a temporary workspace, so each test proves what the tool plans, what
//! it asks approval for, and how it reports the run.

use serde_json::{Value, json};
use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::process::Termination;
use toolhost_sdk::{ErrorCode, Inspection, Tool, parse_input};
use toolhost_workspace_run::display::Sink;
use toolhost_workspace_run::native::NativeRunner;
use toolhost_workspace_run::{Failure, Ran, RunSpec, Runner};

use crate::detect::native::NativeTree;
use crate::input::{Plan, TestsInput, plan};
use crate::{TestRunner, WorkspaceTests, call};

impl TestRunner for NativeRunner {}

fn input(value: Value) -> TestsInput {
    parse_input(&value.to_string()).unwrap_or_else(|e| panic!("{value}: {}", e.message))
}

/// A spill kept in memory.
#[derive(Default)]
struct MemorySink;

impl Sink for MemorySink {
    fn line(&mut self, _: &str) {}
    fn finish(&mut self) -> Option<(String, bool)> {
        Some(("/spill/whole.txt".into(), false))
    }
}

/// A call made natively in `root`: the structured value, the text, and what ran.
fn call_in(root: &std::path::Path, value: Value) -> (Value, String, Vec<RunSpec>) {
    let mut runner = NativeRunner::new(root);
    let mut tree = NativeTree(root.to_owned());
    let output = call(&input(value), &mut tree, &mut runner, &mut MemorySink).unwrap();
    (output.structured.unwrap(), output.text, runner.runs)
}

/// Writes `files` (path, contents) under `root`.
fn write(root: &std::path::Path, files: &[(&str, &str)]) {
    for (path, contents) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, contents).unwrap();
    }
}

const CRATE: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    ),
    (
        "src/lib.rs",
        "#[cfg(test)]\nmod tests {\n    #[test]\n    fn passes() {}\n\n    #[test]\n    fn fails() {\n        assert_eq!(1 + 1, 3, \"arithmetic\");\n    }\n}\n",
    ),
];

#[test]
fn detect_then_run_a_real_cargo_crate() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), CRATE);

    let (detected, text, runs) = call_in(tmp.path(), json!({"operation": "detect"}));
    assert!(runs.is_empty(), "detect runs nothing");
    assert_eq!(detected["operation"], "detect");
    assert_eq!(detected["success"], true);
    let project = &detected["detected_project"];
    assert_eq!(project["project_type"], "rust");
    assert_eq!(project["confidence"], "high");
    assert_eq!(
        project["suggested_command"],
        json!({"command": "cargo", "args": ["test", "--workspace"]})
    );
    assert!(
        text.starts_with("detected in .: rust (cargo, cargo): `cargo test --workspace`"),
        "{text}"
    );

    let suggested = &project["suggested_command"];
    let (value, text, runs) = call_in(
        tmp.path(),
        json!({"operation": "run", "command": suggested["command"], "args": suggested["args"]}),
    );
    assert_eq!(runs.len(), 1);
    assert_eq!(value["success"], false, "{text}");
    assert_eq!(value["error_kind"], "LOCAL_EXECUTOR_COMMAND_FAILED");
    assert_eq!(value["terminal"], false);
    assert_eq!(value["termination"], "exited");
    assert_eq!((value["passed"].clone(), value["failed"].clone()), (json!(1), json!(1)), "{text}");
    assert_eq!(value["command_display"], "cargo test --workspace");
    let failure = &value["failure_summary"][0];
    assert_eq!(failure["name"], "tests::fails");
    assert_eq!(failure["file"], "src/lib.rs");
    assert_eq!(failure["line"], 8);
    assert!(failure["message"].as_str().unwrap().contains("arithmetic"), "{failure}");
    assert!(value["summary"].as_str().unwrap().contains("cargo test: 1 passed, 1 failed"));
    assert!(text.contains("failures:\n- tests::fails at src/lib.rs:8\n"), "{text}");
    assert!(text.contains("stdout:\n") && text.contains("stderr:\n"));
    assert!(value["duration_ms"].is_u64());
}

#[test]
fn inspect_asks_for_run_only_with_the_spec_execute_runs() {
    let tool = WorkspaceTests;
    let run = input(json!({"operation": "run", "command": "pytest", "args": ["-q"], "cwd": "py"}));
    let Inspection::Runs(text) = tool.inspect(&run) else { panic!("run asks") };
    let approval: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        approval,
        json!({"program": "pytest", "args": ["-q"], "cwd": "py", "env": [], "timeout_ms": 300000, "purpose": null})
    );
    let Ok(Plan::Run(spec)) = plan(&run) else { panic!() };
    assert_eq!(spec.to_json(), text);
    assert!(matches!(tool.inspect(&input(json!({"operation": "detect"}))), Inspection::ReadOnly));
    assert!(matches!(tool.inspect(&input(json!({"operation": "run"}))), Inspection::ReadOnly));
    assert_eq!(tool.id(), "workspace_tests");
    assert!(matches!(tool.risk(), toolhost_sdk::Risk::ProcessExecution));
}

#[test]
fn refused_input_runs_nothing_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    for (value, kind) in [
        (json!({"operation": "run"}), "LOCAL_EXECUTOR_INVALID_INPUT"),
        (json!({"operation": "detect", "command": "cargo"}), "LOCAL_EXECUTOR_INVALID_INPUT"),
        (
            json!({"operation": "run", "command": "cargo", "cwd": "a\0b"}),
            "LOCAL_EXECUTOR_INVALID_INPUT",
        ),
        (
            json!({"operation": "run", "command": "make", "$operator": {"command_whitelist": ["cargo"]}}),
            "LOCAL_EXECUTOR_POLICY_DENIED",
        ),
    ] {
        let (out, text, runs) = call_in(tmp.path(), value.clone());
        assert!(runs.is_empty(), "{value}");
        assert_eq!(out["success"], false);
        assert_eq!(out["error_kind"], kind, "{value}");
        assert!(text.contains(kind), "{text}");
    }
    let (out, _, _) = call_in(tmp.path(), json!({"operation": "detect", "cwd": "missing"}));
    assert_eq!(out["error_kind"], "LOCAL_EXECUTOR_NOT_FOUND");
    assert_eq!(out["operation"], "detect");
}

#[test]
fn output_nobody_recognises_has_null_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, text, _) =
        call_in(tmp.path(), json!({"operation": "run", "command": "echo", "args": ["hello"]}));
    assert_eq!(out["success"], true);
    assert_eq!(out["passed"], Value::Null);
    assert_eq!(out["failed"], Value::Null);
    assert!(out.as_object().unwrap().contains_key("passed"));
    assert_eq!(out["failure_summary"], json!([]));
    assert!(text.contains("counts could not be read"), "{text}");
    assert_eq!(out["stdout"], "hello\n");
}

#[test]
fn a_timeout_keeps_the_output_and_counts_so_far() {
    let tmp = tempfile::tempdir().unwrap();
    // Real cargo output up to the point a run is stopped, then a hang.
    write(
        tmp.path(),
        &[(
            "slow.sh",
            "printf '\\nrunning 3 tests\\ntest tests::a ... ok\\ntest tests::b ... FAILED\\n'\nsleep 30\n",
        )],
    );
    let (out, text, _) = call_in(
        tmp.path(),
        json!({"operation": "run", "command": "sh", "args": ["slow.sh"], "timeout_ms": 300}),
    );
    assert_eq!(out["termination"], "timed_out");
    assert_eq!(out["error_kind"], "LOCAL_EXECUTOR_TIMEOUT");
    assert_eq!(out["terminal"], false);
    assert_eq!((out["passed"].clone(), out["failed"].clone()), (json!(1), json!(1)));
    assert_eq!(out["failure_summary"][0]["name"], "tests::b");
    assert!(text.contains("timeout of 300 ms"), "{text}");
}

#[test]
fn a_program_that_does_not_start_is_a_spawn_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, _, _) =
        call_in(tmp.path(), json!({"operation": "run", "command": "no-such-test-runner-xyz"}));
    assert_eq!(out["termination"], "spawn_failed");
    assert_eq!(out["error_kind"], "LOCAL_EXECUTOR_SPAWN_FAILED");
    assert_eq!(out["passed"], Value::Null);
}

/// A runner standing in for the host in what a native run cannot show: a cancelled run, a
/// refusal, and streams the host saved whole.
struct Scripted {
    ran: Result<Ran, Failure>,
    whole: [Option<String>; 2],
    runs: usize,
}

impl Runner for Scripted {
    fn run(&mut self, _: &RunSpec) -> Result<Ran, Failure> {
        self.runs += 1;
        self.ran.clone()
    }
}

impl TestRunner for Scripted {
    fn whole(&mut self) -> [Option<String>; 2] {
        self.whole.clone()
    }
}

fn ran(termination: Termination, stdout: &str) -> Ran {
    Ran {
        termination,
        exit_code: (termination == Termination::Exited).then_some(1),
        signal: None,
        stdout: stdout.into(),
        stdout_truncated: false,
        stderr: String::new(),
        stderr_truncated: false,
        duration_ms: 5,
    }
}

fn scripted(runner: &mut Scripted, value: Value) -> Result<Value, toolhost_sdk::ToolError> {
    let tmp = tempfile::tempdir().unwrap();
    let mut tree = NativeTree(tmp.path().to_owned());
    call(&input(value), &mut tree, runner, &mut MemorySink).map(|o| o.structured.unwrap())
}

#[test]
fn the_whole_saved_output_is_parsed_not_the_head_and_tail() {
    let (stdout, stderr) = crate::parse::fixtures::read("pytest_failing");
    let cut = format!("{}\n[... omitted ...]\n", &stdout[..200]);
    let mut runner = Scripted {
        ran: Ok(Ran { stdout_truncated: true, ..ran(Termination::Exited, &cut) }),
        whole: [Some(stdout), Some(stderr)],
        runs: 0,
    };
    let out = scripted(&mut runner, json!({"operation": "run", "command": "pytest"})).unwrap();
    assert_eq!((out["passed"].clone(), out["failed"].clone()), (json!(3), json!(4)));
    assert_eq!(out["failure_summary"].as_array().unwrap().len(), 4);
    assert_eq!(out["stdout"], cut, "the result shows what the host returned");
    assert_eq!(out["stdout_truncated"], true);
}

#[test]
fn cancellation_is_the_call_s_error_and_host_refusals_are_structured() {
    let mut runner =
        Scripted { ran: Ok(ran(Termination::Cancelled, "")), whole: [None, None], runs: 0 };
    let err = scripted(&mut runner, json!({"operation": "run", "command": "cargo"})).unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);

    let refused =
        Failure::new(ErrorKind::SandboxUnavailable, "the host refused the run: no sandbox");
    let mut runner = Scripted { ran: Err(refused), whole: [None, None], runs: 0 };
    let out =
        scripted(&mut runner, json!({"operation": "run", "command": "cargo", "args": ["test"]}))
            .unwrap();
    assert_eq!(runner.runs, 1);
    assert_eq!(out["error_kind"], "LOCAL_EXECUTOR_SANDBOX_UNAVAILABLE");
    assert_eq!(out["command_display"], "cargo test");
    assert!(out.get("passed").is_none(), "nothing ran, nothing counted");
}
