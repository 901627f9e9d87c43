//! The pure part of `edit` (docs/contract.md#edit): exact replacement, the line range of the new
//! text, the failures and the one-line summary.
//!
//! Matching is exact, with two allowances for how the file is stored:
//! * a UTF-8 byte order mark at the start of the file is set aside before matching and put
//!   back after, so it stays and can never be matched or removed by accident;
//! * in a file whose every line ends with `\r\n` (CRLF only), a bare `\n` in `oldString`
//!   and `newString` is read as `\r\n`, so a model that writes `\n` matches the file and the
//!   file keeps CRLF. Files with `\n` or mixed endings are matched literally.

use toolhost_sdk::limits::MAX_EDIT_FILE_BYTES;
use toolhost_sdk::text::{is_crlf_only, split_bom};
use toolhost_sdk::{ChangeKind, Committed, ToolError};

/// `oldString` and `newString` are the same.
pub const SAME_STRINGS_MESSAGE: &str = "oldString and newString are identical; there is nothing to change. \
     Pass the text to replace as oldString and its replacement as newString";

/// `oldString` does not occur in the file.
pub fn not_found_message(path: &str) -> String {
    format!(
        "oldString was not found in {path}. It must match the file exactly, including \
         whitespace and indentation; read the file again and copy the text to replace from it"
    )
}

/// `oldString` occurs `count` (> 1) times and `replaceAll` is not set.
pub fn ambiguous_message(path: &str, count: usize) -> String {
    format!(
        "oldString was found {count} times in {path}. Add surrounding lines to oldString so it \
         matches exactly one place, or set replaceAll to true to replace all {count}"
    )
}

/// A non-empty `oldString` names a file that does not exist.
pub fn missing_file_message(path: &str) -> String {
    format!(
        "{path} does not exist. To create it, call edit with an empty oldString and the whole \
         content as newString, or use write"
    )
}

/// An empty `oldString` names a file that exists.
pub fn file_exists_message(path: &str) -> String {
    format!(
        "{path} already exists; an empty oldString only creates new files. To change it, read \
         it and pass the text to replace as oldString, or use write to replace the whole file"
    )
}

/// Reject a `newString` larger than [`MAX_EDIT_FILE_BYTES`].
pub fn check_new_string(new: &str) -> Result<(), ToolError> {
    if new.len() <= MAX_EDIT_FILE_BYTES {
        Ok(())
    } else {
        let mib = MAX_EDIT_FILE_BYTES / (1024 * 1024);
        Err(ToolError::invalid_arguments(format!(
            "newString is {} bytes; the limit is {mib} MiB ({MAX_EDIT_FILE_BYTES} bytes). \
             Replace a smaller part of the file per call",
            new.len()
        )))
    }
}

/// Reject `oldString == newString`, before anything is opened.
pub fn check_strings_differ(old: &str, new: &str) -> Result<(), ToolError> {
    if old == new { Err(ToolError::invalid_arguments(SAME_STRINGS_MESSAGE)) } else { Ok(()) }
}

/// The result of replacing in a file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The new text of the file.
    pub text: String,
    /// How many occurrences were replaced.
    pub occurrences: usize,
    /// The 1-based lines of the new content where the (first) replacement sits: its first
    /// line through its last; for an empty `newString`, the line where the text was removed.
    pub lines: (usize, usize),
}

/// `s` with every bare `\n` turned into `\r\n`.
fn to_crlf(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 32);
    let mut previous = '\0';
    for c in s.chars() {
        if c == '\n' && previous != '\r' {
            out.push('\r');
        }
        out.push(c);
        previous = c;
    }
    out
}

/// The 1-based lines that `new`, placed at byte `start` of `content`, occupies.
pub fn line_range(content: &str, start: usize, new: &str) -> (usize, usize) {
    let first = 1 + content[..start].matches('\n').count();
    let breaks = new.matches('\n').count();
    // A trailing `\n` ends the last line of the new text; it does not start another.
    let last = if new.ends_with('\n') { first + breaks - 1 } else { first + breaks };
    (first, last)
}

/// Replace `old` (non-empty) by `new` in `text`, once or everywhere, with the rules of this
/// module. `path` is only for the failure texts.
pub fn replace(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
    path: &str,
) -> Result<Replaced, ToolError> {
    let (bom, body) = split_bom(text);
    let (old, new) = if is_crlf_only(body) {
        (to_crlf(old), to_crlf(new))
    } else {
        (old.to_owned(), new.to_owned())
    };
    if old == new {
        // Only the line endings differed.
        return Err(ToolError::invalid_arguments(SAME_STRINGS_MESSAGE));
    }
    let Some(start) = body.find(&old) else {
        return Err(ToolError::invalid_arguments(not_found_message(path)));
    };
    let occurrences = body.matches(old.as_str()).count();
    if occurrences > 1 && !replace_all {
        return Err(ToolError::invalid_arguments(ambiguous_message(path, occurrences)));
    }
    let replaced = body.replace(old.as_str(), &new);
    let lines = line_range(&replaced, start, &new);
    let mut out = String::with_capacity(replaced.len() + 3);
    out.extend(bom);
    out.push_str(&replaced);
    Ok(Replaced { text: out, occurrences, lines })
}

