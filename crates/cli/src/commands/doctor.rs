//! `toolhost doctor`: whether bash's sandbox works here, and if not why and what to do.

use std::process::ExitCode;

use toolhost::SandboxPolicy;

/// `toolhost doctor`: whether bash can run sandboxed here, and each isolation it gets, on or
/// off with the reason, in plain words.
pub fn run(sandbox: &dyn toolhost_sandbox::SandboxBackend, policy: &SandboxPolicy) -> ExitCode {
    use toolhost::display::terminal_line;
    use toolhost_sandbox::Availability;
    let available = sandbox.available();
    for line in sandbox.report(policy) {
        outln!("{}", terminal_line(&line));
    }
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
