//! Where the session store is and which workspace copy this instance serves: `--store`, else
//! `TOOLHOST_STORE`, else policy.json's `"store"`, else SQLite in the data dir; the copy's
//! identity is `INSTANCE:WORKSPACE`, INSTANCE being `TOOLHOST_INSTANCE`, else policy.json's
//! `"instance"`, else the host name (docs/sessions.md#a-fleet-on-postgresql).

use std::path::Path;

use toolhost::store::{Store, StoreError, StoreLocation};

use super::{Setup, UsageError};

/// The store location the options, the environment and policy.json name.
pub(super) fn location(
    option: Option<&str>,
    configured: Option<&str>,
    data_dir: &Path,
) -> Result<StoreLocation, UsageError> {
    let env = std::env::var("TOOLHOST_STORE").ok().filter(|s| !s.is_empty());
    let text = option.map(str::to_string).or(env).or(configured.map(str::to_string));
    match text {
        None => Ok(StoreLocation::Sqlite(data_dir.to_path_buf())),
        Some(text) => {
            StoreLocation::parse(&text, data_dir).map_err(|e| UsageError::Store(e.to_string()))
        }
    }
}

/// The identity of the workspace copy this instance serves: `INSTANCE:WORKSPACE`.
pub(super) fn workspace_id(configured: Option<&str>, workspace: &Path) -> String {
    let instance = std::env::var("TOOLHOST_INSTANCE")
        .ok()
        .filter(|s| !s.is_empty())
        .or(configured.map(str::to_string))
        .unwrap_or_else(host_name);
    format!("{instance}:{}", workspace.display())
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

impl Setup {
    /// Open the session store, serving this workspace copy. A PostgreSQL store that cannot
    /// be reached is a [`UsageError`] (one line, exit 2).
    pub fn open_store(&self) -> anyhow::Result<Store> {
        match Store::connect(&self.store) {
            Ok(store) => Ok(store.serving(self.workspace_id.clone())),
            Err(e @ StoreError::Unreachable { .. }) => Err(UsageError::Store(e.to_string()).into()),
            Err(e) => Err(e.into()),
        }
    }
}
