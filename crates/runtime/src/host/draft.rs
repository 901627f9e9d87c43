//! `workspace.draft`: a file about to be written. It holds its path's write lock from
//! `open-for-write` to its drop; `current` serves the text (checked against the observation
//! table, `docs/contract.md#read-before-edit`), `commit` publishes the new text atomically under the pinned parent and
//! records the file-change artifact.

use std::io::Read;

use wasmtime::component::Resource;

use toolhost_core::fence::{CheckedPath, Intent};
use toolhost_core::observations::{self, sha256_hex};
use toolhost_core::result::{FileChange, ToolResultArtifact};
use toolhost_core::{changes, changeset};
use toolhost_limits::{MAX_COMMIT_FILES, MAX_EDIT_FILE_BYTES};
use toolhost_policy::Access;

use super::state::CallState;
use super::types::open_checked;
use super::types::{WitResult, err, io_err, write_error};
use crate::wit::latest::toolhost::tool::{types, workspace};

/// A file about to be written, holding its path's write lock.
pub struct DraftHandle {
    pub(super) checked: CheckedPath,
    /// The path as the model gave it (the artifact's `path`).
    pub(super) input: String,
    /// The hash of the text `current` served, when it served one.
    pub(super) served: Option<String>,
    pub(super) _lock: tokio::sync::OwnedMutexGuard<()>,
}

