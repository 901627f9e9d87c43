//! The installed set: `<data-dir>/tools/<sha256>.wasm`, one file per installed component,
//! recorded in `<data-dir>/tools.json` in install order. Both sit in the hard-protected data
//! dir (no tool and no bash can read or write them). Changes are made under an exclusive lock
//! on the `tools/` directory, each file written whole and renamed into place, so a crash
//! leaves either the old set or the new one.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toolhost_core::observations::sha256_hex;
use toolhost_core::tool::ToolRisk;

use crate::stamps::{Stamp, Stamps};

/// The directory of installed components, inside the data dir.
pub const TOOLS_DIR: &str = "tools";

/// The record of installed components, inside the data dir.
pub const TOOLS_FILE: &str = "tools.json";

/// One installed component, as `tools.json` records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstalledTool {
    /// Its tool id.
    pub id: String,
    /// SHA-256 of its bytes (hex): it is loaded only while its file still has them.
    pub sha256: String,
    /// The risk the user granted (the component's declared risk when it was added).
    pub risk: ToolRisk,
    /// Size in bytes.
    pub size: u64,
    /// Where it was installed from.
    pub source: String,
    /// When it was installed, RFC 3339 (UTC).
    pub added: String,
    /// The `toolhost:tool` version it targets.
    pub wit: String,
    /// When it came from an OCI registry: the reference and the digests it was pinned to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oci: Option<OciPin>,
}

/// Where a component pulled from an OCI registry came from, as pinned at install: the
/// reference as given, the manifest digest it resolved to (once), and the keys whose cosign
/// signature of that digest verified. The component's own sha256 is [`InstalledTool::sha256`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OciPin {
    /// `oci://HOST[:PORT]/REPOSITORY:TAG` or `…@sha256:…`, as given to `tool add`.
    pub reference: String,
    /// `sha256:<hex>` of the manifest that was pulled.
    pub manifest_digest: String,
    /// The public keys (their files) whose signature of the manifest digest verified.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signed_by: Vec<String>,
}

/// `tools.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolsFile {
    tools: Vec<InstalledTool>,
}

/// Why the installed set cannot be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum InstalledSetError {
    #[error("cannot {what} {}: {source}", path.display())]
    Io { what: &'static str, path: PathBuf, source: std::io::Error },
    #[error("{} is not a valid record of installed tools: {message}", path.display())]
    Corrupt { path: PathBuf, message: String },
}

/// Why an installed component is not loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotLoaded {
    #[error("its file {} is missing ({message}); reinstall it with `toolhost tool add`", path.display())]
    Missing { path: PathBuf, message: String },
    #[error(
        "its file {} no longer matches the SHA-256 pinned at install (pinned {pinned}, now {found}); it was changed after it was installed — reinstall it with `toolhost tool add` if you trust the new bytes",
        path.display()
    )]
    Tampered { path: PathBuf, pinned: String, found: String },
    #[error("it no longer loads: {0}")]
    Invalid(String),
}

/// What [`InstalledSet::verify`] found: the file is the one pinned.
pub enum Verified {
    /// Its stamp is the one recorded when it last hashed to its pin: it was not read.
    Unchanged,
    /// It was read and hashed to its pin: its bytes.
    Read(std::sync::Arc<[u8]>),
}

/// The installed set of one data dir.
#[derive(Debug, Clone)]
pub struct InstalledSet {
    data_dir: PathBuf,
}

/// Holds the installed set's lock; released on drop.
pub struct InstalledSetLock {
    _dir: std::fs::File,
}

