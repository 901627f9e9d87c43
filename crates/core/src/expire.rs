//! Removing what a directory has kept too long: entries last modified longer ago than an age
//! (a spill directory past its retention, a download an interrupted `tool add` left behind).

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

/// Removes every entry of `dir` whose name `named` accepts and which was last modified more
/// than `max_age` ago: a directory with everything in it, anything else as a file (a symlink
/// itself, never what it points to). Best effort: an entry that cannot be read or removed
/// stays, and a missing `dir` is nothing to do.
pub fn remove_older_than(dir: &Path, max_age: Duration, named: impl Fn(&OsStr) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > max_age);
        if !old || !named(&entry.file_name()) {
            continue;
        }
        let _ = if entry.file_type().is_ok_and(|t| t.is_dir()) {
            std::fs::remove_dir_all(entry.path())
        } else {
            std::fs::remove_file(entry.path())
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_old_entries_with_an_accepted_name_go() {
        let dir = tempfile::tempdir().unwrap();
        let old_file = dir.path().join(".oci-old");
        let old_dir = dir.path().join("old-session");
        let other = dir.path().join("keep-me");
        let fresh = dir.path().join(".oci-fresh");
        std::fs::write(&old_file, b"x").unwrap();
        std::fs::create_dir_all(old_dir.join("inner")).unwrap();
        std::fs::write(old_dir.join("inner/a.txt"), b"x").unwrap();
        std::fs::write(&other, b"x").unwrap();
        std::fs::write(&fresh, b"x").unwrap();
        let long_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        for p in [&old_file, &old_dir, &other] {
            std::fs::File::options()
                .read(true)
                .open(p)
                .and_then(|f| f.set_modified(long_ago))
                .unwrap();
        }
        let starts =
            |prefix: &'static str| move |n: &OsStr| n.to_string_lossy().starts_with(prefix);
        remove_older_than(dir.path(), Duration::from_secs(60), starts(".oci-"));
        assert!(!old_file.exists() && fresh.exists() && other.exists() && old_dir.exists());
        remove_older_than(dir.path(), Duration::from_secs(60), |_| true);
        assert!(!old_dir.exists() && !other.exists() && fresh.exists());
        remove_older_than(&dir.path().join("missing"), Duration::ZERO, |_| true);
    }
}
