//! Spill files (`docs/contract.md#spill-files`): the full content behind a bounded result, saved under
//! `<data-dir>/spill/<session-id>/<tool-call-id>.txt` so the model can `read` or `grep` it.
//!
//! Only the host writes here; the directory is hard-protected from the tools. A spill that
//! fails is dropped and the result names no path (`docs/contract.md#spill-files`: never a path that cannot be read).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use toolhost_limits::{MAX_SPILL_BYTES, SPILL_BUFFER_BYTES, SPILL_RETENTION_SECS};

/// Replace every character outside `[A-Za-z0-9_-]` with `_` (`docs/contract.md#spill-files`).
pub fn sanitize_id(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .collect()
}

/// The root of every session's spill directory under `data_dir`.
pub fn spill_root(data_dir: &Path) -> PathBuf {
    data_dir.join("spill")
}

/// The spill file of one call.
pub fn spill_path(data_dir: &Path, session_id: &str, call_id: &str) -> PathBuf {
    spill_root(data_dir).join(sanitize_id(session_id)).join(format!("{}.txt", sanitize_id(call_id)))
}

/// Remove session spill directories last modified more than seven days ago (`docs/contract.md#spill-files`).
pub fn remove_expired(data_dir: &Path) {
    let retention = std::time::Duration::from_secs(SPILL_RETENTION_SECS);
    crate::expire::remove_older_than(&spill_root(data_dir), retention, |_| true);
}

/// Where a spill ended up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spilled {
    pub path: PathBuf,
    /// The 64 MiB cap stopped the file early.
    pub capped: bool,
}

/// Writes one spill file: buffered in memory up to [`SPILL_BUFFER_BYTES`], then streamed,
/// never past [`MAX_SPILL_BYTES`]; the file is only created when there is something to keep.
#[derive(Debug)]
pub struct SpillWriter {
    path: PathBuf,
    buffer: Vec<u8>,
    file: Option<File>,
    written: u64,
    capped: bool,
    failed: bool,
}

impl SpillWriter {
    /// A writer for `path`; nothing touches the disk yet.
    pub fn new(path: PathBuf) -> Self {
        SpillWriter {
            path,
            buffer: Vec::new(),
            file: None,
            written: 0,
            capped: false,
            failed: false,
        }
    }

    /// True once anything was appended.
    pub fn is_empty(&self) -> bool {
        self.written == 0 && self.buffer.is_empty()
    }

    /// Bytes this file may still take before its cap (0 once capped or failed).
    pub fn room(&self) -> u64 {
        if self.capped || self.failed {
            return 0;
        }
        MAX_SPILL_BYTES - self.written - self.buffer.len() as u64
    }

    /// Append bytes, up to the cap.
    pub fn append(&mut self, bytes: &[u8]) {
        if self.capped || self.failed {
            return;
        }
        let room = MAX_SPILL_BYTES - self.written - self.buffer.len() as u64;
        let take = (bytes.len() as u64).min(room) as usize;
        self.buffer.extend_from_slice(&bytes[..take]);
        if take < bytes.len() {
            self.capped = true;
        }
        if self.buffer.len() >= SPILL_BUFFER_BYTES {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.failed || self.buffer.is_empty() {
            return;
        }
        if self.file.is_none() {
            match create(&self.path) {
                Ok(f) => self.file = Some(f),
                Err(e) => {
                    tracing::warn!("spill {} failed: {e}", self.path.display());
                    self.failed = true;
                    self.buffer = Vec::new();
                    return;
                }
            }
        }
        let file = self.file.as_mut().expect("created above");
        match file.write_all(&self.buffer) {
            Ok(()) => {
                self.written += self.buffer.len() as u64;
                self.buffer.clear();
            }
            Err(e) => {
                tracing::warn!("spill {} failed: {e}", self.path.display());
                self.failed = true;
                self.buffer = Vec::new();
            }
        }
    }

    /// Close the file: where it is, or `None` when nothing was appended or saving failed
    /// (a partial file is removed).
    pub fn finish(mut self) -> Option<Spilled> {
        if self.is_empty() && !self.failed {
            return None;
        }
        self.flush();
        let ok = !self.failed && self.file.as_mut().is_some_and(|f| f.flush().is_ok());
        if ok {
            Some(Spilled { path: self.path.clone(), capped: self.capped })
        } else {
            self.discard();
            None
        }
    }

    /// Delete whatever was written (a failed execution leaves no spill file).
    pub fn discard(&mut self) {
        self.file = None;
        let _ = std::fs::remove_file(&self.path);
        self.failed = true;
    }
}

fn create(path: &Path) -> std::io::Result<File> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    File::create(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_sanitized() {
        assert_eq!(sanitize_id("a/b:c-d_e.1"), "a_b_c-d_e_1");
    }

    #[test]
    fn nothing_appended_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s/x.txt");
        assert_eq!(SpillWriter::new(p.clone()).finish(), None);
        assert!(!p.exists());
    }

