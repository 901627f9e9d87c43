//! The WebAssembly runtime of toolhost: a tool component becomes a [`ComponentTool`], a
//! `DynTool` like any other, so the core's registry and finalize treat it as they treat bash.
//!
//! A call flows like this: a [`ComponentRuntime`] holds the one async `wasmtime::Engine` of
//! the process (epoch interruption, the pooling allocator for long-running servers —
//! [`Allocation`]), the linker of every WIT version, and the component cache ([`cache`]:
//! compiled once, keyed by SHA-256 and the engine's hash, with the definition each component
//! described). It loads a component from a file or its bytes (a [`Source`] of
//! [`ComponentBytes`]) into a [`ComponentTool`] held to a [`RiskGrant`] (the risk the user
//! granted it). Each call of that tool makes a fresh `Store` whose data is a `CallState`
//! (the call's contexts, memory cap, deadline and cancellation checked in the epoch
//! callback, the epoch advancing while a store runs), instantiates the component against the
//! linker of its WIT version, and calls `tool.execute` (or the parts of `parallel` and the
//! merge); every import the component makes lands in `host/`, one file per WIT interface,
//! which goes through the core's fence for every path. Problems loading a component are a
//! [`RuntimeError`]; a call never sees one (it gets a `ToolResult`).
//!
//! The map:
//!
//! The modules, each over the ones listed after it (nothing below knows what stands above):
//!
//! * [`loader`] — [`ComponentRuntime`]'s loading of a component file or its bytes as a
//!   [`ComponentTool`], and [`ComponentRuntime::inspect`] of an unknown one.
//! * [`component_tool`] — [`ComponentTool`]: one component as a tool; beside it, one
//!   instance and its store (`instance`), a call split into `parallel` parts and merged, the check
//!   of a `structured` result, and the `planned_run` of a tool that asks before every run
//!   (`DynTool::planned_run`: its `inspect`'s run checked and found out, for the core's
//!   approval stage to ask about; the approved run then let through once by
//!   `host/process/approved.rs`).
//! * [`validate`] — what a component is before it is trusted ([`validate::InvalidComponent`]).
//! * [`input`] — the host's check of a call's arguments against the input schema, before
//!   the component runs.
//! * [`engine`] — [`ComponentRuntime`], [`Allocation`], [`RuntimeError`], [`PrepareError`],
//!   the engine config, the linker, a component compiled and prepared.
//! * [`source`] — [`Source`] and [`ComponentBytes`]: where a component's bytes come from.
//! * [`grant`] — [`RiskGrant`]: what one component may do, and what it was refused or ran.
//! * `epoch` — the epoch ticker, advancing while a store runs ([`EPOCH_TICK`]).
//! * `limiter` — the memory bound of one call's store, and its peak for the usage.
//! * [`cache`] — the on-disk cache of compiled components and their definitions.
//! * [`definition`] — the one checker of a component's definition (its rules; a schema's
//!   `bounds`, `$ref`s written out; `compile`, the one way a schema is compiled).
//! * `interrupt` — work beside the component moved off the async runtime, bounded by the
//!   call's deadline and cancellation; why the host stopped a call, and its texts.
//! * [`wit`] — the released WIT packages (text, frozen digest), one directory each under
//!   `wit/`, and one module of bindings per version the way Zed's extension host keeps them:
//!   `wit::since_v0_1_0`, `wit::since_v0_2_0`, and `wit::latest` (the newest), the only one
//!   the host code names. An older version converts each of its imports into the next
//!   version's; the linker links every version side by side.
//! * `exports` — a component's exports in the host's terms, whichever version it was built
//!   against (its `Prepared` picks the version by what the component exports).
//! * `host/` — the host side of the imports, written against `wit::latest`: `types` (with
//!   `TrappableError`: a `tool-error` or a trap, each version's trappable error type),
//!   `workspace` (with `walk` and `draft`), `call`, `process` (with `approved`, `command`,
//!   `env` and `output`).

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cache;
pub mod component_tool;
pub mod definition;
pub mod engine;
mod epoch;
mod exports;
pub mod grant;
mod host;
pub mod input;
mod interrupt;
mod limiter;
pub mod loader;
pub mod source;
pub mod validate;
pub mod wit;

pub use component_tool::{ComponentTool, DEFAULT_CALL_TIMEOUT};
pub use engine::{
    Allocation, CompileNotice, ComponentRuntime, KEEP_RESIDENT_BYTES, MAX_STORE_MEMORY,
    PrepareError, RuntimeError, compile_estimate,
};
pub use epoch::EPOCH_TICK;
pub use grant::RiskGrant;
pub use source::{ComponentBytes, Source};
