//! Every git command line this tool runs, and what keeps git from running anything else.
//!
//! A repository's own config (`.git/config`, `config.worktree`, the files it includes) and
//! its `.gitattributes` are files the agent can write. git would run programs they name: an
//! fsmonitor, hooks, a pager, an external diff, textconv and diff commands, clean/smudge
//! filters, merge drivers, ssh and credential helpers. So every invocation:
//! * starts with [`GLOBAL_ARGS`] (options before the subcommand, and `-c` settings, which
//!   win over every config file) and runs with [`ENV`] (no system or global config, no
//!   optional locks, no prompt, no system attributes, no replace refs, no lazy fetch);
//! * overrides, by name, every filter, diff and merge driver the repository's config
//!   defines ([`DRIVER_QUERY`], then [`driver_overrides`]) with empty values: an empty
//!   clean/smudge/process is no filter, `required` is set false so status still works, and
//!   an empty textconv/command/driver fails closed ("cannot run") rather than running
//!   anything — diff and show also pass `--no-ext-diff --no-textconv`;
//! * leaves submodules' work trees alone (`--ignore-submodules=dirty`), since a
//!   submodule's config is not the one inspected here.
//!
//! The program itself runs inside the host's read-only sandbox (nothing writable, network
//! off), so even a driver added between [`DRIVER_QUERY`] and the command could only read.

use toolhost_sdk::error_kinds::ErrorKind;

use crate::failure::GitFailure;

/// The program run: `git`, looked up on the host's PATH.
pub const PROGRAM: &str = "git";

/// Environment for every run: switches that only take something away (the host accepts
/// exactly these values).
pub const ENV: &[(&str, &str)] = &[
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_ATTR_NOSYSTEM", "1"),
    ("GIT_NO_REPLACE_OBJECTS", "1"),
    ("GIT_NO_LAZY_FETCH", "1"),
];

/// Options and `-c` settings every invocation starts with: beside what keeps git from running
/// programs, the settings that make its output what the parsers read (C-quoted paths,
/// relative to the repository's top, no colour, UTF-8 log text), and no per-user ignore or
/// attributes file (`~/.config/git/*`, which the sandbox does not let git read: like the
/// global config, it is not the repository's).
pub const GLOBAL_ARGS: &[&str] = &[
    "--no-pager",
    "--no-optional-locks",
    "--literal-pathspecs",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.pager=cat",
    "-c",
    "diff.external=",
    "-c",
    "log.showSignature=false",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "protocol.allow=never",
    "-c",
    "credential.helper=",
    "-c",
    "core.sshCommand=false",
    "-c",
    "core.quotePath=true",
    "-c",
    "status.relativePaths=false",
    "-c",
    "core.excludesFile=/dev/null",
    "-c",
    "core.attributesFile=/dev/null",
    "-c",
    "color.ui=false",
    "-c",
    "i18n.logOutputEncoding=UTF-8",
    "-c",
    "status.submoduleSummary=false",
    "-c",
    "submodule.recurse=false",
    "-c",
    "diff.submodule=short",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
];

/// The subcommand listing the names of the filter, diff and merge driver settings the
/// repository's config defines, NUL-separated (run after [`GLOBAL_ARGS`]).
pub const DRIVER_QUERY: &[&str] =
    &["config", "-z", "--name-only", "--get-regexp", r"^(filter|diff|merge)\."];

/// The keys of a driver that name a program, and the value that disables each.
fn neutral(section: &str) -> &'static [(&'static str, &'static str)] {
    match section {
        "filter" => &[("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")],
        "diff" => &[("textconv", ""), ("command", "")],
        "merge" => &[("driver", "")],
        _ => &[],
    }
}

