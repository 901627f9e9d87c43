//! Per-listener connection bounds of `toolhost mcp --listen`: how many connections are open
//! at once, how many of them have not yet authenticated, and how long one may stay open
//! without authenticating.
//!
//! * At most `max_total` connections are open ([`MCP_MAX_CONNECTIONS`], lowered to half the
//!   process's descriptor limit so the tools keep descriptors to work with), of which at most
//!   `max_unauthenticated` ([`MCP_MAX_UNAUTHENTICATED_CONNECTIONS`], lowered to a quarter of
//!   the total) have not yet sent a request with the bearer token.
//! * A connection accepted past either bound closes the *oldest* unauthenticated one; only
//!   when every open connection has authenticated is the new one itself closed. So
//!   connections that never send a byte (no token needed to open them) cannot hold the
//!   listener: a real client's connection is the newest when it is accepted, and its first
//!   request (sent at once) authenticates it before it could become the oldest.
//! * When `accept` fails for want of descriptors (`EMFILE`, `ENFILE`), the oldest
//!   unauthenticated connection is closed to make room ([`Connections::evict_oldest_unauthenticated`]).
//! * A connection that has sent no request carrying the token within
//!   [`MCP_AUTH_TIMEOUT_SECS`] of its accept is closed ([`Conn::closed`]); with `--no-auth`
//!   any request authenticates it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use toolhost_limits::{
    MCP_AUTH_TIMEOUT_SECS, MCP_MAX_CONNECTIONS, MCP_MAX_UNAUTHENTICATED_CONNECTIONS,
};

/// Why a connection was closed by its listener's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// A newer connection needed its place (it had not authenticated).
    Evicted,
    /// No authenticated request within the time limit.
    Unauthenticated,
}

#[derive(Debug)]
struct Entry {
    authenticated: AtomicBool,
    evict: CancellationToken,
}

/// The open connections of one listener, oldest first (ids are in accept order).
#[derive(Debug)]
pub struct Connections {
    open: Mutex<(u64, BTreeMap<u64, Arc<Entry>>)>,
    max_total: usize,
    max_unauthenticated: usize,
    auth_timeout: Duration,
}

impl Connections {
    /// Bounds as given (tests); [`Connections::for_this_process`] is the listener's.
    pub fn new(max_total: usize, max_unauthenticated: usize, auth_timeout: Duration) -> Arc<Self> {
        let max_total = max_total.max(1);
        Arc::new(Connections {
            open: Mutex::new((0, BTreeMap::new())),
            max_total,
            max_unauthenticated: max_unauthenticated.clamp(1, max_total),
            auth_timeout,
        })
    }

    /// The named bounds, lowered to fit this process's descriptor limit (`RLIMIT_NOFILE`).
    pub fn for_this_process() -> Arc<Self> {
        let total = MCP_MAX_CONNECTIONS.min(descriptor_limit() / 2);
        let unauthenticated = MCP_MAX_UNAUTHENTICATED_CONNECTIONS.min(total / 4);
        Self::new(total, unauthenticated, Duration::from_secs(MCP_AUTH_TIMEOUT_SECS))
    }

    /// The bounds in force: (open connections, unauthenticated ones).
    pub fn bounds(&self) -> (usize, usize) {
        (self.max_total, self.max_unauthenticated)
    }

    fn table(&self) -> std::sync::MutexGuard<'_, (u64, BTreeMap<u64, Arc<Entry>>)> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Take in a connection accepted now: its handle, or None when every open connection has
    /// authenticated and there is no room (close it). May close the oldest unauthenticated
    /// connection to make room.
    pub fn admit(self: &Arc<Self>) -> Option<Conn> {
        let mut table = self.table();
        let unauthenticated =
            table.1.values().filter(|e| !e.authenticated.load(Ordering::SeqCst)).count();
        if (unauthenticated >= self.max_unauthenticated || table.1.len() >= self.max_total)
            && !evict_oldest(&mut table.1)
            && table.1.len() >= self.max_total
        {
            return None;
        }
        let id = table.0;
        table.0 += 1;
        let entry = Arc::new(Entry {
            authenticated: AtomicBool::new(false),
            evict: CancellationToken::new(),
        });
        table.1.insert(id, entry.clone());
        Some(Conn { id, entry, accepted: Instant::now(), table: self.clone() })
    }

