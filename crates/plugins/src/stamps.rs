//! Verifying an installed component's pin without rehashing it on every start.
//!
//! A process that loads the installed set used to read and hash every component file: tens of
//! milliseconds and megabytes per large component, paid by every call of every tool, the
//! built-ins too. Instead, `<data-dir>/tools/verified.json` records, per pinned SHA-256, the
//! stamp of the file last seen to hash to it: device, inode, size, and the modification and
//! change times to the nanosecond. A file whose stamp is unchanged is the file that was
//! hashed; any other is hashed again (and refused if it no longer matches its pin).
//!
//! Why this stays safe:
//! * every write to a file moves its change time (`ctime`), which no system call can set back
//!   (`utimes` sets only the access and modification times, and moves `ctime` itself); a file
//!   replaced by another one has another inode; so a file whose stamp matches has not been
//!   written since it was hashed;
//! * a stamp is recorded only for a file unchanged for [`QUIESCENT`] before it was hashed, so a
//!   write landing in the same clock tick as the hash cannot share its stamp (the race git's
//!   index calls "racy");
//! * `verified.json`, like the files and `tools.json` with the pins, lives in the data dir,
//!   which no tool and no bash can read or write (`docs/security.md`): whoever can forge a
//!   stamp can already rewrite the pins.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

/// The record of verified stamps, inside the `tools/` directory.
pub const STAMPS_FILE: &str = "verified.json";

/// A file must have been unchanged this long before it is hashed for its stamp to be kept.
pub const QUIESCENT: Duration =
    Duration::from_millis(toolhost_limits::INSTALLED_STAMP_QUIESCENT_MS);

/// What identifies one version of a file's content without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    /// The stamp of `meta` (of a regular file, not followed through a link).
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Whether the file was last changed at least [`QUIESCENT`] before `now`.
    fn quiescent_at(&self, now: SystemTime) -> bool {
        let Ok(now) = now.duration_since(SystemTime::UNIX_EPOCH) else { return false };
        let changed =
            Duration::new(self.ctime.0.max(0) as u64, self.ctime.1.clamp(0, 999_999_999) as u32);
        changed + QUIESCENT <= now
    }
}

/// The verified stamps of one installed set, read once per load and written back only when
/// a file was hashed anew.
#[derive(Debug, Default)]
pub struct Stamps {
    path: PathBuf,
    by_sha256: BTreeMap<String, Stamp>,
    changed: bool,
}

impl Stamps {
    /// The stamps recorded in `tools_dir` (none when there are none or they do not parse:
    /// then every file is hashed, as before they existed).
    pub fn load(tools_dir: &Path) -> Stamps {
        let path = tools_dir.join(STAMPS_FILE);
        let by_sha256 = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        Stamps { path, by_sha256, changed: false }
    }

    /// Whether `stamp` is the one recorded for a file that hashed to `sha256`.
    pub fn vouches(&self, sha256: &str, stamp: &Stamp) -> bool {
        self.by_sha256.get(sha256) == Some(stamp)
    }

    /// A file with `stamp` (taken before it was read) was just hashed to `sha256`: keep the
    /// stamp if the file had been quiescent, forget any other.
    pub fn hashed(&mut self, sha256: &str, stamp: Stamp) {
        if stamp.quiescent_at(SystemTime::now()) {
            if self.by_sha256.insert(sha256.to_string(), stamp) != Some(stamp) {
                self.changed = true;
            }
        } else if self.by_sha256.remove(sha256).is_some() {
            self.changed = true;
        }
    }

    /// Forget the stamps of pins no longer installed.
    pub fn retain(&mut self, pinned: &[&str]) {
        let before = self.by_sha256.len();
        self.by_sha256.retain(|sha, _| pinned.contains(&sha.as_str()));
        self.changed |= self.by_sha256.len() != before;
    }

    /// Write the stamps back if any changed (best effort: a stamp not written only means the
    /// file is hashed again next time).
    pub fn save(&self, write: impl FnOnce(&Path, &[u8]) -> std::io::Result<()>) {
        if !self.changed {
            return;
        }
        if let Ok(json) = serde_json::to_vec(&self.by_sha256) {
            let _ = write(&self.path, &json);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp_of(path: &Path) -> Stamp {
        Stamp::of(&std::fs::symlink_metadata(path).unwrap())
    }

    #[test]
    fn a_write_or_a_replacement_changes_the_stamp_and_utimes_cannot_set_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("c.wasm");
        std::fs::write(&f, b"one").unwrap();
        let first = stamp_of(&f);
        assert_eq!(first, stamp_of(&f));
        std::thread::sleep(Duration::from_millis(20));
        // Same size, new content: the change time moves.
        std::fs::write(&f, b"two").unwrap();
        assert_ne!(first, stamp_of(&f));
        // Setting the modification time back does not set the change time back.
        let old = std::fs::File::options().write(true).open(&f).unwrap();
        old.set_modified(
            SystemTime::UNIX_EPOCH + Duration::new(first.mtime.0 as u64, first.mtime.1 as u32),
        )
        .unwrap();
        assert_ne!(first, stamp_of(&f));
        // Replaced by another file: another inode.
        let before = stamp_of(&f);
        let other = dir.path().join("other");
        std::fs::write(&other, b"two").unwrap();
        std::fs::rename(&other, &f).unwrap();
        assert_ne!(before, stamp_of(&f));
    }

    #[test]
    fn a_stamp_is_kept_only_for_a_quiescent_file_and_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("c.wasm");
        std::fs::write(&f, b"bytes").unwrap();
        let fresh = stamp_of(&f);
        let mut stamps = Stamps::load(dir.path());
        stamps.hashed("aa", fresh);
        assert!(!stamps.vouches("aa", &fresh), "a file changed just now was vouched for");

        let mut old = fresh;
        old.ctime.0 -= 10;
        stamps.hashed("aa", old);
        assert!(stamps.vouches("aa", &old));
        assert!(!stamps.vouches("bb", &old));
        stamps.save(|p, b| std::fs::write(p, b));
        let again = Stamps::load(dir.path());
        assert!(again.vouches("aa", &old));

        let mut again = again;
        again.retain(&["bb"]);
        assert!(!again.vouches("aa", &old));
    }
}
