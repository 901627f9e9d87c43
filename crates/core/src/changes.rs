//! File-change records (docs/contract.md#file-changes-and-undo): the diff of what the host
//! committed, counted and shaped into a [`FileChange`] artifact. A component cannot forge one: the
//! host builds it from the bytes it wrote.

use similar::{ChangeTag, TextDiff};

use crate::observations::sha256_hex;
use crate::result::{DiffHunk, FileChange, FileChangeKind};

/// Lines of context around each hunk (docs/contract.md#file-changes-and-undo).
pub const HUNK_CONTEXT_LINES: usize = 3;

/// Above this many cells of the edit graph (old lines × new lines) the Myers diff is
/// replaced by a common-prefix/suffix diff, so one huge rewrite cannot stall a call
/// (docs/contract.md#file-changes-and-undo).
pub const MAX_DIFF_CELLS: u64 = 4_000_000;

/// Count added and deleted lines and cut hunks for `before` → `after`.
pub fn diff(before: &str, after: &str) -> (u32, u32, Vec<DiffHunk>) {
    let old: Vec<&str> = split_lines(before);
    let new: Vec<&str> = split_lines(after);
    if (old.len() as u64) * (new.len() as u64) > MAX_DIFF_CELLS {
        return prefix_suffix_diff(&old, &new);
    }
    let text = TextDiff::configure().algorithm(similar::Algorithm::Myers).diff_slices(&old, &new);
    let (mut additions, mut deletions) = (0u32, 0u32);
    let mut hunks = Vec::new();
    for group in text.grouped_ops(HUNK_CONTEXT_LINES) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let mut lines = Vec::new();
        for op in &group {
            for change in text.iter_changes(op) {
                let line = change.value().trim_end_matches(['\n', '\r']);
                let prefix = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => {
                        deletions += 1;
                        '-'
                    }
                    ChangeTag::Insert => {
                        additions += 1;
                        '+'
                    }
                };
                lines.push(format!("{prefix}{line}"));
            }
        }
        hunks.push(DiffHunk {
            old_start: old_range.start as u32 + 1,
            old_lines: old_range.len() as u32,
            new_start: new_range.start as u32 + 1,
            new_lines: new_range.len() as u32,
            lines,
        });
    }
    (additions, deletions, hunks)
}

fn split_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn prefix_suffix_diff(old: &[&str], new: &[&str]) -> (u32, u32, Vec<DiffHunk>) {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix =
        old.iter().rev().zip(new.iter().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
    let removed = &old[prefix..old.len() - suffix];
    let added = &new[prefix..new.len() - suffix];
    if removed.is_empty() && added.is_empty() {
        return (0, 0, Vec::new());
    }
    let ctx_start = prefix.saturating_sub(HUNK_CONTEXT_LINES);
    let ctx_end = (suffix).min(HUNK_CONTEXT_LINES);
    let strip = |l: &&str| l.trim_end_matches(['\n', '\r']).to_string();
    let mut lines: Vec<String> =
        old[ctx_start..prefix].iter().map(|l| format!(" {}", strip(l))).collect();
    lines.extend(removed.iter().map(|l| format!("-{}", strip(l))));
    lines.extend(added.iter().map(|l| format!("+{}", strip(l))));
    let tail = old.len() - suffix;
    lines.extend(old[tail..tail + ctx_end].iter().map(|l| format!(" {}", strip(l))));
    let context = (prefix - ctx_start + ctx_end) as u32;
    let hunk = DiffHunk {
        old_start: ctx_start as u32 + 1,
        old_lines: removed.len() as u32 + context,
        new_start: ctx_start as u32 + 1,
        new_lines: added.len() as u32 + context,
        lines,
    };
    (added.len() as u32, removed.len() as u32, vec![hunk])
}

/// The artifact for a committed change of `path` (as the model gave it).
pub fn file_change(change_id: &str, path: &str, before: Option<&str>, after: &str) -> FileChange {
    let (additions, deletions, hunks) = diff(before.unwrap_or(""), after);
    FileChange {
        change_id: change_id.to_string(),
        path: path.to_string(),
        kind: if before.is_some() { FileChangeKind::Modified } else { FileChangeKind::Created },
        additions,
        deletions,
        hunks,
        before_hash: before.map(|b| sha256_hex(b.as_bytes())).unwrap_or_default(),
        after_hash: sha256_hex(after.as_bytes()),
        before_content: before.unwrap_or("").to_string(),
        after_content: after.to_string(),
        undone: false,
        mode: None,
    }
}

/// The artifact for the deletion of `path` (as the model gave it), which held `before` and
/// had permission bits `mode`.
pub fn file_deletion(change_id: &str, path: &str, before: &str, mode: Option<u32>) -> FileChange {
    let (additions, deletions, hunks) = diff(before, "");
    FileChange {
        change_id: change_id.to_string(),
        path: path.to_string(),
        kind: FileChangeKind::Deleted,
        additions,
        deletions,
        hunks,
        before_hash: sha256_hex(before.as_bytes()),
        after_hash: String::new(),
        before_content: before.to_string(),
        after_content: String::new(),
        undone: false,
        mode,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_hunks_with_three_lines_of_context() {
        let before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        let (a, d, hunks) = diff(before, after);
        assert_eq!((a, d), (1, 1));
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].old_start, 2);
        assert_eq!(hunks[0].lines, vec![" 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"]);
    }

    #[test]
    fn a_deletion_removes_every_line_and_has_no_after_state() {
        let c = file_deletion("c", "a.txt", "one\ntwo\n", Some(0o755));
        assert_eq!((c.kind, c.additions, c.deletions), (FileChangeKind::Deleted, 0, 2));
        assert_eq!(c.hunks[0].lines, vec!["-one", "-two"]);
        assert_eq!((c.after_hash.as_str(), c.after_content.as_str()), ("", ""));
    }

    #[test]
    fn huge_rewrites_fall_back_to_prefix_suffix() {
        let before: String = (0..3000).map(|i| format!("a{i}\n")).collect();
        let mut after = before.clone();
        after.insert_str(0, "new\n");
        let (a, d, hunks) = diff(&before, &after);
        assert_eq!((a, d), (1, 0));
        assert_eq!(hunks[0].lines[0], "+new");
    }
}
