//! Revisions: only local commits, named in a few plain ways, and always resolved to a full
//! hash before the operation runs, so git never interprets the model's text itself.
//!
//! Accepted ([`parse`]): a base — `HEAD`, a local branch name (`main`, `feature/x`, or
//! `refs/heads/main`), or a commit hash (4–64 hex digits) — followed by any number of `~`,
//! `~N`, `^` and `^N` steps. Refused, saying what is accepted: ranges (`..`, `...`), the reflog
//! (`@{…}`, `@`), `rev:path` and `:path`, peeling (`^{…}`), `^!`/`^@`/`^-`, a leading `-`,
//! whitespace and control characters, and any name that is not a local branch (tags,
//! remote-tracking branches, `FETCH_HEAD`).
//!
//! [`resolve`] then asks git: a name is a branch when `git show-ref --verify
//! refs/heads/<name>` finds it, else a hash when it is hex and names a commit whose hash starts
//! with it; the steps are applied with `git rev-parse --verify <hash><steps>^{commit}`.

use toolhost_sdk::error_kinds::ErrorKind;

use crate::failure::GitFailure;
use crate::hardening::argv;
use crate::runner::{Git, Keep, exit_failure};

/// What a revision may be, for every refusal.
pub const ACCEPTED: &str = "accepted: HEAD, HEAD~N, HEAD^ or HEAD^N, a local branch name (optionally followed by ~N or ^N), or a commit hash of 4 to 64 hex digits";

/// Most digits of one `~N` or `^N` step.
const MAX_STEP_DIGITS: usize = 6;

/// A revision whose syntax was checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    /// What the model wrote.
    pub given: String,
    /// `HEAD`, or a name to look up (a local branch, else a commit hash).
    pub base: Base,
    /// The `~N`/`^N` steps after the base, as written.
    pub steps: String,
}

/// The start of a revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// `HEAD`.
    Head,
    /// A local branch name or a commit hash (which one, git says).
    Name(String),
}

fn refuse(given: &str, why: &str) -> GitFailure {
    GitFailure::new(ErrorKind::InvalidInput, format!("revision {given:?}: {why}; {ACCEPTED}"))
}

/// Checks the syntax of `given`.
pub fn parse(given: &str) -> Result<Revision, GitFailure> {
    let no = |why: &str| Err(refuse(given, why));
    if given.is_empty() {
        return no("is empty");
    }
    if given.starts_with('-') {
        return no("starts with `-`");
    }
    if given.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return no("has whitespace or a control character");
    }
    if given.contains("..") {
        return no("ranges (`a..b`, `a...b`) are not accepted");
    }
    if given.contains("@{") || given == "@" {
        return no("reflog and `@` syntax are not accepted");
    }
    if given.contains(':') {
        return no("`rev:path` and `:path` are not accepted");
    }
    if given.contains("^{") {
        return no("`^{…}` is not accepted");
    }
    let split = given.find(['~', '^']).unwrap_or(given.len());
    let (base, steps) = given.split_at(split);
    check_steps(steps).map_err(|why| refuse(given, &why))?;
    let base = match base {
        "HEAD" => Base::Head,
        name => {
            let name = name.strip_prefix("refs/heads/").unwrap_or(name);
            check_name(name).map_err(|why| refuse(given, &why))?;
            Base::Name(name.to_owned())
        }
    };
    Ok(Revision { given: given.to_owned(), base, steps: steps.to_owned() })
}

