//! Approval of escalations (seed 000 §7.5): a call that carries `sandboxPermissions` runs
//! only if an [`Approver`] allows it, and then with a policy widened for this call alone.

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
    let mut paths: Vec<String> = escalation.grants.iter().map(|g| g.path.display().to_string()).collect();
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

/// Asks the person at the terminal (on stderr, answer read from `/dev/tty`); used by
/// `toolhost call` when stdin and stderr are a terminal and no `--allow-escalation` was given.
pub struct TerminalApprover;

#[async_trait]
impl Approver for TerminalApprover {
    async fn approve(&self, tool: &str, escalation: &Escalation) -> bool {
        use crate::display::terminal_line;
        // Every field the model wrote is one escaped line: it cannot redraw the prompt.
        let grants: Vec<String> = escalation
            .grants
            .iter()
            .map(|g| format!("  {:?} {:?} {}", g.access, g.scope, terminal_line(&g.path.to_string_lossy())))
            .chain(escalation.network.then(|| "  Network: bash may reach any host".to_string()))
            .collect();
        let prompt = format!(
            "toolhost: the {} call asks for extra access:\n{}\n  reason: {}\nAllow this one call? [y/N] ",
            terminal_line(tool),
            grants.join("\n"),
            terminal_line(&escalation.justification)
        );
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
