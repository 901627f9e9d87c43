//! HOME's hidden entries: every one is a credential unless it is readable (defaults plus
//! `readable_home_entries`), symlinked ones judged by their real target, and the masks bash's
//! sandbox lays over them ([`HomeMask`]).

use std::path::{Path, PathBuf};

use super::tiers::{home_pattern_covers, name_matches};
use super::{Access, SandboxPolicy};

/// The HOME-relative rest of `path` when it lies in one of `home`'s hidden entries (its first
/// component below HOME begins with `.`).
pub(super) fn hidden_rest<'a>(home: &Path, path: &'a Path) -> Option<&'a Path> {
    use std::os::unix::ffi::OsStrExt;
    let rest = path.strip_prefix(home).ok()?;
    let first = rest.iter().next()?;
    first.as_bytes().starts_with(b".").then_some(rest)
}

/// [`hidden_rest`] of the real path `path`, also where it lies below the target of a
/// symlinked hidden entry of HOME (`~/.config -> /data/config`: `/data/config/gh` is
/// `.config/gh`).
pub(super) fn home_rest(home: &Path, links: &[(PathBuf, PathBuf)], path: &Path) -> Option<PathBuf> {
    if let Some(rest) = hidden_rest(home, path) {
        return Some(rest.to_path_buf());
    }
    links.iter().find_map(|(target, rel)| Some(rel.join(path.strip_prefix(target).ok()?)))
}

/// HOME's hidden entries that are symlinks out of HOME: (real target, HOME-relative name).
/// One `readdir` of HOME when the policy is built.
pub(super) fn home_links(home: &Path) -> Vec<(PathBuf, PathBuf)> {
    use std::os::unix::ffi::OsStrExt;
    let Ok(entries) = std::fs::read_dir(home) else { return Vec::new() };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        if !name.as_bytes().starts_with(b".") || !e.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        if let Ok(target) = std::fs::canonicalize(e.path())
            && !target.starts_with(home)
            && !home.starts_with(&target)
        {
            out.push((target, PathBuf::from(name)));
        }
    }
    out
}

/// One of HOME's hidden entries that bash's sandbox hides, and the existing paths inside it
/// that stay visible ([`SandboxPolicy::hidden_home_masks`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HomeMask {
    /// The hidden entry (directly in HOME).
    pub path: PathBuf,
    /// What inside it is bound back (a symlink is made again as a symlink), shallowest
    /// first, with the access a grant gave (a readable entry, a root or the data dir:
    /// [`Access::Read`]; the mount decides by the writable roots whether it is writable).
    pub keep: Vec<(PathBuf, Access)>,
}

/// The existing paths below `dir` that `parts` (pattern components) name: one `readdir` of
/// each directory a `*` component stands in (at most 1,000 entries each), never a walk.
pub(super) fn expand_pattern(dir: &Path, parts: &[&str], out: &mut Vec<(PathBuf, Access)>) {
    let Some((first, rest)) = parts.split_first() else {
        if dir.symlink_metadata().is_ok() {
            out.push((dir.to_path_buf(), Access::Read));
        }
        return;
    };
    if first.ends_with('*') {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten().take(1_000) {
            if name_matches(first, &e.file_name()) {
                expand_pattern(&e.path(), rest, out);
            }
        }
    } else {
        expand_pattern(&dir.join(first), rest, out);
    }
}

impl SandboxPolicy {
    /// Whether `path` lies in one of HOME's hidden entries that is not readable: not in
    /// [`READABLE_HOME_ENTRIES`] or `readable_home_entries`, not in this policy's data dir
    /// (its spill stays readable; its private entries are judged on their own) and not in a
    /// writable root chosen inside a hidden entry. Such a path is a credential.
    pub fn is_hidden_home(&self, path: &Path) -> bool {
        let Some(rest) = self.home.as_deref().and_then(|h| home_rest(h, &self.home_links, path))
        else {
            return false;
        };
        !(self.readable_home.iter().any(|e| home_pattern_covers(e, &rest))
            || self.data_dir.as_ref().is_some_and(|d| path.starts_with(d))
            || self.exempt_roots.iter().any(|r| path.starts_with(r)))
    }

    /// HOME's hidden entries bash's sandbox must hide, each with what inside it stays
    /// visible (existing paths only): the readable entries below it, a writable root or the
    /// data dir chosen inside it, and grants inside it. One `readdir` of HOME, and one of
    /// each directory a `*` pattern names.
    pub fn hidden_home_masks(&self) -> Vec<HomeMask> {
        use std::os::unix::ffi::OsStrExt;
        let Some(home) = &self.home else { return Vec::new() };
        let Ok(entries) = std::fs::read_dir(home) else { return Vec::new() };
        let mut out = Vec::new();
        for e in entries.flatten() {
            let name = e.file_name();
            if !name.as_bytes().starts_with(b".") {
                continue;
            }
            let spelled = home.join(&name);
            // A symlink out of HOME: its target is hidden (as the fence judges it); one
            // within HOME is judged where it points.
            let path = if e.file_type().is_ok_and(|t| t.is_symlink()) {
                match std::fs::canonicalize(&spelled) {
                    Ok(t) if self.home_links.iter().any(|(target, _)| *target == t) => t,
                    _ => continue,
                }
            } else {
                spelled.clone()
            };
            if !self.is_hidden_home(&path) || self.granted(&path, Access::Read) {
                continue;
            }
            let keep = self.kept_inside(&path, &self.readable_below(Some(&name)));
            out.push(HomeMask { path, keep });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }
}
