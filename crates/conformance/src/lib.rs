//! `toolhost conformance FILE.wasm`: checks a tool component against the host's contract, so
//! its author can see before shipping what the host will refuse, cut or stop.
//!
//! [`check`] runs the checks below on the component boxed into a scratch workspace (nothing
//! outside it exists for the component or its programs; the user's policy applies besides),
//! beside a fake HOME holding a fake credential, and returns a [`Report`]: one [`Check`] per stable name, each a
//! [`Outcome::Pass`], [`Outcome::Fail`] or [`Outcome::Warn`] with one sentence for anything but
//! a pass. [`Report::text`], [`Report::json`] and [`Report::junit`] render it.
//!
//! * `static.*` — a component of a supported `toolhost:tool` version, importing nothing
//!   beyond it and WASI 0.2, exporting `tool` ([`toolhost_runtime::ComponentRuntime::inspect`]).
//! * `describe.*` — `describe` returns, the same on a fresh instance, and meets the rules of
//!   `tool add` ([`toolhost_plugins::rules`]); the schema is checked by a JSON Schema validator.
//! * `inputs.*` — `--cases` inputs generated from the schema ([`generate`]), valid and not
//!   (judged by the validator): none traps, every invalid one is `invalid-arguments` starting
//!   `invalid tool input: `; a failure shows the smallest failing input and the seed.
//!
//! Every `fail` and `warn` ends with the section of `docs/authoring.md` that explains it, and
//! names error codes the WIT's way (`invalid-arguments`, as an author writes them).
//! * `bounds.*`, `deadline.*`, `capabilities.*`, `isolation.*` — see [`checks`].
//!
//! The map: [`checks`] holds [`check`] and the groups (one file each); [`generate`] makes
//! inputs from a schema; [`options`] and [`report`] are the run's input and output; `render`
//! writes a report as text, JSON or JUnit.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod checks;
pub mod generate;
pub mod options;
mod render;
pub mod report;

pub use checks::{CannotCheck, check};
pub use options::{DEFAULT_CASES, Options};
pub use report::{Check, Outcome, Report};
