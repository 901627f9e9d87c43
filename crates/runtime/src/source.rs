//! Where a component's bytes come from, kept until it is prepared on its first call.

use std::path::PathBuf;
use std::sync::Arc;

/// Where a component comes from: its file, its cache key, and its bytes when they were
/// already read.
pub struct Source {
    pub(crate) path: PathBuf,
    pub(crate) key: String,
    pub(crate) bytes: Option<ComponentBytes>,
    /// The SHA-256 (hex) its file must have when it is read at last (an installed tool
    /// loaded on trust of its pin's stamp, whose compilation was not cached after all).
    pub(crate) pinned: Option<String>,
}

/// A component's bytes: embedded in the binary, or read from a file.
#[derive(Clone)]
pub enum ComponentBytes {
    /// Embedded at build time.
    Static(&'static [u8]),
    /// Read at run time.
    Shared(Arc<[u8]>),
}

impl AsRef<[u8]> for ComponentBytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            ComponentBytes::Static(b) => b,
            ComponentBytes::Shared(b) => b,
        }
    }
}
