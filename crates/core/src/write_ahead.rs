//! The write-ahead record of a call's file changes (docs/sessions.md#what-is-not-atomic-the-crash-window):
//! before the host writes a file for a call, the change it is about to make — path, before and
//! after content, hashes — is recorded as *pending* where the session keeps its record; the
//! call's own record, saved after the tool returns, replaces it. A pending change left behind
//! (the process died, or the store went away, between the write and the call's record) is
//! found again by its hashes: the file holds the after content, so it was written and is
//! recorded; it holds the before content, so it was not and is dropped.
//!
//! Core only asks; the session crate keeps the record ([`WriteAhead`] is set on a call's
//! [`crate::context::ToolCallContext`] by whoever records calls). How a pending change
//! stands against the disk is [`crate::on_disk`]'s.

use std::sync::Arc;

use crate::result::FileChange;

/// Records the changes a call is about to write, before it writes them.
pub trait WriteAheadRecord: Send + Sync {
    /// Record `changes` as pending for this call. An error means they cannot be recorded,
    /// and the host writes nothing: its text says why.
    fn before_write(&self, changes: &[FileChange]) -> Result<(), String>;
}

/// A call's write-ahead record, when its session keeps one.
#[derive(Clone)]
pub struct WriteAhead(pub Arc<dyn WriteAheadRecord>);

impl std::fmt::Debug for WriteAhead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WriteAhead")
    }
}

/// The error text of a write refused because its change could not be recorded first.
pub fn not_recorded_message(display: &str, reason: &str) -> String {
    format!(
        "{display} was not written: the session store cannot record the change first ({reason}); nothing was written, and the call can be retried once the store answers"
    )
}
