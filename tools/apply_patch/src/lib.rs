//! The `apply_patch` tool (docs/contract.md#apply_patch): add, delete, update and move files
//! with one patch in codex's grammar, committed as one change — every file, or none.
//!
//! Reads top to bottom: the input and its bound; the patch parsed ([`parse::parse_patch`]);
//! each operation worked out against the files as the host serves them — each file opened once
//! with `open-for-write` (the host's fence, and read-before-edit through the draft's
//! `current`), hunks applied in memory ([`apply::apply_chunks`], whose context search is
//! [`seek::seek_sequence`]), nothing written yet; then every changed file handed to the
//! host's `commit-all` at once, which checks each file again, journals the change and writes
//! it (or restores what it wrote when a write fails); then the summary, one line per file.
//!
//! A failure before the commit names the operation (`Update File: src/a.rs: …`) and writes
//! nothing; a patch that cannot be read is a [`parse::ParseError`] naming its line.

pub mod apply;
pub mod parse;
pub mod seek;

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::limits::{MAX_COMMIT_FILES, MAX_PATCH_BYTES};
use toolhost_sdk::{
    ChangeKind, Committed, Draft, EntryKind, Inspection, Risk, Staged, Tool, ToolError, commit_all,
    open_for_write, stat,
};

use parse::PatchOperation;

/// Input of the `apply_patch` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchInput {
    /// The whole patch, from `*** Begin Patch` to `*** End Patch`. At most 8 MiB.
    pub input: String,
}

/// Applies a multi-file patch as one change.
#[derive(Default)]
pub struct ApplyPatch;

/// The description the model reads: the grammar in a few lines.
const DESCRIPTION: &str = "Edit files with a patch: add, delete, update and move several files \
in one call, applied as one change (every file is changed, or none is). The patch:\n\
*** Begin Patch\n\
*** Add File: src/new.py\n\
+every line of the new file, each starting with +\n\
*** Update File: src/app.py\n\
*** Move to: src/main.py   (optional: rename the file too)\n\
@@ def handler():\n\
 three lines of context before the change, each starting with a space\n\
-a line to remove\n\
+a line to add\n\
 three lines of context after it\n\
*** Delete File: src/old.py\n\
*** End Patch\n\
Paths are relative to the working directory. Show 3 lines of context around each change; \
when they are not unique, add an `@@` line naming the class or function the change is in \
(several `@@` hunks may follow one another). A file to update or delete, or to add over an \
existing file, must have been read with `read` first. Returns one line per file changed.";

impl Tool for ApplyPatch {
    type Input = ApplyPatchInput;

    fn id(&self) -> &'static str {
        "apply_patch"
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn risk(&self) -> Risk {
        Risk::WorkspaceMutation
    }

    /// The first file the patch writes (the host shows it when it asks about the call).
    fn inspect(&self, input: &ApplyPatchInput) -> Inspection {
        let first = parse::parse_patch(&input.input)
            .ok()
            .and_then(|ops| ops.first().map(|op| op.path().to_owned()));
        Inspection::Writes(first.unwrap_or_default())
    }

    fn execute(&self, input: ApplyPatchInput) -> Result<String, ToolError> {
        if input.input.len() > MAX_PATCH_BYTES {
            return Err(ToolError::invalid_arguments(format!(
                "the patch is {} bytes; the limit is {} MiB ({MAX_PATCH_BYTES} bytes). Split it \
                 into several patches",
                input.input.len(),
                MAX_PATCH_BYTES / (1024 * 1024)
            )));
        }
        let operations = parse::parse_patch(&input.input)
            .map_err(|e| ToolError::invalid_arguments(format!("the patch cannot be read: {e}")))?;
        let mut files = Files::default();
        for op in &operations {
            files.apply(op).map_err(|e| in_operation(op, e))?;
        }
        files.commit()
    }
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
                let new = apply::apply_chunks(text, chunks)
                    .map_err(|e| ToolError::invalid_arguments(e.to_string()))?;
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
    fn commit(self) -> Result<String, ToolError> {
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
        for f in self.files.into_iter().filter(|f| f.text != f.original) {
            paths.push(f.path);
            let mode_of = f.mode_from.and_then(|i| position[i]);
            staged.push(Staged { draft: f.draft, text: f.text, mode_of });
        }
        let committed = commit_all(staged)?;
        Ok(summary(&paths, &committed))
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

toolhost_sdk::export_tool!(ApplyPatch);
