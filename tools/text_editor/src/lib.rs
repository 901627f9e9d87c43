//! The `str_replace_based_edit_tool` tool (docs/contract.md#str_replace_based_edit_tool):
//! Anthropic's text editor client tool, with its command names, parameter names and result
//! texts, over toolhost's fence, observations, record and undo.
//!
//! Reads top to bottom: the input (one struct for every command, as the model sends it) and
//! its dispatch; `view` ([`view`]: a file with line numbers, which counts as the read that
//! read-before-edit asks for, or a directory two levels deep); `create`, `str_replace`
//! (the tolerant matcher, [`toolhost_edit_match::replace`], every tier unique or refused)
//! and `insert`, each through one draft of the host (`open-for-write`), committed as one
//! file change; the texts the model reads are in [`texts`].

mod texts;
mod view;

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_edit_match::{line_ending, replace};
use toolhost_sdk::limits::MAX_EDIT_FILE_BYTES;
use toolhost_sdk::text::split_bom;
use toolhost_sdk::{Draft, EntryKind, Inspection, Risk, Tool, ToolError, open_for_write, stat};

/// Input of `str_replace_based_edit_tool`: the fields of every command; each command reads
/// its own and refuses the call when one it needs is missing.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextEditorInput {
    /// `view`, `create`, `str_replace` or `insert`.
    pub command: Command,
    /// The file or directory: absolute, or relative to the working directory.
    pub path: String,
    /// `view` of a file: `[start, end]`, 1-based lines, both included; end -1 reads to the end.
    #[serde(default)]
    pub view_range: Option<Vec<i64>>,
    /// `view`: at most this many characters of the file are shown.
    #[serde(default)]
    pub max_characters: Option<u64>,
    /// `create`: the whole content of the file.
    #[serde(default)]
    pub file_text: Option<String>,
    /// `str_replace`: the text to replace; it must match exactly one place in the file.
    #[serde(default)]
    pub old_str: Option<String>,
    /// `str_replace`: the replacement (empty or absent removes old_str). `insert`: the text
    /// to insert.
    #[serde(default, alias = "insert_text")]
    pub new_str: Option<String>,
    /// `insert`: the line after which the text goes; 0 inserts at the top of the file.
    #[serde(default)]
    pub insert_line: Option<i64>,
}

/// The text editor's commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    /// Show a file with line numbers, or list a directory.
    View,
    /// Create a file (or replace one read before) with `file_text`.
    Create,
    /// Replace `old_str` with `new_str`.
    StrReplace,
    /// Insert `new_str` after line `insert_line`.
    Insert,
    /// The older tool versions' undo of the last edit: refused with what to do instead.
    UndoEdit,
}

/// Anthropic's text editor tool.
#[derive(Default)]
pub struct TextEditor;

impl Tool for TextEditor {
    type Input = TextEditorInput;

    fn id(&self) -> &'static str {
        "str_replace_based_edit_tool"
    }

    fn description(&self) -> &'static str {
        texts::DESCRIPTION
    }

    fn risk(&self) -> Risk {
        Risk::WorkspaceMutation
    }

    fn inspect(&self, input: &TextEditorInput) -> Inspection {
        match input.command {
            Command::View | Command::UndoEdit => Inspection::ReadOnly,
            _ => Inspection::Writes(input.path.clone()),
        }
    }

    fn execute(&self, input: TextEditorInput) -> Result<String, ToolError> {
        match input.command {
            Command::View => view::view(&input),
            Command::Create => create(&input),
            Command::StrReplace => str_replace(&input),
            Command::Insert => insert(&input),
            Command::UndoEdit => Err(ToolError::invalid_arguments(texts::UNDO_EDIT)),
        }
    }
}

/// `field`, which `command` needs.
fn needed<'a, T>(value: &'a Option<T>, field: &str, command: &str) -> Result<&'a T, ToolError> {
    value.as_ref().ok_or_else(|| ToolError::invalid_arguments(texts::missing(field, command)))
}

/// Refuse text larger than a file may be.
fn bounded(text: &str, field: &str) -> Result<(), ToolError> {
    if text.len() <= MAX_EDIT_FILE_BYTES {
        return Ok(());
    }
    Err(ToolError::invalid_arguments(format!(
        "{field} is {} bytes; the limit is {} MiB ({MAX_EDIT_FILE_BYTES} bytes)",
        text.len(),
        MAX_EDIT_FILE_BYTES / (1024 * 1024)
    )))
}

/// A path that is a directory: only `view` reads one.
fn not_a_directory(path: &str) -> Result<(), ToolError> {
    if let Some(meta) = stat(path)?
        && meta.kind == EntryKind::Directory
    {
        return Err(ToolError::invalid_arguments(texts::is_directory(path)));
    }
    Ok(())
}

/// The draft's current text, with the host's read-before-edit refusal pointing at `view`.
fn current(draft: &Draft) -> Result<Option<String>, ToolError> {
    draft.current().map_err(|e| {
        if e.message.starts_with("Read ") && e.message.ends_with(" before editing it.") {
            ToolError::new(e.code, format!("{} {}", e.message, texts::VIEW_FIRST))
        } else {
            e
        }
    })
}

fn create(input: &TextEditorInput) -> Result<String, ToolError> {
    let text = needed(&input.file_text, "file_text", "create")?;
    bounded(text, "file_text")?;
    not_a_directory(&input.path)?;
    let draft = open_for_write(&input.path)?;
    let path = draft.display_path();
    let existed = stat(&input.path)?.is_some();
    if existed {
        // Replacing a file is an edit: read-before-edit holds as for every other.
        current(&draft)?;
    }
    draft.commit(text)?;
    Ok(if existed { texts::overwritten(&path) } else { texts::created(&path) })
}

