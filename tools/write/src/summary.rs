//! The pure part of `write` (docs/contract.md#write): the content bound and the one-line summary.

use toolhost_sdk::limits::MAX_EDIT_FILE_BYTES;
use toolhost_sdk::{ChangeKind, Committed, ToolError};

/// Reject `content` larger than [`MAX_EDIT_FILE_BYTES`], before anything is opened.
pub fn check_content(content: &str) -> Result<(), ToolError> {
    if content.len() <= MAX_EDIT_FILE_BYTES {
        Ok(())
    } else {
        let mib = MAX_EDIT_FILE_BYTES / (1024 * 1024);
        Err(ToolError::invalid_arguments(format!(
            "content is {} bytes; the limit is {mib} MiB ({MAX_EDIT_FILE_BYTES} bytes). \
             Write a smaller file, or split the content over several files",
            content.len()
        )))
    }
}

/// The one-line result (docs/contract.md#write, verbatim): `Created <path> (+a)`,
/// `Overwrote <path> (+a -d)`, `<path> unchanged: the content is identical`.
pub fn summary(path: &str, committed: &Committed) -> String {
    let (a, d) = (committed.additions, committed.deletions);
    match committed.kind {
        ChangeKind::Created => format!("Created {path} (+{a})"),
        ChangeKind::Modified => format!("Overwrote {path} (+{a} -{d})"),
        ChangeKind::Unchanged => format!("{path} unchanged: the content is identical"),
        // `commit` never deletes; said as it is should a host ever answer so.
        ChangeKind::Deleted => format!("Deleted {path} (-{d})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::ErrorCode;

    fn committed(kind: ChangeKind, additions: u32, deletions: u32) -> Committed {
        Committed { kind, additions, deletions }
    }

    #[test]
    fn summaries_are_the_contract_texts() {
        assert_eq!(
            summary("src/new.rs", &committed(ChangeKind::Created, 42, 0)),
            "Created src/new.rs (+42)"
        );
        assert_eq!(
            summary("src/old.rs", &committed(ChangeKind::Modified, 30, 12)),
            "Overwrote src/old.rs (+30 -12)"
        );
        assert_eq!(
            summary("src/new.rs", &committed(ChangeKind::Unchanged, 0, 0)),
            "src/new.rs unchanged: the content is identical"
        );
    }

    #[test]
    fn content_bound() {
        assert!(check_content("").is_ok());
        assert!(check_content(&"a".repeat(MAX_EDIT_FILE_BYTES)).is_ok());
        let err = check_content(&"a".repeat(MAX_EDIT_FILE_BYTES + 1)).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArguments);
        assert_eq!(
            err.message,
            "content is 1048577 bytes; the limit is 1 MiB (1048576 bytes). Write a smaller \
             file, or split the content over several files"
        );
    }
}