/// The one-line result (docs/contract.md#edit, verbatim): `Created <path> (+a)`,
/// `Edited <path>:<line> (+a -d)`, `Edited <path>:<first>-<last> (+a -d)`, and
/// `Replaced <n> occurrences in <path> (+a -d)` when more than one occurrence was replaced.
/// `replaced` is none when the file was created.
pub fn summary(path: &str, replaced: Option<&Replaced>, committed: &Committed) -> String {
    let (a, d) = (committed.additions, committed.deletions);
    match (committed.kind, replaced) {
        (ChangeKind::Unchanged, _) => format!("{path} unchanged: the content is identical"),
        // `commit` never deletes; said as it is should a host ever answer so.
        (ChangeKind::Deleted, _) => format!("Deleted {path} (-{d})"),
        (ChangeKind::Created, _) | (_, None) => format!("Created {path} (+{a})"),
        (ChangeKind::Modified, Some(r)) if r.occurrences > 1 => {
            format!("Replaced {} occurrences in {path} (+{a} -{d})", r.occurrences)
        }
        (ChangeKind::Modified, Some(r)) => match r.lines {
            (first, last) if first == last => format!("Edited {path}:{first} (+{a} -{d})"),
            (first, last) => format!("Edited {path}:{first}-{last} (+{a} -{d})"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::ErrorCode;

    fn committed(kind: ChangeKind, additions: u32, deletions: u32) -> Committed {
        Committed { kind, additions, deletions }
    }

    fn replaced(occurrences: usize, lines: (usize, usize)) -> Replaced {
        Replaced { text: String::new(), occurrences, lines }
    }

    #[test]
    fn summaries_are_the_contract_texts() {
        assert_eq!(
            summary("src/new.rs", None, &committed(ChangeKind::Created, 4, 0)),
            "Created src/new.rs (+4)"
        );
        assert_eq!(
            summary(
                "src/storage/time.rs",
                Some(&replaced(1, (120, 128))),
                &committed(ChangeKind::Modified, 3, 1)
            ),
            "Edited src/storage/time.rs:120-128 (+3 -1)"
        );
        assert_eq!(
            summary(
                "src/lib.rs",
                Some(&replaced(1, (5, 5))),
                &committed(ChangeKind::Modified, 1, 1)
            ),
            "Edited src/lib.rs:5 (+1 -1)"
        );
        assert_eq!(
            summary(
                "src/lib.rs",
                Some(&replaced(4, (2, 2))),
                &committed(ChangeKind::Modified, 4, 4)
            ),
            "Replaced 4 occurrences in src/lib.rs (+4 -4)"
        );
    }

    #[test]
    fn edits_report_the_new_line_range() {
        let text = "a\nb\nc\nd\n";
        // One line for one line.
        let r = replace(text, "b", "B", false, "f").unwrap();
        assert_eq!((r.text.as_str(), r.lines, r.occurrences), ("a\nB\nc\nd\n", (2, 2), 1));
        // One line for three: the range is where the new text sits.
        let r = replace(text, "b\n", "x\ny\nz\n", false, "f").unwrap();
        assert_eq!((r.text.as_str(), r.lines), ("a\nx\ny\nz\nc\nd\n", (2, 4)));
        let r = replace(text, "c", "x\ny", false, "f").unwrap();
        assert_eq!((r.text.as_str(), r.lines), ("a\nb\nx\ny\nd\n", (3, 4)));
        // Removal: the line where the text was.
        let r = replace(text, "b\nc\n", "", false, "f").unwrap();
        assert_eq!((r.text.as_str(), r.lines), ("a\nd\n", (2, 2)));
        // Mid-line replacement on the last line without a newline.
        let r = replace("x = 1;\ny = 2;", "2", "3", false, "f").unwrap();
        assert_eq!((r.text.as_str(), r.lines), ("x = 1;\ny = 3;", (2, 2)));
        // A newString that is only a newline sits on the line it ends.
        let r = replace("ab", "b", "\n", false, "f").unwrap();
        assert_eq!((r.text.as_str(), r.lines), ("a\n", (1, 1)));
    }

    #[test]
    fn rejects_ambiguous_missing_or_noop_edits() {
        let err = check_strings_differ("x", "x").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArguments);
        assert_eq!(err.message, SAME_STRINGS_MESSAGE);
        assert!(check_strings_differ("x", "y").is_ok());

        let err = replace("a\nb\n", "c", "d", false, "src/lib.rs").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArguments);
        assert_eq!(
            err.message,
            "oldString was not found in src/lib.rs. It must match the file exactly, including \
             whitespace and indentation; read the file again and copy the text to replace from it"
        );

        let err = replace("x x x", "x", "y", false, "src/lib.rs").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArguments);
        assert_eq!(
            err.message,
            "oldString was found 3 times in src/lib.rs. Add surrounding lines to oldString so it \
             matches exactly one place, or set replaceAll to true to replace all 3"
        );
    }

    #[test]
    fn replace_all_replaces_every_occurrence() {
        let r = replace("x\nfoo\nfoo\nfoo\nfoo\n", "foo", "bar", true, "f").unwrap();
        assert_eq!(r.text, "x\nbar\nbar\nbar\nbar\n");
        assert_eq!(r.occurrences, 4);
        assert_eq!(r.lines, (2, 2));
        // With one occurrence it is an ordinary edit.
        let r = replace("a\nfoo\n", "foo", "bar", true, "f").unwrap();
        assert_eq!((r.occurrences, r.lines), (1, (2, 2)));
        assert_eq!(
            summary("f", Some(&r), &committed(ChangeKind::Modified, 1, 1)),
            "Edited f:2 (+1 -1)"
        );
        // Non-overlapping, left to right.
        let r = replace("aaaa", "aa", "b", true, "f").unwrap();
        assert_eq!((r.text.as_str(), r.occurrences), ("bb", 2));
    }

    #[test]
    fn crlf_files_keep_crlf() {
        let text = "fn a() {\r\n    1\r\n}\r\n";
        let r = replace(text, "fn a() {\n    1\n", "fn a() {\n    2\n    3\n", false, "f").unwrap();
        assert_eq!(r.text, "fn a() {\r\n    2\r\n    3\r\n}\r\n");
        assert_eq!(r.lines, (1, 3));
        // A single-line oldString with a multi-line newString.
        let r = replace(text, "    1", "    1\n    2", false, "f").unwrap();
        assert_eq!(r.text, "fn a() {\r\n    1\r\n    2\r\n}\r\n");
        assert_eq!(r.lines, (2, 3));
        // Strings already in CRLF match as they are.
        let r = replace(text, "1\r\n}", "2\r\n}", false, "f").unwrap();
        assert_eq!(r.text, "fn a() {\r\n    2\r\n}\r\n");
        // Differing only in line endings is no change.
        let err = replace(text, "1\r\n}", "1\n}", false, "f").unwrap_err();
        assert_eq!(err.message, SAME_STRINGS_MESSAGE);
    }

    #[test]
    fn lf_and_mixed_files_match_literally() {
        let r = replace("a\nb\n", "a\nb", "c\nd", false, "f").unwrap();
        assert_eq!(r.text, "c\nd\n");
        // Mixed endings: no translation, so a `\n` oldString does not match a `\r\n` line.
        let mixed = "a\r\nb\nc\r\n";
        assert!(replace(mixed, "a\nb", "x", false, "f").is_err());
        let r = replace(mixed, "b\nc", "y\nz", false, "f").unwrap();
        assert_eq!(r.text, "a\r\ny\nz\r\n");
    }

    #[test]
    fn a_bom_stays() {
        let text = "\u{FEFF}first\nsecond\n";
        let r = replace(text, "first", "1st", false, "f").unwrap();
        assert_eq!(r.text, "\u{FEFF}1st\nsecond\n");
        assert_eq!(r.lines, (1, 1));
        // Replacing the whole visible text keeps the mark.
        let r = replace(text, "first\nsecond\n", "", false, "f").unwrap();
        assert_eq!(r.text, "\u{FEFF}");
        // With CRLF as well.
        let r = replace("\u{FEFF}a\r\nb\r\n", "a\nb", "c\nd", false, "f").unwrap();
        assert_eq!(r.text, "\u{FEFF}c\r\nd\r\n");
    }

    #[test]
    fn new_string_bound() {
        assert!(check_new_string(&"a".repeat(MAX_EDIT_FILE_BYTES)).is_ok());
        let err = check_new_string(&"a".repeat(MAX_EDIT_FILE_BYTES + 1)).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArguments);
        assert_eq!(
            err.message,
            "newString is 1048577 bytes; the limit is 1 MiB (1048576 bytes). Replace a smaller \
             part of the file per call"
        );
    }

    #[test]
    fn file_existence_texts() {
        assert_eq!(
            missing_file_message("src/x.rs"),
            "src/x.rs does not exist. To create it, call edit with an empty oldString and the \
             whole content as newString, or use write"
        );
        assert_eq!(
            file_exists_message("src/x.rs"),
            "src/x.rs already exists; an empty oldString only creates new files. To change it, \
             read it and pass the text to replace as oldString, or use write to replace the \
             whole file"
        );
    }
}
