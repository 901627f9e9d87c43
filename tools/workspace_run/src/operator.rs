//! The operator's settings for the approval-gated tools, which the host adds to every input
//! as `$operator` (from policy.json; never a field the model sees or may set).

use serde::Deserialize;

/// `$operator`: absent (e.g. under `toolhost conformance`) or any field absent means the
/// default — no raw shell strings, no whitelist.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Operator {
    /// Whether a `shell_string` with shell syntax runs (as `sh -c STRING`) rather than being
    /// refused. It decides only how the tool reads a shell string: a program given in
    /// `command` may itself be a shell or start one, and the approval shows it whole.
    pub allow_shell_string: bool,
    /// When non-empty, the only programs a run may start (each compared exactly with the
    /// name given; the host also refuses one found where the model can write), and no shell
    /// string runs. What such a program starts in turn is not limited by it.
    pub command_whitelist: Vec<String>,
}

impl Operator {
    /// Whether the operator restricts programs to a whitelist.
    pub fn has_whitelist(&self) -> bool {
        !self.command_whitelist.is_empty()
    }

    /// Whether `program` may run: always without a whitelist, else only when listed exactly.
    pub fn allows_program(&self, program: &str) -> bool {
        !self.has_whitelist() || self.command_whitelist.iter().any(|p| p == program)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_fields_are_the_defaults() {
        let o: Operator = serde_json::from_str("{}").unwrap();
        assert_eq!(o, Operator::default());
        assert!(!o.allow_shell_string && !o.has_whitelist() && o.allows_program("anything"));
        let o: Operator =
            serde_json::from_str(r#"{"allow_shell_string":true,"command_whitelist":["ls"]}"#)
                .unwrap();
        assert!(o.allow_shell_string && o.allows_program("ls"));
        assert!(!o.allows_program("/bin/ls") && !o.allows_program("LS"));
    }
}
