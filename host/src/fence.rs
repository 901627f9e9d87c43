//! The path fence (seed 000 §6.2): every path a tool names becomes a [`CheckedPath`] here,
//! or an error the model can act on.
//!
//! Foundation version: lexical normalisation, canonicalisation and the policy check. The
//! race-safe opening of the real objects (pinned directory descriptors, identity checks)
//! is the path-fence issue's work and replaces the plain `std::fs` opens of `runtime::host`.

use std::path::{Component, Path, PathBuf};

use crate::context::ToolSessionContext;
use crate::policy::{Access, Actor, SandboxPolicy};
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
/// root itself), absolute otherwise.
pub fn display_path(workspace: &Path, path: &Path) -> String {
    match path.strip_prefix(workspace) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

/// Join `input` to `base` and remove `.` and `..` lexically (no I/O).
fn normalize(base: &Path, input: &str) -> Result<PathBuf, ToolError> {
    if input.is_empty() {
        return Err(ToolError::invalid_arguments("path is empty; pass a file or directory path"));
    }
    if input.contains('\0') {
        return Err(ToolError::invalid_arguments("path contains a NUL byte"));
    }
    let joined = base.join(input);
    let mut out = PathBuf::from("/");
    for c in joined.components() {
        match c {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(s) => out.push(s),
        }
    }
    Ok(out)
}

/// Resolve `input` for `access` under `policy` (seed 000 §6.2).
pub fn resolve_path(
    session: &ToolSessionContext,
    input: &str,
    access: Access,
    intent: Intent,
    policy: &SandboxPolicy,
) -> Result<CheckedPath, ToolError> {
    let lexical = normalize(&session.working_directory, input)?;
    let real = match intent {
        Intent::MustExist => lexical.canonicalize().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ToolError::invalid_arguments(format!(
                "{input} does not exist; use list or glob to find the right path"
            )),
            _ => ToolError::execution_failed(format!("cannot resolve {input}: {e}")),
        })?,
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
    let canonical_workspace = session
        .working_directory
        .canonicalize()
        .unwrap_or_else(|_| session.working_directory.clone());
    policy.check(&real, access, Actor::FileTool).map_err(|d| ToolError {
        code: ErrorCode::PermissionDenied,
        message: d.message,
        retryable: false,
    })?;
    let display = display_path(&canonical_workspace, &real);
    Ok(CheckedPath { real, display })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_removes_dots_lexically() {
        let p = normalize(Path::new("/w"), "a/./b/../c").unwrap();
        assert_eq!(p, PathBuf::from("/w/a/c"));
        let p = normalize(Path::new("/w"), "../../../x").unwrap();
        assert_eq!(p, PathBuf::from("/x"));
        assert!(normalize(Path::new("/w"), "").is_err());
        assert!(normalize(Path::new("/w"), "a\0b").is_err());
    }

    #[test]
    fn display_is_relative_inside_the_workspace() {
        assert_eq!(display_path(Path::new("/w"), Path::new("/w")), ".");
        assert_eq!(display_path(Path::new("/w"), Path::new("/w/a/b")), "a/b");
        assert_eq!(display_path(Path::new("/w"), Path::new("/etc/x")), "/etc/x");
    }
}
