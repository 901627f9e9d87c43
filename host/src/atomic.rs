//! Atomic file replacement (seed 000 §6.2, §7.3): stage a sibling temp file in the target's
//! own directory, fsync it, keep the target's mode, compare the disk content once more, and
//! publish with a rename inside that directory.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::observations::sha256_hex;

/// Why an atomic write did not happen.
#[derive(Debug, thiserror::Error)]
pub enum AtomicWriteError {
    /// The file on disk is no longer what the caller prepared against.
    #[error("file changed while edit was being prepared")]
    Stale,
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Replace `path` with `bytes`, provided its current content still hashes to `expected`
/// (`None`: the file must still not exist).
pub fn write_atomic(path: &Path, bytes: &[u8], expected: Option<&str>) -> Result<(), AtomicWriteError> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("path has no parent"))?;
    let name = path.file_name().ok_or_else(|| std::io::Error::other("path has no file name"))?;
    let mode = std::fs::metadata(path).ok().map(|m| m.permissions().mode());
    let mut staged = tempfile::Builder::new()
        .prefix(&format!(".{}.", name.to_string_lossy()))
        .suffix(".toolhost-tmp")
        .tempfile_in(dir)?;
    staged.write_all(bytes)?;
    if let Some(mode) = mode {
        staged.as_file().set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    staged.as_file().sync_all()?;
    // Compare again right before publishing: a change made while we prepared wins.
    let current = match std::fs::read(path) {
        Ok(b) => Some(sha256_hex(&b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    if current.as_deref() != expected {
        return Err(AtomicWriteError::Stale);
    }
    staged.persist(path).map_err(|e| AtomicWriteError::Io(e.error))?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_rejects_stale_content_without_overwriting() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "one").unwrap();
        let stale = sha256_hex(b"zero");
        assert!(matches!(write_atomic(&p, b"two", Some(&stale)), Err(AtomicWriteError::Stale)));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "one");
        write_atomic(&p, b"two", Some(&sha256_hex(b"one"))).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
    }

    #[test]
    fn a_write_keeps_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.sh");
        std::fs::write(&p, "echo").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o754)).unwrap();
        write_atomic(&p, b"echo hi", Some(&sha256_hex(b"echo"))).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o754);
    }
}
