//! The `multi_edit` tool (docs/contract.md#multi_edit): several replacements in one file,
//! applied in order to its text, all or nothing, as one file change.
//!
//! Reads top to bottom: the input and its bounds ([`check_edits`]); the file opened once with
//! `open-for-write` (the host's fence, read-before-edit through the draft's `current`, the
//! 1 MiB UTF-8 rule); each edit applied in memory by the tolerant matcher
//! ([`toolhost_edit_match::replace`], every tier unique or refused, the tier said); nothing
//! written until every edit has matched; then the one change committed and summarised
//! ([`summary`]).
//!
//! A failing edit names itself (`edit 2 of 3: …`) with what fixes it, and nothing is written.

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_edit_match::{MatchError, Replaced, replace};
use toolhost_sdk::limits::{MAX_EDIT_FILE_BYTES, MAX_MULTI_EDITS};
use toolhost_sdk::text::split_bom;
use toolhost_sdk::{ChangeKind, Committed, Inspection, Risk, Tool, ToolError, open_for_write};

/// Input of the `multi_edit` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MultiEditInput {
    /// The file to edit: absolute, or relative to the working directory.
    pub file_path: String,
    /// The replacements, applied in order: each one to the text the ones before it left.
    /// At least 1, at most 100.
    pub edits: Vec<OneEdit>,
}

/// One replacement of a `multi_edit` call.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OneEdit {
    /// The text to replace, copied from the file. Empty only in the first edit of a file that
    /// does not exist yet: the file is created with newString as its content.
    pub old_string: String,
    /// The replacement text. At most 1 MiB.
    pub new_string: String,
    /// Replace every place oldString matches instead of exactly one. Default false.
    #[serde(default)]
    pub replace_all: bool,
}

/// Applies several replacements to one file as one change.
#[derive(Default)]
pub struct MultiEdit;

const DESCRIPTION: &str = "Make several replacements in one file in one call: `edits` are \
applied in order, each to the text the edits before it left, and the file is changed only if \
every edit matches (all or nothing, one undoable change). Each `oldString` must match exactly \
one place unless `replaceAll` is true. When it does not match exactly, it is matched ignoring \
trailing whitespace, then indentation (the replacement is re-indented to the file's), then \
line endings and Unicode punctuation; the result says which rule matched, and several \
candidates under a rule are an error listing their lines. The file must have been read with \
`read` first. To create a file, give one edit with an empty `oldString` and the whole content \
as `newString`.";

impl Tool for MultiEdit {
    type Input = MultiEditInput;

    fn id(&self) -> &'static str {
        "multi_edit"
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn risk(&self) -> Risk {
        Risk::WorkspaceMutation
    }

    fn inspect(&self, input: &MultiEditInput) -> Inspection {
        Inspection::Writes(input.file_path.clone())
    }

    fn execute(&self, input: MultiEditInput) -> Result<String, ToolError> {
        check_edits(&input.edits)?;
        let draft = open_for_write(&input.file_path)?;
        let path = draft.display_path();
        let n = input.edits.len();
        let (bom, mut body, mut steps) = match draft.current()? {
            Some(text) => {
                if let Some(i) = input.edits.iter().position(|e| e.old_string.is_empty()) {
                    return Err(refused(
                        i,
                        n,
                        &format!(
                            "oldString is empty, but {path} exists; an empty oldString only \
                             creates a file. Copy the text to replace from the file"
                        ),
                    ));
                }
                let (bom, body) = split_bom(&text);
                (bom, body.to_owned(), Vec::new())
            }
            None => {
                if !input.edits[0].old_string.is_empty() {
                    return Err(ToolError::invalid_arguments(format!(
                        "{path} does not exist. To create it, make the first edit's oldString \
                         empty and its newString the whole content"
                    )));
                }
                (None, input.edits[0].new_string.clone(), vec![Step::Created])
            }
        };
        for (i, edit) in input.edits.iter().enumerate().skip(steps.len()) {
            if edit.old_string.is_empty() {
                return Err(refused(
                    i,
                    n,
                    "oldString is empty; only the first edit of a new file may be. Copy the \
                     text to replace from the file",
                ));
            }
            let mut done = replace(&body, &edit.old_string, &edit.new_string, edit.replace_all)
                .map_err(|e| not_matched(i, n, &e, &path))?;
            body = std::mem::take(&mut done.text);
            steps.push(Step::Replaced(done));
        }
        let mut text = String::with_capacity(body.len() + 3);
        text.extend(bom);
        text.push_str(&body);
        let committed = draft.commit(&text)?;
        Ok(summary(&path, &steps, &committed))
    }
}

/// What one edit did, for the summary.
enum Step {
    /// The first edit created the file.
    Created,
    /// The edit replaced text, found by this tier at this line.
    Replaced(Replaced),
}

