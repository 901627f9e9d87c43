//! The component's side of [`Tree`] and [`TestRunner`]: the workspace is read through the
//! SDK's fenced handles (`stat`, `open_dir`, `open_file`), and the approved spec runs with the
//! host's `process.run`, which keeps where it saved each long stream, so the parsers read the
//! whole output rather than the head and tail the result shows.

use toolhost_sdk::head_tail::HeadTail;
use toolhost_sdk::process;
use toolhost_sdk::{EntryKind, READ_CHUNK_BYTES, open_dir, open_file, stat};
use toolhost_workspace_run::{Ran, RunSpec, Runner};

use crate::TestRunner;
use crate::detect::{MAX_READ_BYTES, Tree, TreeEntry};
use crate::failure::Failure;

/// The most bytes of a saved stream read back for parsing: its first [`PARSE_HEAD_BYTES`]
/// and its last [`PARSE_TAIL_BYTES`].
pub const PARSE_HEAD_BYTES: usize = 1 << 20;
/// See [`PARSE_HEAD_BYTES`].
pub const PARSE_TAIL_BYTES: usize = 7 << 20;

fn kind(kind: EntryKind) -> TreeEntry {
    match kind {
        EntryKind::File => TreeEntry::File,
        EntryKind::Directory => TreeEntry::Dir,
        EntryKind::Symlink | EntryKind::Other => TreeEntry::Other,
    }
}

/// The workspace of this call, through the host.
#[derive(Debug, Default)]
pub struct HostTree;

impl Tree for HostTree {
    fn kind(&mut self, path: &str) -> Result<Option<TreeEntry>, Failure> {
        Ok(stat(path).map_err(|e| Failure::from_tool_error(&e))?.map(|s| kind(s.kind)))
    }

    fn list(&mut self, path: &str) -> Result<Vec<(String, TreeEntry)>, Failure> {
        let dir = open_dir(path).map_err(|e| Failure::from_tool_error(&e))?;
        let entries = dir.entries().map_err(|e| Failure::from_tool_error(&e))?;
        Ok(entries.into_iter().map(|e| (e.name, kind(e.kind))).collect())
    }

    fn read(&mut self, path: &str) -> Result<Vec<u8>, Failure> {
        let file = open_file(path).map_err(|e| Failure::from_tool_error(&e))?;
        let mut bytes = Vec::new();
        while bytes.len() < MAX_READ_BYTES {
            let chunk = file.read(READ_CHUNK_BYTES).map_err(|e| Failure::from_tool_error(&e))?;
            if chunk.is_empty() {
                break;
            }
            bytes.extend_from_slice(&chunk);
        }
        bytes.truncate(MAX_READ_BYTES);
        Ok(bytes)
    }
}

/// Runs the spec with `process.run`, exactly as [`toolhost_workspace_run::spec::command`] says, remembering the
/// files the host saved long streams to.
#[derive(Debug, Default)]
pub struct HostTestRunner {
    saved: [Option<String>; 2],
}

impl Runner for HostTestRunner {
    fn run(&mut self, spec: &RunSpec) -> Result<Ran, Failure> {
        let finished = process::run(&toolhost_workspace_run::spec::command(spec))
            .map_err(|e| toolhost_workspace_run::from_run_error(&e, spec.cwd.as_deref()))?;
        self.saved = [finished.stdout.spill_path.clone(), finished.stderr.spill_path.clone()];
        Ok(Ran::from_finished(&finished))
    }
}

impl TestRunner for HostTestRunner {
    fn whole(&mut self) -> [Option<String>; 2] {
        let read = |path: &Option<String>| path.as_deref().and_then(read_saved);
        [read(&self.saved[0]), read(&self.saved[1])]
    }
}

/// The saved stream at `path`, its start and end when long; none when it cannot be read.
fn read_saved(path: &str) -> Option<String> {
    let file = open_file(path).ok()?;
    let mut kept = head_tail();
    loop {
        let chunk = file.read(READ_CHUNK_BYTES).ok()?;
        if chunk.is_empty() {
            break;
        }
        kept.push(&chunk);
    }
    Some(kept_text(kept))
}

/// The text kept of a stream (lossy UTF-8): its first [`PARSE_HEAD_BYTES`] and its last
/// [`PARSE_TAIL_BYTES`], a line marking where the middle was cut.
fn kept_text(kept: HeadTail) -> String {
    let kept = kept.finish();
    let mut bytes = kept.head;
    if kept.omitted > 0 {
        bytes.extend_from_slice(b"\n[...]\n");
    }
    bytes.extend_from_slice(&kept.tail);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Keeps what [`kept_text`] shows of a stream read in chunks.
fn head_tail() -> HeadTail {
    HeadTail::with_limits(PARSE_HEAD_BYTES, PARSE_TAIL_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_and_tail_of_a_long_stream() {
        let mut kept = head_tail();
        kept.push(b"start\n");
        kept.push(b"end\n");
        assert_eq!(kept_text(kept), "start\nend\n");
        let mut kept = head_tail();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..20 {
            kept.push(&chunk);
        }
        kept.push(b"\ntest result: ok. 1 passed; 0 failed;\n");
        let text = kept_text(kept);
        assert!(text.len() <= PARSE_HEAD_BYTES + PARSE_TAIL_BYTES + 8, "{}", text.len());
        assert!(text.contains("\n[...]\n") && text.ends_with("0 failed;\n"));
    }
}
