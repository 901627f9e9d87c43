//! The whole call against real programs: [`NativeRunner`] runs exactly the spec the
//! component gives `process.run` (without the host's sandbox), so each test proves what the
//! tool plans, what it asks approval for, and how it reports the run.

use serde_json::{Value, json};
use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::limits::MAX_RESULT_BYTES;
use toolhost_sdk::process::Termination;
use toolhost_sdk::{ErrorCode, Inspection, Tool, ToolError, input_schema, parse_input};
use toolhost_workspace_run::display::Sink;
use toolhost_workspace_run::native::NativeRunner;
use toolhost_workspace_run::{Failure, Ran, RunSpec, Runner};

use crate::input::{ShellInput, plan};
use crate::{WorkspaceShell, call};

fn input(value: Value) -> ShellInput {
    parse_input(&value.to_string()).unwrap_or_else(|e| panic!("{value}: {}", e.message))
}

fn spec(value: Value) -> RunSpec {
    plan(&input(value.clone())).unwrap_or_else(|f| panic!("{value}: {f:?}"))
}

fn refusal(value: Value) -> Failure {
    plan(&input(value.clone())).expect_err(&value.to_string())
}

fn strings(s: &[&str]) -> Vec<String> {
    s.iter().map(|a| (*a).to_owned()).collect()
}

/// A spill kept in memory.
#[derive(Default)]
struct MemorySink(Vec<String>);

impl Sink for MemorySink {
    fn line(&mut self, line: &str) {
        self.0.push(line.to_owned());
    }
    fn finish(&mut self) -> Option<(String, bool)> {
        Some(("/spill/whole.txt".into(), false))
    }
}

/// A call made natively in `root`: the structured value, the text, and what ran.
fn run_in(root: &std::path::Path, value: Value) -> (Value, String, Vec<RunSpec>) {
    let mut runner = NativeRunner::new(root);
    let output = call(&input(value), &mut runner, &mut MemorySink::default()).unwrap();
    (output.structured.unwrap(), output.text, runner.runs)
}

fn run(value: Value) -> (Value, String, Vec<RunSpec>) {
    let tmp = tempfile::tempdir().unwrap();
    run_in(tmp.path(), value)
}

const SHELL_OK: &str = r#"{"allow_shell_string": true}"#;

fn allowed() -> Value {
    serde_json::from_str(SHELL_OK).unwrap()
}

#[test]
fn the_schema_has_the_model_s_fields_only() {
    let schema = input_schema::<ShellInput>();
    let mut names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    names.sort();
    assert_eq!(names, ["args", "command", "cwd", "env", "purpose", "shell_string", "timeout_ms"]);
    assert_eq!(schema["additionalProperties"], json!(false));
    assert!(schema.get("required").is_none_or(|r| r == &json!([])), "{schema}");
    let text = schema.to_string();
    for hidden in ["$operator", "sandbox_root", "allow_shell_string", "command_whitelist"] {
        assert!(!text.contains(hidden), "{hidden}");
    }
    assert_eq!(schema["properties"]["env"]["additionalProperties"]["type"], json!("string"));
    for field in names {
        assert!(schema["properties"][field].to_string().contains("description"), "{field}");
    }
    for bad in [
        json!({"command": "ls", "sandbox_root": "/"}),
        json!({"command": "ls", "allow_shell_string": true}),
        json!({"command": "ls", "command_whitelist": "ls"}),
        json!({"command": "ls", "env": {"A": 1}}),
        json!({"command": "ls", "$operator": {"allow_shell_string": true, "other": 1}}),
    ] {
        let refused = parse_input::<ShellInput>(&bad.to_string()).is_err();
        // `$operator` tolerates fields it does not know: the host owns it.
        assert_eq!(refused, bad.get("$operator").is_none(), "{bad}");
    }
}

