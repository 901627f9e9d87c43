//! The read-before-edit table (docs/contract.md#read-before-edit): real path → SHA-256 of the
//! content the model last read or wrote. Only the host writes it; a component cannot forge an
//! entry.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A SHA-256 digest as lowercase hex.
pub type ContentHash = String;

/// The observation table of one session; clones share the same table.
#[derive(Debug, Clone, Default)]
pub struct FileObservations {
    inner: Arc<Mutex<HashMap<PathBuf, ContentHash>>>,
}

impl FileObservations {
    /// Record that the model saw `hash` at `real_path`.
    pub fn record(&self, real_path: &Path, hash: ContentHash) {
        self.lock().insert(real_path.to_path_buf(), hash);
    }

    /// The hash last seen at `real_path`, if any.
    pub fn get(&self, real_path: &Path) -> Option<ContentHash> {
        self.lock().get(real_path).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, ContentHash>> {
        // A panic while holding the lock cannot leave the map half-updated: recover it.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// SHA-256 of `bytes` as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> ContentHash {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Refusal when an existing file was never read in this session (docs/contract.md#read-before-edit,
/// verbatim).
pub fn not_read_message(path: &str) -> String {
    format!("Read {path} before editing it.")
}

/// Whether `text` is a [`not_read_message`] (of any path).
pub fn is_not_read_message(text: &str) -> bool {
    text.starts_with("Read ") && text.ends_with(" before editing it.")
}

/// Refusal when the file changed since the model read it (docs/contract.md#read-before-edit,
/// verbatim).
pub fn changed_message(path: &str) -> String {
    format!(
        "{path} changed since you last read it (by you via bash, or by the user). Read it again before editing."
    )
}

/// Refusal when the file changed between preparing a write and publishing it
/// (docs/contract.md#edit, verbatim).
pub const STALE_WRITE_MESSAGE: &str = "file changed while edit was being prepared";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusal_texts_are_the_contract_texts() {
        assert_eq!(not_read_message("src/a.rs"), "Read src/a.rs before editing it.");
        assert_eq!(
            changed_message("src/a.rs"),
            "src/a.rs changed since you last read it (by you via bash, or by the user). Read it again before editing."
        );
        assert_eq!(STALE_WRITE_MESSAGE, "file changed while edit was being prepared");
    }
}
