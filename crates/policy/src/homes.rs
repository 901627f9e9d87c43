//! Homes and the credential stores inside them.
//!
//! * [`CREDENTIAL_HOME_ENTRIES`] name stores by their HOME-relative place, some with a `*`
//!   component (`.nvm/versions/*/*/etc/npmrc`): they are closed in HOME and in every other
//!   home, inside a readable entry too ([`SandboxPolicy::is_home_credential`]).
//! * Another user's home — an entry of [`OTHER_HOME_PARENTS`], or one of [`OTHER_HOME_DIRS`],
//!   that is not HOME, holds no HOME and lies in no HOME — is closed whole, like one of HOME's
//!   hidden entries: only its readable entries (the toolchains a build runs from `/root`
//!   while HOME is another, say), the writable roots and the data dir inside it, and grants
//!   stay open ([`SandboxPolicy::is_other_home_closed`]). A home that a writable root holds
//!   (a workspace of `/home`) is closed as HOME is: its hidden entries but the readable ones.
//!
//! The fence judges by path alone; bash's sandbox finds what exists with one `readdir` of each
//! home parent, of a home a root holds, and of each directory a `*` stands in.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::home::{HomeMask, expand_pattern, home_rest};
use super::tiers::{home_pattern_covers, pattern_may_reach};
use super::{Access, SandboxPolicy};

/// How many entries of one home parent (or of one home) bash's sandbox looks at.
const HOME_ENTRIES_LOOKED_AT: usize = 1_000;

/// Whether the first component of `rest` is a hidden name (begins with `.`).
fn is_hidden(rest: &Path) -> bool {
    rest.iter().next().is_some_and(|f| f.as_bytes().starts_with(b"."))
}

impl SandboxPolicy {
    /// The HOME-relative credential entries (defaults plus relative `extra_credential`), in
    /// the syntax of [`CREDENTIAL_HOME_ENTRIES`]: closed under HOME and every other home.
    pub fn home_credential_entries(&self) -> &[String] {
        &self.home_credentials
    }

    /// The directories whose entries are homes ([`OTHER_HOME_PARENTS`], real paths).
    pub fn other_home_parents(&self) -> &[PathBuf] {
        &self.home_parents
    }

    /// The homes of their own ([`OTHER_HOME_DIRS`], real paths).
    pub fn other_home_dirs(&self) -> &[PathBuf] {
        &self.home_dirs
    }

    /// Whether the home `home` (real path) is another user's: not HOME, not holding HOME and
    /// not inside it.
    pub fn is_other_home(&self, home: &Path) -> bool {
        self.home.as_ref().is_none_or(|h| !(h.starts_with(home) || home.starts_with(h)))
    }

    /// The home `path` lies in (or is), whoever's it is, and the rest of `path` below it: an
    /// entry of a home parent, or a home dir.
    pub(super) fn home_of(&self, path: &Path) -> Option<(PathBuf, PathBuf)> {
        if let Some(d) = self.home_dirs.iter().find(|d| path.starts_with(d)) {
            return Some((d.clone(), path.strip_prefix(d).ok()?.to_path_buf()));
        }
        let parent = self.home_parents.iter().find(|p| path.starts_with(p))?;
        let mut below = path.strip_prefix(parent).ok()?.iter();
        let home = parent.join(below.next()?);
        Some((home, below.collect()))
    }

    /// Whether a [`CREDENTIAL_HOME_ENTRIES`] entry (or a relative `extra_credential`) names
    /// `path` or a directory above it: under HOME (also through a symlinked hidden entry), or
    /// under any home ([`SandboxPolicy::home_of`]).
    pub fn is_home_credential(&self, path: &Path) -> bool {
        let named =
            |rest: &Path| self.home_credentials.iter().any(|e| home_pattern_covers(e, rest));
        if let Some(h) = &self.home {
            let rest = match path.strip_prefix(h) {
                Ok(rest) => Some(rest.to_path_buf()),
                Err(_) => home_rest(h, &self.home_links, path),
            };
            if rest.is_some_and(|r| named(&r)) {
                return true;
            }
        }
        self.home_of(path).is_some_and(|(_, rest)| named(&rest))
    }

    /// The writable roots and the data dir: what a closed home keeps open inside it.
    fn opened_places(&self) -> impl Iterator<Item = &PathBuf> + Clone {
        self.writable_roots.iter().chain(&self.data_dir)
    }

    /// Whether `path` lies in another user's home ([`SandboxPolicy::is_other_home`]) where it
    /// is closed: not in a writable root or the data dir chosen inside that home, not in one of
    /// its readable entries ([`READABLE_HOME_ENTRIES`], `readable_home_entries`), and, unless
    /// a writable root or the data dir holds the whole home (then only its hidden entries are
    /// closed, as HOME's are), anywhere in it. Such a path is a credential (a grant opens it).
    pub fn is_other_home_closed(&self, path: &Path) -> bool {
        let Some((home, rest)) = self.home_of(path) else { return false };
        if !self.is_other_home(&home) {
            return false;
        }
        let mut opened = self.opened_places();
        if opened.clone().any(|r| r.starts_with(&home) && *r != home && path.starts_with(r)) {
            return false;
        }
        if self.readable_home.iter().any(|e| home_pattern_covers(e, &rest)) {
            return false;
        }
        is_hidden(&rest) || !opened.any(|r| home.starts_with(r))
    }

