//! Lexical and real forms of a path, as the policy compares them.

use std::path::{Component, Path, PathBuf};

pub(super) fn dedup(v: &mut Vec<PathBuf>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|p| seen.insert(p.clone()));
}

/// Removes `.` and `..` literally (no file system access); `..` at the root stays at the root.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let at_root = out.parent().is_none() && out.has_root();
                let only_dots =
                    out.components().next_back().is_none_or(|c| c == Component::ParentDir);
                if only_dots && !at_root {
                    out.push("..");
                } else if !at_root {
                    out.pop();
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The real form of `path`: lexically normalized, then the nearest existing ancestor
/// canonicalized and the rest joined back.
pub fn real_path(path: &Path) -> PathBuf {
    let norm = normalize_lexically(path);
    let mut base = norm.clone();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(&base) {
            let mut out = c;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return out;
        }
        match (base.file_name().map(|n| n.to_os_string()), base.parent()) {
            (Some(n), Some(parent)) => {
                rest.push(n);
                base = parent.to_path_buf();
            }
            _ => return norm,
        }
    }
}
