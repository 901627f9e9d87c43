//! MCP roots (docs/mcp.md#roots). When the operator confined reads
//! (docs/security.md#reads-confined-to-roots), a client that declares the `roots` capability is
//! asked `roots/list` after `initialize` and again on `notifications/roots/list_changed`. Its
//! roots narrow the operator's read roots for that client's session
//! (`SandboxPolicy::with_client_roots`): later calls, bash included, run under the narrowed
//! policy, and the read, grep, glob, list and bash descriptions it is sent say what is
//! readable. Roots only narrow reads and never make anything writable.
//!
//! Bounded: at most `MCP_MAX_ROOTS` roots of at most `MCP_MAX_ROOT_URI_BYTES` each are taken;
//! a URI that is not a local `file://` path is ignored with a line on stderr; a client that
//! does not answer within `MCP_ROOTS_TIMEOUT_MS` keeps the operator's read roots, and no call
//! waits longer than that for the answer. A stateless 2026-07-28 client (which has no roots:
//! SEP-2577 deprecates them) reads under the operator's read roots.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::Peer;
use rmcp::model::ClientConfig;
use rmcp::service::RoleServer;
use tokio::sync::watch;

use toolhost_limits::{MCP_MAX_ROOT_URI_BYTES, MCP_MAX_ROOTS, MCP_ROOTS_TIMEOUT_MS};
use toolhost_policy::SandboxPolicy;

/// One client's roots as the server knows them.
#[derive(Debug, Clone)]
pub enum RootsScope {
    /// Asked for the first time, not yet answered: its calls wait (bounded).
    Asking,
    /// Answered: the policy its roots give (`None`: the operator's, for want of an answer).
    Known(Option<Arc<SandboxPolicy>>),
}

/// A client whose roots are asked for.
struct Entry {
    /// Its identity: the `initialize` parameters rmcp keeps for its session (compared by
    /// pointer; held here, so never reused while the entry lives).
    info: Arc<ClientConfig>,
    peer: Peer<RoleServer>,
    scope: watch::Sender<RootsScope>,
}

/// The clients whose roots narrow their reads (at most one per MCP session; entries of closed
/// sessions are dropped whenever a client is added).
#[derive(Default)]
pub struct ClientRoots {
    entries: Mutex<Vec<Entry>>,
}

/// Why a root's URI is not taken.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RootError {
    #[error("it is longer than {MCP_MAX_ROOT_URI_BYTES} bytes")]
    TooLong,
    #[error("it is not a file:// URI")]
    NotFile,
    #[error("it names another host")]
    OtherHost,
    #[error("its path is not absolute, or holds a bad %-escape, a NUL, a query or a fragment")]
    BadPath,
}

/// The local path a root's `file://` URI names (`file:///srv/a%20b` → `/srv/a b`; the host
/// empty or `localhost`).
pub fn root_path(uri: &str) -> Result<PathBuf, RootError> {
    if uri.len() > MCP_MAX_ROOT_URI_BYTES {
        return Err(RootError::TooLong);
    }
    let rest = uri
        .get(..7)
        .filter(|s| s.eq_ignore_ascii_case("file://"))
        .map(|_| &uri[7..])
        .ok_or(RootError::NotFile)?;
    let slash = rest.find('/').ok_or(RootError::BadPath)?;
    let (host, path) = rest.split_at(slash);
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return Err(RootError::OtherHost);
    }
    if path.contains(['?', '#']) {
        return Err(RootError::BadPath);
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            let byte =
                hex.and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or(RootError::BadPath)?;
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    if out.contains(&0) {
        return Err(RootError::BadPath);
    }
    Ok(PathBuf::from(OsString::from_vec(out)))
}

/// A line on stderr, escaped for a terminal.
fn say(text: &str) {
    #[allow(clippy::print_stderr)]
    {
        eprintln!("{}", toolhost_core::display::terminal_line(text));
    }
}

impl ClientRoots {
    fn find(&self, peer: &Peer<RoleServer>) -> Option<watch::Sender<RootsScope>> {
        let info = peer.peer_info()?;
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.iter().find(|e| Arc::ptr_eq(&e.info, &info)).map(|e| e.scope.clone())
    }

    /// Start asking `peer` (initialized, declaring `roots`), or its scope if that has
    /// started already: its calls wait for the first answer, bounded. Both `initialized` and
    /// a request that overtook it (rmcp handles them side by side) start it, so neither
    /// misses the wait. `None` when rmcp knows no `initialize` of it.
    pub fn start(&self, peer: &Peer<RoleServer>) -> Option<watch::Sender<RootsScope>> {
        let info = peer.peer_info()?;
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = entries.iter().find(|e| Arc::ptr_eq(&e.info, &info)) {
            return Some(e.scope.clone());
        }
        let (scope, _) = watch::channel(RootsScope::Asking);
        entries.retain(|e| !e.peer.is_transport_closed());
        entries.push(Entry { info, peer: peer.clone(), scope: scope.clone() });
        Some(scope)
    }

