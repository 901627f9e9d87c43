//! Which sandbox binaries may be run: bubblewrap and the Landlock helper are trusted only where
//! nobody but their owner (root, or the user running toolhost) can write them.
//!
//! A `bwrap` planted in a project's `.venv/bin` (or any directory on PATH inside a workspace)
//! would otherwise run every later bash call unsandboxed, so PATH is never searched:
//! bubblewrap is `TOOLHOST_BWRAP` (an absolute path) or the first of [`BWRAP_CANDIDATES`].
//! [`check_binary`] accepts a binary only if it and every directory above it are owned by root
//! or by this process's user and writable by no one else; [`check_outside_roots`] refuses one
//! inside a writable root of the call (bash itself could rewrite it).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Where bubblewrap is looked for when `TOOLHOST_BWRAP` is not set, in order.
pub const BWRAP_CANDIDATES: &[&str] = &["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];

/// Why a sandbox binary is not trusted (model- and doctor-facing text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrustError {
    #[error("{0} is not an absolute path; name the binary by its absolute path")]
    NotAbsolute(String),
    #[error("{0} does not exist or is not a regular file")]
    Missing(String),
    #[error(
        "{path} is not trusted: {why}; a binary that someone else could replace would run bash unsandboxed. Install it where only root (or you) can write, e.g. /usr/bin"
    )]
    Writable { path: String, why: String },
    #[error(
        "{path} is not trusted: it lies inside {root}, which bash can write; a sandboxed call could replace it and the next one would run unsandboxed"
    )]
    InsideWritableRoot { path: String, root: String },
}

/// `path` (made real) if it and every directory above it are owned by root or by this
/// process's effective user and are not group- or world-writable.
pub fn check_binary(path: &Path) -> Result<PathBuf, TrustError> {
    if !path.is_absolute() {
        return Err(TrustError::NotAbsolute(path.display().to_string()));
    }
    let real =
        std::fs::canonicalize(path).map_err(|_| TrustError::Missing(path.display().to_string()))?;
    let meta =
        std::fs::metadata(&real).map_err(|_| TrustError::Missing(path.display().to_string()))?;
    if !meta.is_file() {
        return Err(TrustError::Missing(path.display().to_string()));
    }
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    for p in real.ancestors() {
        let m = std::fs::metadata(p).map_err(|_| TrustError::Missing(p.display().to_string()))?;
        let writable = |why: String| TrustError::Writable { path: real.display().to_string(), why };
        if m.uid() != 0 && m.uid() != me {
            return Err(writable(format!("{} is owned by uid {}", p.display(), m.uid())));
        }
        if m.mode() & 0o022 != 0 {
            return Err(writable(format!(
                "{} is writable by its group or by everyone (mode {:o})",
                p.display(),
                m.mode() & 0o7777
            )));
        }
    }
    Ok(real)
}

/// Refuses `binary` when it lies inside one of `roots` (the writable roots of a call).
pub fn check_outside_roots(binary: &Path, roots: &[PathBuf]) -> Result<(), TrustError> {
    match roots.iter().find(|r| binary.starts_with(r)) {
        Some(r) => Err(TrustError::InsideWritableRoot {
            path: binary.display().to_string(),
            root: r.display().to_string(),
        }),
        None => Ok(()),
    }
}

/// The first trusted [`BWRAP_CANDIDATES`] entry, or why none is (the first candidate's reason,
/// or `None` when none exists at all).
pub fn find_bwrap() -> Result<PathBuf, Option<TrustError>> {
    let mut first_error = None;
    for c in BWRAP_CANDIDATES {
        match check_binary(Path::new(c)) {
            Ok(p) => return Ok(p),
            Err(TrustError::Missing(_)) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_binary_in_a_writable_place_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        // A directory everyone may write, made here (the machine's /tmp need not be one).
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let bin = open.join("bwrap");
        std::fs::write(&bin, "#!/bin/sh\n").unwrap();
        assert!(
            matches!(check_binary(&bin), Err(TrustError::Writable { .. })),
            "{:?}",
            check_binary(&bin)
        );
        assert!(matches!(check_binary(Path::new("bwrap")), Err(TrustError::NotAbsolute(_))));
        assert!(matches!(check_binary(&dir.path().join("none")), Err(TrustError::Missing(_))));
        let ok = Path::new("/bin/sh");
        if std::fs::metadata(ok).is_ok_and(|m| m.permissions().mode() & 0o022 == 0) {
            assert!(check_binary(ok).is_ok(), "{:?}", check_binary(ok));
        }
        let roots = vec![PathBuf::from("/usr")];
        assert!(check_outside_roots(Path::new("/usr/bin/bwrap"), &roots).is_err());
        assert!(check_outside_roots(Path::new("/opt/bwrap"), &roots).is_ok());
    }
}
