//! What the approval-gated workspace tools — `workspace_shell` and `workspace_tests`
//! (docs/workspace-tools.md) — share, so each tool holds only its own input and output.
//!
//! A call flows through:
//! * [`check`]: the parts of an input both tools check the same way — `cwd` (relative, no
//!   `..`), `env` (PATH and loader variables refused) and `timeout_ms` (a range, refused
//!   rather than clamped) — each refusal a [`Failure`];
//! * [`spec`]: the [`RunSpec`] a checked input becomes (one definition with the host's,
//!   `toolhost-run-spec`): the one command the call will run. `inspect` answers
//!   [`RunSpec::to_json`] (what the user approves) and `execute` runs [`spec::command`], both
//!   derived from the same spec;
//! * [`runner`]: the [`Runner`] trait that runs a spec and returns what it [`Ran`] — over
//!   `process.run` in the component ([`host::HostRunner`]), over `std::process` in tests
//!   ([`native::NativeRunner`]);
//! * [`display`]: the words a result uses (`termination`, `command_display`) and the
//!   model-visible text, bounded by [`display::bound_text`] (head and tail, the whole text in
//!   a spill file behind the [`display::Sink`] trait).
//!
//! The operator's settings the host adds to the input (`$operator`) are an [`Operator`].
//! A host refusal of the run (`process.run` returning an error) becomes a [`Failure`] with
//! its `LOCAL_EXECUTOR_*` kind ([`from_run_error`]).

pub mod check;
pub mod display;
pub mod failure;
pub mod host;
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
pub mod operator;
pub mod runner;
pub mod spec;

pub use failure::{Failure, from_run_error};
pub use operator::Operator;
pub use runner::{Ran, Runner};
pub use spec::RunSpec;