impl InstalledSet {
    /// The installed set under `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        InstalledSet { data_dir: data_dir.into() }
    }

    fn dir(&self) -> PathBuf {
        self.data_dir.join(TOOLS_DIR)
    }

    fn record_path(&self) -> PathBuf {
        self.data_dir.join(TOOLS_FILE)
    }

    /// The file an installed component lives in.
    pub fn file_of(&self, tool: &InstalledTool) -> PathBuf {
        self.dir().join(format!("{}.wasm", tool.sha256))
    }

    /// The installed components, in install order (none when nothing was ever installed).
    pub fn list(&self) -> Result<Vec<InstalledTool>, InstalledSetError> {
        let path = self.record_path();
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(InstalledSetError::Io { what: "read", path, source }),
        };
        let file: ToolsFile = serde_json::from_slice(&bytes).map_err(|e| {
            InstalledSetError::Corrupt { path: path.clone(), message: e.to_string() }
        })?;
        Ok(file.tools)
    }

    /// One installed component by id.
    pub fn get(&self, id: &str) -> Result<Option<InstalledTool>, InstalledSetError> {
        Ok(self.list()?.into_iter().find(|t| t.id == id))
    }

    /// Whether the component's file still has its pinned SHA-256: vouched for by its stamp
    /// when unchanged since it was last hashed ([`crate::stamps`]), else read and hashed
    /// (and its stamp recorded in `stamps`).
    pub fn verify(&self, tool: &InstalledTool, stamps: &mut Stamps) -> Result<Verified, NotLoaded> {
        let path = self.file_of(tool);
        let meta = std::fs::symlink_metadata(&path)
            .map_err(|e| NotLoaded::Missing { path: path.clone(), message: e.to_string() })?;
        let stamp = Stamp::of(&meta);
        if meta.is_file() && stamps.vouches(&tool.sha256, &stamp) {
            return Ok(Verified::Unchanged);
        }
        let bytes = self.verified_bytes(tool)?;
        stamps.hashed(&tool.sha256, stamp);
        Ok(Verified::Read(bytes))
    }

    /// The verified stamps of this set's files ([`InstalledSet::verify`]).
    pub fn stamps(&self) -> Stamps {
        Stamps::load(&self.dir())
    }

    /// Write `stamps` back (only if they changed; best effort), forgetting uninstalled pins.
    pub fn save_stamps(&self, mut stamps: Stamps, installed: &[InstalledTool]) {
        let pinned: Vec<&str> = installed.iter().map(|t| t.sha256.as_str()).collect();
        stamps.retain(&pinned);
        let dir = self.dir();
        stamps.save(|path, bytes| write_whole(&dir, path, bytes));
    }

    /// The component's bytes, if its file still matches its pinned SHA-256.
    pub fn verified_bytes(&self, tool: &InstalledTool) -> Result<std::sync::Arc<[u8]>, NotLoaded> {
        let path = self.file_of(tool);
        let bytes = std::fs::read(&path)
            .map_err(|e| NotLoaded::Missing { path: path.clone(), message: e.to_string() })?;
        let found = sha256_hex(&bytes);
        if found != tool.sha256 {
            return Err(NotLoaded::Tampered { path, pinned: tool.sha256.clone(), found });
        }
        Ok(bytes.into())
    }

    /// Take the installed set's lock (exclusive, blocking) for a read-modify-write.
    pub fn lock(&self) -> Result<InstalledSetLock, InstalledSetError> {
        let dir = self.dir();
        create_private_dir(&dir).map_err(|source| InstalledSetError::Io {
            what: "create",
            path: dir.clone(),
            source,
        })?;
        let file = std::fs::File::open(&dir).map_err(|source| InstalledSetError::Io {
            what: "open",
            path: dir.clone(),
            source,
        })?;
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(InstalledSetError::Io {
                what: "lock",
                path: dir,
                source: std::io::Error::last_os_error(),
            });
        }
        Ok(InstalledSetLock { _dir: file })
    }

    /// Install (or upgrade, when its id is installed) `tool` with `bytes`, under `lock`:
    /// the file first, then the record, then the file the upgrade replaced is removed.
    pub fn install(
        &self,
        _lock: &InstalledSetLock,
        tool: InstalledTool,
        bytes: &[u8],
    ) -> Result<(), InstalledSetError> {
        let dir = self.dir();
        let file = self.file_of(&tool);
        write_whole(&dir, &file, bytes).map_err(|source| InstalledSetError::Io {
            what: "write",
            path: file.clone(),
            source,
        })?;
        let mut tools = self.list()?;
        match tools.iter_mut().find(|t| t.id == tool.id) {
            Some(slot) => *slot = tool,
            None => tools.push(tool),
        }
        self.save(&tools)?;
        self.remove_unreferenced(&tools);
        Ok(())
    }

    /// Uninstall `id` under `lock`; `false` if no such tool is installed.
    pub fn remove(&self, _lock: &InstalledSetLock, id: &str) -> Result<bool, InstalledSetError> {
        let mut tools = self.list()?;
        let before = tools.len();
        tools.retain(|t| t.id != id);
        if tools.len() == before {
            return Ok(false);
        }
        self.save(&tools)?;
        self.remove_unreferenced(&tools);
        Ok(true)
    }

    fn save(&self, tools: &[InstalledTool]) -> Result<(), InstalledSetError> {
        let path = self.record_path();
        let mut json = serde_json::to_vec_pretty(&ToolsFile { tools: tools.to_vec() })
            .expect("a tools file serializes");
        json.push(b'\n');
        write_whole(&self.data_dir, &path, &json).map_err(|source| InstalledSetError::Io {
            what: "write",
            path,
            source,
        })
    }

    /// Remove component files no record names (best effort).
    fn remove_unreferenced(&self, tools: &[InstalledTool]) {
        let Ok(entries) = std::fs::read_dir(self.dir()) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let keep = tools.iter().any(|t| name == format!("{}.wasm", t.sha256));
            if !keep && (name.ends_with(".wasm") || name.starts_with(".tmp-")) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// The time now as RFC 3339 in UTC, seconds precision (`2026-12-03T16:40:00Z`).
pub fn now_rfc3339() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Write `path` (in `dir`) whole: a temporary file, synced, renamed over it.
fn write_whole(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    create_private_dir(dir)?;
    let tmp = dir.join(format!(
        ".tmp-{}-{}",
        std::process::id(),
        chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0)
    ));
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(id: &str, bytes: &[u8]) -> InstalledTool {
        InstalledTool {
            id: id.into(),
            sha256: sha256_hex(bytes),
            risk: ToolRisk::ReadOnly,
            size: bytes.len() as u64,
            source: "/src".into(),
            added: now_rfc3339(),
            wit: "0.1.0".into(),
            oci: None,
        }
    }

    #[test]
    fn install_upgrade_remove_keep_one_file_per_tool() {
        let dir = tempfile::tempdir().unwrap();
        let store = InstalledSet::new(dir.path());
        assert!(store.list().unwrap().is_empty());
        let lock = store.lock().unwrap();
        store.install(&lock, tool("a", b"one"), b"one").unwrap();
        store.install(&lock, tool("b", b"two"), b"two").unwrap();
        store.install(&lock, tool("a", b"three"), b"three").unwrap();
        let ids: Vec<_> = store.list().unwrap().into_iter().map(|t| (t.id, t.size)).collect();
        assert_eq!(ids, [("a".to_string(), 5), ("b".to_string(), 3)]);
        assert_eq!(std::fs::read_dir(dir.path().join(TOOLS_DIR)).unwrap().count(), 2);
        assert!(store.remove(&lock, "a").unwrap());
        assert!(!store.remove(&lock, "a").unwrap());
        assert_eq!(std::fs::read_dir(dir.path().join(TOOLS_DIR)).unwrap().count(), 1);
    }

    #[test]
    fn a_changed_file_is_not_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let store = InstalledSet::new(dir.path());
        let lock = store.lock().unwrap();
        let t = tool("a", b"one");
        store.install(&lock, t.clone(), b"one").unwrap();
        assert_eq!(&*store.verified_bytes(&t).unwrap(), b"one");
        std::fs::write(store.file_of(&t), b"evil").unwrap();
        assert!(matches!(store.verified_bytes(&t), Err(NotLoaded::Tampered { .. })));
        std::fs::remove_file(store.file_of(&t)).unwrap();
        assert!(matches!(store.verified_bytes(&t), Err(NotLoaded::Missing { .. })));
    }

    #[test]
    fn a_corrupt_record_is_an_error_not_an_empty_set() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(TOOLS_FILE), b"{nope").unwrap();
        assert!(matches!(
            InstalledSet::new(dir.path()).list(),
            Err(InstalledSetError::Corrupt { .. })
        ));
    }
}
