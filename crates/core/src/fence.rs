//! The path fence (docs/contract.md#paths): every path a tool names becomes a [`CheckedPath`] here,
//! or an error the model can act on.
//!
//! Here: lexical normalisation, canonicalisation and the policy check. Opening the real
//! objects so that a swap after the check cannot redirect them is elsewhere: reads in
//! `crate::open` (no symlink followed anywhere in the real path), writes in
//! [`crate::atomic`] (a pinned directory descriptor). `docs/architecture.md` has the whole story.

use std::path::{Path, PathBuf};

use toolhost_policy::{Access, Actor, SandboxPolicy};

use crate::context::ToolSessionContext;
use crate::result::{ErrorCode, ToolError};

/// Whether the target must already exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// Canonicalise the target itself; a missing target is an error.
    MustExist,
    /// Canonicalise the nearest existing ancestor and re-attach the rest.
    MayCreate,
}

/// A path that passed the fence. Only [`resolve_path`] makes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedPath {
    real: PathBuf,
    display: String,
}

impl CheckedPath {
    /// The real (canonical) path.
    pub fn as_path(&self) -> &Path {
        &self.real
    }

    /// The path to show the model: relative to the workspace when inside it.
    pub fn display(&self) -> &str {
        &self.display
    }
}

/// How `path` is shown to the model: relative to `workspace` when inside it ("." for the
/// root itself), absolute otherwise; a path with a control character as a JSON string
/// literal ([`crate::display::quote_path`]), which [`normalize`] accepts back.
pub fn display_path(workspace: &Path, path: &Path) -> String {
    let text = match path.strip_prefix(workspace) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    };
    crate::display::quote_path(&text).into_owned()
}

/// Longest accepted path, in bytes (a hard limit checked before any I/O:
/// docs/architecture.md#the-path-fence).
pub const MAX_PATH_BYTES: usize = 4096;

/// Longest accepted path component, in bytes (the common filesystem limit).
pub const MAX_COMPONENT_BYTES: usize = 255;

/// Windows device names, refused as a component with or without an extension
/// (docs/architecture.md#the-path-fence).
const DEVICE_NAMES: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// Why a path string was refused before any I/O; the text is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("path is empty; pass a file or directory path")]
    Empty,
    #[error("path contains a NUL or control character; pass a plain path")]
    ControlCharacter,
    #[error(
        "path {0:?} starts with ~, which is not expanded here; pass the absolute path (e.g. /home/user/notes.txt), or ./{0} for a file named so in the working directory"
    )]
    Tilde(String),
    #[error(
        "path {0:?} uses a Windows drive, UNC or device form; pass a path of this machine, e.g. src/lib.rs"
    )]
    WindowsForm(String),
    #[error("path component {0:?} is a Windows device name; choose another name")]
    DeviceName(String),
    #[error("path component {0:?} ends with a dot or a space; remove it")]
    TrailingDotOrSpace(String),
    #[error("path is {0} bytes long; the limit is 4096")]
    TooLong(usize),
    #[error("a path component is {0} bytes long; the limit is 255")]
    ComponentTooLong(usize),
}

/// Normalise `input` against `base` without touching the filesystem
/// (docs/architecture.md#the-path-fence): `/` and `\` both separate, `.` and `..` are removed
/// lexically (never above `/`), and the result is absolute and printed with `/`. A JSON string
/// literal (`"a\nb"`, the form results show a path with a control character in) is decoded first;
/// only there may such characters appear.
pub fn normalize(base: &Path, input: &str) -> Result<PathBuf, PathError> {
    let quoted = is_quoted(input);
    let decoded = unquoted(input);
    let input = decoded.as_ref();
    if input.is_empty() {
        return Err(PathError::Empty);
    }
    if input.len() > MAX_PATH_BYTES {
        return Err(PathError::TooLong(input.len()));
    }
    if input.contains('\0') || (!quoted && input.chars().any(|c| c.is_control())) {
        return Err(PathError::ControlCharacter);
    }
    if input.starts_with('~') {
        return Err(PathError::Tilde(input.to_string()));
    }
    let bytes = input.as_bytes();
    let is_sep = |b: u8| b == b'/' || b == b'\\';
    if (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
        || (bytes.len() >= 2 && bytes[0] == b'\\' && bytes[1] == b'\\')
    {
        return Err(PathError::WindowsForm(input.to_string()));
    }
    let mut out = if is_sep(bytes[0]) { PathBuf::from("/") } else { base.to_path_buf() };
    for part in input.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            name => {
                if name.len() > MAX_COMPONENT_BYTES {
                    return Err(PathError::ComponentTooLong(name.len()));
                }
                if name.ends_with('.') || name.ends_with(' ') {
                    return Err(PathError::TrailingDotOrSpace(name.to_string()));
                }
                let stem = name.split('.').next().unwrap_or(name).trim_end().to_ascii_uppercase();
                if DEVICE_NAMES.contains(&stem.as_str()) {
                    return Err(PathError::DeviceName(name.to_string()));
                }
                out.push(name);
            }
        }
    }
    Ok(out)
}

