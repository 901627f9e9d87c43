//! The input of `workspace_tests` and [`plan`], the one function that turns it into what the
//! call does — a read-only [`Plan::Detect`], or the [`RunSpec`] of `run` that `inspect`
//! shows for approval and `execute` runs — or a [`Failure`] saying why nothing may happen:
//! fields the operation does not take, the command, the operator's settings (`$operator`:
//! the program whitelist, raw shell scripts), `cwd` and `timeout_ms`.

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_workspace_run::{Operator, RunSpec, check};

use crate::failure::Failure;

/// Milliseconds a test run may take when `timeout_ms` is absent.
pub const DEFAULT_TIMEOUT_MS: u64 = toolhost_sdk::limits::TESTS_DEFAULT_TIMEOUT_MS;
/// The most milliseconds a test run may take (the host allows up to this for this tool).
pub const MAX_TIMEOUT_MS: u64 = toolhost_sdk::limits::APPROVED_RUN_MAX_TIMEOUT_MS;

/// Input of the `workspace_tests` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestsInput {
    /// `detect` = find the project's toolchain and test command, read-only (nothing runs,
    /// nothing is asked); `run` = run the explicit test command in `command` + `args`, after
    /// the user approves it, and read the passed/failed counts and failures from its output.
    pub operation: TestsOperation,
    /// run: the test program, e.g. "cargo", "pnpm", "pytest", "go" (a name looked up on
    /// PATH, or a path relative to `cwd`). Required for run; never inferred from detect —
    /// take detect's `suggested_command` if it fits.
    #[serde(default)]
    pub command: Option<String>,
    /// run: the program's arguments, passed literally (no shell), e.g. ["test",
    /// "--no-fail-fast"].
    #[serde(default)]
    pub args: Vec<String>,
    /// The project directory relative to the workspace root (a package of a monorepo);
    /// omit it for the root. Absolute paths, `..` above the root and symlinks out of the
    /// workspace are refused.
    #[serde(default)]
    pub cwd: Option<String>,
    /// run: wall-clock budget in milliseconds, 1–600000 (default 300000; out of range is
    /// refused, not clamped). At the timeout the whole process tree is killed and the output
    /// and counts so far are returned.
    #[serde(default)]
    pub timeout_ms: Option<i64>,
    /// The operator's settings, added by the host (never part of the schema).
    #[serde(rename = "$operator", default)]
    #[schemars(skip)]
    pub operator: Operator,
}

/// The operation of a call (the variants carry no doc comments, so the schema is a plain
/// `enum` and a refusal of another value lists the accepted ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "Operation")]
pub enum TestsOperation {
    // Read-only project detection.
    Detect,
    // Run an explicit test command (asks for approval).
    Run,
}

impl TestsOperation {
    /// The name the input and the structured value use.
    pub fn name(self) -> &'static str {
        match self {
            TestsOperation::Detect => "detect",
            TestsOperation::Run => "run",
        }
    }
}

/// What a checked call does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Detect the project in this directory (relative to the workspace; none: the root).
    Detect {
        /// The directory.
        cwd: Option<String>,
    },
    /// Run this one command.
    Run(RunSpec),
}

fn invalid(message: impl Into<String>) -> Failure {
    Failure::new(ErrorKind::InvalidInput, message)
}

fn denied(message: impl Into<String>) -> Failure {
    Failure::new(ErrorKind::PolicyDenied, message)
}