/// The bounds that need no file: 1 to [`MAX_MULTI_EDITS`] edits, each `newString` at most
/// [`MAX_EDIT_FILE_BYTES`], no edit that changes nothing.
fn check_edits(edits: &[OneEdit]) -> Result<(), ToolError> {
    if edits.is_empty() {
        return Err(ToolError::invalid_arguments(
            "edits is empty; give at least one {oldString, newString}",
        ));
    }
    if edits.len() > MAX_MULTI_EDITS {
        return Err(ToolError::invalid_arguments(format!(
            "edits holds {} edits; one call makes at most {MAX_MULTI_EDITS}. Split them over \
             several calls",
            edits.len()
        )));
    }
    let n = edits.len();
    for (i, e) in edits.iter().enumerate() {
        if e.new_string.len() > MAX_EDIT_FILE_BYTES {
            return Err(refused(
                i,
                n,
                &format!(
                    "newString is {} bytes; the limit is {} MiB ({MAX_EDIT_FILE_BYTES} bytes)",
                    e.new_string.len(),
                    MAX_EDIT_FILE_BYTES / (1024 * 1024)
                ),
            ));
        }
        if e.old_string == e.new_string {
            return Err(refused(
                i,
                n,
                "oldString and newString are identical; there is nothing to change",
            ));
        }
    }
    Ok(())
}

/// A refusal of edit `i` (0-based) of `n`: nothing was written.
fn refused(i: usize, n: usize, why: &str) -> ToolError {
    ToolError::invalid_arguments(format!("edit {} of {n}: {why}. No edit was applied", i + 1))
}

/// Edit `i` of `n` did not match: the matcher's message, which says what fixes it.
fn not_matched(i: usize, n: usize, e: &MatchError, path: &str) -> ToolError {
    let at = if i == 0 { String::new() } else { " (as the edits before it left it)".into() };
    refused(i, n, &e.message("oldString", &format!("{path}{at}")))
}

/// `Applied 3 edits to src/a.rs (+4 -1)`, then one line per edit: how it matched and where.
fn summary(path: &str, steps: &[Step], committed: &Committed) -> String {
    let (a, d) = (committed.additions, committed.deletions);
    let noun = if steps.len() == 1 { "edit" } else { "edits" };
    let mut out = match committed.kind {
        ChangeKind::Unchanged => {
            format!("{path} unchanged: the {noun} leave its content as it was")
        }
        ChangeKind::Created => format!("Created {path} (+{a})"),
        _ => format!("Applied {} {noun} to {path} (+{a} -{d})", steps.len()),
    };
    for (i, step) in steps.iter().enumerate() {
        let line = match step {
            Step::Created => "created the file".to_owned(),
            Step::Replaced(r) => r.summary(),
        };
        out.push_str(&format!("\n{}. {line}", i + 1));
    }
    out
}

toolhost_sdk::export_tool!(MultiEdit);

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::{input_schema, parse_input};

    #[test]
    fn fields_are_camel_case_and_unknown_ones_refused() {
        let input: MultiEditInput = parse_input(
            r#"{"filePath":"a","edits":[{"oldString":"x","newString":"y"},
                {"oldString":"p","newString":"q","replaceAll":true}]}"#,
        )
        .unwrap();
        assert_eq!(input.edits.len(), 2);
        assert!(!input.edits[0].replace_all && input.edits[1].replace_all);
        assert!(parse_input::<MultiEditInput>(r#"{"filePath":"a"}"#).is_err());
        assert!(
            parse_input::<MultiEditInput>(
                r#"{"filePath":"a","edits":[{"old_string":"x","newString":"y"}]}"#
            )
            .is_err()
        );
        let schema = input_schema::<MultiEditInput>();
        assert_eq!(schema["additionalProperties"], false);
    }

    #[test]
    fn bounds_are_checked_before_any_file_is_opened() {
        let e = |o: &str, n: &str| OneEdit {
            old_string: o.into(),
            new_string: n.into(),
            replace_all: false,
        };
        assert!(check_edits(&[]).unwrap_err().message.contains("at least one"));
        let same = check_edits(&[e("a", "b"), e("x", "x")]).unwrap_err().message;
        assert!(same.starts_with("edit 2 of 2: ") && same.contains("identical"), "{same}");
        let many: Vec<OneEdit> = (0..=MAX_MULTI_EDITS).map(|i| e(&i.to_string(), "z")).collect();
        assert!(check_edits(&many).unwrap_err().message.contains("at most 100"));
        let big = "x".repeat(MAX_EDIT_FILE_BYTES + 1);
        assert!(check_edits(&[e("a", &big)]).unwrap_err().message.contains("limit is 1 MiB"));
    }

    #[test]
    fn the_summary_says_how_each_edit_matched() {
        let r = |tier, line| Step::Replaced(Replaced { text: String::new(), tier, line, count: 1 });
        let c = Committed { kind: ChangeKind::Modified, additions: 2, deletions: 1 };
        let s = summary(
            "src/a.rs",
            &[r(toolhost_edit_match::Tier::Exact, 3), r(toolhost_edit_match::Tier::Indentation, 9)],
            &c,
        );
        assert_eq!(
            s,
            "Applied 2 edits to src/a.rs (+2 -1)\n1. matched exactly at line 3\n2. matched after \
             ignoring indentation at line 9"
        );
    }
}
