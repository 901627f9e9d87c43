//! The sandbox's model-facing texts, shared by bash and a component's `process.run`
//! (docs/contract.md#bash). bash's own status lines live beside bash's schema in
//! `toolhost-builtins`.

/// The line after the output when the kernel refused a path the policy forbids.
pub fn denial_marker(denial_message: &str) -> String {
    format!("[sandbox denied: {denial_message}]")
}

/// Protected entries `who` (bash, or a program a component ran) created were removed
/// after the call.
pub fn swept(who: &str, paths: &str) -> String {
    format!(
        "[sandbox denied: {who} created {paths}, which it may not create (sensitive files and git metadata need the user's approval: sandboxPermissions with a justification); removed]"
    )
}

/// The sandbox cannot be used at all.
pub fn unavailable(reason: &str) -> String {
    format!("sandbox unavailable: {reason}. The command did not run.")
}

/// The sandbox runner failed before the command started.
pub fn runner_failed(message: &str) -> String {
    format!(
        "sandbox unavailable: the sandbox failed to start the command ({message}). The command did not run."
    )
}

/// Termination could not be confirmed.
pub fn outcome_unknown(err: &str) -> String {
    format!(
        "the command was being stopped but its termination could not be confirmed ({err}); it may still be running and its effects are unknown."
    )
}