    /// The scope of `peer`, if its roots are asked for (after `start`).
    pub fn scope_of(&self, peer: &Peer<RoleServer>) -> Option<watch::Sender<RootsScope>> {
        self.find(peer)
    }

    /// The policy `peer`'s roots give its calls: waits for the first answer at most
    /// `MCP_ROOTS_TIMEOUT_MS`; `None` (the session's policy) for a client not asked, one
    /// that gave no usable answer, or one that has not answered in time.
    pub async fn policy_for(&self, peer: &Peer<RoleServer>) -> Option<Arc<SandboxPolicy>> {
        let mut rx = self.find(peer)?.subscribe();
        let wait = rx.wait_for(|s| matches!(s, RootsScope::Known(_)));
        match tokio::time::timeout(Duration::from_millis(MCP_ROOTS_TIMEOUT_MS), wait).await {
            Ok(Ok(s)) => match &*s {
                RootsScope::Known(p) => p.clone(),
                RootsScope::Asking => None,
            },
            _ => None,
        }
    }
}

/// Ask `peer` for its roots and make them its scope, narrowing `session` (the operator's
/// policy). Returns whether what `peer` may read changed (its tool descriptions then did too).
// Roots are deprecated from the 2026-07-28 revision on (SEP-2577), whose stateless clients
// have no session to narrow; 2025-11-25 clients (the official SDKs among them) offer them.
#[allow(deprecated)]
pub async fn ask(
    session: &SandboxPolicy,
    peer: &Peer<RoleServer>,
    scope: &watch::Sender<RootsScope>,
) -> bool {
    let before = match &*scope.borrow() {
        RootsScope::Known(Some(p)) => p.read_roots().to_vec(),
        _ => session.read_roots().to_vec(),
    };
    let answer =
        tokio::time::timeout(Duration::from_millis(MCP_ROOTS_TIMEOUT_MS), peer.list_roots()).await;
    let roots = match answer {
        Ok(Ok(result)) => result.roots,
        Ok(Err(e)) => {
            say(&format!(
                "toolhost: the client's roots/list failed ({e}); its reads keep the operator's read roots"
            ));
            keep_unless_known(scope);
            return false;
        }
        Err(_) => {
            say(&format!(
                "toolhost: the client did not answer roots/list within {MCP_ROOTS_TIMEOUT_MS} ms; its reads keep the operator's read roots"
            ));
            keep_unless_known(scope);
            return false;
        }
    };
    if roots.len() > MCP_MAX_ROOTS {
        say(&format!(
            "toolhost: the client offered {} roots; only the first {MCP_MAX_ROOTS} are taken",
            roots.len()
        ));
    }
    let mut paths = Vec::new();
    for root in roots.iter().take(MCP_MAX_ROOTS) {
        match root_path(&root.uri) {
            Ok(p) => paths.push(p),
            Err(why) => {
                let shown: String = root.uri.chars().take(200).collect();
                say(&format!("toolhost: MCP root {shown:?} ignored: {why}"));
            }
        }
    }
    let narrowed = session.with_client_roots(&paths);
    for ignored in &narrowed.ignored {
        say(&format!(
            "toolhost: MCP root {} ignored: it lies outside the operator's read roots (roots only narrow reads)",
            ignored.display()
        ));
    }
    let changed = narrowed.policy.read_roots() != before.as_slice();
    scope.send_replace(RootsScope::Known(Some(Arc::new(narrowed.policy))));
    changed
}

/// After a failed ask: a first one leaves the operator's roots; a later one keeps what the
/// client said before.
fn keep_unless_known(scope: &watch::Sender<RootsScope>) {
    scope.send_if_modified(|s| match s {
        RootsScope::Asking => {
            *s = RootsScope::Known(None);
            true
        }
        RootsScope::Known(_) => false,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths_and_the_rest_is_refused() {
        assert_eq!(root_path("file:///srv/a%20b").unwrap(), PathBuf::from("/srv/a b"));
        assert_eq!(root_path("file://localhost/srv").unwrap(), PathBuf::from("/srv"));
        assert_eq!(root_path("FILE:///x").unwrap(), PathBuf::from("/x"));
        assert_eq!(root_path("https://example.com/x"), Err(RootError::NotFile));
        assert_eq!(root_path("file://server/share"), Err(RootError::OtherHost));
        assert_eq!(root_path("file:///a%2"), Err(RootError::BadPath));
        assert_eq!(root_path("file:///a%00b"), Err(RootError::BadPath));
        assert_eq!(root_path("file:///a?x=1"), Err(RootError::BadPath));
        assert_eq!(root_path("file://"), Err(RootError::BadPath));
        assert_eq!(root_path("fi"), Err(RootError::NotFile));
        let long = format!("file:///{}", "a".repeat(MCP_MAX_ROOT_URI_BYTES));
        assert_eq!(root_path(&long), Err(RootError::TooLong));
    }
}