    /// Close the oldest unauthenticated connection (descriptors ran out); whether there was one.
    pub fn evict_oldest_unauthenticated(&self) -> bool {
        evict_oldest(&mut self.table().1)
    }

    /// Connections open now: (all, unauthenticated).
    pub fn counts(&self) -> (usize, usize) {
        let table = self.table();
        (
            table.1.len(),
            table.1.values().filter(|e| !e.authenticated.load(Ordering::SeqCst)).count(),
        )
    }
}

fn evict_oldest(open: &mut BTreeMap<u64, Arc<Entry>>) -> bool {
    let Some(id) =
        open.iter().find(|(_, e)| !e.authenticated.load(Ordering::SeqCst)).map(|(id, _)| *id)
    else {
        return false;
    };
    if let Some(entry) = open.remove(&id) {
        entry.evict.cancel();
    }
    true
}

/// This process's soft descriptor limit (a large number when it cannot be read).
fn descriptor_limit() -> usize {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return usize::MAX;
    }
    usize::try_from(lim.rlim_cur).unwrap_or(usize::MAX)
}

/// One admitted connection; dropping it frees its place.
#[derive(Debug)]
pub struct Conn {
    id: u64,
    entry: Arc<Entry>,
    accepted: Instant,
    table: Arc<Connections>,
}

impl Conn {
    /// A request with the bearer token arrived (or any request, without auth).
    pub fn authenticated(&self) {
        self.entry.authenticated.store(true, Ordering::SeqCst);
    }

    /// Resolves when the listener's bounds close this connection.
    pub async fn closed(&self) -> Closed {
        let deadline = self.accepted + self.table.auth_timeout;
        let unauthenticated = async {
            tokio::time::sleep_until(deadline).await;
            if self.entry.authenticated.load(Ordering::SeqCst) {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            _ = self.entry.evict.cancelled() => Closed::Evicted,
            _ = unauthenticated => Closed::Unauthenticated,
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.table.table().1.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_new_connection_closes_the_oldest_unauthenticated_one_never_an_authenticated_one() {
        let conns = Connections::new(4, 2, Duration::from_secs(60));
        let a = conns.admit().unwrap();
        a.authenticated();
        let b = conns.admit().unwrap();
        let c = conns.admit().unwrap();
        assert_eq!(conns.counts(), (3, 2));
        // Past the unauthenticated bound: b (the oldest unauthenticated) goes.
        let d = conns.admit().unwrap();
        assert_eq!(b.closed().await, Closed::Evicted);
        assert_eq!(conns.counts(), (3, 2));
        c.authenticated();
        d.authenticated();
        let e = conns.admit().unwrap();
        e.authenticated();
        // Four authenticated: no room, and none is closed for a newcomer.
        assert!(conns.admit().is_none());
        assert!(!a.entry.evict.is_cancelled());
        drop(a);
        assert!(conns.admit().is_some());
    }

    #[tokio::test]
    async fn an_unauthenticated_connection_closes_at_its_deadline_an_authenticated_one_does_not() {
        let conns = Connections::new(8, 8, Duration::from_millis(100));
        let silent = conns.admit().unwrap();
        let client = conns.admit().unwrap();
        client.authenticated();
        assert_eq!(silent.closed().await, Closed::Unauthenticated);
        assert!(tokio::time::timeout(Duration::from_millis(500), client.closed()).await.is_err());
    }

    #[test]
    fn the_bounds_fit_the_descriptor_limit() {
        let (total, unauthenticated) = Connections::for_this_process().bounds();
        assert!(total <= MCP_MAX_CONNECTIONS && total <= descriptor_limit() / 2 + 1);
        assert!(unauthenticated <= MCP_MAX_UNAUTHENTICATED_CONNECTIONS && unauthenticated <= total);
    }
}