fn str_replace(input: &TextEditorInput) -> Result<String, ToolError> {
    let old = needed(&input.old_str, "old_str", "str_replace")?;
    let new = input.new_str.as_deref().unwrap_or("");
    bounded(new, "new_str")?;
    if old == new {
        return Err(ToolError::invalid_arguments(texts::SAME_STRINGS));
    }
    let mut how = None;
    let (path, body) = edit_existing(&input.path, |body, path| {
        let done = replace(body, old, new, false)
            .map_err(|e| ToolError::invalid_arguments(texts::not_replaced(&e, path)))?;
        how = Some((done.summary(), done.line));
        Ok(done.text)
    })?;
    let (summary, line) = how.unwrap_or_default();
    let new_lines = new.lines().count().max(1);
    let snippet = view::snippet(&body, line, line + new_lines - 1);
    Ok(texts::replaced(&path, &summary, &snippet))
}

fn insert(input: &TextEditorInput) -> Result<String, ToolError> {
    let at = *needed(&input.insert_line, "insert_line", "insert")?;
    let new = needed(&input.new_str, "new_str", "insert")?;
    bounded(new, "new_str")?;
    let mut after = 0;
    let (path, body) = edit_existing(&input.path, |body, _| {
        let n_lines = view::line_count(body);
        let Some(at) = usize::try_from(at).ok().filter(|&at| at <= n_lines) else {
            return Err(ToolError::invalid_arguments(texts::bad_insert_line(at, n_lines)));
        };
        after = at;
        Ok(inserted_text(body, at, new))
    })?;
    let added = new.lines().count().max(1);
    let snippet = view::snippet(&body, after + 1, after + added);
    Ok(texts::inserted(&path, &snippet))
}

/// Edit the existing file at `path` through one draft: its text (after read-before-edit),
/// a byte order mark set aside, handed to `edit` with the display path; what `edit` returns
/// committed with the mark put back. The display path and the new text (without the mark).
fn edit_existing(
    path: &str,
    edit: impl FnOnce(&str, &str) -> Result<String, ToolError>,
) -> Result<(String, String), ToolError> {
    not_a_directory(path)?;
    let draft = open_for_write(path)?;
    let shown = draft.display_path();
    let Some(text) = current(&draft)? else {
        return Err(ToolError::invalid_arguments(texts::no_such_file(&shown)));
    };
    let (bom, body) = split_bom(&text);
    let body = edit(body, &shown)?;
    let mut out = String::with_capacity(body.len() + 3);
    out.extend(bom);
    out.push_str(&body);
    draft.commit(&out)?;
    Ok((shown, body))
}

/// `body` with `new` inserted after its line `at` (0: at the top), `new`'s line breaks in the
/// file's line ending and ended by one.
fn inserted_text(body: &str, at: usize, new: &str) -> String {
    let ending = line_ending(body);
    let mut piece: String = new.replace("\r\n", "\n");
    if !piece.ends_with('\n') {
        piece.push('\n');
    }
    if ending == "\r\n" {
        piece = piece.replace('\n', "\r\n");
    }
    // The byte where line `at + 1` starts (or the end).
    let mut offset = 0;
    for _ in 0..at {
        match body[offset..].find('\n') {
            Some(i) => offset += i + 1,
            None => offset = body.len(),
        }
    }
    let mut out = String::with_capacity(body.len() + piece.len() + 2);
    out.push_str(&body[..offset]);
    if offset == body.len() && !body.is_empty() && !body.ends_with('\n') {
        out.push_str(ending);
    }
    out.push_str(&piece);
    out.push_str(&body[offset..]);
    out
}

toolhost_sdk::export_tool!(TextEditor);

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::parse_input;

    #[test]
    fn every_command_parses_with_the_providers_field_names() {
        let i: TextEditorInput =
            parse_input(r#"{"command":"view","path":"/r/a.py","view_range":[3,-1]}"#).unwrap();
        assert_eq!((i.command, i.view_range), (Command::View, Some(vec![3, -1])));
        let i: TextEditorInput =
            parse_input(r#"{"command":"str_replace","path":"a","old_str":"x","new_str":"y"}"#)
                .unwrap();
        assert_eq!(i.command, Command::StrReplace);
        let i: TextEditorInput =
            parse_input(r#"{"command":"insert","path":"a","insert_line":0,"insert_text":"y"}"#)
                .unwrap();
        assert_eq!((i.insert_line, i.new_str.as_deref()), (Some(0), Some("y")));
        assert!(parse_input::<TextEditorInput>(r#"{"command":"delete","path":"a"}"#).is_err());
        assert!(parse_input::<TextEditorInput>(r#"{"command":"view","path":"a","x":1}"#).is_err());
    }

    #[test]
    fn insert_goes_after_the_line_in_the_files_line_ending() {
        assert_eq!(inserted_text("a\nb\n", 0, "x"), "x\na\nb\n");
        assert_eq!(inserted_text("a\nb\n", 1, "x\ny"), "a\nx\ny\nb\n");
        assert_eq!(inserted_text("a\nb\n", 2, "x\n"), "a\nb\nx\n");
        assert_eq!(inserted_text("a\nb", 2, "x"), "a\nb\nx\n");
        assert_eq!(inserted_text("a\r\nb\r\n", 1, "x\ny"), "a\r\nx\r\ny\r\nb\r\n");
        assert_eq!(inserted_text("", 0, "x"), "x\n");
    }
}
