//! What the OS sandboxes are generated from (bubblewrap's mounts, Seatbelt's profile): the
//! writable roots, the locations to hide, the hard-protected locations, a box's emptied dirs.

use std::path::PathBuf;

use super::paths::dedup;
use super::{Access, Reach, SandboxPolicy, is_ssh_host_key};

impl SandboxPolicy {
    /// Roots the OS sandbox mounts writable: the mode's roots plus write grants that exist
    /// (an exact grant on a missing file cannot be mounted and stays unwritable for bash).
    pub fn writable_roots(&self) -> Vec<PathBuf> {
        let mut roots = self.mode_roots().to_vec();
        for g in &self.grants {
            if g.access == Access::Write && self.hard_tier(&g.path).is_none() && g.path.exists() {
                roots.push(g.path.clone());
            }
        }
        dedup(&mut roots);
        roots
    }

    /// Existing credential locations the OS sandbox must hide (not covered by a grant): the
    /// listed ones, `/etc/ssh`'s host keys, and what the credential entries name in HOME and
    /// in every home that exists (the `*` ones found by a `readdir` of each directory a `*`
    /// stands in).
    pub fn unreadable_paths(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .credential
            .paths()
            .iter()
            .filter(|p| p.symlink_metadata().is_ok() && !self.granted(p, Access::Read))
            .cloned()
            .collect();
        if let Ok(entries) = std::fs::read_dir("/etc/ssh") {
            out.extend(entries.flatten().map(|e| e.path()).filter(|p| is_ssh_host_key(p)));
        }
        out.extend(self.home_credential_paths());
        dedup(&mut out);
        out
    }

    /// Every hard-protected location: configured entries and each writable root's
    /// `.git/hooks` (existing or not; git metadata elsewhere is matched by name).
    pub fn hard_protected_paths(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self.hard_protected.iter().map(|(p, _)| p.clone()).collect();
        out.extend(self.writable_roots().iter().map(|r| r.join(".git/hooks")));
        dedup(&mut out);
        out
    }

    /// The directories bash's sandbox replaces with an empty tmpfs before it binds the
    /// writable roots, so that nothing outside the workspace is there for a boxed call
    /// ([`Reach::WorkspaceOnly`]): HOME, every user's home, the temp dirs, the data dir and
    /// the mount points of other file systems. Empty for every other reach. Programs still
    /// find the system (`/usr`, `/etc`, …) read-only, as bash does.
    pub fn boxed_away_dirs(&self) -> Vec<PathBuf> {
        if self.reach != Reach::WorkspaceOnly {
            return Vec::new();
        }
        let mut out: Vec<PathBuf> = [
            "/home", "/root", "/tmp", "/var/tmp", "/dev/shm", "/mnt", "/media", "/srv", "/run",
            "/var/run",
        ]
        .iter()
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .collect();
        out.extend(self.home.iter().cloned());
        out.push(self.temp_dir.clone());
        out.extend(self.data_dir.iter().cloned());
        // The workspace itself is bound back after these (it may lie in the temp dir).
        out.retain(|d| d.is_dir() && !d.starts_with(&self.workspace));
        out.sort_by_key(|d| d.components().count());
        dedup(&mut out);
        out
    }
}
