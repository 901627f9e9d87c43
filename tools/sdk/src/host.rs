//! Helpers over the imported `workspace` and `call` handles.

use crate::{File, ToolError};

/// Bytes asked for per `file.read` in [`read_to_end`]: large enough to keep host calls
/// few, small enough that one chunk never dominates guest memory (the host caps it too).
pub const READ_CHUNK_BYTES: u32 = 64 * 1024;

/// Read `file` from its current position to the end, in [`READ_CHUNK_BYTES`] chunks.
///
/// Reading a file to its end is what lets the host record its hash (read-before-edit).
pub fn read_to_end(file: &File) -> Result<Vec<u8>, ToolError> {
    let mut bytes = Vec::with_capacity(usize::try_from(file.size()).unwrap_or(0).min(1 << 20));
    loop {
        let chunk = file.read(READ_CHUNK_BYTES)?;
        if chunk.is_empty() {
            return Ok(bytes);
        }
        bytes.extend_from_slice(&chunk);
    }
}