/// Whether `input` looks like a JSON string literal (the form a path with a control character
/// is shown in).
fn is_quoted(input: &str) -> bool {
    input.len() >= 2 && input.starts_with('"') && input.ends_with('"')
}

/// `input` with a JSON string literal decoded ([`normalize`] accepts paths in that form).
fn unquoted(input: &str) -> std::borrow::Cow<'_, str> {
    match is_quoted(input).then(|| serde_json::from_str::<String>(input)) {
        Some(Ok(text)) => std::borrow::Cow::Owned(text),
        _ => std::borrow::Cow::Borrowed(input),
    }
}

/// Why [`resolve_in_workspace`] refused a path that leaves the workspace; the text is what the
/// model reads (a tool names the input field in front of it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutsideWorkspace {
    /// An absolute path, even one inside the workspace.
    #[error(
        "{0:?} is an absolute path; this tool takes only paths relative to the workspace root (like \"docs/guide.md\")"
    )]
    Absolute(String),
    /// `..` climbs above the workspace root.
    #[error(
        "{0:?} leads outside the workspace (its `..` climbs above the workspace root); this tool stays inside the workspace"
    )]
    DotDot(String),
    /// A symlink on the way leads out of the workspace.
    #[error(
        "{0:?} leads outside the workspace through a symlink; this tool stays inside the workspace"
    )]
    Symlink(String),
}

/// [`resolve_path`] held to the workspace (the workspace tools, docs/workspace-tools.md#paths):
/// `input` must be relative to the workspace root, its `..` may not climb above the root, and
/// the real path — every symlink on the way followed — must lie inside the workspace; then
/// the policy is checked as for any path. The one place this rule lives: the host applies it
/// to every path such a tool hands it (`stat`, `open-file`, `open-dir`, a program's working
/// directory), before anything is read or run.
pub fn resolve_in_workspace(
    session: &ToolSessionContext,
    input: &str,
    access: Access,
    intent: Intent,
    policy: &SandboxPolicy,
) -> Result<CheckedPath, FenceError> {
    let refuse =
        |why: OutsideWorkspace| FenceError::from(ToolError::permission_denied(why.to_string()));
    let workspace = &session.working_directory;
    let text = unquoted(input);
    if text.starts_with(['/', '\\']) {
        return Err(refuse(OutsideWorkspace::Absolute(input.to_owned())));
    }
    let lexical =
        normalize(workspace, input).map_err(|e| ToolError::invalid_arguments(e.to_string()))?;
    if !lexical.starts_with(workspace) {
        return Err(refuse(OutsideWorkspace::DotDot(input.to_owned())));
    }
    let checked = resolve_path(session, input, access, intent, policy)?;
    let real_workspace = workspace.canonicalize().unwrap_or_else(|_| workspace.clone());
    if !checked.as_path().starts_with(&real_workspace) {
        return Err(refuse(OutsideWorkspace::Symlink(input.to_owned())));
    }
    Ok(checked)
}

/// `input` made absolute and normalised against the session's working directory, without
/// touching the filesystem.
pub fn resolve_lexically(session: &ToolSessionContext, input: &str) -> Result<PathBuf, PathError> {
    normalize(&session.working_directory, input)
}

/// Why [`resolve_path`] refused a path: the error the model reads, and whether the policy
/// denial is one the call's result marks `sandbox_denied` (docs/contract.md#paths: the sensitive,
/// credential and outside tiers; not the hard-protected one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenceError {
    pub error: ToolError,
    pub sandbox_denied: bool,
}

impl From<ToolError> for FenceError {
    fn from(error: ToolError) -> Self {
        FenceError { error, sandbox_denied: false }
    }
}

