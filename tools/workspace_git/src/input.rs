//! The input of `workspace_git` and every check made on it before git runs: the
//! repository directory, the pathspecs and the bounds, each refused with a [`GitFailure`] of
//! kind invalid input that says what is accepted. Revisions have their own module
//! ([`crate::revision`]).

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::limits::{
    GIT_DEFAULT_MAX_BYTES, GIT_DEFAULT_MAX_COUNT, GIT_MAX_COUNT, GIT_MAX_MAX_BYTES,
};

use crate::failure::GitFailure;

/// Most pathspecs one call may give (each is one argument of git's command line).
pub const MAX_PATHSPECS: usize = 1000;

/// Input of the `workspace_git` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitInput {
    /// What to inspect (all read-only): `status` = changed, staged and untracked files with
    /// the current branch; `diff` = the patch of unstaged changes (working tree against the
    /// index), or of every change since `revision` when one is given; `log` = recent commits
    /// (hash, author, date, subject); `show` = one commit's message and patch (`revision`,
    /// default HEAD); `branch` = the local branches, the current one marked.
    pub operation: GitOperation,
    /// The repository directory, relative to the workspace root (any directory inside the
    /// repository works). Omit it for the root. Absolute paths, `..` above the root and
    /// symlinks that lead out of the workspace are refused.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Limit status, diff, log or show to these paths, relative to `cwd` (a file or a
    /// directory, taken literally: no globs and no `:` magic). Absolute paths and `..` are
    /// refused. Default: the whole repository.
    #[serde(default)]
    pub pathspecs: Vec<String>,
    /// A local commit: `HEAD`, `HEAD~2`, `HEAD^`, `HEAD^2`, a local branch name (`main`,
    /// optionally with `~N`/`^N`), or a commit hash (4–64 hex digits). For `show`: the commit
    /// to show (default HEAD); for `log`: where the history starts (default HEAD); for `diff`:
    /// compare the working tree against it (`HEAD` shows staged and unstaged changes together).
    /// Ranges (`a..b`), reflog (`@{1}`), `rev:path`, tags and remote-tracking branches are
    /// refused.
    #[serde(default)]
    pub revision: Option<String>,
    /// diff and show: the most bytes of git's output to return, 1–4194304 (default 262144;
    /// out of range is refused, not clamped).
    /// Longer output keeps its start and end, the middle cut out, and says so
    /// (`stdout_truncated`).
    #[serde(default)]
    pub max_bytes: Option<i64>,
    /// log: how many commits to list, 1–100 (default 20), newest first (out of range is
    /// refused, not clamped).
    #[serde(default)]
    pub max_count: Option<i64>,
}

/// The git operation of a call (the variants carry no doc comments, so the schema is a plain
/// `enum` and a refusal of another value lists the accepted ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "Operation")]
pub enum GitOperation {
    // Changed, staged and untracked files, and the branch.
    Status,
    // The patch of unstaged changes, or of everything since `revision`.
    Diff,
    // Recent commits.
    Log,
    // One commit with its patch.
    Show,
    // The local branches.
    Branch,
}

impl GitOperation {
    /// The name the input and the structured value use.
    pub fn name(self) -> &'static str {
        match self {
            GitOperation::Status => "status",
            GitOperation::Diff => "diff",
            GitOperation::Log => "log",
            GitOperation::Show => "show",
            GitOperation::Branch => "branch",
        }
    }
}

/// A call's input once checked: everything git will be given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedGit {
    /// The operation.
    pub operation: GitOperation,
    /// The working directory for git, relative to the workspace (none: the root).
    pub cwd: Option<String>,
    /// The pathspecs, checked.
    pub pathspecs: Vec<String>,
    /// The revision as given (its syntax checked; resolved by [`crate::revision`]).
    pub revision: Option<crate::revision::Revision>,
    /// diff/show: bytes of stdout kept.
    pub max_bytes: usize,
    /// log: commits listed.
    pub max_count: u32,
}

fn invalid(message: String) -> GitFailure {
    GitFailure::new(ErrorKind::InvalidInput, message)
}