fn check_steps(steps: &str) -> Result<(), String> {
    let mut rest = steps;
    while let Some(op) = rest.chars().next() {
        if op != '~' && op != '^' {
            return Err(format!("`{rest}` is not a `~N` or `^N` step"));
        }
        rest = &rest[1..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > MAX_STEP_DIGITS {
            return Err(format!("a step has more than {MAX_STEP_DIGITS} digits"));
        }
        rest = &rest[digits..];
    }
    Ok(())
}

/// A plausible local branch name (git's ref-name rules, enough to refuse anything else).
fn check_name(name: &str) -> Result<(), String> {
    let bad = name.is_empty()
        || name.starts_with(['/', '.'])
        || name.ends_with(['/', '.'])
        || name.ends_with(".lock")
        || name.contains("//")
        || name.contains("/.")
        || name.contains(['?', '*', '[', '\\', '!', '@'])
        || name.starts_with("refs/");
    if bad {
        return Err(format!("{name:?} is not a local branch name or a commit hash"));
    }
    Ok(())
}

fn is_hash(name: &str) -> bool {
    (4..=64).contains(&name.len()) && name.chars().all(|c| c.is_ascii_hexdigit())
}

/// The full hash of the commit `revision` names, asked of `git` (whose driver overrides are
/// `overrides`).
pub fn resolve<G: Git>(
    git: &mut G,
    overrides: &[String],
    revision: &Revision,
) -> Result<String, GitFailure> {
    let given = &revision.given;
    let base = match &revision.base {
        Base::Head => "HEAD".to_owned(),
        Base::Name(name) => {
            let show_ref = argv(
                overrides,
                &[
                    "show-ref".into(),
                    "--verify".into(),
                    "--hash".into(),
                    format!("refs/heads/{name}"),
                ],
            );
            let ran = git.run(&show_ref, Keep::Whole)?;
            let hash = ran.text().trim().to_owned();
            if ran.code == 0 && is_hash(&hash) {
                hash
            } else if is_hash(name) {
                let hash = commit_of(git, overrides, &format!("{name}^{{commit}}"), given)?;
                if !hash.starts_with(&name.to_ascii_lowercase()) {
                    return Err(refuse(given, "is ambiguous: a tag or another ref has that name"));
                }
                hash
            } else {
                return Err(refuse(
                    given,
                    &format!(
                        "{name:?} is not a local branch (tags and remote-tracking branches are not accepted)"
                    ),
                ));
            }
        }
    };
    if revision.steps.is_empty() && base != "HEAD" {
        return Ok(base);
    }
    commit_of(git, overrides, &format!("{base}{}^{{commit}}", revision.steps), given)
}

/// `git rev-parse --verify --quiet --end-of-options <spec>`: the hash, or a refusal of `given`.
fn commit_of<G: Git>(
    git: &mut G,
    overrides: &[String],
    spec: &str,
    given: &str,
) -> Result<String, GitFailure> {
    let args = argv(
        overrides,
        &[
            "rev-parse".into(),
            "--verify".into(),
            "--quiet".into(),
            "--end-of-options".into(),
            spec.into(),
        ],
    );
    let ran = git.run(&args, Keep::Whole)?;
    let hash = ran.text().trim().to_owned();
    if ran.code == 0 && is_hash(&hash) {
        return Ok(hash);
    }
    if ran.stderr.contains("not a git repository") {
        return Err(exit_failure("git rev-parse", &ran));
    }
    Err(refuse(given, "names no commit in this repository").with_stderr(ran.stderr_trimmed()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(s: &str) -> (Base, String) {
        let r = parse(s).unwrap();
        (r.base, r.steps)
    }

    #[test]
    fn accepted_forms() {
        assert_eq!(parsed("HEAD"), (Base::Head, String::new()));
        assert_eq!(parsed("HEAD~2"), (Base::Head, "~2".into()));
        assert_eq!(parsed("HEAD^"), (Base::Head, "^".into()));
        assert_eq!(parsed("HEAD^2~3^"), (Base::Head, "^2~3^".into()));
        assert_eq!(parsed("main"), (Base::Name("main".into()), String::new()));
        assert_eq!(parsed("feature/x-1~1"), (Base::Name("feature/x-1".into()), "~1".into()));
        assert_eq!(parsed("refs/heads/main"), (Base::Name("main".into()), String::new()));
        assert_eq!(parsed("a1b2c3d"), (Base::Name("a1b2c3d".into()), String::new()));
    }

    #[test]
    fn every_refusal_says_what_is_accepted() {
        for (bad, why) in [
            ("", "empty"),
            ("-p", "`-`"),
            ("--output=/tmp/x", "`-`"),
            ("HEAD ~1", "whitespace"),
            ("a\nb", "whitespace"),
            ("main..dev", "ranges"),
            ("main...dev", "ranges"),
            ("HEAD@{1}", "reflog"),
            ("@{-1}", "reflog"),
            ("@", "reflog"),
            ("HEAD:src/lib.rs", "path"),
            (":src/lib.rs", "path"),
            ("HEAD^{tree}", "`^{…}`"),
            ("HEAD^!", "step"),
            ("HEAD^@", "step"),
            ("HEAD^-1", "step"),
            ("HEAD~1234567", "digits"),
            ("refs/tags/v1", "not a local branch"),
            ("refs/remotes/origin/main", "not a local branch"),
            ("a*b", "not a local branch"),
            ("x.lock", "not a local branch"),
            ("/main", "not a local branch"),
            ("a//b", "not a local branch"),
        ] {
            let failure = parse(bad).expect_err(bad);
            assert_eq!(failure.kind, ErrorKind::InvalidInput);
            assert!(failure.message.contains(why), "{bad}: {}", failure.message);
            assert!(failure.message.ends_with(ACCEPTED), "{bad}");
        }
    }
}
