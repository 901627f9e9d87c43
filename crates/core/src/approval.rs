//! Approvals: what a call may do only once a person said yes.
//!
//! * An escalation (docs/contract.md#escalation-parameters): a call that carries
//!   `sandboxPermissions` runs only if an [`Approver`] allows it, and then with a policy
//!   widened for this call alone.
//! * A run (docs/workspace-tools.md#approvals): a call of a tool that asks before every run
//!   (`workspace_shell`, `workspace_tests run`) describes the one program it will run
//!   ([`RunApproval`]); it runs only if an [`Approver`] allows it, and then only that
//!   program, exactly.
//!
//! [`Approval`] is either; [`Approval::question`] is the text every channel shows (the
//! terminal prompt, the session's client, MCP elicitation and input-required rounds).

use async_trait::async_trait;
use toolhost_sandbox::policy::Escalation;

use crate::display::{quoted, terminal_line};

/// What one call asks a person to allow.
#[derive(Debug, Clone, Copy)]
pub enum Approval<'a> {
    /// Extra paths (or the network) beyond the call's sandbox.
    Escalation(&'a Escalation),
    /// One program run, exactly as described.
    Run(&'a RunApproval),
}

impl Approval<'_> {
    /// The words every approval channel shows for this approval of a `tool` call.
    pub fn question(&self, tool: &str) -> String {
        match self {
            Approval::Escalation(escalation) => approval_request(tool, escalation),
            Approval::Run(run) => run_request(tool, run),
        }
    }

    /// The model-visible text of the call when nobody approved it (status `denied`).
    pub fn denied(&self, tool: &str) -> String {
        match self {
            Approval::Escalation(escalation) => denied_message(tool, escalation),
            Approval::Run(run) => run_denied_message(tool, run),
        }
    }
}

/// Decides whether one call may do what it asks.
#[async_trait]
pub trait Approver: Send + Sync {
    /// True to let the `tool` call do what `approval` says.
    async fn approve(&self, tool: &str, approval: Approval<'_>) -> bool;
}

/// Refuses every approval: the default when nobody can be asked.
pub struct DenyEscalations;

#[async_trait]
impl Approver for DenyEscalations {
    async fn approve(&self, _: &str, _: Approval<'_>) -> bool {
        false
    }
}

/// Allows every approval, escalations and runs alike: chosen explicitly by the operator
/// (`--allow-escalation`).
pub struct AllowEscalations;

#[async_trait]
impl Approver for AllowEscalations {
    async fn approve(&self, _: &str, _: Approval<'_>) -> bool {
        true
    }
}

/// How the wait for a person's answer to one approval ended ([`wait_for_approval`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalOutcome {
    /// The approver allowed it: the call goes on.
    Allowed,
    /// The approver refused it (or nobody could be asked).
    Denied,
    /// The call was cancelled while it waited.
    Cancelled,
    /// The call reached its deadline while it waited.
    TimedOut,
}

impl ApprovalOutcome {
    /// The `tool` call's result when it may not go on, and nothing of it ran: `denied` with
    /// [`Approval::denied`]'s words, `cancelled`, or `timeout`; none when it was allowed.
    pub fn refusal(self, tool: &str, approval: Approval<'_>) -> Option<crate::result::ToolResult> {
        use crate::result::{ErrorCode, ToolError, ToolResult, ToolResultStatus};
        let error = match self {
            ApprovalOutcome::Allowed => return None,
            ApprovalOutcome::Denied => {
                let mut denied =
                    ToolResult::from_error(ToolError::permission_denied(approval.denied(tool)));
                denied.status = ToolResultStatus::Denied;
                return Some(denied);
            }
            ApprovalOutcome::Cancelled => ToolError::new(
                ErrorCode::Cancelled,
                format!(
                    "the `{tool}` call was cancelled while it waited for approval; nothing ran"
                ),
            ),
            ApprovalOutcome::TimedOut => ToolError::new(
                ErrorCode::Timeout,
                format!(
                    "the `{tool}` call reached its deadline while it waited for approval; nothing ran"
                ),
            ),
        };
        Some(ToolResult::from_error(error))
    }
}

