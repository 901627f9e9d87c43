//! The private cache directory of a session's approved runs (their `XDG_CACHE_HOME`: go's
//! build cache, pip's, …, since HOME is not writable in the sandbox).
//!
//! The host makes it, never a tool: on first use, under the parent the caller names, with
//! a name no one can guess (`toolhost-cache-<session>-<32 random hex digits>`), by one
//! `mkdir` with mode 0700 that fails when anything is there — so nothing planted beforehand
//! is ever used. Before each use it must still be that directory (same device and inode, a
//! directory, not a link, mode 0700); otherwise a new one is made. It is removed, with all it
//! holds, when the session ends (the last clone of the session dropped).

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The prefix of every run cache directory's name.
pub const RUN_CACHE_PREFIX: &str = "toolhost-cache-";

/// One session's run cache (cheap to clone: every clone is the same directory).
#[derive(Debug, Clone, Default)]
pub struct RunCache(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    made: Mutex<Option<Made>>,
}

#[derive(Debug, Clone)]
struct Made {
    path: PathBuf,
    dev: u64,
    ino: u64,
}

impl Made {
    /// Whether `path` is still the directory made, private.
    fn intact(&self) -> bool {
        std::fs::symlink_metadata(&self.path).is_ok_and(|m| {
            m.is_dir() && m.dev() == self.dev && m.ino() == self.ino && m.mode() & 0o777 == 0o700
        })
    }
}

impl RunCache {
    /// The session's cache directory under `parent`, made now if it was not yet (or if what
    /// is at its path is no longer the directory made). `session` names it.
    pub fn dir(&self, session: &str, parent: &Path) -> std::io::Result<PathBuf> {
        let mut made = self.0.made.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = made.as_ref().filter(|m| m.intact() && m.path.parent() == Some(parent)) {
            return Ok(m.path.clone());
        }
        let safe: String = session
            .chars()
            .take(64)
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
            .collect();
        let mut last = None;
        for _ in 0..4 {
            let path = parent.join(format!("{RUN_CACHE_PREFIX}{safe}-{}", random_hex()?));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => {
                    let m = std::fs::symlink_metadata(&path)?;
                    let new = Made { path: path.clone(), dev: m.dev(), ino: m.ino() };
                    if !new.intact() {
                        return Err(std::io::Error::other(format!(
                            "{} is not a private directory after it was made",
                            path.display()
                        )));
                    }
                    *made = Some(new);
                    return Ok(path);
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no cache directory could be made")))
    }

    /// The directory made, if any (and still intact).
    pub fn current(&self) -> Option<PathBuf> {
        let made = self.0.made.lock().unwrap_or_else(|e| e.into_inner());
        made.as_ref().filter(|m| m.intact()).map(|m| m.path.clone())
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let made = self.made.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = made.take().filter(Made::intact) {
            let _ = std::fs::remove_dir_all(&m.path);
        }
    }
}

/// 16 random bytes as hex.
fn random_hex() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(hex::encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_cache_is_made_private_never_taken_as_found_and_removed_with_the_session() {
        let tmp = tempfile::tempdir().unwrap();
        let parent = tmp.path();
        // What bash could plant at the old, predictable name is never used.
        let planted = parent.join(format!("{RUN_CACHE_PREFIX}s1"));
        std::fs::create_dir(&planted).unwrap();
        std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o777)).unwrap();
        let cache = RunCache::default();
        let dir = cache.dir("s1", parent).unwrap();
        assert_ne!(dir, planted);
        assert!(dir.file_name().unwrap().to_str().unwrap().starts_with("toolhost-cache-s1-"));
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        assert_eq!(cache.clone().dir("s1", parent).unwrap(), dir, "one dir per session");
        // Widened or swapped: a new one is made.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let again = cache.dir("s1", parent).unwrap();
        assert_ne!(again, dir);
        std::fs::write(again.join("kept"), "x").unwrap();
        let other = RunCache::default().dir("s1", parent).unwrap();
        assert_ne!(other, again, "another session gets its own");
        drop(cache);
        assert!(!again.exists(), "removed with the session");
        assert!(planted.exists() && dir.exists(), "only what it made is removed");
    }
}
