//! What `process.run` refuses of a command before anything else: no program, too many
//! arguments or variables, a NUL byte, an over-long argument, a variable the component may
//! not set ([`super::env::env_refusal`]).

use super::env::env_refusal;
use crate::host::types::err;
use crate::wit::latest::toolhost::tool::{process, types};

/// Variables a component may set for a run, at most.
pub const MAX_PROCESS_ENV: usize = 64;

/// Bytes of one argument or environment value, at most.
pub const MAX_PROCESS_ARG_BYTES: usize = 32 * 1024;

/// Arguments of one run, at most.
pub const MAX_PROCESS_ARGS: usize = 4096;

pub(super) fn invalid(message: String) -> types::ToolError {
    err(types::ErrorCode::InvalidArguments, message)
}

/// The program, arguments and environment of `command`, checked; `policy` and `policy_file`
/// as for [`env_refusal`].
pub(super) fn check_command(
    command: &process::Command,
    policy: &toolhost_policy::SandboxPolicy,
    policy_file: &std::path::Path,
) -> Result<(), types::ToolError> {
    if command.program.trim().is_empty() {
        return Err(invalid("process.run needs a program to run".into()));
    }
    if command.args.len() > MAX_PROCESS_ARGS {
        return Err(invalid(format!(
            "process.run takes at most {MAX_PROCESS_ARGS} arguments; got {}",
            command.args.len()
        )));
    }
    if command.env.len() > MAX_PROCESS_ENV {
        return Err(invalid(format!(
            "process.run takes at most {MAX_PROCESS_ENV} environment variables; got {}",
            command.env.len()
        )));
    }
    let texts = std::iter::once(&command.program)
        .chain(&command.args)
        .chain(command.env.iter().map(|(_, v)| v));
    for text in texts {
        if text.contains('\0') {
            return Err(invalid("a program, argument or environment value contains a NUL byte, which no program can receive".into()));
        }
        if text.len() > MAX_PROCESS_ARG_BYTES {
            return Err(invalid(format!(
                "an argument or environment value is {} bytes; at most {MAX_PROCESS_ARG_BYTES}",
                text.len()
            )));
        }
    }
    for (name, value) in &command.env {
        if let Some(refusal) = env_refusal(name, value, policy, policy_file) {
            return Err(err(types::ErrorCode::PermissionDenied, refusal));
        }
    }
    Ok(())
}