#[test]
fn the_output_schema_has_the_seed_s_fields() {
    let schema = toolhost_sdk::output_schema::<crate::report::ShellOutput>();
    let mut names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    names.sort();
    let mut expected = [
        "success",
        "summary",
        "command_display",
        "cwd",
        "exit_code",
        "termination",
        "duration_ms",
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
    assert_eq!(WorkspaceShell.output_schema(), Some(schema));
    assert_eq!(WorkspaceShell.risk(), toolhost_sdk::Risk::ProcessExecution);
    assert_eq!(WorkspaceShell.id(), "workspace_shell");
}

#[test]
fn command_and_args_run_as_given_with_the_defaults() {
    let s = spec(json!({"command": "cargo", "args": ["test", "-p", "a b"], "purpose": "check"}));
    assert_eq!(s.program, "cargo");
    assert_eq!(s.args, ["test", "-p", "a b"]);
    assert_eq!((s.cwd, s.env, s.timeout_ms), (None, vec![], 60_000));
    assert_eq!(s.purpose.as_deref(), Some("check"));
    assert_eq!(spec(json!({"command": "ls", "purpose": "  "})).purpose, None);
    // The contract's default `command: ""` is no command.
    assert_eq!(spec(json!({"command": "", "shell_string": "ls"})).program, "ls");
}

#[test]
fn a_simple_shell_string_is_the_same_run_as_command_and_args() {
    assert_eq!(
        spec(json!({"shell_string": "ls -la 'my dir'", "cwd": "src"})),
        spec(json!({"command": "ls", "args": ["-la", "my dir"], "cwd": "src"}))
    );
    // Even when raw shell strings are allowed, a simple one needs no shell.
    assert_eq!(spec(json!({"shell_string": "ls -la", "$operator": allowed()})).program, "ls");
}

#[test]
fn command_or_shell_string_exactly_one() {
    for bad in [
        json!({}),
        json!({"command": ""}),
        json!({"command": "ls", "shell_string": "ls"}),
        json!({"shell_string": "ls", "args": ["-la"]}),
        json!({"shell_string": "   "}),
        json!({"shell_string": "'' x"}),
        json!({"command": "   "}),
        json!({"command": "ls -la"}),
        json!({"command": "l\0s"}),
        json!({"command": "ls", "args": ["a\0b"]}),
        json!({"shell_string": "ls\0"}),
        json!({"command": "ls", "purpose": "x".repeat(1001)}),
    ] {
        assert_eq!(refusal(bad.clone()).kind, ErrorKind::InvalidInput, "{bad}");
    }
    assert!(refusal(json!({"command": "ls -la"})).message.contains("`args`"));
    // A path may hold a space.
    assert_eq!(spec(json!({"command": "./my tool"})).program, "./my tool");
}

#[test]
fn shell_syntax_is_refused_naming_it_unless_the_operator_allows_it() {
    for (text, named) in [
        ("ls | wc -l", "a pipe `|`"),
        ("make && make install", "`&&`"),
        ("echo hi > out", "redirection `>`"),
        ("echo $HOME", "a variable"),
        ("echo $(id)", "substitution"),
        ("ls *.rs", "globbing `*`"),
        ("ls; rm -rf x", "`;`"),
        ("FOO=1 make", "`env`"),
    ] {
        let f = refusal(json!({"shell_string": text}));
        assert_eq!(f.kind, ErrorKind::PolicyDenied, "{text}");
        assert!(f.message.contains(named), "{text}: {}", f.message);
        assert!(f.message.contains("`command` and literal `args`"), "{}", f.message);
        let s = spec(json!({"shell_string": text, "$operator": allowed()}));
        assert_eq!((s.program.as_str(), s.args.clone()), ("sh", strings(&["-c", text])));
    }
}

#[test]
fn a_shell_given_a_script_is_a_run_of_that_shell_shown_whole() {
    // `allow_shell_string` decides only how a `shell_string` is read; a program given in
    // `command` may be a shell or start one (`env sh -c`, `xargs sh -c`, …), so refusing
    // `sh -c` alone would promise what one word in front defeats. Such a run is an ordinary
    // run, and its whole command line is what the user is asked about.
    for (program, args) in [
        ("sh", vec!["-c", "ls | wc"]),
        ("bash", vec!["-ec", "x"]),
        ("env", vec!["sh", "-c", "x"]),
        ("xargs", vec!["sh", "-c", "x"]),
    ] {
        let s = spec(json!({"command": program, "args": args}));
        assert_eq!((s.program.as_str(), s.args.clone()), (program, strings(&args)));
    }
    let s = spec(json!({"shell_string": "env sh -c 'touch m'"}));
    assert_eq!((s.program.as_str(), s.args.clone()), ("env", strings(&["sh", "-c", "touch m"])));
}

#[test]
fn a_whitelist_runs_only_its_programs_exactly_and_no_shell_string() {
    let op = json!({"command_whitelist": ["cargo", "./gradlew"], "allow_shell_string": true});
    spec(json!({"command": "cargo", "args": ["test"], "$operator": op}));
    spec(json!({"command": "./gradlew", "$operator": op}));
    for program in ["ls", "/usr/bin/cargo", "./cargo", "bin/cargo", "Cargo", "gradlew"] {
        let f = refusal(json!({"command": program, "$operator": op}));
        assert_eq!(f.kind, ErrorKind::PolicyDenied, "{program}");
        assert!(f.message.contains("cargo, ./gradlew"), "{}", f.message);
    }
    for text in ["cargo test", "cargo test | tee x"] {
        let f = refusal(json!({"shell_string": text, "$operator": op}));
        assert_eq!(f.kind, ErrorKind::PolicyDenied, "{text}");
        assert!(f.message.contains("`shell_string` is refused"), "{}", f.message);
    }
}

#[test]
fn cwd_env_and_timeout_are_checked() {
    // Where `cwd` may lead is the host's one rule (checked where the run starts); the tool
    // passes it on as given.
    for cwd in ["/etc", "..", "a/../.."] {
        assert_eq!(spec(json!({"command": "ls", "cwd": cwd})).cwd.as_deref(), Some(cwd));
    }
    assert_eq!(refusal(json!({"command": "ls", "cwd": "a\0b"})).kind, ErrorKind::InvalidInput);
    assert_eq!(spec(json!({"command": "ls", "cwd": "sub/"})).cwd.as_deref(), Some("sub"));
    for name in ["PATH", "Path", "LD_PRELOAD", "DYLD_LIBRARY_PATH", "ld_audit"] {
        let f = refusal(json!({"command": "ls", "env": {name: "/tmp"}}));
        assert_eq!(f.kind, ErrorKind::PolicyDenied, "{name}");
        assert!(f.message.contains(name), "{}", f.message);
    }
    let s = spec(json!({"command": "ls", "env": {"RUST_LOG": "debug", "CI": "1"}}));
    assert_eq!(s.env, [("CI".into(), "1".into()), ("RUST_LOG".into(), "debug".into())]);
    for t in [0, -5, 600_001] {
        let f = refusal(json!({"command": "ls", "timeout_ms": t}));
        assert_eq!(f.kind, ErrorKind::InvalidInput, "{t}");
        assert!(f.message.contains("1 to 600000"), "{}", f.message);
    }
    assert_eq!(spec(json!({"command": "ls", "timeout_ms": 600_000})).timeout_ms, 600_000);
    assert_eq!(spec(json!({"command": "ls", "timeout_ms": 1})).timeout_ms, 1);
}

#[test]
fn inspect_asks_about_exactly_the_run_execute_makes() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("sub")).unwrap();
    let value = json!({
        "shell_string": "echo 'two words' x", "cwd": "sub", "env": {"CI": "1"},
        "timeout_ms": 5000, "purpose": "say \"hi\"",
    });
    let Inspection::Runs(text) = WorkspaceShell.inspect(&input(value.clone())) else {
        panic!("not a run")
    };
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!({"program": "echo", "args": ["two words", "x"], "cwd": "sub",
               "env": [["CI", "1"]], "timeout_ms": 5000, "purpose": "say \"hi\""})
    );
    let (out, _, runs) = run_in(tmp.path(), value);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].to_json(), text);
    assert_eq!(out["stdout"], "two words x\n");
    assert_eq!(out["cwd"], "sub");
}

