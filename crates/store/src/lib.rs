//! The session store: a SQLite database at `<data-dir>/toolhost.db` holding every session and
//! every call made in it (tool, arguments, status, text, error, artifacts), so the file
//! changes an agent made can be listed, undone and reapplied after the agent has exited.
//!
//! Migrations are versioned in code ([`MIGRATIONS`]) and tracked with `PRAGMA user_version`.
//!
//! # The crash window (docs/sessions.md#what-is-not-atomic-the-crash-window)
//!
//! Writing a file and recording the call are not one atomic transaction. A call is recorded
//! after the tool has returned, so if the process dies (or the store cannot be written)
//! between the two, **the change is on disk but not in the store**: `toolhost changes` does
//! not list it and `toolhost undo` cannot find it; the file simply holds what the tool wrote.
//! The session reports a failed record on stderr. The same holds for undo and reapply: if
//! the files are rewritten and saving the `undone` flag fails, the store shows the change in
//! its old state (a later undo/reapply then reports a conflict rather than overwriting).
//! See `docs/sessions.md`.
//!
//! The map:
//!
//! * [`store`] — [`Store`]: open (creating the data dir and running migrations), record a
//!   session and its calls, list, find and mark the recorded [`RecordedChange`]s.
//! * [`migrations`] — [`MIGRATIONS`] and [`DB_FILE`]: the schema, one migration per entry.
//! * [`error`] — [`StoreError`].

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod error;
pub mod migrations;
pub mod store;

pub use error::StoreError;
pub use migrations::{DB_FILE, MIGRATIONS};
pub use store::{RecordedChange, Store};
