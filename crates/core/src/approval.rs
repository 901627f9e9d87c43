//! Approval of escalations (docs/contract.md#escalation-parameters): a call that carries
//! `sandboxPermissions` runs only if an [`Approver`] allows it, and then with a policy widened for
//! this call alone.

use async_trait::async_trait;
use toolhost_sandbox::policy::Escalation;

/// Decides whether one call may have the extra paths it asks for.
#[async_trait]
pub trait Approver: Send + Sync {
    /// True to run `tool` with `escalation`'s grants.
    async fn approve(&self, tool: &str, escalation: &Escalation) -> bool;
}

/// Refuses every escalation: the default when nobody can be asked.
pub struct DenyEscalations;

#[async_trait]
impl Approver for DenyEscalations {
    async fn approve(&self, _: &str, _: &Escalation) -> bool {
        false
    }
}

/// Allows every escalation: chosen explicitly by the operator (`--allow-escalation`).
pub struct AllowEscalations;

#[async_trait]
impl Approver for AllowEscalations {
    async fn approve(&self, _: &str, _: &Escalation) -> bool {
        true
    }
}

/// The text of a refused escalation (status `denied`).
pub fn denied_message(tool: &str, escalation: &Escalation) -> String {
    let mut paths: Vec<String> =
        escalation.grants.iter().map(|g| g.path.display().to_string()).collect();
    if escalation.network {
        paths.push("the network".into());
    }
    format!(
        "The {tool} call asked for extra access to {} and nobody approved it, so it did not run. \
         Do the task inside the workspace, or ask the user to grant it (for example by running \
         toolhost with --allow-escalation).",
        paths.join(", ")
    )
}

/// The text every approval channel shows for one escalation (the terminal prompt, MCP
/// elicitation, any later one), so the user reads the same words everywhere. Each grant is
/// one line saying what it allows: read or write, the exact path only or everything below it,
/// the path as a JSON string literal (quotes, control and bidi characters escaped); the
/// network on a line of its own. What the model wrote (`justification`, and `tool` itself)
/// is quoted on one escaped line and marked as the model's, so it cannot pose as one of
/// toolhost's lines. Ends with the question, without the answer format (`[y/N]` on a
/// terminal, a form in MCP).
pub fn approval_request(tool: &str, escalation: &Escalation) -> String {
    use crate::display::{quoted, terminal_line};
    use toolhost_sandbox::policy::{Access, Scope};
    let mut out =
        format!("The {} call asks for extra access beyond its sandbox:\n", terminal_line(tool));
    for g in &escalation.grants {
        let path = quoted(&g.path.to_string_lossy());
        let line = match (g.access, g.scope) {
            (Access::Write, Scope::Subtree) => {
                format!(
                    "write, subtree: {path} and everything below it (create, change or delete any file there)"
                )
            }
            (Access::Write, Scope::Exact) => {
                format!("write, exact: {path} only (create, change or delete it)")
            }
            (Access::Read, Scope::Subtree) => {
                format!("read, subtree: {path} and everything below it")
            }
            (Access::Read, Scope::Exact) => format!("read, exact: {path} only"),
        };
        out.push_str(&format!("  - {line}\n"));
    }
    if escalation.network {
        out.push_str("  - network: the call may reach any host\n");
    }
    out.push_str(&format!(
        "  The model's reason (its own words, not checked by toolhost): {}\n",
        quoted(&escalation.justification)
    ));
    out.push_str("Allow this one call?");
    out
}

/// Asks the person at the terminal (on stderr, answer read from `/dev/tty`); used by
/// `toolhost call` when stdin and stderr are a terminal and no `--allow-escalation` was given.
pub struct TerminalApprover;

#[async_trait]
impl Approver for TerminalApprover {
    async fn approve(&self, tool: &str, escalation: &Escalation) -> bool {
        // Every field the model wrote is one escaped line: it cannot redraw the prompt.
        let prompt = format!("toolhost: {} [y/N] ", approval_request(tool, escalation));
        tokio::task::spawn_blocking(move || ask_on_terminal(&prompt)).await.unwrap_or(false)
    }
}

/// Writes `prompt` (already made safe for a terminal) to stderr and reads the answer from
/// `/dev/tty`: `true` only for `y` or `yes`; no terminal, an empty line or anything else is
/// no. Blocks.
pub fn ask_on_terminal(prompt: &str) -> bool {
    use std::io::{BufRead, Write};
    let mut err = std::io::stderr();
    let _ = err.write_all(prompt.as_bytes());
    let _ = err.flush();
    let Ok(tty) = std::fs::File::open("/dev/tty") else { return false };
    let mut line = String::new();
    let _ = std::io::BufReader::new(tty).read_line(&mut line);
    matches!(line.trim(), "y" | "Y" | "yes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sandbox::policy::{Access, PathGrant, Scope};

    #[test]
    fn an_approval_request_says_what_is_granted_and_quotes_the_reason_on_one_line() {
        let escalation = Escalation {
            grants: vec![
                PathGrant { path: "/home/u".into(), access: Access::Write, scope: Scope::Subtree },
                PathGrant { path: "/etc/a\n  - read, exact: \"x\u{202e}".into(), access: Access::Read, scope: Scope::Exact },
            ],
            network: true,
            justification: "Extra access to ~\n(Approving this lets the bash call read README.md only.)\u{1b}[2J\"".into(),
        };
        let text = approval_request("bash", &escalation);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 6, "{text}");
        assert_eq!(
            lines[1],
            "  - write, subtree: \"/home/u\" and everything below it (create, change or delete any file there)"
        );
        assert_eq!(lines[2], r#"  - read, exact: "/etc/a\n  - read, exact: \"x\u202e" only"#);
        assert_eq!(lines[3], "  - network: the call may reach any host");
        assert_eq!(
            lines[4],
            r#"  The model's reason (its own words, not checked by toolhost): "Extra access to ~\n(Approving this lets the bash call read README.md only.)\u001b[2J\"""#
        );
        assert_eq!(lines[5], "Allow this one call?");
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' || ('\u{202a}'..='\u{202e}').contains(&c)),
            "{text:?}"
        );
    }
}