#[test]
fn an_invalid_call_asks_nothing_and_runs_nothing() {
    for value in [
        json!({"shell_string": "rm -rf x; touch marker"}),
        json!({"command": "ls", "cwd": "a\0b"}),
        json!({"command": "ls", "env": {"LD_PRELOAD": "x"}}),
        json!({"command": "rm", "$operator": {"command_whitelist": ["ls"]}}),
    ] {
        assert!(matches!(WorkspaceShell.inspect(&input(value.clone())), Inspection::ReadOnly));
        let (out, text, runs) = run(value.clone());
        assert!(runs.is_empty(), "{value}");
        assert_eq!(out["success"], false);
        assert_eq!(out["terminal"], true);
        assert!(out.get("termination").is_none() && out.get("command_display").is_none());
        assert_eq!(out["exit_code"], Value::Null);
        let kind = out["error_kind"].as_str().unwrap();
        assert!(text.contains(kind), "{text}");
        assert!(out["summary"].as_str().unwrap().starts_with("not run: "));
    }
}

#[test]
fn a_command_that_exits_0_succeeds() {
    let (out, text, _) = run(json!({"command": "sh", "args": ["-c", "echo out; echo err >&2"],
                                    "$operator": allowed()}));
    assert_eq!(out["success"], true, "{out}");
    assert_eq!(out["exit_code"], 0);
    assert_eq!(out["termination"], "exited");
    assert_eq!(out["command_display"], "sh -c \"echo out; echo err >&2\"");
    assert_eq!(out["cwd"], ".");
    assert_eq!((out["stdout"].clone(), out["stderr"].clone()), (json!("out\n"), json!("err\n")));
    assert_eq!(
        (out["stdout_truncated"].clone(), out["stderr_truncated"].clone()),
        (json!(false), json!(false))
    );
    assert!(out["duration_ms"].is_u64());
    for absent in ["error_kind", "terminal", "error"] {
        assert!(out.get(absent).is_none(), "{absent}");
    }
    assert!(
        text.starts_with("`sh -c \"echo out; echo err >&2\"` exited with code 0 in "),
        "{text}"
    );
    assert!(text.contains("stdout:\nout\nstderr:\nerr\n"), "{text}");
}

