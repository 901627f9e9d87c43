//! Reads confined to the workspace plus listed roots (docs/security.md#reads-confined-to-roots),
//! when the operator asks for it (`policy.json` `"reads"`, `--confine-reads`, `--read-root`);
//! off by default, when reads are allowed everywhere but the closed tiers.
//!
//! Confined, a path is readable when it lies in the workspace or another writable root (the
//! temp dir too), in a read root, in the data dir (its spill files; its private entries stay
//! closed), under a grant, in a home's readable entries ([`super::READABLE_HOME_ENTRIES`]: the
//! toolchains and configuration programs run from), or in a system directory programs need
//! ([`SYSTEM_READ_DIRS`]) that is neither users' data there ([`USER_DATA_IN_SYSTEM`]) nor a
//! home. `/` itself (the names of its entries) stays readable. Everything else is users' data:
//! refused with a denial that names the setting. The credential tier applies first, as always.
//!
//! bash's sandbox hides the same: every top-level directory that is not a system one and the
//! users' data inside the system ones get an empty tmpfs ([`SandboxPolicy::confined_away_dirs`]),
//! the read roots and grants are bound back read-only
//! ([`SandboxPolicy::confined_read_binds`]), and HOME is masked whole with its readable
//! entries, roots and the data dir bound back ([`SandboxPolicy::confined_home_mask`]).

use std::path::{Path, PathBuf};

use super::home::{HomeMask, home_rest};
use super::paths::{dedup, real_path};
use super::tiers::home_pattern_covers;
use super::{Access, Reach, SYSTEM_READ_DIRS, SandboxPolicy, USER_DATA_IN_SYSTEM};

/// How many entries of `/` bash's sandbox looks at to find the top-level directories to hide.
const ROOT_ENTRIES_LOOKED_AT: usize = 1_000;

/// A session's policy narrowed by an MCP client's roots ([`SandboxPolicy::with_client_roots`]).
#[derive(Debug, Clone)]
pub struct NarrowedReads {
    /// The policy whose read roots are the client's, within the operator's.
    pub policy: SandboxPolicy,
    /// The client's roots that lie within no read root and no writable root: ignored.
    pub ignored: Vec<PathBuf>,
}

impl SandboxPolicy {
    /// Whether the operator confined reads (to the workspace plus the read roots).
    pub fn reads_confined(&self) -> bool {
        self.read_roots.is_some() && self.reach == Reach::Everywhere
    }

    /// The read roots (real paths): readable, never writable. Empty when reads are not
    /// confined.
    pub fn read_roots(&self) -> &[PathBuf] {
        self.read_roots.as_deref().unwrap_or(&[])
    }

    /// Whether confinement leaves `path` (real) readable (the module doc's rule).
    pub(super) fn confined_read_open(&self, path: &Path) -> bool {
        if path == Path::new("/")
            || self.writable_roots.iter().chain(self.read_roots()).any(|r| path.starts_with(r))
            || self.data_dir.as_ref().is_some_and(|d| path.starts_with(d))
            || self.granted(path, Access::Read)
        {
            return true;
        }
        let readable =
            |rest: &Path| self.readable_home.iter().any(|e| home_pattern_covers(e, rest));
        if let Some(h) = &self.home {
            if let Ok(rest) = path.strip_prefix(h) {
                return readable(rest);
            }
            if let Some(rest) = home_rest(h, &self.home_links, path) {
                return readable(&rest);
            }
        }
        if let Some((_, rest)) = self.home_of(path) {
            return readable(&rest);
        }
        if USER_DATA_IN_SYSTEM.iter().any(|d| path.starts_with(d)) {
            return false;
        }
        SYSTEM_READ_DIRS.iter().any(|d| path.starts_with(d))
    }

    /// Whether confinement may refuse a read at or below the real path `root`: everywhere
    /// but inside the workspace, a writable root or a read root.
    pub(super) fn confined_refusable_below(&self, root: &Path) -> bool {
        self.reads_confined()
            && !self.writable_roots.iter().chain(self.read_roots()).any(|r| root.starts_with(r))
    }

