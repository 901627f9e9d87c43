//! `toolhost doctor`: whether bash's sandbox works here, and if not why and what to do.

use std::process::ExitCode;

use toolhost::SandboxPolicy;

/// `toolhost doctor`: whether bash can run sandboxed here, and each isolation it gets, on or
/// off with the reason, in plain words.
pub fn run(sandbox: &dyn toolhost_sandbox::SandboxBackend, policy: &SandboxPolicy) -> ExitCode {
    use toolhost::display::terminal_line;
    use toolhost_sandbox::Availability;
    let available = sandbox.available();
    outln!("tier: {} ({})", sandbox.tier(), sandbox.describe());
    for line in sandbox.report(policy) {
        outln!("{}", terminal_line(&line));
    }
    outln!("{}", terminal_line(&reads_line(policy)));
    match available {
        Availability::Available => {
            outln!("sandbox: available ({}); bash runs sandboxed.", sandbox.describe());
            ExitCode::SUCCESS
        }
        Availability::Unavailable { reason } => {
            outln!("sandbox: UNAVAILABLE — {}.", toolhost::display::terminal_text(&reason));
            outln!(
                "Until this is fixed, bash returns sandbox_unavailable and never runs; the file tools still work."
            );
            ExitCode::FAILURE
        }
    }
}

/// What the file tools and bash may read, in plain words, and how an operator narrows it.
fn reads_line(policy: &SandboxPolicy) -> String {
    if policy.reads_confined() {
        let roots: Vec<String> =
            policy.read_roots().iter().map(|r| r.display().to_string()).collect();
        let roots = if roots.is_empty() { "none".to_string() } else { roots.join(", ") };
        format!(
            "reads: confined to the workspace {}, the read roots ({roots}), the session's temp dir, HOME's toolchains and the system directories; an MCP client's roots narrow them further",
            policy.workspace().display()
        )
    } else {
        let file = policy.policy_file_shown();
        format!(
            "reads: every path but credentials (the default) — the file tools and bash also read other projects beside the workspace. To confine reads to the workspace and listed directories: --read-root DIR (repeatable), --confine-reads, or \"reads\" in {file}"
        )
    }
}
