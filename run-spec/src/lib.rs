//! The one program run a call of a tool that asks before every run will make
//! (docs/workspace-tools.md#approvals): [`RunSpec`], defined once for both sides of the WIT's
//! free-text `runs(string)`. The tool (`workspace_shell`, `workspace_tests`, through
//! `toolhost-workspace-run`) answers `inspect` with [`RunSpec::to_json`] and runs exactly that
//! spec; the host reads it back with [`RunSpec::from_json`], asks a person about it and lets
//! only that run through. Plain data and its JSON, nothing else: the host and the components
//! both depend on it, as on `toolhost-limits` and `toolhost-error-kinds`.

use serde::{Deserialize, Serialize};

/// One program run: exactly the `process.run` command, plus the model's stated purpose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// The program: a name looked up on PATH, or a path.
    pub program: String,
    /// Its arguments, passed literally.
    pub args: Vec<String>,
    /// The working directory relative to the workspace (none: the workspace root).
    pub cwd: Option<String>,
    /// Variables set on top of the host's environment, in a fixed order.
    pub env: Vec<(String, String)>,
    /// Milliseconds before the run is killed.
    pub timeout_ms: u64,
    /// Why the model wants it run, in its own words (none when the tool takes none).
    pub purpose: Option<String>,
}

impl RunSpec {
    /// The spec as `inspect` answers it in `runs(…)`: compact JSON,
    /// `{"program","args","cwd","env":[[name,value],…],"timeout_ms","purpose"}`.
    pub fn to_json(&self) -> String {
        // Strings, a number and lists of them: serialising cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The spec a tool's `runs(…)` described; an error for anything else (a missing or
    /// unknown member, a wrong type), so the host runs nothing it cannot read exactly.
    pub fn from_json(text: &str) -> Result<RunSpec, serde_json::Error> {
        serde_json::from_str(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec() -> RunSpec {
        RunSpec {
            program: "cargo".into(),
            args: vec!["test".into(), "two words".into(), "a\nb".into()],
            cwd: Some("crates/a".into()),
            env: vec![("CI".into(), "1".into()), ("RUST_BACKTRACE".into(), "1".into())],
            timeout_ms: 60_000,
            purpose: Some("run the \"unit\" tests".into()),
        }
    }

    #[test]
    fn the_json_is_compact_and_reads_back_as_the_same_spec() {
        let text = spec().to_json();
        assert!(!text.contains(": ") && !text.contains('\n'), "{text}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            json!({
                "program": "cargo",
                "args": ["test", "two words", "a\nb"],
                "cwd": "crates/a",
                "env": [["CI", "1"], ["RUST_BACKTRACE", "1"]],
                "timeout_ms": 60000,
                "purpose": "run the \"unit\" tests",
            })
        );
        assert_eq!(RunSpec::from_json(&text).unwrap(), spec());
        let bare = RunSpec { cwd: None, purpose: None, env: vec![], args: vec![], ..spec() };
        let value: serde_json::Value = serde_json::from_str(&bare.to_json()).unwrap();
        assert_eq!(value["cwd"], serde_json::Value::Null);
        assert_eq!(value["purpose"], serde_json::Value::Null);
        assert_eq!(value["env"], json!([]));
        assert_eq!(RunSpec::from_json(&bare.to_json()).unwrap(), bare);
    }

    #[test]
    fn anything_but_the_six_members_is_refused() {
        let good =
            json!({"program":"ls","args":[],"cwd":null,"env":[],"timeout_ms":5,"purpose":null});
        assert!(RunSpec::from_json(&good.to_string()).is_ok());
        for forged in ["sandbox", "facts", "policy"] {
            let mut bad = good.clone();
            bad[forged] = json!({});
            assert!(RunSpec::from_json(&bad.to_string()).is_err(), "{forged}");
        }
        let mut missing = good.clone();
        missing.as_object_mut().unwrap().remove("timeout_ms");
        assert!(RunSpec::from_json(&missing.to_string()).is_err());
        let mut wrong = good;
        wrong["args"] = json!("ls -la");
        assert!(RunSpec::from_json(&wrong.to_string()).is_err());
        assert!(RunSpec::from_json("not json").is_err());
    }
}