#[test]
fn a_non_zero_exit_is_a_failed_command_that_may_pass_next_time() {
    let (out, text, _) =
        run(json!({"command": "sh", "args": ["-c", "exit 3"], "$operator": allowed()}));
    assert_eq!(out["success"], false);
    assert_eq!(out["exit_code"], 3);
    assert_eq!(out["termination"], "exited");
    assert_eq!(out["error_kind"], "LOCAL_EXECUTOR_COMMAND_FAILED");
    assert_eq!(out["terminal"], false);
    assert!(out["error"].as_str().unwrap().contains("exited with code 3"));
    assert!(text.contains("(LOCAL_EXECUTOR_COMMAND_FAILED)"), "{text}");
}

#[test]
fn a_timeout_kills_the_run_and_keeps_its_output() {
    let (out, text, _) = run(json!({"shell_string": "echo started; sleep 30; echo never",
                                    "timeout_ms": 300, "$operator": allowed()}));
    assert_eq!(out["success"], false);
    assert_eq!(out["termination"], "timed_out");
    assert_eq!(out["exit_code"], Value::Null);
    assert_eq!(out["error_kind"], "LOCAL_EXECUTOR_TIMEOUT");
    assert_eq!(out["terminal"], false);
    assert_eq!(out["stdout"], "started\n");
    assert!(out["summary"].as_str().unwrap().contains("timeout of 300 ms"));
    assert!(text.contains("stdout:\nstarted\n"), "{text}");
}

#[test]
fn a_program_that_cannot_start_is_a_spawn_failure() {
    let (out, _, runs) = run(json!({"command": "no-such-program-for-workspace-shell"}));
    assert_eq!(runs.len(), 1);
    assert_eq!(out["termination"], "spawn_failed");
    assert_eq!(out["error_kind"], "LOCAL_EXECUTOR_SPAWN_FAILED");
    assert_eq!(out["terminal"], true);
    assert_eq!(out["exit_code"], Value::Null);
    assert!(out["error"].as_str().unwrap().contains("could not be started"));
}