/// The one rule for how long a call waits for a person (docs/security.md#approvals): asks
/// `approver` about the `tool` call `call` and waits for its answer until the call is
/// cancelled or reaches its deadline — the call's own, and never later than
/// [`toolhost_limits::APPROVAL_MAX_WAIT_MS`] from now — whichever comes first. Escalations
/// (the registry) and runs (the runtime's gate) both wait through this function, so an
/// unanswered question never holds a call past its bounds.
pub async fn wait_for_approval(
    approver: &dyn Approver,
    tool: &str,
    approval: Approval<'_>,
    call: &crate::context::ToolCallContext,
) -> ApprovalOutcome {
    use tokio::time::Instant;
    let longest =
        Instant::now() + std::time::Duration::from_millis(toolhost_limits::APPROVAL_MAX_WAIT_MS);
    let deadline = call.deadline.map_or(longest, |d| Instant::from_std(d).min(longest));
    tokio::select! {
        // A cancel or a deadline already past wins over an answer given at once.
        biased;
        () = call.cancel.cancelled() => ApprovalOutcome::Cancelled,
        () = tokio::time::sleep_until(deadline) => ApprovalOutcome::TimedOut,
        allowed = approver.approve(tool, approval) => {
            if allowed { ApprovalOutcome::Allowed } else { ApprovalOutcome::Denied }
        }
    }
}

#[cfg(test)]
#[path = "approval_wait_tests.rs"]
mod wait_tests;

/// The one program a call of a tool that asks before every run will run, as its `inspect`
/// describes it (`runs(<this, as JSON>)`, docs/workspace-tools.md#approvals), and what the
/// sandbox will allow it. The host runs nothing else for that call.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct RunApproval {
    /// The program: a name looked up on PATH, or a path.
    pub program: String,
    /// Its arguments, literally.
    pub args: Vec<String>,
    /// The working directory relative to the workspace (none: the workspace root).
    pub cwd: Option<String>,
    /// Variables set for it.
    pub env: Vec<(String, String)>,
    /// Milliseconds before it is killed.
    pub timeout_ms: u64,
    /// The model's one sentence on why (its own words).
    pub purpose: Option<String>,
    /// What the sandbox allows the run: filled in by the host, never by the tool.
    #[serde(skip)]
    pub sandbox: RunSandbox,
}

/// What the sandbox allows a run, in the approval's words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunSandbox {
    /// The workspace root.
    pub workspace: std::path::PathBuf,
    /// Whether the run may write the workspace (and the policy's other writable roots).
    pub writable: bool,
    /// Whether the run may use the network.
    pub network: bool,
}

impl RunApproval {
    /// The command line as the sandbox runs it: each word as is when it holds only
    /// `[A-Za-z0-9_./=:,+@%-]`, else as a JSON string literal (no shell is involved).
    pub fn command_line(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|w| word(w))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// One word of a command line as [`RunApproval::command_line`] shows it.
fn word(w: &str) -> String {
    let plain =
        !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "_./=:,+@%-".contains(c));
    if plain { w.to_string() } else { quoted(w) }
}

/// The question for one run (see [`Approval::question`]): the program and its arguments as
/// the sandbox runs them, where, for how long, with which variables, what the sandbox
/// allows, and the model's purpose quoted on one escaped line.
pub fn run_request(tool: &str, run: &RunApproval) -> String {
    let mut out = format!("The {} call asks to run a program:\n", terminal_line(tool));
    out.push_str(&format!("  - command: {}\n", run.command_line()));
    let cwd = match &run.cwd {
        Some(dir) => format!("{} in the workspace", quoted(dir)),
        None => "the workspace root".to_string(),
    };
    out.push_str(&format!("  - in: {cwd}\n"));
    out.push_str(&format!("  - time limit: {}\n", seconds(run.timeout_ms)));
    if !run.env.is_empty() {
        let vars: Vec<String> = run.env.iter().map(|(k, v)| quoted(&format!("{k}={v}"))).collect();
        out.push_str(&format!("  - environment: {}\n", vars.join(" ")));
    }
    let workspace = quoted(&run.sandbox.workspace.to_string_lossy());
    if run.sandbox.writable {
        out.push_str(&format!(
            "  - sandbox: write, subtree: {workspace} and everything below it (create, change or delete any file there); credentials hidden\n"
        ));
    } else {
        out.push_str(&format!(
            "  - sandbox: read, subtree: {workspace} and everything below it; nothing writable; credentials hidden\n"
        ));
    }
    if run.sandbox.network {
        out.push_str("  - network: the run may reach any host\n");
    } else {
        out.push_str("  - network: none\n");
    }
    let purpose = run.purpose.as_deref().map(str::trim).filter(|p| !p.is_empty());
    match purpose {
        Some(p) => out.push_str(&format!(
            "  The model's reason (its own words, not checked by toolhost): {}\n",
            quoted(p)
        )),
        None => out.push_str("  The model gave no reason.\n"),
    }
    out.push_str("Allow this one run?");
    out
}

