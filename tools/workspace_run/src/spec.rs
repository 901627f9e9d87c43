//! The one run a call asks approval for ([`RunSpec`]): what `inspect` shows the user
//! ([`RunSpec::approval_text`]) and what `execute` passes to `process.run`
//! ([`RunSpec::command`]) are both read from the same value, so the approved run and the
//! run are the same.

use serde::Serialize;
use toolhost_sdk::process::Command;

/// One program run: exactly the `process.run` command, plus the model's stated purpose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunSpec {
    /// The program: a name looked up on the host's PATH, or a path.
    pub program: String,
    /// Its arguments, passed literally.
    pub args: Vec<String>,
    /// The working directory relative to the workspace (none: the workspace root).
    pub cwd: Option<String>,
    /// Variables set on top of the host's environment, in a fixed order.
    pub env: Vec<(String, String)>,
    /// Milliseconds before the run is killed.
    pub timeout_ms: u64,
    /// Why the model wants it run, shown on the approval (none when the tool takes none).
    pub purpose: Option<String>,
}

impl RunSpec {
    /// What `inspect` answers with `runs(…)`: the spec as compact JSON
    /// (`{"program","args","cwd","env":[[name,value],…],"timeout_ms","purpose"}`).
    pub fn approval_text(&self) -> String {
        serde_json::to_string(self).expect("a RunSpec is plain strings and numbers")
    }

    /// The command `execute` gives `process.run`: exactly the approved program, arguments,
    /// directory, environment and timeout.
    pub fn command(&self) -> Command {
        Command {
            program: self.program.clone(),
            args: self.args.clone(),
            cwd: self.cwd.clone(),
            env: self.env.clone(),
            timeout_ms: Some(self.timeout_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec() -> RunSpec {
        RunSpec {
            program: "cargo".into(),
            args: vec!["test".into(), "--no-fail-fast".into()],
            cwd: Some("crates/a".into()),
            env: vec![("CI".into(), "1".into()), ("RUST_BACKTRACE".into(), "1".into())],
            timeout_ms: 60_000,
            purpose: Some("run the \"unit\" tests".into()),
        }
    }

    #[test]
    fn the_approval_text_is_the_contract_s_compact_json() {
        let text = spec().approval_text();
        assert!(!text.contains(": ") && !text.contains('\n'), "{text}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            json!({
                "program": "cargo",
                "args": ["test", "--no-fail-fast"],
                "cwd": "crates/a",
                "env": [["CI", "1"], ["RUST_BACKTRACE", "1"]],
                "timeout_ms": 60000,
                "purpose": "run the \"unit\" tests",
            })
        );
        let bare = RunSpec { cwd: None, purpose: None, env: vec![], ..spec() };
        let value: serde_json::Value = serde_json::from_str(&bare.approval_text()).unwrap();
        assert_eq!(value["cwd"], serde_json::Value::Null);
        assert_eq!(value["purpose"], serde_json::Value::Null);
        assert_eq!(value["env"], json!([]));
    }

    #[test]
    fn the_command_is_the_approved_run() {
        let spec = spec();
        let command = spec.command();
        assert_eq!(command.program, spec.program);
        assert_eq!(command.args, spec.args);
        assert_eq!(command.cwd, spec.cwd);
        assert_eq!(command.env, spec.env);
        assert_eq!(command.timeout_ms, Some(60_000));
    }
}
