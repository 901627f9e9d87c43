//! The files of a patch, worked out in memory and committed as one change: each file opened
//! once with `open-for-write` (the host's fence, and read-before-edit through the draft's
//! `current`), each operation applied to the texts ([`crate::apply::apply_chunks`]), nothing
//! written until every operation has been worked out; then every changed file handed to the
//! host's `commit-all` at once, and the summary, one line per file ([`summary`]), with a line
//! per file whose hunks were found other than exactly.

use std::collections::HashMap;

use toolhost_sdk::limits::MAX_COMMIT_FILES;
use toolhost_sdk::{
    ChangeKind, Committed, Draft, EntryKind, Staged, ToolError, commit_all, open_for_write, stat,
};

use crate::parse::PatchOperation;

/// Work out `operations` in order and commit them as one change; the summary of what the
/// host committed. A failure names the operation and writes nothing.
pub fn apply_operations(operations: &[PatchOperation]) -> Result<String, ToolError> {
    let mut files = Files::default();
    for op in operations {
        files.apply(op).map_err(|e| in_operation(op, e))?;
    }
    files.commit()
}

/// `e` prefixed with the operation that failed (`Update File: src/a.rs: …`).
fn in_operation(op: &PatchOperation, e: ToolError) -> ToolError {
    ToolError::new(e.code, format!("{}: {}: {}", op.marker(), op.path(), e.message))
        .with_retryable(e.retryable)
}

/// One file the patch touches: its draft (holding the host's write lock), its text as the
/// host served it and its text as the patch leaves it so far.
struct File {
    /// The path as the patch names it.
    path: String,
    draft: Draft,
    original: Option<String>,
    text: Option<String>,
    /// The file whose permission bits it takes when created (the source of a move).
    mode_from: Option<usize>,
}

/// The files of the patch, each opened once, in the order the patch first names them.
#[derive(Default)]
struct Files {
    files: Vec<File>,
    by_path: HashMap<String, usize>,
    /// How hunks found other than exactly matched, one line per file (`src/a.rs: hunk 2
    /// matched after ignoring indentation at line 120`).
    lenient: Vec<String>,
}

impl Files {
    /// The file at `path`, opened (and served by the host) on first use.
    fn open(&mut self, path: &str) -> Result<usize, ToolError> {
        let key = path.strip_prefix("./").unwrap_or(path).to_owned();
        if let Some(&i) = self.by_path.get(&key) {
            return Ok(i);
        }
        // Each file opened holds the host's write lock on it: a patch naming more files than
        // one change may write stops here, before it holds them all.
        if self.files.len() >= MAX_COMMIT_FILES {
            return Err(ToolError::invalid_arguments(format!(
                "the patch names more than {MAX_COMMIT_FILES} files; one patch may change at \
                 most {MAX_COMMIT_FILES}. Split it into several patches"
            )));
        }
        let draft = open_for_write(path)?;
        let original = draft.current()?;
        self.files.push(File {
            path: path.to_owned(),
            draft,
            text: original.clone(),
            original,
            mode_from: None,
        });
        self.by_path.insert(key, self.files.len() - 1);
        Ok(self.files.len() - 1)
    }

    /// Work out one operation on the files' texts; nothing is written.
    fn apply(&mut self, op: &PatchOperation) -> Result<(), ToolError> {
        match op {
            PatchOperation::Add { path, contents } => {
                let i = self.open(path)?;
                self.files[i].text = Some(contents.clone());
            }
            PatchOperation::Delete { path } => {
                if let Some(meta) = stat(path)?
                    && meta.kind == EntryKind::Directory
                {
                    return Err(ToolError::invalid_arguments(
                        "it is a directory; apply_patch deletes files only",
                    ));
                }
                let i = self.open(path)?;
                if self.files[i].text.take().is_none() {
                    return Err(ToolError::invalid_arguments("there is no such file to delete"));
                }
            }
            PatchOperation::Update { path, move_to, chunks } => {
                let i = self.open(path)?;
                let Some(text) = &self.files[i].text else {
                    return Err(ToolError::invalid_arguments(
                        "there is no such file to update; to create it, use *** Add File:",
                    ));
                };
                let applied = crate::apply::apply_chunks(text, chunks)
                    .map_err(|e| ToolError::invalid_arguments(e.to_string()))?;
                let lenient = applied.lenient_summary();
                if !lenient.is_empty() {
                    let shown = move_to.as_deref().unwrap_or(path);
                    self.lenient.push(format!("{shown}: {lenient}"));
                }
                let new = applied.text;
                match move_to {
                    Some(to) if to != path => {
                        let j = self.open(to).map_err(|e| {
                            ToolError::new(e.code, format!("*** Move to: {to}: {}", e.message))
                        })?;
                        if self.files[j].original.is_none() && self.files[i].original.is_some() {
                            self.files[j].mode_from = Some(i);
                        }
                        self.files[j].text = Some(new);
                        self.files[i].text = None;
                    }
                    _ => self.files[i].text = Some(new),
                }
            }
        }
        Ok(())
    }

    /// Hand every changed file to the host at once; the summary of what it committed.
    fn commit(mut self) -> Result<String, ToolError> {
        // Where each changed file stands in the list the host gets (a move's source is
        // changed too: it is deleted).
        let mut position = vec![None; self.files.len()];
        let mut n = 0u32;
        for (i, f) in self.files.iter().enumerate() {
            if f.text != f.original {
                position[i] = Some(n);
                n += 1;
            }
        }
        if n == 0 {
            return Ok("The patch changes nothing: every file it names is already as it would \
                       leave it"
                .into());
        }
        if n as usize > MAX_COMMIT_FILES {
            return Err(ToolError::invalid_arguments(format!(
                "the patch changes {n} files; one patch may change at most {MAX_COMMIT_FILES}. \
                 Split it into several patches"
            )));
        }
        let mut paths = Vec::with_capacity(n as usize);
        let mut staged = Vec::with_capacity(n as usize);
        let lenient = std::mem::take(&mut self.lenient);
        for f in self.files.into_iter().filter(|f| f.text != f.original) {
            paths.push(f.path);
            let mode_of = f.mode_from.and_then(|i| position[i]);
            staged.push(Staged { draft: f.draft, text: f.text, mode_of });
        }
        let committed = commit_all(staged)?;
        let mut out = summary(&paths, &committed);
        for line in &lenient {
            out.push('\n');
            out.push_str(line);
        }
        Ok(out)
    }
}

/// `Applied the patch: N files changed (+a -d)`, then one line per file: `A path (+a)`,
/// `M path (+a -d)`, `D path (-d)`.
pub fn summary(paths: &[String], committed: &[Committed]) -> String {
    let (a, d) = committed
        .iter()
        .fold((0u64, 0u64), |(a, d), c| (a + u64::from(c.additions), d + u64::from(c.deletions)));
    let files = committed.iter().filter(|c| c.kind != ChangeKind::Unchanged).count();
    let noun = if files == 1 { "file" } else { "files" };
    let mut out = format!("Applied the patch: {files} {noun} changed (+{a} -{d})");
    for (path, c) in paths.iter().zip(committed) {
        let line = match c.kind {
            ChangeKind::Created => format!("A {path} (+{})", c.additions),
            ChangeKind::Modified => format!("M {path} (+{} -{})", c.additions, c.deletions),
            ChangeKind::Deleted => format!("D {path} (-{})", c.deletions),
            ChangeKind::Unchanged => continue,
        };
        out.push('\n');
        out.push_str(&line);
    }
    out
}