    /// This policy with an MCP client's roots (`roots/list`) as its read roots, within the
    /// operator's: a client root inside a read root is kept, a read root inside a client root
    /// is kept, one inside the workspace or another writable root changes nothing (they stay
    /// readable), and any other is ignored. Roots only narrow reads: nothing the operator did
    /// not list becomes readable, and nothing becomes writable. Unchanged when reads are not
    /// confined (every root is then ignored).
    pub fn with_client_roots(&self, roots: &[PathBuf]) -> NarrowedReads {
        if !self.reads_confined() {
            return NarrowedReads { policy: self.clone(), ignored: roots.to_vec() };
        }
        let mut kept: Vec<PathBuf> = Vec::new();
        let mut ignored = Vec::new();
        for c in roots.iter().map(|c| real_path(c)) {
            let mut matched = self.writable_roots.iter().any(|w| c.starts_with(w));
            for o in self.read_roots() {
                if c.starts_with(o) {
                    kept.push(c.clone());
                    matched = true;
                } else if o.starts_with(&c) {
                    kept.push(o.clone());
                    matched = true;
                }
            }
            if !matched {
                ignored.push(c);
            }
        }
        dedup(&mut kept);
        NarrowedReads { policy: SandboxPolicy { read_roots: Some(kept), ..self.clone() }, ignored }
    }

    /// What bash's sandbox replaces with an empty tmpfs (a directory) or `/dev/null` (a file)
    /// when reads are confined: every top-level entry of `/` that is not a symlink, a system
    /// directory or above one, and the existing [`USER_DATA_IN_SYSTEM`] directories; none that
    /// lies in a writable root, a read root or a read grant. Shallowest first. One `readdir`
    /// of `/`.
    pub fn confined_away_dirs(&self) -> Vec<PathBuf> {
        if !self.reads_confined() {
            return Vec::new();
        }
        let mut out: Vec<PathBuf> = Vec::new();
        if let Ok(entries) = std::fs::read_dir("/") {
            for e in entries.flatten().take(ROOT_ENTRIES_LOOKED_AT) {
                let path = e.path();
                if e.file_type().is_ok_and(|t| t.is_symlink())
                    || SYSTEM_READ_DIRS.iter().any(|s| Path::new(s).starts_with(&path))
                {
                    continue;
                }
                out.push(path);
            }
        }
        out.extend(
            USER_DATA_IN_SYSTEM
                .iter()
                .filter_map(|d| std::fs::canonicalize(d).ok())
                .filter(|d| d.is_dir()),
        );
        let opened = |d: &PathBuf| {
            self.writable_roots.iter().chain(self.read_roots()).any(|r| d.starts_with(r))
                || self.granted(d, Access::Read)
        };
        out.retain(|d| !opened(d));
        out.sort_by_key(|d| d.components().count());
        dedup(&mut out);
        out
    }

    /// What bash's sandbox binds back read-only over [`SandboxPolicy::confined_away_dirs`]:
    /// the existing read roots and read grants (the writable roots are bound after them).
    pub fn confined_read_binds(&self) -> Vec<PathBuf> {
        if !self.reads_confined() {
            return Vec::new();
        }
        let mut out: Vec<PathBuf> =
            self.read_roots().iter().filter(|r| r.exists()).cloned().collect();
        out.extend(
            self.grants
                .iter()
                .filter(|g| g.access == Access::Read && g.path.exists())
                .map(|g| g.path.clone()),
        );
        out.sort_by_key(|d| d.components().count());
        dedup(&mut out);
        out
    }

    /// HOME masked whole when reads are confined (it is users' data), with what stays
    /// readable inside bound back: its readable entries, the writable roots, read roots, data
    /// dir and grants inside it. `None` when reads are not confined, or a root or grant holds
    /// HOME whole.
    pub fn confined_home_mask(&self) -> Option<HomeMask> {
        if !self.reads_confined() {
            return None;
        }
        let home = self.home.as_ref().filter(|h| h.is_dir())?;
        let holds =
            self.writable_roots.iter().chain(self.read_roots()).any(|r| home.starts_with(r));
        if holds || self.granted(home, Access::Read) {
            return None;
        }
        let mut keep = self.kept_inside(home, &self.readable_below(None));
        for r in self.read_roots() {
            if r.starts_with(home) && r != home && r.exists() {
                keep.push((r.clone(), Access::Read));
            }
        }
        keep.sort_by_key(|(p, _)| p.components().count());
        keep.dedup_by(|a, b| a.0 == b.0);
        Some(HomeMask { path: home.clone(), keep })
    }

