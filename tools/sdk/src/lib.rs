//! Write a toolhost tool as a WebAssembly component.
//!
//! A tool is a type implementing [`Tool`]: an explicit id, a description, a [`Risk`], and
//! an `Input` type from which both the input schema ([`input_schema`]) and the parser
//! ([`parse_input`]) are derived (docs/contract.md#definitions-and-the-toolset). [`export_tool!`]
//! turns it into the `tool` interface of `wit/since_v0.3.0/tool.wit`: the host calls `describe`
//! once, then `inspect` and `execute` with JSON input, which the SDK parses before the tool sees
//! it.
//!
//! A tool reaches the workspace only through capability handles the host resolved and
//! fenced: [`open_file`], [`stat`], [`open_dir`], [`open_for_write`] (one file's [`Draft`],
//! committed alone, or several committed as one change, all or none, with [`commit_all`]). Call context comes
//! from [`cancelled`], [`report_progress`] and friends, and bounded results can save their
//! full list to a [`Spill`]. A tool of risk process-execution runs programs with
//! [`process::run`], inside the host's sandbox. A tool may return a structured value beside
//! its text ([`Tool::output_schema`], [`Tool::run`], [`Output`]). `std::fs`, `std::env` and
//! `std::net` find nothing.
//!
//! ```ignore
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use toolhost_sdk::{Risk, Tool, ToolError, open_file, read_to_end};
//!
//! /// Input of `count-bytes`.
//! #[derive(Deserialize, JsonSchema)]
//! #[serde(rename_all = "camelCase", deny_unknown_fields)]
//! struct Input {
//!     /// The file to measure.
//!     path: String,
//! }
//!
//! /// Counts the bytes of one file.
//! #[derive(Default)]
//! struct CountBytes;
//!
//! impl Tool for CountBytes {
//!     type Input = Input;
//!     fn id(&self) -> &'static str { "count-bytes" }
//!     fn description(&self) -> &'static str { "Count the bytes of a file." }
//!     fn risk(&self) -> Risk { Risk::ReadOnly }
//!     fn execute(&self, input: Input) -> Result<String, ToolError> {
//!         let file = open_file(&input.path)?;
//!         Ok(format!("{} bytes", read_to_end(&file)?.len()))
//!     }
//! }
//!
//! toolhost_sdk::export_tool!(CountBytes);
//! ```
//!
//! The tool crate is a `cdylib` built with `cargo build --target wasm32-wasip2`; the
//! result is a component. It needs `serde` and `schemars` besides this crate.
//!
//! Beside the contract, what the workspace tools share: [`Failure`] (a structured failure's
//! `LOCAL_EXECUTOR_*` kind and message), [`head_tail`] (a stream's start and end within a
//! bound), [`scan`] (a search loop's seams to the host) and [`text`] (a BOM and CRLF-only
//! lines).

pub mod bindings;

/// The `LOCAL_EXECUTOR_*` error kinds of a structured failure, shared with the host.
pub use toolhost_error_kinds as error_kinds;
/// Every limit of docs/limits.md, shared with the host.
pub use toolhost_limits as limits;
mod error;
mod export;
mod failure;
pub mod head_tail;
mod host;
mod input;
mod output;
pub mod scan;
pub mod text;
mod tool;

#[doc(hidden)]
pub use export::__private;
pub use failure::Failure;
pub use host::{READ_CHUNK_BYTES, read_to_end};
pub use input::{INVALID_INPUT_PREFIX, input_schema, parse_input};
pub use output::{Output, output_schema};
pub use tool::{ParallelTool, Tool};

pub use bindings::toolhost::tool::call::{
    Spill, Spilled, cancelled, elapsed_ms, report_progress, scan_timeout_ms,
};
pub use bindings::toolhost::tool::types::{Definition, ErrorCode, Inspection, Risk, ToolError};
pub use bindings::toolhost::tool::workspace::{
    ChangeKind, Committed, Dir, DirEntry, Draft, EntryKind, File, PathStat, Staged, WalkOptions,
    WalkedFile, Walker, commit_all, open_dir, open_file, open_for_write, stat,
};
/// Run programs inside the host's sandbox (a tool of risk process-execution only).
pub mod process {
    pub use crate::bindings::toolhost::tool::process::{
        Captured, Command, Finished, Termination, run,
    };
}
