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
//! Writing a file and recording the call are not one atomic transaction; a protocol closes
//! the gap. A call's changes are recorded as pending before the host writes them
//! ([`Store::record_pending`]) — a write the store cannot record first is not made — and
//! the call's record replaces them ([`Store::record_call`]). Pending changes left by a
//! process that died are found again ([`Store::pending_calls`]) and settled by the hashes of
//! the files (`toolhost_session::reconcile_pending`, [`Store::resolve_pending`]). Claims
//! name their holder ([`owner`]); a claim whose holder is gone is taken over. See
//! `docs/sessions.md`.
//!
//! The map:
//!
//! * [`store`] — [`Store`]: open either engine, record a session and its calls, list and
//!   find the recorded [`RecordedChange`]s, claim and settle them.
//! * [`location`] — [`StoreLocation`]: `sqlite` or a PostgreSQL URL, shown without password.
//! * [`pending`] — a call's changes recorded before they are written ([`PendingCall`]),
//!   and those left behind ([`LeftPending`]), found and settled.
//! * [`owner`] — which process holds a pending change or a claim, and whether it is gone.
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
pub mod owner;
pub mod pending;
mod pg;
mod sql;
mod sqlite;
pub mod store;

pub use error::StoreError;
pub use location::{PgUrl, StoreLocation};
pub use migrations::{DB_FILE, MIGRATIONS, PG_MIGRATIONS};
pub use pending::{LeftPending, PendingCall};
pub use store::{ClaimRefused, RecordedChange, Store};

#[cfg(test)]
mod store_tests;
