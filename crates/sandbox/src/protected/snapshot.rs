//! The protected entries saved before a run whose sandbox cannot make them read-only (the
//! Landlock tier) and put back after it: [`Snapshot`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use toolhost_limits::{MAX_PROTECTED_SNAPSHOT_BYTES, PROTECTED_SCAN_DEPTH};

use super::{Protected, dedup};
use toolhost_policy::SandboxPolicy;

/// The protected entries of a scan as they were before a run whose sandbox cannot make them
/// read-only (the Landlock tier: [`crate::backend::SandboxBackend::restores_protected`]),
/// to be put back after it: each file's bytes and mode, each symlink's target, and for each
/// protected directory (`.git/hooks`) what was in it.
#[derive(Debug, Default)]
pub struct Snapshot {
    files: Vec<(PathBuf, Saved)>,
    dirs: Vec<(PathBuf, HashSet<PathBuf>)>,
    /// The permission bits of each writable root and the directory holding it (the private
    /// temp dir's 0700 outer directory): an owner's `chmod` needs no right Landlock governs.
    modes: Vec<(PathBuf, u32)>,
}

/// One saved entry.
#[derive(Debug)]
enum Saved {
    File { bytes: Vec<u8>, mode: u32 },
    Link(PathBuf),
}

/// Why a snapshot could not be taken; the run does not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    /// The protected entries hold more than [`MAX_PROTECTED_SNAPSHOT_BYTES`].
    #[error(
        "bash did not run: the git metadata and sensitive files of the workspace hold more than {MAX_PROTECTED_SNAPSHOT_BYTES} bytes, more than this sandbox saves to put them back after a command"
    )]
    TooLarge,
    /// An entry could not be read.
    #[error("bash did not run: {0} cannot be saved to be put back after the command: {1}")]
    Unreadable(String, String),
}

impl Snapshot {
    /// Save what `protected` lists and the hard-protected paths of `policy` (`.git/hooks` of
    /// each writable root, configured ones).
    pub fn take(protected: &Protected, policy: &SandboxPolicy) -> Result<Snapshot, SnapshotError> {
        let mut snap = Snapshot::default();
        let mut total = 0u64;
        let plain = protected.plain_dirs();
        let mut paths: Vec<PathBuf> =
            protected.entries.iter().filter(|e| !plain.contains(&e.as_path())).cloned().collect();
        // Those inside a writable root (the others are not writable), never a data dir (the
        // sandbox hides it instead).
        let roots = policy.writable_roots();
        let data_dirs: Vec<&Path> = policy
            .data_dir()
            .into_iter()
            .chain(policy.other_data_dirs().iter().map(PathBuf::as_path))
            .collect();
        paths.extend(policy.hard_protected_paths().into_iter().filter(|p| {
            p.exists()
                && roots.iter().any(|r| p.starts_with(r) && p != r)
                && !data_dirs.iter().any(|d| p.starts_with(d))
        }));
        dedup(&mut paths);
        // A path inside another one is saved with it.
        let all = paths.clone();
        paths.retain(|p| !all.iter().any(|o| o != p && p.starts_with(o)));
        for e in &paths {
            snap.save(e, &mut total, 0)?;
        }
        {
            use std::os::unix::fs::PermissionsExt;
            for root in &roots {
                for dir in [Some(root.as_path()), root.parent()].into_iter().flatten() {
                    if let Ok(m) = dir.symlink_metadata()
                        && m.is_dir()
                    {
                        snap.modes.push((dir.to_path_buf(), m.permissions().mode() & 0o7777));
                    }
                }
            }
        }
        Ok(snap)
    }

    fn save(&mut self, path: &Path, total: &mut u64, depth: usize) -> Result<(), SnapshotError> {
        use std::os::unix::fs::PermissionsExt;
        let unreadable = |e: std::io::Error| {
            SnapshotError::Unreadable(path.display().to_string(), e.to_string())
        };
        let Ok(meta) = path.symlink_metadata() else { return Ok(()) };
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(path).map_err(unreadable)?;
            self.files.push((path.to_path_buf(), Saved::Link(target)));
        } else if meta.is_dir() {
            if depth >= PROTECTED_SCAN_DEPTH {
                return Ok(());
            }
            let mut inside = HashSet::new();
            for entry in std::fs::read_dir(path).map_err(unreadable)?.flatten() {
                inside.insert(entry.path());
                self.save(&entry.path(), total, depth + 1)?;
            }
            self.dirs.push((path.to_path_buf(), inside));
        } else if meta.is_file() {
            *total += meta.len();
            if *total > MAX_PROTECTED_SNAPSHOT_BYTES {
                return Err(SnapshotError::TooLarge);
            }
            let (mut file, _) = toolhost_open(path).map_err(unreadable)?;
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut bytes).map_err(unreadable)?;
            self.files.push((
                path.to_path_buf(),
                Saved::File { bytes, mode: meta.permissions().mode() & 0o7777 },
            ));
        }
        Ok(())
    }

    /// Put every saved entry back as it was, and remove what appeared in a saved directory;
    /// the paths put back or removed.
    pub fn restore(&self) -> Vec<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        let mut changed = Vec::new();
        for (dir, mode) in &self.modes {
            if let Ok(m) = dir.symlink_metadata()
                && m.is_dir()
                && m.permissions().mode() & 0o7777 != *mode
                && std::fs::set_permissions(dir, std::fs::Permissions::from_mode(*mode)).is_ok()
            {
                changed.push(dir.clone());
            }
        }
        for (dir, inside) in &self.dirs {
            if !dir.symlink_metadata().is_ok_and(|m| m.is_dir()) {
                let _ = remove_any(dir);
                if std::fs::create_dir_all(dir).is_ok() {
                    changed.push(dir.clone());
                }
                continue;
            }
            if let Ok(entries) = std::fs::read_dir(dir) {
                for e in entries.flatten() {
                    if !inside.contains(&e.path()) && remove_any(&e.path()).is_ok() {
                        changed.push(e.path());
                    }
                }
            }
        }
        for (path, saved) in &self.files {
            let same = match saved {
                Saved::Link(target) => {
                    std::fs::read_link(path).is_ok_and(|t| &t == target)
                        && path.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink())
                }
                Saved::File { bytes, mode } => {
                    path.symlink_metadata()
                        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o7777 == *mode)
                        && toolhost_open(path).ok().is_some_and(|(mut f, _)| {
                            let mut now = Vec::new();
                            std::io::Read::read_to_end(&mut f, &mut now).is_ok() && &now == bytes
                        })
                }
            };
            if same {
                continue;
            }
            let _ = remove_any(path);
            if let Some(parent) = path.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            let put = match saved {
                Saved::Link(target) => std::os::unix::fs::symlink(target, path),
                Saved::File { bytes, mode } => std::fs::write(path, bytes).and_then(|()| {
                    std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode))
                }),
            };
            if put.is_ok() {
                changed.push(path.clone());
            }
        }
        changed
    }
}

/// Open a regular file with no symlink followed anywhere on its path.
fn toolhost_open(path: &Path) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok((file, meta))
}

/// Remove whatever is at `path` (a directory with what is in it), never following a link.
fn remove_any(path: &Path) -> std::io::Result<()> {
    match path.symlink_metadata() {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) => Err(e),
    }
}