/// The `-c` arguments that disable every driver named in `names` (the output of
/// [`DRIVER_QUERY`]: `section.driver.key` names, NUL-separated). A driver whose name a `-c`
/// cannot carry (`=`, a control character, bytes that are not UTF-8) fails the call: it could
/// not be disabled.
pub fn driver_overrides(names: &str) -> Result<Vec<String>, GitFailure> {
    let mut drivers: Vec<(&str, &str)> = Vec::new();
    for name in names.split(['\0', '\n']).filter(|n| !n.is_empty()) {
        let Some((section, rest)) = name.split_once('.') else { continue };
        let Some((driver, _key)) = rest.rsplit_once('.') else { continue };
        if neutral(section).is_empty() {
            continue;
        }
        if driver.is_empty()
            || driver.contains('=')
            || driver.contains('\u{fffd}')
            || driver.chars().any(char::is_control)
        {
            return Err(GitFailure::new(
                ErrorKind::PolicyDenied,
                format!(
                    "the repository's config defines a {section} driver named {:?}, which cannot be disabled on git's command line, so git was not run on it",
                    driver
                ),
            ));
        }
        if !drivers.contains(&(section, driver)) {
            drivers.push((section, driver));
        }
    }
    let mut args = Vec::new();
    for (section, driver) in drivers {
        for (key, value) in neutral(section) {
            args.push("-c".to_owned());
            args.push(format!("{section}.{driver}.{key}={value}"));
        }
    }
    Ok(args)
}

/// A full argument list: [`GLOBAL_ARGS`], the driver `overrides`, then `rest`.
pub fn argv(overrides: &[String], rest: &[String]) -> Vec<String> {
    GLOBAL_ARGS
        .iter()
        .map(|s| (*s).to_owned())
        .chain(overrides.iter().cloned())
        .chain(rest.iter().cloned())
        .collect()
}

/// `rest` of [`DRIVER_QUERY`] as owned strings.
pub fn driver_query() -> Vec<String> {
    argv(&[], &DRIVER_QUERY.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drivers_are_disabled_by_name() {
        let names = "filter.lfs.clean\0filter.lfs.smudge\0filter.Evil.Dots.process\0diff.tc.textconv\0merge.m.driver\0diff.color\0diff.external\0";
        let args = driver_overrides(names).unwrap();
        let pairs: Vec<&str> = args.iter().skip(1).step_by(2).map(String::as_str).collect();
        assert!(args.iter().step_by(2).all(|a| a == "-c"));
        assert_eq!(
            pairs,
            [
                "filter.lfs.clean=",
                "filter.lfs.smudge=",
                "filter.lfs.process=",
                "filter.lfs.required=false",
                "filter.Evil.Dots.clean=",
                "filter.Evil.Dots.smudge=",
                "filter.Evil.Dots.process=",
                "filter.Evil.Dots.required=false",
                "diff.tc.textconv=",
                "diff.tc.command=",
                "merge.m.driver=",
            ]
        );
        assert!(driver_overrides("").unwrap().is_empty());
    }

    #[test]
    fn a_driver_that_cannot_be_named_fails_closed() {
        for bad in ["filter.a=b.clean", "diff.x\u{fffd}.textconv", "filter..clean"] {
            let failure = driver_overrides(bad).unwrap_err();
            assert_eq!(failure.kind, ErrorKind::PolicyDenied, "{bad}");
        }
    }

    #[test]
    fn every_invocation_starts_hardened() {
        let args = argv(&["-c".into(), "filter.x.clean=".into()], &["status".into()]);
        assert_eq!(args[..3], ["--no-pager", "--no-optional-locks", "--literal-pathspecs"]);
        for setting in ["core.fsmonitor=false", "core.hooksPath=/dev/null", "diff.external="] {
            assert!(args.windows(2).any(|w| w == ["-c", setting]), "{setting}");
        }
        assert_eq!(args[args.len() - 3..], ["-c", "filter.x.clean=", "status"]);
        assert_eq!(driver_query().last().unwrap(), r"^(filter|diff|merge)\.");
    }
}