#[test]
fn a_signal_is_a_failed_command() {
    let (out, _, _) = run(json!({"shell_string": "kill -KILL $$", "$operator": allowed()}));
    assert_eq!(out["termination"], "signalled");
    assert_eq!(out["error_kind"], "LOCAL_EXECUTOR_COMMAND_FAILED");
    assert_eq!(out["exit_code"], Value::Null);
    assert!(out["summary"].as_str().unwrap().contains("signal 9"));
}

#[test]
fn long_output_is_cut_in_the_middle_and_the_text_bounded() {
    let script = "i=0; while [ $i -lt 4000 ]; do echo \"line $i of stdout\"; echo \"line $i of stderr\" >&2; i=$((i+1)); done";
    let tmp = tempfile::tempdir().unwrap();
    let mut runner = NativeRunner::new(tmp.path());
    let mut sink = MemorySink::default();
    let value = json!({"shell_string": script, "$operator": allowed()});
    let output = call(&input(value), &mut runner, &mut sink).unwrap();
    let out = output.structured.unwrap();
    assert_eq!(out["success"], true);
    assert_eq!(
        (out["stdout_truncated"].clone(), out["stderr_truncated"].clone()),
        (json!(true), json!(true))
    );
    let stdout = out["stdout"].as_str().unwrap();
    assert!(stdout.starts_with("line 0 of stdout\n") && stdout.ends_with("line 3999 of stdout\n"));
    assert!(output.text.len() <= MAX_RESULT_BYTES, "{}", output.text.len());
    assert!(output.text.contains("the whole text is saved to /spill/whole.txt"));
    assert!(output.text.contains("(its start and end; the middle was cut)"));
    assert!(!sink.0.is_empty());
}

/// A runner standing for the host's `process.run` refusing or cancelling the run.
struct Host(Result<Ran, ToolError>);

impl Runner for Host {
    fn run(&mut self, spec: &RunSpec) -> Result<Ran, Failure> {
        self.0.clone().map_err(|e| toolhost_workspace_run::from_run_error(&e, spec.cwd.as_deref()))
    }
}

#[test]
fn host_refusals_are_structured_and_cancellation_is_the_call_s_error() {
    let value = json!({"command": "ls", "cwd": "secret"});
    for (code, message, kind) in [
        (
            ErrorCode::PermissionDenied,
            "secret is outside the workspace",
            "LOCAL_EXECUTOR_PATH_DENIED",
        ),
        (
            ErrorCode::PermissionDenied,
            "a tool may not set GIT_DIR for a program it runs",
            "LOCAL_EXECUTOR_POLICY_DENIED",
        ),
        (ErrorCode::SandboxUnavailable, "no sandbox here", "LOCAL_EXECUTOR_SANDBOX_UNAVAILABLE"),
        (ErrorCode::InvalidArguments, "secret does not exist", "LOCAL_EXECUTOR_NOT_FOUND"),
    ] {
        let mut host = Host(Err(ToolError::new(code, message)));
        let output = call(&input(value.clone()), &mut host, &mut MemorySink::default()).unwrap();
        let out = output.structured.unwrap();
        assert_eq!(out["error_kind"], kind, "{message}");
        assert_eq!(out["command_display"], "ls");
        assert_eq!(out["cwd"], "secret");
        assert!(
            output.text.contains(message) && output.text.contains("command: ls"),
            "{}",
            output.text
        );
    }
    let cancelled = Ran {
        termination: Termination::Cancelled,
        exit_code: None,
        signal: Some(9),
        stdout: String::new(),
        stdout_truncated: false,
        stderr: String::new(),
        stderr_truncated: false,
        duration_ms: 5,
    };
    let e = call(&input(value.clone()), &mut Host(Ok(cancelled)), &mut MemorySink::default());
    assert_eq!(e.unwrap_err().code, ErrorCode::Cancelled);
    let mut host = Host(Err(ToolError::cancelled("stop")));
    let e = call(&input(value), &mut host, &mut MemorySink::default());
    assert_eq!(e.unwrap_err().code, ErrorCode::Cancelled);
}