/// The plan of a call, or why it may not happen. Deterministic: the same input always gives
/// the same plan, so `inspect` and `execute` agree on the run.
pub fn plan(input: &TestsInput) -> Result<Plan, Failure> {
    if input.operation == TestsOperation::Detect {
        for (field, given) in [
            ("command", input.command.is_some()),
            ("args", !input.args.is_empty()),
            ("timeout_ms", input.timeout_ms.is_some()),
        ] {
            if given {
                return Err(invalid(format!(
                    "`{field}` is not used by `detect`; it is taken by `run` only (detect runs nothing)"
                )));
            }
        }
        return Ok(Plan::Detect { cwd: check::cwd(input.cwd.as_deref())? });
    }
    let command = match input.command.as_deref() {
        None | Some("") => {
            return Err(invalid(
                "`run` needs `command`, the test program (e.g. \"cargo\" with args [\"test\"]); it is never inferred — call `detect` for a suggestion",
            ));
        }
        Some(command) => command,
    };
    check::command(command, "cargo")?;
    if !input.operator.allows_program(command) {
        return Err(denied(format!(
            "the operator allows only these programs here: {}; {command:?} is not one of them (a program is matched by its exact name as given)",
            input.operator.command_whitelist.join(", ")
        )));
    }
    if input.args.iter().any(|a| a.contains('\0')) {
        return Err(invalid("an argument contains a NUL byte, which no program can receive"));
    }
    Ok(Plan::Run(RunSpec {
        program: command.to_owned(),
        args: input.args.clone(),
        cwd: check::cwd(input.cwd.as_deref())?,
        env: Vec::new(),
        timeout_ms: check::timeout(input.timeout_ms, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)?,
        purpose: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use toolhost_sdk::{input_schema, parse_input};

    fn input(value: Value) -> TestsInput {
        parse_input(&value.to_string()).unwrap_or_else(|e| panic!("{value}: {}", e.message))
    }

    fn refusal(value: Value) -> Failure {
        plan(&input(value.clone())).expect_err(&value.to_string())
    }

    fn spec(value: Value) -> RunSpec {
        match plan(&input(value.clone())) {
            Ok(Plan::Run(spec)) => spec,
            other => panic!("{value}: {other:?}"),
        }
    }

    #[test]
    fn schema_has_the_seed_s_fields_and_no_more() {
        let schema = input_schema::<TestsInput>();
        let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["args", "command", "cwd", "operation", "timeout_ms"]);
        assert_eq!(schema["required"], json!(["operation"]));
        assert_eq!(schema["additionalProperties"], json!(false));
        let text = schema.to_string();
        assert!(!text.contains("sandbox_root") && !text.contains("$operator"), "{text}");
        assert_eq!(schema["$defs"]["Operation"]["enum"], json!(["detect", "run"]));
        for field in ["operation", "command", "args", "cwd", "timeout_ms"] {
            assert!(schema["properties"][field].to_string().contains("description"), "{field}");
        }
        for bad in [
            json!({"operation": "run", "command": "cargo", "sandbox_root": "/"}),
            json!({"operation": "test"}),
            json!({}),
            json!({"operation": "run", "command": "cargo", "env": {"A": "1"}}),
        ] {
            assert!(parse_input::<TestsInput>(&bad.to_string()).is_err(), "{bad}");
        }
    }

    #[test]
    fn detect_takes_only_cwd() {
        assert_eq!(plan(&input(json!({"operation": "detect"}))), Ok(Plan::Detect { cwd: None }));
        assert_eq!(
            plan(&input(json!({"operation": "detect", "cwd": "web/"}))),
            Ok(Plan::Detect { cwd: Some("web".into()) })
        );
        for (field, value) in
            [("command", json!("cargo")), ("args", json!(["test"])), ("timeout_ms", json!(5))]
        {
            let f = refusal(json!({"operation": "detect", field: value}));
            assert_eq!(f.kind, ErrorKind::InvalidInput);
            assert!(f.message.contains(&format!("`{field}`")) && f.message.contains("`run`"));
        }
        // Where `cwd` may lead is the host's rule (it refuses "../x" where it is used).
        assert_eq!(
            plan(&input(json!({"operation": "detect", "cwd": "../x"}))),
            Ok(Plan::Detect { cwd: Some("../x".into()) })
        );
    }

    #[test]
    fn run_is_exactly_the_command_given() {
        let s = spec(
            json!({"operation": "run", "command": "cargo", "args": ["test", "-q"], "cwd": "crates/a"}),
        );
        assert_eq!(
            s,
            RunSpec {
                program: "cargo".into(),
                args: vec!["test".into(), "-q".into()],
                cwd: Some("crates/a".into()),
                env: vec![],
                timeout_ms: DEFAULT_TIMEOUT_MS,
                purpose: None,
            }
        );
        let approval: Value = serde_json::from_str(&s.to_json()).unwrap();
        assert_eq!(approval["purpose"], Value::Null);
        assert_eq!(approval["timeout_ms"], 300_000);
        assert_eq!(
            spec(json!({"operation": "run", "command": "go", "timeout_ms": 600_000})).timeout_ms,
            600_000
        );
        // A path may hold spaces.
        assert_eq!(
            spec(json!({"operation": "run", "command": "./my tests/run"})).program,
            "./my tests/run"
        );
    }

    #[test]
    fn run_refusals() {
        let kind = |v: Value| refusal(v).kind;
        let m = refusal(json!({"operation": "run"})).message;
        assert!(m.contains("needs `command`") && m.contains("detect"), "{m}");
        assert_eq!(kind(json!({"operation": "run", "command": ""})), ErrorKind::InvalidInput);
        assert_eq!(kind(json!({"operation": "run", "command": "  "})), ErrorKind::InvalidInput);
        assert!(
            refusal(json!({"operation": "run", "command": "cargo test"}))
                .message
                .contains("`args`")
        );
        assert_eq!(
            kind(json!({"operation": "run", "command": "a\u{0}b"})),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(json!({"operation": "run", "command": "cargo", "args": ["a\u{0}"]})),
            ErrorKind::InvalidInput
        );
        for t in [0, -1, 600_001] {
            let f = refusal(json!({"operation": "run", "command": "cargo", "timeout_ms": t}));
            assert!(
                f.message.contains("1 to 600000") && f.message.contains("300000"),
                "{}",
                f.message
            );
        }
        assert_eq!(
            kind(json!({"operation": "run", "command": "cargo", "cwd": "a\0b"})),
            ErrorKind::InvalidInput
        );
    }

    #[test]
    fn the_operator_s_settings_hold() {
        let whitelist = json!({"command_whitelist": ["cargo", "pytest"]});
        let f = refusal(json!({"operation": "run", "command": "npm", "$operator": whitelist}));
        assert_eq!(f.kind, ErrorKind::PolicyDenied);
        assert!(f.message.contains("cargo, pytest"));
        spec(json!({"operation": "run", "command": "pytest", "$operator": whitelist}));
        // A shell given a script is a run of that shell like any other (shown whole on the
        // approval): `allow_shell_string` is about `workspace_shell`'s `shell_string` only.
        let s = spec(json!({"operation": "run", "command": "bash", "args": ["-c", "pytest"]}));
        assert_eq!(s.args, ["-c", "pytest"]);
        // Detect is read-only: the whitelist does not concern it.
        assert!(plan(&input(json!({"operation": "detect", "$operator": whitelist}))).is_ok());
    }
}
