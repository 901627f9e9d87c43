//! Every text `str_replace_based_edit_tool` answers with, in one place: Anthropic's reference
//! implementation's words where it has them (Claude was trained on those), toolhost's where a
//! rule is toolhost's own (the tier that matched, read-before-edit, the bounds).

use toolhost_edit_match::MatchError;

/// The description the model reads (Anthropic's tool carries its own; this one serves a
/// client that lists the tool by name only).
pub const DESCRIPTION: &str = "View, create and edit files. `view` shows a file with line \
numbers (`view_range` [start, end] picks lines, end -1 = to the end) or lists a directory two \
levels deep; `create` writes `file_text` to a new file; `str_replace` replaces `old_str`, which \
must match exactly one place in the file, with `new_str`; `insert` puts `new_str` after line \
`insert_line` (0 = the top). View a file before you edit it. When `old_str` does not match \
exactly, it is matched ignoring trailing whitespace, then indentation, then line endings and \
Unicode punctuation; the result says which rule matched, and several candidates are an error \
listing their lines.";

/// `undo_edit`, which the current tool version no longer has.
pub const UNDO_EDIT: &str = "undo_edit is not a command of this tool version; make the \
reverse edit with str_replace (the user can undo any change with `toolhost undo`)";

/// `view_range` on a directory.
pub const RANGE_ON_DIRECTORY: &str =
    "The `view_range` parameter is not allowed when `path` points to a directory.";

/// `view_range` that is not two numbers.
pub const RANGE_NOT_TWO: &str = "Invalid `view_range`. It should be a list of two integers.";

/// `old_str` and `new_str` are the same.
pub const SAME_STRINGS: &str = "No replacement was performed: old_str and new_str are \
identical.";

/// Added to the host's read-before-edit refusal.
pub const VIEW_FIRST: &str = "View it with the `view` command first.";

/// A parameter `command` needs is missing.
pub fn missing(field: &str, command: &str) -> String {
    format!("Parameter `{field}` is required for command: {command}")
}

/// Nothing is at `path`.
pub fn no_such_path(path: &str) -> String {
    format!("The path {path} does not exist. Please provide a valid path.")
}

/// The file to edit does not exist.
pub fn no_such_file(path: &str) -> String {
    format!(
        "The path {path} does not exist. Please provide a valid path (create makes a new file)."
    )
}

/// A command other than `view` named a directory.
pub fn is_directory(path: &str) -> String {
    format!("The path {path} is a directory and only the `view` command can be used on directories")
}

/// A file not UTF-8.
pub fn not_text(path: &str) -> String {
    format!("{path} is not UTF-8 text; view shows text files only")
}

/// A file too large to view.
pub fn too_large(path: &str, size: u64, max: u64) -> String {
    format!(
        "{path} is {size} bytes; view shows files of at most {} MiB. Search it with grep through \
         bash instead",
        max / (1024 * 1024)
    )
}

/// A `view_range` outside the file.
pub fn bad_range(start: i64, end: i64, why: &str) -> String {
    format!("Invalid `view_range`: [{start}, {end}]. {}{}", why[..1].to_uppercase(), &why[1..])
}

/// The line `view` starts a file with.
pub fn view_header(path: &str) -> String {
    format!("Here's the result of running `cat -n` on {path}:\n")
}

/// The line after a view that stopped at the result's bound.
pub fn view_cut(last: usize, end: usize, n: usize) -> String {
    format!(
        "[shown up to line {last} of {n}: the output is bounded; view the rest with view_range \
         [{}, {}]]\n",
        last + 1,
        if end == n { -1 } else { end as i64 }
    )
}

/// The line a directory listing starts with.
pub fn directory_header(path: &str) -> String {
    format!(
        "Here's the files and directories up to 2 levels deep in {path}, excluding hidden \
         items:\n"
    )
}

/// The line after a listing that stopped at its bound.
pub fn directory_cut(listed: usize) -> String {
    format!("[{listed} entries shown; the listing is bounded: view a subdirectory to see more]\n")
}

/// `create` made a new file.
pub fn created(path: &str) -> String {
    format!("File created successfully at: {path}")
}

/// `create` replaced a file the model had viewed.
pub fn overwritten(path: &str) -> String {
    format!("File created successfully at: {path} (it replaced the file that was there)")
}

/// `str_replace` did not find one place: the matcher's account, which says what fixes it.
pub fn not_replaced(e: &MatchError, path: &str) -> String {
    format!("No replacement was performed: {}", e.message("old_str", path))
}

/// `str_replace` replaced: how `old_str` matched, then the snippet.
pub fn replaced(path: &str, how: &str, snippet: &str) -> String {
    format!(
        "The file {path} has been edited (old_str {how}). Here's the result of running `cat -n` \
         on a snippet of {path}:\n{snippet}Review the changes and make sure they are as \
         expected. Edit the file again if necessary."
    )
}

/// `insert_line` outside the file.
pub fn bad_insert_line(at: i64, n: usize) -> String {
    format!(
        "Invalid `insert_line` parameter: {at}. It should be within the range of lines of the \
         file: [0, {n}]"
    )
}

/// `insert` inserted: the snippet.
pub fn inserted(path: &str, snippet: &str) -> String {
    format!(
        "The file {path} has been edited. Here's the result of running `cat -n` on a snippet \
         of the edited file:\n{snippet}Review the changes and make sure they are as expected \
         (correct indentation, no duplicate lines, etc). Edit the file again if necessary."
    )
}