/// Checks every field of `input` against what its operation takes.
pub fn check(input: &GitInput) -> Result<CheckedGit, GitFailure> {
    let op = input.operation;
    let takes = |field: &str, ops: &[GitOperation]| -> Result<(), GitFailure> {
        if ops.contains(&op) {
            return Ok(());
        }
        let names: Vec<&str> = ops.iter().map(|o| o.name()).collect();
        Err(invalid(format!(
            "`{field}` is not used by `{}`; it is taken by {} only",
            op.name(),
            names.join(", ")
        )))
    };
    use GitOperation::*;
    if !input.pathspecs.is_empty() {
        takes("pathspecs", &[Status, Diff, Log, Show])?;
    }
    if input.revision.is_some() {
        takes("revision", &[Diff, Log, Show])?;
    }
    if input.max_bytes.is_some() {
        takes("max_bytes", &[Diff, Show])?;
    }
    if input.max_count.is_some() {
        takes("max_count", &[Log])?;
    }
    Ok(CheckedGit {
        operation: op,
        cwd: check_cwd(input.cwd.as_deref())?,
        pathspecs: check_pathspecs(&input.pathspecs)?,
        revision: input.revision.as_deref().map(crate::revision::parse).transpose()?,
        max_bytes: check_max_bytes(input.max_bytes)?,
        max_count: check_max_count(input.max_count)?,
    })
}

/// Whether `path` is absolute on any platform git might see (`/x`, `\x`, `C:`).
fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/')
        || path.starts_with('\\')
        || (b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic())
}

fn has_dot_dot(path: &str) -> bool {
    path.split(['/', '\\']).any(|part| part == "..")
}

/// The repository directory as git's runs name it; `""` and `.` are the root. Where it may
/// lead is the host's one rule for the workspace tools (relative, inside the workspace, no
/// symlink out: `toolhost_core::fence::resolve_in_workspace`), applied before git runs; its
/// refusal names `cwd` ([`GitFailure::from_tool_error`]).
pub fn check_cwd(cwd: Option<&str>) -> Result<Option<String>, GitFailure> {
    let Some(cwd) = cwd else { return Ok(None) };
    if cwd.contains('\0') {
        return Err(invalid("`cwd` contains a NUL byte".into()));
    }
    let trimmed = cwd.trim_end_matches('/');
    Ok((!trimmed.is_empty() && trimmed != ".").then(|| trimmed.to_owned()))
}

/// The pathspecs: relative, literal, no `..`, no magic.
pub fn check_pathspecs(pathspecs: &[String]) -> Result<Vec<String>, GitFailure> {
    if pathspecs.len() > MAX_PATHSPECS {
        return Err(invalid(format!("at most {MAX_PATHSPECS} pathspecs; got {}", pathspecs.len())));
    }
    for spec in pathspecs {
        let refuse = |why: &str| {
            Err(invalid(format!(
                "pathspec {spec:?} {why}; give paths relative to `cwd`, like \"src\" or \"src/lib.rs\""
            )))
        };
        if spec.is_empty() {
            return refuse("is empty");
        }
        if spec.contains('\0') {
            return refuse("contains a NUL byte");
        }
        if is_absolute(spec) {
            return refuse("is absolute");
        }
        if has_dot_dot(spec) {
            return refuse("has a `..` component");
        }
        if spec.starts_with(':') {
            return refuse("starts with `:` (pathspec magic is not accepted)");
        }
    }
    Ok(pathspecs.to_vec())
}

/// `max_bytes`: 1 to [`GIT_MAX_MAX_BYTES`], default [`GIT_DEFAULT_MAX_BYTES`].
pub fn check_max_bytes(max_bytes: Option<i64>) -> Result<usize, GitFailure> {
    match max_bytes {
        None => Ok(GIT_DEFAULT_MAX_BYTES),
        Some(n) if (1..=GIT_MAX_MAX_BYTES as i64).contains(&n) => Ok(n as usize),
        Some(n) => Err(invalid(format!(
            "`max_bytes` must be 1 to {GIT_MAX_MAX_BYTES}; got {n} (default {GIT_DEFAULT_MAX_BYTES})"
        ))),
    }
}