    #[test]
    fn failed_spill_omits_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "x").unwrap();
        // The parent "directory" is a file: creating the spill fails.
        let mut w = SpillWriter::new(blocker.join("x.txt"));
        w.append(b"line\n");
        assert_eq!(w.finish(), None);
    }

    #[test]
    fn spill_stops_at_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.txt");
        let mut w = SpillWriter::new(p.clone());
        let chunk = vec![b'y'; 1 << 20];
        for _ in 0..70 {
            w.append(&chunk);
        }
        let s = w.finish().unwrap();
        assert!(s.capped);
        assert_eq!(std::fs::metadata(&p).unwrap().len(), MAX_SPILL_BYTES);
    }
}

/// The note that ends a result cut by the host (`docs/contract.md#spill-files`, verbatim), naming the spill file when
/// it was saved.
pub fn omitted_note(omitted: usize, saved_at: Option<&Path>) -> String {
    match saved_at {
        Some(path) => format!(
            "... ({omitted} bytes omitted. Full output saved at {} — use read with offset/limit, or grep, to look at it.)",
            path.display()
        ),
        None => format!("... ({omitted} bytes omitted.)"),
    }
}

/// Cut `text` to at most [`MAX_RESULT_BYTES`] including the note (`docs/contract.md#spill-files`): keep the start, at
/// the last newline in the second half of the budget when there is one, else at a char
/// boundary. `save` stores the whole text and returns its path (None: saving failed).
pub fn fallback_cut(text: &str, save: impl FnOnce(&str) -> Option<PathBuf>) -> Option<String> {
    use toolhost_limits::MAX_RESULT_BYTES;
    if text.len() <= MAX_RESULT_BYTES {
        return None;
    }
    let saved = save(text);
    // The note's length depends on the omitted count; size the budget for the longest.
    let note_max = omitted_note(text.len(), saved.as_deref()).len() + 1;
    let budget = MAX_RESULT_BYTES - note_max;
    let half = budget / 2;
    let cut = match text[..text.floor_char_boundary(budget)].rfind('\n') {
        Some(nl) if nl >= half => nl + 1,
        _ => text.floor_char_boundary(budget),
    };
    let kept = &text[..cut];
    let sep = if kept.ends_with('\n') { "" } else { "\n" };
    Some(format!("{kept}{sep}{}", omitted_note(text.len() - cut, saved.as_deref())))
}

#[cfg(test)]
mod cut_tests {
    use super::*;
    use toolhost_limits::MAX_RESULT_BYTES;

    #[test]
    fn oversized_results_are_cut_at_the_end_and_saved() {
        let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        let mut saved = String::new();
        let out = fallback_cut(&text, |t| {
            saved = t.to_string();
            Some(PathBuf::from("/d/spill/s/c.txt"))
        })
        .unwrap();
        assert_eq!(saved, text, "saved whole");
        assert!(out.len() <= MAX_RESULT_BYTES);
        assert!(out.starts_with("line 0\n"));
        let (kept, note) = out.rsplit_once('\n').unwrap();
        assert!(text.starts_with(kept), "cut only at the end, at a newline");
        let omitted = text.len() - kept.len() - 1;
        assert_eq!(
            note,
            format!(
                "... ({omitted} bytes omitted. Full output saved at /d/spill/s/c.txt — use read with offset/limit, or grep, to look at it.)"
            )
        );
    }

    #[test]
    fn without_newlines_the_cut_is_at_a_char_boundary_and_a_failed_save_names_no_path() {
        let text = "é".repeat(40_000);
        let out = fallback_cut(&text, |_| None).unwrap();
        assert!(out.len() <= MAX_RESULT_BYTES);
        assert!(out.ends_with(" bytes omitted.)"));
        assert!(!out.contains("saved at"));
        assert!(fallback_cut("short", |_| panic!("not saved")).is_none());
    }
}
