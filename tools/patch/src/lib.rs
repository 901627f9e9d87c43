//! The patch engine both `apply_patch` tools share (docs/contract.md#apply_patch): codex's
//! grammar read, hunks found and applied to the files' texts, and every changed file
//! committed as one change through the host.
//!
//! # Map
//!
//! * [`parse`] — [`parse::parse_patch`]: a patch's text to [`parse::PatchOperation`]s (Add,
//!   Delete, Update with its [`parse::Chunk`]s), or a [`parse::ParseError`] naming its line.
//! * [`apply`] — [`apply::apply_chunks`]: one Update's hunks applied to a text, each found by
//!   the tolerant matcher (`toolhost_edit_match`; `@@` lines by [`seek::seek_sequence`]), or
//!   an [`apply::ApplyError`] naming the hunk and the closest region.
//! * `files.rs` — [`apply_operations`]: the operations worked out against the files the host
//!   serves (each opened once for writing, read-before-edit through its draft), then
//!   committed with `commit-all`, all or none; the [`summary`] of what it committed.
//!
//! A call flows: the tool's input → [`parse::parse_patch`] (codex's `apply_patch`) or one
//! operation built from OpenAI's `{type, path, diff}` → [`apply_operations`] → the text the
//! model reads.

pub mod apply;
mod files;
pub mod parse;
pub mod seek;

pub use files::{apply_operations, summary};
