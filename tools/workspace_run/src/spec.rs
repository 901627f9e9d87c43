//! The one run a call asks approval for: a [`RunSpec`] (defined once, in
//! `toolhost-run-spec`, for the tools and the host alike). What `inspect` shows the user
//! ([`RunSpec::to_json`]) and what `execute` passes to `process.run` ([`command`]) are both
//! read from the same value, so the approved run and the run are the same.

use toolhost_sdk::process::Command;

pub use toolhost_run_spec::RunSpec;

/// The command `execute` gives `process.run` for `spec`: exactly the approved program,
/// arguments, directory, environment and timeout.
pub fn command(spec: &RunSpec) -> Command {
    Command {
        program: spec.program.clone(),
        args: spec.args.clone(),
        cwd: spec.cwd.clone(),
        env: spec.env.clone(),
        timeout_ms: Some(spec.timeout_ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_the_approved_run() {
        let spec = RunSpec {
            program: "cargo".into(),
            args: vec!["test".into(), "--no-fail-fast".into()],
            cwd: Some("crates/a".into()),
            env: vec![("CI".into(), "1".into())],
            timeout_ms: 60_000,
            purpose: Some("run the tests".into()),
        };
        let command = command(&spec);
        assert_eq!(command.program, spec.program);
        assert_eq!(command.args, spec.args);
        assert_eq!(command.cwd, spec.cwd);
        assert_eq!(command.env, spec.env);
        assert_eq!(command.timeout_ms, Some(60_000));
    }
}