    /// The sentence the read, grep, glob, list and bash descriptions end with when reads are
    /// confined: what is readable. `None` otherwise (the descriptions stay as they are).
    pub fn reads_note(&self) -> Option<String> {
        self.reads_confined()
            .then(|| super::messages::reads_note(&self.workspace, self.read_roots()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{PolicyConfig, ReadsConfig, SandboxMode};
    use super::*;
    use crate::Actor;

    fn fixture() -> (tempfile::TempDir, PathBuf, SandboxPolicy) {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        for d in ["ws", "other", "lib/sub", "home/.cargo/bin", "home/notes", "data/spill", "tmp"] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, base.join("ws"))
            .home(base.join("home"))
            .data_dir(base.join("data"))
            .private_temp_dir(base.join("tmp"))
            .config(PolicyConfig {
                reads: ReadsConfig { confine: true, roots: vec![base.join("lib")] },
                ..PolicyConfig::default()
            })
            .build();
        (dir, base, policy)
    }

    #[test]
    fn confined_reads_keep_the_workspace_roots_toolchains_and_system_and_nothing_else() {
        let (_d, base, p) = fixture();
        let read = |path: PathBuf| p.check(&path, Access::Read, Actor::FileTool);
        for open in [
            base.join("ws/a.rs"),
            base.join("lib/sub/x"),
            base.join("tmp/t"),
            base.join("data/spill/s"),
            base.join("home/.cargo/bin/cargo"),
            PathBuf::from("/usr/bin/env"),
            PathBuf::from("/etc/hostname"),
            PathBuf::from("/"),
        ] {
            assert!(read(open.clone()).is_ok(), "{}", open.display());
        }
        for closed in [
            base.join("other/.env"),
            base.join("home/notes/n"),
            base.clone(),
            PathBuf::from("/var/tmp/x"),
            PathBuf::from("/mnt/x"),
        ] {
            let denial = read(closed.clone()).unwrap_err();
            assert!(
                denial.message.contains("\"reads\""),
                "{}: {}",
                closed.display(),
                denial.message
            );
        }
        // A root is read-only.
        assert!(p.check(&base.join("lib/sub/x"), Access::Write, Actor::FileTool).is_err());
        // The default is unchanged: everything outside the closed tiers is readable.
        let open = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, base.join("ws"))
            .home(base.join("home"))
            .build();
        assert!(open.check(&base.join("other/.env"), Access::Read, Actor::FileTool).is_ok());
        assert!(open.reads_note().is_none() && !open.reads_confined());
        assert!(p.reads_refusable_below(&base) && !open.confined_refusable_below(&base));
    }

    #[test]
    fn client_roots_only_narrow() {
        let (_d, base, p) = fixture();
        let narrowed =
            p.with_client_roots(&[base.join("lib/sub"), base.join("other"), base.join("ws")]);
        assert_eq!(narrowed.policy.read_roots(), [base.join("lib/sub")]);
        assert_eq!(narrowed.ignored, [base.join("other")]);
        let q = &narrowed.policy;
        assert!(q.check(&base.join("lib/sub/x"), Access::Read, Actor::FileTool).is_ok());
        assert!(q.check(&base.join("lib/y"), Access::Read, Actor::FileTool).is_err());
        assert!(q.check(&base.join("other/.env"), Access::Read, Actor::FileTool).is_err());
        assert!(q.check(&base.join("ws/a"), Access::Read, Actor::FileTool).is_ok());
        assert!(q.check(&base.join("lib/sub/x"), Access::Write, Actor::FileTool).is_err());
        // A client root above an operator root keeps the operator's.
        let wide = p.with_client_roots(std::slice::from_ref(&base));
        assert_eq!(wide.policy.read_roots(), [base.join("lib")]);
        // No roots at all: only the workspace (and the system) stays.
        let none = p.with_client_roots(&[]);
        assert!(none.policy.read_roots().is_empty());
        assert!(none.policy.check(&base.join("lib/sub/x"), Access::Read, Actor::FileTool).is_err());
    }
}