/// Resolve `input` for `access` under `policy` (docs/contract.md#paths).
pub fn resolve_path(
    session: &ToolSessionContext,
    input: &str,
    access: Access,
    intent: Intent,
    policy: &SandboxPolicy,
) -> Result<CheckedPath, FenceError> {
    let lexical = normalize(&session.working_directory, input)
        .map_err(|e| ToolError::invalid_arguments(e.to_string()))?;
    let real = match intent {
        Intent::MustExist => {
            let real = lexical.canonicalize().map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => ToolError::invalid_arguments(format!(
                    "{input} does not exist; use list or glob to find the right path"
                )),
                _ => ToolError::execution_failed(format!("cannot resolve {input}: {e}")),
            })?;
            // Normalisation drops a trailing separator; it still says "a directory".
            if input.ends_with(['/', '\\']) && !real.is_dir() {
                return Err(ToolError::invalid_arguments(format!(
                    "{input} ends with a separator, but it is a file; pass it without the separator"
                ))
                .into());
            }
            real
        }
        Intent::MayCreate => {
            let mut existing = lexical.as_path();
            let mut rest = Vec::new();
            loop {
                if std::fs::symlink_metadata(existing).is_ok() {
                    break;
                }
                match (existing.parent(), existing.file_name()) {
                    (Some(parent), Some(name)) => {
                        rest.push(name.to_owned());
                        existing = parent;
                    }
                    _ => break,
                }
            }
            let mut real = existing.canonicalize().map_err(|_| {
                ToolError::permission_denied(format!(
                    "{input} goes through a dangling symlink; refusing to create through it"
                ))
            })?;
            real.extend(rest.iter().rev());
            real
        }
    };
    policy.check(&real, access, Actor::FileTool).map_err(|d| FenceError {
        error: ToolError {
            code: ErrorCode::PermissionDenied,
            message: d.message,
            retryable: false,
        },
        sandbox_denied: d.sandbox_denied,
    })?;
    let display = display_path(&session.working_directory, &real);
    Ok(CheckedPath { real, display })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use toolhost_sandbox::NoSandbox;

    #[test]
    fn normalize_removes_dots_lexically() {
        let p = normalize(Path::new("/w"), "a/./b/../c").unwrap();
        assert_eq!(p, PathBuf::from("/w/a/c"));
        let p = normalize(Path::new("/w"), "../../../x").unwrap();
        assert_eq!(p, PathBuf::from("/x"));
    }

    /// The rejection matrix of docs/architecture.md#the-path-fence, with ordinary inputs that must
    /// still work.
    #[test]
    fn rejection_matrix() {
        let base = Path::new("/w");
        let ok: &[(&str, &str)] = &[
            ("src/lib.rs", "/w/src/lib.rs"),
            ("src\\lib.rs", "/w/src/lib.rs"),
            ("/etc/hosts", "/etc/hosts"),
            ("\\etc\\hosts", "/etc/hosts"),
            ("./a//b/", "/w/a/b"),
            (".env", "/w/.env"),
            ("..", "/"),
            ("a/../../..", "/"),
            ("console.log", "/w/console.log"),
            ("CONFIG", "/w/CONFIG"),
            ("名前.txt", "/w/名前.txt"),
        ];
        for (input, want) in ok {
            assert_eq!(normalize(base, input).unwrap(), PathBuf::from(want), "{input}");
        }
        let long_component = "x".repeat(256);
        let long_path = "a/".repeat(2049);
        let bad: &[(&str, PathError)] = &[
            ("", PathError::Empty),
            ("a\0b", PathError::ControlCharacter),
            ("a\nb", PathError::ControlCharacter),
            ("C:\\Windows", PathError::WindowsForm("C:\\Windows".into())),
            ("c:/x", PathError::WindowsForm("c:/x".into())),
            ("\\\\server\\share", PathError::WindowsForm("\\\\server\\share".into())),
            ("\\\\?\\C:\\x", PathError::WindowsForm("\\\\?\\C:\\x".into())),
            ("CON", PathError::DeviceName("CON".into())),
            ("dir/nul.txt", PathError::DeviceName("nul.txt".into())),
            ("com1", PathError::DeviceName("com1".into())),
            ("LPT9.log", PathError::DeviceName("LPT9.log".into())),
            ("file.", PathError::TrailingDotOrSpace("file.".into())),
            ("dir /x", PathError::TrailingDotOrSpace("dir ".into())),
            (&long_component, PathError::ComponentTooLong(256)),
            (&long_path, PathError::TooLong(4098)),
        ];
        for (input, want) in bad {
            assert_eq!(normalize(base, input).unwrap_err(), *want, "{input:?}");
        }
    }

    /// For random strings: never panics, idempotent, never yields `..` or NUL.
    #[test]
    fn normalisation_is_total_idempotent_and_clean() {
        let alphabet: Vec<char> = "ab./\\:\0 CONul1?é".chars().collect();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let len = (next() % 24) as usize;
            let input: String =
                (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect();
            let Ok(p) = normalize(Path::new("/w"), &input) else { continue };
            let text = p.to_str().unwrap();
            assert!(p.is_absolute(), "{input:?}");
            assert!(!text.contains('\0'), "{input:?}");
            assert!(!p.components().any(|c| c == std::path::Component::ParentDir), "{input:?}");
            assert_eq!(normalize(Path::new("/w"), text).unwrap(), p, "idempotent for {input:?}");
        }
    }

    #[test]
    fn a_trailing_separator_must_name_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("f.txt"), "x").unwrap();
        std::fs::create_dir(root.join("d")).unwrap();
        let session =
            ToolSessionContext::local(&root, root.join(".data"), "s", Arc::new(NoSandbox));
        let policy = SandboxPolicy::workspace_write(&root);
        let resolve =
            |input: &str| resolve_path(&session, input, Access::Read, Intent::MustExist, &policy);
        let e = resolve("f.txt/").unwrap_err();
        assert_eq!(
            e.error.message,
            "f.txt/ ends with a separator, but it is a file; pass it without the separator"
        );
        assert_eq!(resolve("d/").unwrap().display(), "d");
        assert_eq!(resolve("f.txt").unwrap().display(), "f.txt");
    }

    #[test]
    fn the_workspace_tools_stay_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("ws");
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(root.join("docs/a.md"), "# a").unwrap();
        std::fs::write(base.join("outside/secret.md"), "# s").unwrap();
        std::os::unix::fs::symlink(base.join("outside"), root.join("out")).unwrap();
        std::os::unix::fs::symlink("docs", root.join("in")).unwrap();
        let session =
            ToolSessionContext::local(&root, base.join(".data"), "s", Arc::new(NoSandbox));
        let policy = SandboxPolicy::workspace_write(&root);
        let resolve = |input: &str, intent| {
            resolve_in_workspace(&session, input, Access::Read, intent, &policy)
        };
        for ok in ["docs/a.md", "./docs/../docs/a.md", "in/a.md", "\"docs/a.md\"", "docs"] {
            assert!(resolve(ok, Intent::MustExist).is_ok(), "{ok}");
        }
        assert_eq!(resolve(".", Intent::MustExist).unwrap().display(), ".");
        assert_eq!(resolve("docs/new.md", Intent::MayCreate).unwrap().display(), "docs/new.md");
        let absolute = root.join("docs/a.md").display().to_string();
        let outside = base.join("outside/secret.md").display().to_string();
        for (input, intent, want) in [
            (absolute.as_str(), Intent::MustExist, "is an absolute path"),
            (outside.as_str(), Intent::MustExist, "is an absolute path"),
            ("\\etc\\passwd", Intent::MayCreate, "is an absolute path"),
            ("../outside/secret.md", Intent::MustExist, "climbs above the workspace root"),
            ("docs/../../outside", Intent::MayCreate, "climbs above the workspace root"),
            ("..", Intent::MustExist, "climbs above the workspace root"),
            ("out/secret.md", Intent::MustExist, "through a symlink"),
            ("out", Intent::MustExist, "through a symlink"),
            ("out/new.md", Intent::MayCreate, "through a symlink"),
        ] {
            let e = resolve(input, intent).expect_err(input).error;
            assert_eq!(e.code, ErrorCode::PermissionDenied, "{input}");
            assert!(e.message.contains(want), "{input}: {}", e.message);
            assert!(e.message.starts_with(&format!("{input:?}")), "{}", e.message);
        }
        // The ordinary fence still reads there: the rule is the workspace tools' own.
        assert!(
            resolve_path(&session, "out/secret.md", Access::Read, Intent::MustExist, &policy)
                .is_ok()
        );
    }

    #[test]
    fn display_is_relative_inside_the_workspace() {
        assert_eq!(display_path(Path::new("/w"), Path::new("/w")), ".");
        assert_eq!(display_path(Path::new("/w"), Path::new("/w/a/b")), "a/b");
        assert_eq!(display_path(Path::new("/w"), Path::new("/etc/x")), "/etc/x");
    }
}