/// `max_count`: 1 to [`GIT_MAX_COUNT`], default [`GIT_DEFAULT_MAX_COUNT`].
pub fn check_max_count(max_count: Option<i64>) -> Result<u32, GitFailure> {
    match max_count {
        None => Ok(GIT_DEFAULT_MAX_COUNT),
        Some(n) if (1..=i64::from(GIT_MAX_COUNT)).contains(&n) => Ok(n as u32),
        Some(n) => Err(invalid(format!(
            "`max_count` must be 1 to {GIT_MAX_COUNT}; got {n} (default {GIT_DEFAULT_MAX_COUNT})"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolhost_sdk::{input_schema, parse_input};

    fn input(value: serde_json::Value) -> GitInput {
        parse_input(&value.to_string()).unwrap()
    }

    fn refusal(value: serde_json::Value) -> String {
        let failure = check(&input(value.clone())).expect_err(&value.to_string());
        assert_eq!(failure.kind, ErrorKind::InvalidInput, "{value}");
        failure.message
    }

    #[test]
    fn defaults_and_schema() {
        let checked = check(&input(json!({"operation": "status"}))).unwrap();
        assert_eq!(checked.cwd, None);
        assert!(checked.pathspecs.is_empty());
        assert_eq!((checked.max_bytes, checked.max_count), (262_144, 20));
        let schema = input_schema::<GitInput>();
        assert_eq!(schema["required"], json!(["operation"]));
        assert_eq!(schema["additionalProperties"], json!(false));
        let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["cwd", "max_bytes", "max_count", "operation", "pathspecs", "revision"]);
        assert!(!schema.to_string().contains("sandbox_root"));
        let operation = &schema["$defs"]["Operation"];
        assert_eq!(operation["enum"], json!(["status", "diff", "log", "show", "branch"]));
        // The bounds are checked by the tool, so a refusal is its structured one.
        assert!(schema["properties"]["max_count"].get("minimum").is_none());
        for field in ["operation", "cwd", "pathspecs", "revision", "max_bytes", "max_count"] {
            let text = schema["properties"][field].to_string();
            assert!(text.contains("description"), "{field}: {text}");
        }
    }

    #[test]
    fn unknown_fields_and_operations_are_refused_by_the_parser() {
        for bad in [
            json!({"operation": "status", "sandbox_root": "/"}),
            json!({"operation": "commit"}),
            json!({"operation": "Status"}),
            json!({}),
            json!({"operation": "log", "maxCount": 3}),
        ] {
            assert!(parse_input::<GitInput>(&bad.to_string()).is_err(), "{bad}");
        }
    }

    #[test]
    fn cwd_is_relative_and_inside() {
        let cwd = |c: &str| check(&input(json!({"operation": "status", "cwd": c})));
        assert_eq!(cwd("sub/repo/").unwrap().cwd.as_deref(), Some("sub/repo"));
        assert_eq!(cwd(".").unwrap().cwd, None);
        assert_eq!(cwd("").unwrap().cwd, None);
        // Outside the workspace or not is the host's rule, where git's run starts.
        assert_eq!(cwd("../x").unwrap().cwd.as_deref(), Some("../x"));
        assert_eq!(cwd("a\0b").unwrap_err().kind, ErrorKind::InvalidInput);
    }

    #[test]
    fn every_pathspec_refusal() {
        let spec = |s: &str| refusal(json!({"operation": "diff", "pathspecs": ["ok", s]}));
        assert!(spec("").contains("is empty"));
        assert!(spec("a\0b").contains("NUL"));
        assert!(spec("/etc/passwd").contains("absolute"));
        assert!(spec("../x").contains("`..`"));
        assert!(spec("a/../../x").contains("`..`"));
        assert!(spec(":(glob)*.rs").contains("magic"));
        assert!(spec(":!x").contains("magic"));
        let many: Vec<String> = (0..=MAX_PATHSPECS).map(|i| format!("f{i}")).collect();
        assert!(refusal(json!({"operation": "log", "pathspecs": many})).contains("at most"));
        let fine = check(&input(json!({"operation": "log", "pathspecs": ["a..b", "*.rs", "-x"]})));
        assert_eq!(fine.unwrap().pathspecs, ["a..b", "*.rs", "-x"]);
    }

    #[test]
    fn bounds_say_their_range() {
        let m = refusal(json!({"operation": "diff", "max_bytes": 0}));
        assert!(m.contains("1 to 4194304"), "{m}");
        refusal(json!({"operation": "show", "max_bytes": 4_194_305}));
        let ok = check(&input(json!({"operation": "show", "max_bytes": 4_194_304})));
        assert_eq!(ok.unwrap().max_bytes, 4_194_304);
        let m = refusal(json!({"operation": "log", "max_count": 0}));
        assert!(m.contains("1 to 100"), "{m}");
        refusal(json!({"operation": "log", "max_count": 101}));
        refusal(json!({"operation": "log", "max_count": -1}));
        assert!(refusal(json!({"operation": "diff", "max_bytes": -5})).contains("got -5"));
        assert_eq!(
            check(&input(json!({"operation": "log", "max_count": 100}))).unwrap().max_count,
            100
        );
    }

    #[test]
    fn fields_an_operation_does_not_take_are_refused() {
        assert!(
            refusal(json!({"operation": "status", "revision": "HEAD"})).contains("diff, log, show")
        );
        refusal(json!({"operation": "branch", "pathspecs": ["x"]}));
        refusal(json!({"operation": "log", "max_bytes": 10}));
        refusal(json!({"operation": "diff", "max_count": 10}));
        refusal(json!({"operation": "branch", "revision": "main"}));
    }
}
