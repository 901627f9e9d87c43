//! The input of `workspace_shell` and [`plan`], the one function that turns it into the
//! [`RunSpec`] of the call — `inspect` shows that spec for approval and `execute` runs it —
//! or a [`Failure`] saying why nothing may run: the command or shell string, the operator's
//! settings (`$operator`: raw shell strings, the program whitelist), `cwd`, `env` and
//! `timeout_ms`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_workspace_run::{Failure, Operator, RunSpec, check};

use crate::split::split;

/// Milliseconds a run may take when `timeout_ms` is absent.
pub const DEFAULT_TIMEOUT_MS: u64 = toolhost_sdk::limits::SHELL_DEFAULT_TIMEOUT_MS;
/// The most milliseconds a run may take (the host allows up to this for this tool).
pub const MAX_TIMEOUT_MS: u64 = toolhost_sdk::limits::APPROVED_RUN_MAX_TIMEOUT_MS;
/// The longest `purpose`, in characters: one line on the approval prompt.
pub const MAX_PURPOSE_CHARS: usize = 1000;
/// The program a raw shell string runs with (as `sh -c STRING`), when the operator allows it.
pub const SHELL: &str = "sh";

/// Input of the `workspace_shell` tool.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellInput {
    /// The program to run, e.g. "ls", "cargo", "pnpm", "pytest" (not a tool name): a name
    /// looked up on PATH, or a path relative to `cwd` like "./gradlew". Give either this or
    /// `shell_string`.
    #[serde(default)]
    pub command: Option<String>,
    /// The program's arguments, passed literally (no shell: no quoting, globbing or
    /// variables), e.g. command="ls", args=["-la"].
    #[serde(default)]
    pub args: Vec<String>,
    /// Instead of `command` + `args`: a simple command line like "ls -la" or
    /// "cargo test -p core", which is split into words. Shell syntax (pipes, redirection,
    /// `;`, `&&`, variables, substitution, globbing, …) is refused unless the operator
    /// allowed raw shell strings.
    #[serde(default)]
    pub shell_string: Option<String>,
    /// The working directory relative to the workspace root; omit it for the root.
    /// Absolute paths, `..` above the root and symlinks out of the workspace are refused.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Extra environment variables, e.g. {"RUST_BACKTRACE": "1"}. Only the safe baseline
    /// (locale, TZ, TERM, colour and CI switches, …) and names the operator allowed are
    /// accepted; PATH and loader variables (LD_*, DYLD_*) are refused.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Wall-clock budget in milliseconds, 1–600000 (default 60000; out of range is refused,
    /// not clamped). At the timeout the whole process tree is killed and the output so far
    /// is returned.
    #[serde(default)]
    pub timeout_ms: Option<i64>,
    /// One sentence saying why this command is needed; shown to the user who approves it.
    #[serde(default)]
    pub purpose: Option<String>,
    /// The operator's settings, added by the host (never part of the schema).
    #[serde(rename = "$operator", default)]
    #[schemars(skip)]
    pub operator: Operator,
}

fn invalid(message: impl Into<String>) -> Failure {
    Failure::new(ErrorKind::InvalidInput, message)
}

fn denied(message: impl Into<String>) -> Failure {
    Failure::new(ErrorKind::PolicyDenied, message)
}

/// The run of a call: the checked input as one [`RunSpec`], or why it may not run.
/// Deterministic: the same input always gives the same spec.
pub fn plan(input: &ShellInput) -> Result<RunSpec, Failure> {
    let (program, args) = program_and_args(input)?;
    if !input.operator.allows_program(&program) {
        return Err(denied(format!(
            "the operator allows only these programs here: {}; {program:?} is not one of them (a program is matched by its exact name as given)",
            input.operator.command_whitelist.join(", ")
        )));
    }
    if args.iter().any(|a| a.contains('\0')) {
        return Err(invalid("an argument contains a NUL byte, which no program can receive"));
    }
    let purpose = match &input.purpose {
        Some(p) if p.chars().count() > MAX_PURPOSE_CHARS => {
            return Err(invalid(format!(
                "`purpose` is one sentence: at most {MAX_PURPOSE_CHARS} characters"
            )));
        }
        Some(p) if p.trim().is_empty() => None,
        p => p.clone(),
    };
    Ok(RunSpec {
        program,
        args,
        cwd: check::cwd(input.cwd.as_deref())?,
        env: check::env(&input.env)?,
        timeout_ms: check::timeout(input.timeout_ms, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)?,
        purpose,
    })
}

/// The program and its arguments, from `command` + `args` or from `shell_string`.
fn program_and_args(input: &ShellInput) -> Result<(String, Vec<String>), Failure> {
    let command = input.command.as_deref().filter(|c| !c.is_empty());
    match (command, input.shell_string.as_deref()) {
        (Some(_), Some(_)) => {
            Err(invalid("give either `command` (with `args`) or `shell_string`, not both"))
        }
        (None, None) => Err(invalid(
            "give the program to run in `command` (with `args`), or a simple command line in `shell_string`",
        )),
        (Some(command), None) => {
            check::command(command, "ls")?;
            Ok((command.to_owned(), input.args.clone()))
        }
        (None, Some(text)) => shell_string(text, input),
    }
}

/// A `shell_string`: with a whitelist, refused; simple, split into words; with shell syntax,
/// `sh -c` when the operator allows raw shell strings, else refused naming the syntax.
fn shell_string(text: &str, input: &ShellInput) -> Result<(String, Vec<String>), Failure> {
    if !input.args.is_empty() {
        return Err(invalid(
            "`args` go with `command`; a `shell_string` carries its own arguments",
        ));
    }
    if input.operator.has_whitelist() {
        return Err(denied(
            "the operator allows only listed programs here, so `shell_string` is refused; give the program in `command` and its arguments in `args`",
        ));
    }
    if text.contains('\0') {
        return Err(invalid("`shell_string` contains a NUL byte"));
    }
    match split(text) {
        Ok(words) => {
            let mut words = words.into_iter();
            let Some(program) = words.next().filter(|p| !p.is_empty()) else {
                return Err(invalid(
                    "`shell_string` names no program; give a command line like \"ls -la\"",
                ));
            };
            Ok((program, words.collect()))
        }
        Err(_) if input.operator.allow_shell_string => {
            Ok((SHELL.to_owned(), vec!["-c".to_owned(), text.to_owned()]))
        }
        Err(syntax) => Err(denied(format!(
            "`shell_string` uses shell syntax ({}), and the operator has not allowed raw shell strings: only a simple command line (words of letters, digits and _ . / = : , + @ % -, optionally quoted) is taken apart here. Run one program with `command` and literal `args` instead",
            syntax.join(", ")
        ))),
    }
}