    /// Whether the home rules may close some path at or below the real path `root` (for
    /// [`SandboxPolicy::reads_refusable_below`]): a home parent or home dir lies at or below
    /// it, it lies in another user's home, or a credential entry may name a path below it
    /// in HOME or in the home it lies in.
    pub fn homes_refusable_below(&self, root: &Path) -> bool {
        if self.home_parents.iter().chain(&self.home_dirs).any(|d| d.starts_with(root)) {
            return true;
        }
        let reached =
            |rest: &Path| self.home_credentials.iter().any(|e| pattern_may_reach(e, rest));
        if let Some(rest) = self.home.as_ref().and_then(|h| root.strip_prefix(h).ok())
            && reached(rest)
        {
            return true;
        }
        let Some((home, rest)) = self.home_of(root) else { return false };
        if reached(&rest) {
            return true;
        }
        if !self.is_other_home(&home) {
            return false;
        }
        // Below an open part of another home only the credential entries refuse.
        let mut opened = self.opened_places();
        let open =
            opened.clone().any(|r| r.starts_with(&home) && *r != home && root.starts_with(r))
                || self.readable_home.iter().any(|e| home_pattern_covers(e, &rest))
                || (!rest.as_os_str().is_empty()
                    && !is_hidden(&rest)
                    && opened.any(|r| home.starts_with(r)));
        !open
    }

    /// The homes that exist: the home dirs and every directory in a home parent (symlinks
    /// are judged where they point, as the fence judges real paths). One `readdir` of each
    /// parent.
    fn existing_homes(&self) -> Vec<PathBuf> {
        let is_dir = |p: &Path| p.symlink_metadata().is_ok_and(|m| m.is_dir());
        let mut out: Vec<PathBuf> = self.home_dirs.iter().filter(|d| is_dir(d)).cloned().collect();
        for parent in &self.home_parents {
            let Ok(entries) = std::fs::read_dir(parent) else { continue };
            out.extend(
                entries
                    .flatten()
                    .take(HOME_ENTRIES_LOOKED_AT)
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .map(|e| e.path()),
            );
        }
        out.sort();
        out.dedup();
        out
    }

    /// The existing files and directories the credential entries name, under HOME and under
    /// every home that exists (those with a `*` found by one `readdir` of each directory the
    /// `*` stands in), that no grant opens: for bash's sandbox to mask.
    pub(super) fn home_credential_paths(&self) -> Vec<PathBuf> {
        let mut found: Vec<(PathBuf, Access)> = Vec::new();
        let homes = self.home.iter().cloned().chain(self.existing_homes());
        for home in homes {
            for e in &self.home_credentials {
                let parts: Vec<&str> = e.split('/').filter(|p| !p.is_empty()).collect();
                expand_pattern(&home, &parts, &mut found);
            }
        }
        let mut out: Vec<PathBuf> =
            found.into_iter().map(|(p, _)| p).filter(|p| !self.granted(p, Access::Read)).collect();
        out.sort();
        out.dedup();
        out
    }

    /// What stays visible inside the masked directory `dir`: the readable entries
    /// (`patterns`: the components of each below `dir`), the writable roots and the data dir
    /// chosen inside it, and grants inside it (existing paths only), shallowest first.
    pub(super) fn kept_inside(&self, dir: &Path, patterns: &[Vec<&str>]) -> Vec<(PathBuf, Access)> {
        let mut keep: Vec<(PathBuf, Access)> = Vec::new();
        for parts in patterns {
            expand_pattern(dir, parts, &mut keep);
        }
        for r in self.opened_places() {
            if r.starts_with(dir) && r != dir && r.exists() {
                keep.push((r.clone(), Access::Read));
            }
        }
        for g in &self.grants {
            if g.path.starts_with(dir) && g.path != dir && g.path.exists() {
                keep.push((g.path.clone(), g.access));
            }
        }
        keep.sort_by_key(|(p, _)| p.components().count());
        keep.dedup_by(|a, b| a.0 == b.0);
        keep
    }

    /// The readable entries whose first component matches `first` (all of them for `None`),
    /// as the components below it.
    pub(super) fn readable_below(&self, first: Option<&OsStr>) -> Vec<Vec<&str>> {
        let mut out = Vec::new();
        for pattern in &self.readable_home {
            let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
            match first {
                None => out.push(parts),
                Some(name) => {
                    if parts.first().is_some_and(|f| super::tiers::name_matches(f, name)) {
                        out.push(parts[1..].to_vec());
                    }
                }
            }
        }
        out
    }

    /// Other users' homes bash's sandbox must hide ([`SandboxPolicy::is_other_home_closed`]),
    /// each with what inside it stays visible: a home no writable root holds is masked whole;
    /// of one a root holds, each closed hidden entry. A home a read grant covers is left as
    /// it is.
    pub fn other_home_masks(&self) -> Vec<HomeMask> {
        let mut out = Vec::new();
        for home in self.existing_homes() {
            if !self.is_other_home(&home) || self.granted(&home, Access::Read) {
                continue;
            }
            if !self.opened_places().any(|r| home.starts_with(r)) {
                let keep = self.kept_inside(&home, &self.readable_below(None));
                out.push(HomeMask { path: home, keep });
                continue;
            }
            let Ok(entries) = std::fs::read_dir(&home) else { continue };
            for e in entries.flatten().take(HOME_ENTRIES_LOOKED_AT) {
                let name = e.file_name();
                let path = e.path();
                // A symlinked entry is judged where it points, as the fence judges it.
                if !name.as_bytes().starts_with(b".")
                    || e.file_type().is_ok_and(|t| t.is_symlink())
                    || !self.is_other_home_closed(&path)
                    || self.granted(&path, Access::Read)
                {
                    continue;
                }
                let keep = self.kept_inside(&path, &self.readable_below(Some(&name)));
                out.push(HomeMask { path, keep });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }
}

#[cfg(test)]
mod tests;
