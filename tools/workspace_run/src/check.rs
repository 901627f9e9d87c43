//! The checks both approval-gated tools make on their input before anything is asked:
//! `command` ([`command`]), `cwd` ([`cwd`]),
//! `env` ([`env`]) and `timeout_ms` ([`timeout`]). The host checks the
//! run again (it holds `cwd` to the workspace and allows only its environment allow-list);
//! these checks refuse early, with a clear message, what can never run, so the user is not
//! asked about it.

use std::collections::BTreeMap;

use toolhost_sdk::error_kinds::ErrorKind;

use crate::failure::Failure;

/// Prefixes of the loader variables (case-insensitive) a run may never set.
pub const LOADER_PREFIXES: [&str; 2] = ["LD_", "DYLD_"];

fn invalid(message: String) -> Failure {
    Failure::new(ErrorKind::InvalidInput, message)
}

/// A `command` is one program: no NUL, not blank, and no spaces unless it is a path;
/// `example` names a program for the message (`"ls"`, `"cargo"`).
pub fn command(command: &str, example: &str) -> Result<(), Failure> {
    let invalid = |m: String| Failure::new(ErrorKind::InvalidInput, m);
    if command.contains('\0') {
        return Err(invalid("`command` contains a NUL byte".into()));
    }
    if command.trim().is_empty() {
        return Err(invalid(format!(
            "`command` is blank; give the program to run, like {example:?}"
        )));
    }
    if command.contains(char::is_whitespace) && !command.contains('/') {
        return Err(invalid(format!(
            "`command` is one program, {command:?} has spaces: put its arguments in `args`"
        )));
    }
    Ok(())
}

/// The working directory as the run names it: `""` and `.` are the root (none), a trailing
/// `/` is dropped. Where it may lead is the host's one rule for the workspace tools
/// (`toolhost_core::fence::resolve_in_workspace`: relative, inside the workspace, no symlink
/// out), applied when the run is asked about and again when it starts; a refusal names `cwd`
/// ([`crate::from_run_error`]).
pub fn cwd(cwd: Option<&str>) -> Result<Option<String>, Failure> {
    let Some(cwd) = cwd else { return Ok(None) };
    if cwd.contains('\0') {
        return Err(invalid("`cwd` contains a NUL byte".into()));
    }
    let trimmed = cwd.trim_end_matches('/');
    Ok((!trimmed.is_empty() && trimmed != ".").then(|| trimmed.to_owned()))
}

/// Why the variable `name` may never be set by a run (PATH or a loader variable, any
/// case), if it may not.
pub fn refused_env_name(name: &str) -> Option<String> {
    let upper = name.to_ascii_uppercase();
    if upper == "PATH" {
        return Some(format!(
            "`env` may not set {name}: the host's PATH decides which program runs"
        ));
    }
    LOADER_PREFIXES.iter().find(|p| upper.starts_with(*p)).map(|p| {
        format!(
            "`env` may not set {name}: loader variables ({p}*) decide what code a program loads"
        )
    })
}

/// The extra environment, checked, in name order: malformed names and NUL bytes are invalid
/// input; PATH and loader variables are refused by policy. Other names pass on to the host,
/// which allows only its baseline and the operator's `process_env_allow`.
pub fn env(env: &BTreeMap<String, String>) -> Result<Vec<(String, String)>, Failure> {
    for (name, value) in env {
        let well_formed = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !well_formed {
            return Err(invalid(format!(
                "`env` name {name:?} is not a variable name: use letters, digits and `_`, not starting with a digit"
            )));
        }
        if let Some(why) = refused_env_name(name) {
            return Err(Failure::new(ErrorKind::PolicyDenied, why));
        }
        if value.contains('\0') {
            return Err(invalid(format!("`env` value of {name} contains a NUL byte")));
        }
    }
    Ok(env.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
}

/// `timeout_ms`: 1 to `max` milliseconds, `default` when absent; out of range is refused,
/// not clamped.
pub fn timeout(timeout_ms: Option<i64>, default: u64, max: u64) -> Result<u64, Failure> {
    match timeout_ms {
        None => Ok(default),
        Some(n) if n >= 1 && n as u64 <= max => Ok(n as u64),
        Some(n) => {
            Err(invalid(format!("`timeout_ms` must be 1 to {max}; got {n} (default {default})")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_is_named_as_given_and_left_to_the_host() {
        assert_eq!(cwd(None).unwrap(), None);
        assert_eq!(cwd(Some("")).unwrap(), None);
        assert_eq!(cwd(Some(".")).unwrap(), None);
        assert_eq!(cwd(Some("sub/dir/")).unwrap().as_deref(), Some("sub/dir"));
        assert_eq!(cwd(Some("a..b")).unwrap().as_deref(), Some("a..b"));
        // Outside the workspace or not is the host's rule, checked where the path is used.
        assert_eq!(cwd(Some("../x")).unwrap().as_deref(), Some("../x"));
        assert_eq!(cwd(Some("a\0b")).unwrap_err().kind, ErrorKind::InvalidInput);
    }

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn env_refuses_path_and_loader_variables_in_any_case() {
        for name in [
            "PATH",
            "path",
            "Path",
            "LD_PRELOAD",
            "ld_library_path",
            "DYLD_INSERT_LIBRARIES",
            "dyld_x",
        ] {
            let f = env(&map(&[("CI", "1"), (name, "x")])).unwrap_err();
            assert_eq!(f.kind, ErrorKind::PolicyDenied, "{name}");
            assert!(f.message.contains(name), "{}", f.message);
        }
        for name in ["", "1X", "A-B", "A=B", "A B", "Ä"] {
            assert_eq!(
                env(&map(&[(name, "x")])).unwrap_err().kind,
                ErrorKind::InvalidInput,
                "{name:?}"
            );
        }
        assert_eq!(env(&map(&[("CI", "a\0b")])).unwrap_err().kind, ErrorKind::InvalidInput);
        let ok = env(&map(&[("RUST_LOG", "debug"), ("CI", "1"), ("PATHX", "y"), ("OLD_LD", "z")]));
        assert_eq!(
            ok.unwrap(),
            [("CI", "1"), ("OLD_LD", "z"), ("PATHX", "y"), ("RUST_LOG", "debug")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
    }

    #[test]
    fn timeout_is_refused_out_of_range() {
        assert_eq!(timeout(None, 60_000, 600_000).unwrap(), 60_000);
        assert_eq!(timeout(Some(1), 60_000, 600_000).unwrap(), 1);
        assert_eq!(timeout(Some(600_000), 60_000, 600_000).unwrap(), 600_000);
        for bad in [0, -1, 600_001, i64::MIN] {
            let f = timeout(Some(bad), 60_000, 600_000).unwrap_err();
            assert_eq!(f.kind, ErrorKind::InvalidInput);
            assert!(f.message.contains("1 to 600000") && f.message.contains("default 60000"));
        }
    }
}
