//! The session store: every session and every call made in it (tool, arguments, status,
//! text, error, artifacts), so the file changes an agent made can be listed, undone and
//! reapplied after the agent has exited — on one of two engines: SQLite at
//! `<data-dir>/toolhost.db` (the default, nothing to start) or a PostgreSQL database shared
//! by a fleet of toolhosts (`--store postgres://USER@HOST:PORT/DB`). Both hold the same
//! record, written by the same code ([`sql`]); file contents are stored once, as
//! content-defined chunks ([`contents`]).
//!
//! Migrations are versioned in code for each engine ([`MIGRATIONS`], [`PG_MIGRATIONS`]).
//!
//! # Undo and reapply across instances
//!
//! A change is [`Store::claim`]ed before its files are rewritten (a conditional update: of
//! two instances exactly one gets it, the other is told why) and [`Store::settle`]d after.
//! Each session records the identity of its workspace copy ([`Store::serving`]), so an
//! instance can refuse a change made in a copy it does not serve.
//!
//! # The crash window (docs/sessions.md#what-is-not-atomic-the-crash-window)
//!
//! Writing a file and recording the call are not one atomic transaction. A call is recorded
//! after the tool has returned, so if the process dies (or the store cannot be written)
//! between the two, **the change is on disk but not in the store**: `toolhost changes` does
//! not list it and `toolhost undo` cannot find it; the file simply holds what the tool wrote.
//! The session reports a failed record on stderr. A session on PostgreSQL checks that the
//! store answers before each call and runs no tool while it does not. See
//! `docs/sessions.md`.
//!
//! The map:
//!
//! * [`store`] — [`Store`]: open either engine, record a session and its calls, list and
//!   find the recorded [`RecordedChange`]s, claim and settle them.
//! * [`location`] — [`StoreLocation`]: `sqlite` or a PostgreSQL URL, shown without password.
//! * [`contents`] — file versions as content-defined chunks, each stored once.
//! * [`sql`] — the values and statements both engines carry.
//! * [`sqlite`], [`pg`] — the engines.
//! * [`migrations`] — [`MIGRATIONS`], [`PG_MIGRATIONS`] and [`DB_FILE`].
//! * [`error`] — [`StoreError`].

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod contents;
pub mod error;
pub mod location;
pub mod migrations;
mod pg;
mod sql;
mod sqlite;
pub mod store;

pub use error::StoreError;
pub use location::{PgUrl, StoreLocation};
pub use migrations::{DB_FILE, MIGRATIONS, PG_MIGRATIONS};
pub use store::{ClaimRefused, RecordedChange, Store};

#[cfg(test)]
mod store_tests;