/// Read an existing file for a draft: UTF-8, at most [`MAX_EDIT_FILE_BYTES`].
fn read_text(checked: &CheckedPath) -> Result<Option<String>, types::ToolError> {
    let display = checked.display();
    let mut file = match open_checked(checked) {
        Ok(f) => f,
        Err(_) if std::fs::symlink_metadata(checked.as_path()).is_err() => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    if let Err(e) = (&mut file).take(MAX_EDIT_FILE_BYTES as u64 + 1).read_to_end(&mut bytes) {
        return Err(io_err(&format!("cannot read {display}"), e));
    }
    if bytes.len() > MAX_EDIT_FILE_BYTES {
        return Err(err(
            types::ErrorCode::InvalidArguments,
            format!(
                "{display} is larger than 1 MiB (1048576 bytes); it cannot be edited with this tool"
            ),
        ));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| {
        err(
            types::ErrorCode::InvalidArguments,
            format!("{display} is not UTF-8 text; it cannot be edited with this tool"),
        )
    })
}

impl CallState {
    /// The observation check of `docs/contract.md#read-before-edit` for an existing file with content hash `hash`.
    fn check_observed(&self, draft: &DraftHandle, hash: &str) -> Result<(), types::ToolError> {
        if self.share.grant.edits_unread {
            return Ok(());
        }
        match self.session.observations.get(draft.checked.as_path()) {
            None => Err(err(
                types::ErrorCode::InvalidArguments,
                observations::not_read_message(draft.checked.display()),
            )),
            Some(seen) if seen != hash => Err(err(
                types::ErrorCode::InvalidArguments,
                observations::changed_message(draft.checked.display()),
            )),
            Some(_) => Ok(()),
        }
    }

    /// A draft's file, which hashes to `hash` now, is the one its `current` served, or (when
    /// `current` was not called) the one the session read.
    fn check_served(&self, draft: &DraftHandle, hash: &str) -> Result<(), types::ToolError> {
        match &draft.served {
            Some(served) if served != hash => {
                Err(err(types::ErrorCode::ExecutionFailed, observations::STALE_WRITE_MESSAGE))
            }
            Some(_) => Ok(()),
            None => self.check_observed(draft, hash),
        }
    }

    /// Make the missing parent directories of a draft's file, then resolve its path again
    /// (`docs/contract.md#paths`): a symlink planted in the new chain must not take the write
    /// elsewhere.
    fn prepare_parents(&self, draft: &DraftHandle) -> Result<(), types::ToolError> {
        let real = draft.checked.as_path();
        let display = draft.checked.display();
        let parent = real.parent().map(|p| p.to_path_buf()).unwrap_or_default();
        if let Err(e) = toolhost_core::atomic::PinnedDir::create_all(&parent) {
            return Err(write_error(
                &format!("cannot create the parent directory of {display}"),
                display,
                e,
            ));
        }
        let again = self.check(&draft.input, Access::Write, Intent::MayCreate)?;
        if again.as_path() != real {
            return Err(err(
                types::ErrorCode::PermissionDenied,
                format!("{display} resolved to a different place while it was being written"),
            ));
        }
        Ok(())
    }

    fn commit_draft(
        &mut self,
        this: &Resource<DraftHandle>,
        text: String,
    ) -> Result<workspace::Committed, types::ToolError> {
        if text.len() > MAX_EDIT_FILE_BYTES {
            return Err(err(
                types::ErrorCode::InvalidArguments,
                format!(
                    "the new content is {} bytes; the limit is 1 MiB (1048576 bytes)",
                    text.len()
                ),
            ));
        }
        let draft = self
            .table
            .get(this)
            .map_err(|e| err(types::ErrorCode::ExecutionFailed, e.to_string()))?;
        let real = draft.checked.as_path().to_path_buf();
        let display = draft.checked.display().to_string();
        let input = draft.input.clone();
        let before = read_text(&draft.checked)?;
        if let Some(before) = &before {
            let hash = sha256_hex(before.as_bytes());
            self.check_served(draft, &hash)?;
            if *before == text {
                self.session.observations.record(&real, hash);
                return Ok(workspace::Committed {
                    kind: workspace::ChangeKind::Unchanged,
                    additions: 0,
                    deletions: 0,
                });
            }
        } else if draft.served.is_some() {
            // `current` said the file did not exist and now it does not: fine. If it
            // served a text, the file was deleted meanwhile.
        }
        let change = changes::file_change(&self.call.call_id.0, &input, before.as_deref(), &text);
        self.call
            .before_write(std::slice::from_ref(&change), &display)
            .map_err(|message| err(types::ErrorCode::ExecutionFailed, message))?;
        self.prepare_parents(draft)?;
        let expected = before.as_deref().map(|b| sha256_hex(b.as_bytes()));
        toolhost_core::atomic::write_atomic(&real, text.as_bytes(), expected.as_deref())
            .map_err(|e| write_error(&format!("cannot write {display}"), &display, e))?;
        self.session.observations.record(&real, sha256_hex(text.as_bytes()));
        let committed = workspace::Committed {
            kind: if before.is_some() {
                workspace::ChangeKind::Modified
            } else {
                workspace::ChangeKind::Created
            },
            additions: change.additions,
            deletions: change.deletions,
        };
        self.artifacts.push(ToolResultArtifact::FileChange(change));
        Ok(committed)
    }
}

/// One staged draft, checked and ready for [`changeset::commit`].
struct Checked {
    draft: DraftHandle,
    before: Option<String>,
    after: Option<String>,
    mode_of: Option<u32>,
    /// The permission bits recorded with its change: a deleted file's, or those a created
    /// file takes from another.
    mode: Option<u32>,
}

/// A draft taken for `commit-all`: the draft, its new text (none: delete) and `mode-of`.
type Taken = (DraftHandle, Option<String>, Option<u32>);

impl CallState {
    /// `workspace.commit-all`: every draft checked as `commit` checks one, then committed as
    /// one change through [`changeset::commit`] (journaled, rolled back on failure), one
    /// file-change artifact per file under this call's id.
    pub(super) fn commit_staged(
        &mut self,
        staged: Vec<workspace::Staged>,
    ) -> Result<Vec<workspace::Committed>, types::ToolError> {
        let drafts = self.take_drafts(staged)?;
        let mut checked = Vec::with_capacity(drafts.len());
        for (draft, after, mode_of) in drafts {
            checked.push(self.check_draft(draft, after, mode_of)?);
        }
        self.judge_whole(&checked)?;
        let mut steps = Vec::new();
        // The artifacts, made before anything is written so they can be recorded first.
        let mut planned = Vec::with_capacity(checked.len());
        for index in 0..checked.len() {
            let step = self.plan_step(&checked, index)?;
            let call_id = &self.call.call_id.0;
            planned
                .push(step.as_ref().map(|s| planned_change(call_id, &checked[index], s.new_mode)));
            steps.extend(step);
        }
        if !steps.is_empty() {
            let pending: Vec<FileChange> =
                planned.iter().flatten().map(|(c, _)| c.clone()).collect();
            let shown = steps.iter().map(|s| s.display.as_str()).collect::<Vec<_>>().join(", ");
            self.call
                .before_write(&pending, &shown)
                .map_err(|message| err(types::ErrorCode::ExecutionFailed, message))?;
            let roots = self.call.sandbox_policy.write_roots();
            changeset::commit(&self.session.data_dir, &self.call.call_id.0, &roots, &steps)
                .map_err(|e| err(types::ErrorCode::ExecutionFailed, e.to_string()))?;
        }
        Ok(checked.iter().zip(planned).map(|(c, planned)| self.committed(c, planned)).collect())
    }

    /// The change judged as a whole, on the state after all of it (`docs/security.md`, git
    /// metadata): each file passed the fence alone, but together they may lay out a
    /// repository that none of them makes alone. Nothing is written when it is refused.
    fn judge_whole(&self, checked: &[Checked]) -> Result<(), types::ToolError> {
        let writes: Vec<&std::path::Path> = checked
            .iter()
            .filter(|c| c.after.is_some() && c.before != c.after)
            .map(|c| c.draft.checked.as_path())
            .collect();
        self.call.sandbox_policy.change_verdict(&writes).map_err(|denial| {
            err(
                types::ErrorCode::PermissionDenied,
                format!("{} Nothing of this change was written.", denial.message),
            )
        })
    }

    /// Every staged draft out of the table (consumed whatever happens; their write locks are
    /// held to the end), refused when there are none or too many.
    fn take_drafts(
        &mut self,
        staged: Vec<workspace::Staged>,
    ) -> Result<Vec<Taken>, types::ToolError> {
        let failed = |e: wasmtime::component::ResourceTableError| {
            err(types::ErrorCode::ExecutionFailed, e.to_string())
        };
        let mut drafts = Vec::with_capacity(staged.len());
        for s in staged {
            let draft = self.table.delete(s.draft).map_err(failed)?;
            self.open_drafts.remove(draft.checked.as_path());
            drafts.push((draft, s.text, s.mode_of));
        }
        if drafts.is_empty() {
            return Err(err(types::ErrorCode::InvalidArguments, "commit-all was given no file"));
        }
        if drafts.len() > MAX_COMMIT_FILES {
            return Err(err(
                types::ErrorCode::InvalidArguments,
                format!(
                    "one change may write at most {MAX_COMMIT_FILES} files; this one has {}",
                    drafts.len()
                ),
            ));
        }
        Ok(drafts)
    }

    /// One draft checked as `commit` checks it: the new text's size, the current text served
    /// unchanged, a deleted file existing (and its mode, for an undo to recreate it with).
    fn check_draft(
        &self,
        draft: DraftHandle,
        after: Option<String>,
        mode_of: Option<u32>,
    ) -> Result<Checked, types::ToolError> {
        let display = draft.checked.display().to_string();
        if let Some(text) = &after
            && text.len() > MAX_EDIT_FILE_BYTES
        {
            return Err(err(
                types::ErrorCode::InvalidArguments,
                format!(
                    "the new content of {display} is {} bytes; the limit is 1 MiB (1048576 bytes)",
                    text.len()
                ),
            ));
        }
        let before = read_text(&draft.checked)?;
        match &before {
            Some(text) => self.check_served(&draft, &sha256_hex(text.as_bytes()))?,
            None if after.is_none() => {
                return Err(err(
                    types::ErrorCode::InvalidArguments,
                    format!("{display} does not exist, so it cannot be deleted"),
                ));
            }
            None => {}
        }
        // A file about to be deleted: its mode, for an undo to recreate it with.
        let mode = match (&before, &after) {
            (Some(_), None) => toolhost_core::atomic::permission_bits(draft.checked.as_path()).ok(),
            _ => None,
        };
        Ok(Checked { draft, before, after, mode_of, mode })
    }

    /// The step of the change that writes `checked[index]` (none when its text stays), with
    /// the mode it takes from the file its `mode-of` names; a created file's parents are
    /// made.
    fn plan_step(
        &self,
        checked: &[Checked],
        index: usize,
    ) -> Result<Option<changeset::Step>, types::ToolError> {
        let c = &checked[index];
        if c.before == c.after {
            return Ok(None);
        }
        let display = c.draft.checked.display().to_string();
        let new_mode = match c.mode_of {
            None => None,
            Some(i) => {
                let source = checked
                    .get(i as usize)
                    .filter(|s| i as usize != index && s.before.is_some())
                    .ok_or_else(|| {
                        err(
                            types::ErrorCode::InvalidArguments,
                            format!(
                                "mode-of of {display} names entry {i}, which is not another existing file of this change"
                            ),
                        )
                    })?;
                toolhost_core::atomic::permission_bits(source.draft.checked.as_path()).ok()
            }
        };
        if c.after.is_some() && c.before.is_none() {
            self.prepare_parents(&c.draft)?;
        }
        Ok(Some(changeset::Step {
            real: c.draft.checked.as_path().to_path_buf(),
            display,
            before: c.before.clone(),
            after: c.after.clone(),
            new_mode,
        }))
    }

    /// What the component hears of one committed file (`planned`: its file-change artifact
    /// and kind, none when it stayed unchanged); its text is recorded as read and its
    /// artifact kept.
    fn committed(
        &mut self,
        c: &Checked,
        planned: Option<(FileChange, workspace::ChangeKind)>,
    ) -> workspace::Committed {
        if let Some(text) = &c.after {
            self.session
                .observations
                .record(c.draft.checked.as_path(), sha256_hex(text.as_bytes()));
        }
        let Some((change, kind)) = planned else {
            return workspace::Committed {
                kind: workspace::ChangeKind::Unchanged,
                additions: 0,
                deletions: 0,
            };
        };
        let committed =
            workspace::Committed { kind, additions: change.additions, deletions: change.deletions };
        self.artifacts.push(ToolResultArtifact::FileChange(change));
        committed
    }
}

/// The file-change artifact of one staged draft that changes its file, and its kind.
fn planned_change(
    call_id: &str,
    c: &Checked,
    new_mode: Option<u32>,
) -> (FileChange, workspace::ChangeKind) {
    match (&c.before, &c.after) {
        (Some(before), None) => (
            changes::file_deletion(call_id, &c.draft.input, before, c.mode),
            workspace::ChangeKind::Deleted,
        ),
        (None, Some(after)) => (
            FileChange {
                mode: new_mode,
                ..changes::file_change(call_id, &c.draft.input, None, after)
            },
            workspace::ChangeKind::Created,
        ),
        (before, after) => (
            changes::file_change(
                call_id,
                &c.draft.input,
                before.as_deref(),
                after.as_deref().unwrap_or_default(),
            ),
            workspace::ChangeKind::Modified,
        ),
    }
}

impl workspace::HostDraft for CallState {
    async fn display_path(&mut self, this: Resource<DraftHandle>) -> wasmtime::Result<String> {
        Ok(self.table.get(&this)?.checked.display().to_string())
    }

    async fn current(&mut self, this: Resource<DraftHandle>) -> WitResult<Option<String>> {
        let draft = self.table.get(&this)?;
        let text = read_text(&draft.checked)?;
        let Some(text) = text else { return Ok(None) };
        let hash = sha256_hex(text.as_bytes());
        self.check_observed(draft, &hash)?;
        self.table.get_mut(&this)?.served = Some(hash);
        Ok(Some(text))
    }

    async fn commit(
        &mut self,
        this: Resource<DraftHandle>,
        text: String,
    ) -> WitResult<workspace::Committed> {
        Ok(self.commit_draft(&this, text)?)
    }

    async fn drop(&mut self, this: Resource<DraftHandle>) -> wasmtime::Result<()> {
        let draft = self.table.delete(this)?;
        self.open_drafts.remove(draft.checked.as_path());
        Ok(())
    }
}
