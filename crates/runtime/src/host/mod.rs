//! The host side of `toolhost:tool`: every interface a component imports, implemented on
//! [`CallState`], the data of one call's `Store`. One file per interface, as in wasmtime's
//! `wasi/src/p2/host/`:
//!
//! * `types` — the contract's error type in the host's terms and back, and
//!   [`TrappableError`], what a host function returning a `tool-error` fails with; the open
//!   of a checked file for reading.
//! * `workspace` — `open-file`, `open-dir`, `open-for-write`; the `file` and `dir` handles.
//!   Its two larger resources have files of their own: `walk` (`walker`: the shared,
//!   parallel walk, over `walk_queue`, the queue walker threads fill and instances take
//!   from) and `draft` (`draft`: a write under the path's lock, committed atomically).
//! * `call` — cancellation, scan timeout, progress; `spill` files.
//! * `process` — programs run for a component granted process-execution, in bash's sandbox.
//! * `state` — [`CallState`] and [`CallShare`], the data these are implemented on (and the
//!   `types` interface's one function).
//!
//! Within this directory the files stand in that order read bottom up: `types` and
//! `walk_queue` know none of the others, `state` only them, every interface file `state`.
//!
//! Every handle is created from a [`CheckedPath`](toolhost_core::fence::CheckedPath): the component names a path, the fence
//! resolves and judges it, and only then does the host open anything. What the instances of
//! one call share (a walk, the n-th spill) is a [`CallShare`].
//!
//! The traits these implement are those of the newest WIT version (`crate::wit::latest`); an
//! older version's module converts to them (`crate::wit::since_v0_1_0`), and a new version's
//! new interface gets a file of its own here.

mod call;
mod draft;
mod process;
mod state;
mod types;
mod walk;
mod walk_queue;
mod workspace;

pub use call::{CallLimit, SpillHandle};
pub use draft::DraftHandle;
pub(crate) use process::{check_approved_run, run_cache_parent, run_policy};
pub use state::{CallShare, CallState};
pub use types::TrappableError;
pub(crate) use types::code_from_wit;
pub use walk::WalkerHandle;
pub use workspace::{DirHandle, FileHandle};
