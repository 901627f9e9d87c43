//! The `apply_patch` tool: apply a patch in codex's grammar (`*** Begin Patch` … `*** End Patch`)
//! that adds, deletes, updates and moves files.
//!
//! * [`parse`]: the patch text into file operations and their hunks, with line-numbered errors.
//! * [`seek`]: finding a hunk's lines in a file, exactly first and then ever more leniently.
//! * [`apply`]: a file's hunks applied to its text (CRLF and a byte order mark kept), with an
//!   error that names the first line not found and the closest region of the file.

pub mod apply;
pub mod parse;
pub mod seek;
