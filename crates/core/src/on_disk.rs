//! How recorded changes stand against the files on disk now, found by their hashes: which
//! pending changes a call that died was found to have written ([`found_written`],
//! docs/sessions.md#what-is-not-atomic-the-crash-window), and whether an undo or reapply
//! whose process died had already rewritten its files ([`already_applied`]).

use toolhost_policy::SandboxPolicy;

use crate::context::ToolSessionContext;
use crate::result::{FileChange, FileChangeKind};
use crate::undo::{Direction, State, current_state, resolve_all};

/// How a recorded change stands against the file on disk now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDisk {
    /// The file is as the change left it: it was written.
    After,
    /// The file is as it was before the change: it was not written.
    Before,
    /// The file is neither: something else changed it since.
    Other,
}

/// Of the pending `changes` of one call (in the order they were made), those that were
/// written, found by the hashes of the files on disk now, each with how it stands.
///
/// Per file: the changes up to the last one whose after content the file holds were
/// written; when it holds none of them but the first one's before content, none was; when
/// it holds neither, something else changed it since, and every change is kept (as
/// [`OnDisk::Other`]: an undo of it is refused as a conflict, never overwriting that). A file
/// the fence refuses now, or that is no longer UTF-8 text of at most 1 MiB, counts as changed
/// by something else.
pub fn found_written(
    changes: &[FileChange],
    session: &ToolSessionContext,
    policy: &SandboxPolicy,
) -> Vec<(FileChange, OnDisk)> {
    let mut found: Vec<Option<OnDisk>> = vec![None; changes.len()];
    for (first, change) in changes.iter().enumerate() {
        if changes[..first].iter().any(|c| c.path == change.path) {
            continue;
        }
        let chain: Vec<usize> =
            (first..changes.len()).filter(|&i| changes[i].path == change.path).collect();
        let now = resolve_all(&[change], session, policy, Direction::Undo)
            .ok()
            .and_then(|r| r.into_iter().next())
            .and_then(|(real, display)| current_state(&real, &display, Direction::Undo).ok());
        let after = |c: &FileChange| -> State {
            (c.kind != FileChangeKind::Deleted).then(|| c.after_hash.clone())
        };
        let before = |c: &FileChange| -> State {
            (c.kind != FileChangeKind::Created).then(|| c.before_hash.clone())
        };
        let (upto, state) = match now {
            None => (chain.len(), OnDisk::Other),
            Some(now) => match chain.iter().rposition(|&i| after(&changes[i]) == now) {
                Some(last) => (last + 1, OnDisk::After),
                None if before(change) == now => (0, OnDisk::Before),
                None => (chain.len(), OnDisk::Other),
            },
        };
        for &i in &chain[..upto] {
            found[i] = Some(state);
        }
    }
    changes.iter().zip(found).filter_map(|(c, f)| f.map(|f| (c.clone(), f))).collect()
}

/// Whether every file of `changes` (in the order they were made) already stands as
/// `direction` leaves it: an undo or reapply whose process died after rewriting the files and
/// before saving that, found done by the hashes of the files.
pub fn already_applied(
    changes: &[FileChange],
    session: &ToolSessionContext,
    policy: &SandboxPolicy,
    direction: Direction,
) -> bool {
    let target: Vec<FileChange> = match direction {
        Direction::Reapply => changes.to_vec(),
        // Undone, a change reads backwards: its before is the state it leaves.
        Direction::Undo => changes.iter().rev().map(reversed).collect(),
    };
    let found = found_written(&target, session, policy);
    found.len() == target.len() && found.iter().all(|(_, d)| *d == OnDisk::After)
}

/// `change` the other way round: from its after to its before.
fn reversed(change: &FileChange) -> FileChange {
    let mut r = change.clone();
    r.kind = match change.kind {
        FileChangeKind::Created => FileChangeKind::Deleted,
        FileChangeKind::Deleted => FileChangeKind::Created,
        FileChangeKind::Modified => FileChangeKind::Modified,
    };
    std::mem::swap(&mut r.before_hash, &mut r.after_hash);
    std::mem::swap(&mut r.before_content, &mut r.after_content);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::{file_change, file_deletion};
    use crate::context::temp_workspace;

    fn states(found: &[(FileChange, OnDisk)]) -> Vec<(String, OnDisk)> {
        found.iter().map(|(c, d)| (c.after_content.clone(), *d)).collect()
    }

    #[test]
    fn a_chain_of_one_file_is_kept_up_to_the_content_the_file_holds() {
        let (_d, s, p) = temp_workspace();
        let f = s.working_directory.join("a.txt");
        let chain = [
            file_change("c", "a.txt", Some("1\n"), "2\n"),
            file_change("c", "a.txt", Some("2\n"), "3\n"),
        ];
        std::fs::write(&f, "2\n").unwrap();
        let found = found_written(&chain, &s, &p);
        assert_eq!(states(&found), [("2\n".to_string(), OnDisk::After)], "the second not yet");
        std::fs::write(&f, "3\n").unwrap();
        assert_eq!(found_written(&chain, &s, &p).len(), 2);
        std::fs::write(&f, "1\n").unwrap();
        assert!(found_written(&chain, &s, &p).is_empty(), "nothing written");
        std::fs::write(&f, "someone else\n").unwrap();
        let found = found_written(&chain, &s, &p);
        assert!(found.len() == 2 && found.iter().all(|(_, d)| *d == OnDisk::Other));
    }

    #[test]
    fn a_created_and_a_deleted_file_by_their_absence() {
        let (_d, s, p) = temp_workspace();
        let made = file_change("c", "new.txt", None, "hello\n");
        let gone = file_deletion("c", "old.txt", "bye\n", None);
        let both = [made, gone];
        std::fs::write(s.working_directory.join("old.txt"), "bye\n").unwrap();
        assert!(found_written(&both, &s, &p).is_empty(), "neither written");
        std::fs::write(s.working_directory.join("new.txt"), "hello\n").unwrap();
        std::fs::remove_file(s.working_directory.join("old.txt")).unwrap();
        let found = found_written(&both, &s, &p);
        assert!(found.len() == 2 && found.iter().all(|(_, d)| *d == OnDisk::After));
        assert!(already_applied(&both, &s, &p, Direction::Reapply));
        assert!(!already_applied(&both, &s, &p, Direction::Undo));
    }
}