/// The run a call of a tool that asks before every run may make: the one a person approved,
/// taken by that run; every other run of the call is refused.
#[derive(Debug, Default)]
pub struct RunGate {
    run: std::sync::Mutex<Option<RunApproval>>,
    /// How long the call may last: the approved run's timeout and
    /// [`toolhost_limits::APPROVED_RUN_GRACE_MS`] (zero: the runtime's own bound).
    budget: std::time::Duration,
}

impl RunGate {
    /// A call whose one run `run` was approved.
    pub fn approved(run: RunApproval) -> Self {
        let budget = std::time::Duration::from_millis(
            run.timeout_ms.saturating_add(toolhost_limits::APPROVED_RUN_GRACE_MS),
        );
        RunGate { run: std::sync::Mutex::new(Some(run)), budget }
    }

    /// A call that may run nothing (its `inspect` said it runs nothing).
    pub fn closed() -> Self {
        RunGate::default()
    }

    /// The approved run, if it was not taken yet; later calls get none.
    pub fn take(&self) -> Option<RunApproval> {
        self.run.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// How long the call may last with its approved run (zero when none was approved).
    pub fn budget(&self) -> std::time::Duration {
        self.budget
    }
}

/// A time limit as the approval shows it: seconds, with milliseconds when not whole.
fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) { format!("{} s", ms / 1000) } else { format!("{ms} ms") }
}

/// The text of a refused run (status `denied`).
pub fn run_denied_message(tool: &str, run: &RunApproval) -> String {
    format!(
        "The {tool} call asked to run `{}` and nobody approved it, so nothing ran. Ask the user \
         to approve it, or do the task another way.",
        run.command_line()
    )
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
    async fn approve(&self, tool: &str, approval: Approval<'_>) -> bool {
        // Every field the model wrote is one escaped line: it cannot redraw the prompt.
        let prompt = format!("toolhost: {} [y/N] ", approval.question(tool));
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
    fn a_run_request_shows_the_command_line_as_it_runs_and_every_word_of_the_model_escaped() {
        let run = RunApproval {
            program: "cargo".into(),
            args: vec!["test".into(), "two words".into(), "a\nb".into(), "--x=1".into()],
            cwd: Some("crates/\u{1b}[2Jcore".into()),
            env: vec![("NO_COLOR".into(), "1".into())],
            timeout_ms: 1500,
            purpose: Some("run\nAllow this one run? y\u{202e}".into()),
            sandbox: RunSandbox { workspace: "/w".into(), writable: false, network: true },
        };
        let text = run_request("workspace_tests", &run);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "The workspace_tests call asks to run a program:",
                r#"  - command: cargo test "two words" "a\nb" --x=1"#,
                r#"  - in: "crates/\u001b[2Jcore" in the workspace"#,
                "  - time limit: 1500 ms",
                r#"  - environment: "NO_COLOR=1""#,
                r#"  - sandbox: read, subtree: "/w" and everything below it; nothing writable; credentials hidden"#,
                "  - network: the run may reach any host",
                r#"  The model's reason (its own words, not checked by toolhost): "run\nAllow this one run? y\u202e""#,
                "Allow this one run?",
            ],
            "{text}"
        );
        let parsed: RunApproval = serde_json::from_str(
            r#"{"program":"ls","args":[],"cwd":null,"env":[],"timeout_ms":5,"purpose":null}"#,
        )
        .unwrap();
        assert_eq!(
            parsed.sandbox,
            RunSandbox::default(),
            "the tool cannot say what the sandbox allows"
        );
        assert!(
            serde_json::from_str::<RunApproval>(
                r#"{"program":"ls","args":[],"cwd":null,"env":[],"timeout_ms":5,"purpose":null,"sandbox":{}}"#
            )
            .is_err()
        );
    }

    #[test]
    fn a_run_gate_lets_its_run_through_once() {
        let run: RunApproval = serde_json::from_str(
            r#"{"program":"ls","args":[],"cwd":null,"env":[],"timeout_ms":5000,"purpose":null}"#,
        )
        .unwrap();
        let gate = RunGate::approved(run.clone());
        assert_eq!(
            gate.budget(),
            std::time::Duration::from_millis(5000 + toolhost_limits::APPROVED_RUN_GRACE_MS)
        );
        assert_eq!(gate.take(), Some(run));
        assert_eq!(gate.take(), None);
        assert_eq!(RunGate::closed().take(), None);
    }

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
