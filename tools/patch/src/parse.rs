//! The patch text into file operations: codex's grammar, read as leniently as codex reads it.
//!
//! ```text
//! *** Begin Patch
//! *** Add File: <path>          then the file's lines, each starting with `+`
//! *** Delete File: <path>
//! *** Update File: <path>
//! *** Move to: <path>           optional, right after Update File
//! @@ [a line of the file]       a hunk; the first hunk of an Update may leave out `@@`
//!  context / -removed / +added  an empty line is an empty context line
//! *** End of File               optional, ends a hunk that must match at the end of the file
//! *** End Patch
//! ```
//!
//! Leniencies: the text may be wrapped in a heredoc (`<<'EOF'`, `<<"EOF"` or `<<EOF` first,
//! `EOF` last); blank lines before and after the patch, between file operations and between
//! hunks are skipped; markers and `@@` headers may carry surrounding whitespace; a patch with
//! CRLF line breaks reads as one with LF. Paths are not judged here beyond being non-empty.
//! Errors name the 1-based line of the patch text as given and what was expected there.

use std::fmt;

/// The first line of a patch.
pub const BEGIN_PATCH: &str = "*** Begin Patch";
/// The last line of a patch.
pub const END_PATCH: &str = "*** End Patch";
/// Starts an Add File operation; the path follows.
pub const ADD_FILE: &str = "*** Add File:";
/// Starts a Delete File operation; the path follows.
pub const DELETE_FILE: &str = "*** Delete File:";
/// Starts an Update File operation; the path follows.
pub const UPDATE_FILE: &str = "*** Update File:";
/// Renames the file of an Update File operation; the new path follows.
pub const MOVE_TO: &str = "*** Move to:";
/// Ends a hunk that must match at the end of the file.
pub const END_OF_FILE: &str = "*** End of File";
/// Opens a hunk, alone or followed by a space and one line of the file to anchor on.
pub const HUNK_HEADER: &str = "@@";

/// The first lines of a heredoc wrapper accepted around the patch.
const HEREDOC_OPENERS: [&str; 3] = ["<<EOF", "<<'EOF'", "<<\"EOF\""];

/// The longest piece of the patch or of a file quoted in a message, in characters.
pub const MAX_QUOTED_CHARS: usize = 200;

/// `text` in double quotes, cut to [`MAX_QUOTED_CHARS`] characters (marked with `…`).
pub fn quoted(text: &str) -> String {
    format!("\"{}\"", capped(text))
}

/// `text` cut to [`MAX_QUOTED_CHARS`] characters, with `…` when cut.
pub fn capped(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchOperation {
    /// Create a file (or replace one) with `contents`: the `+` lines, each followed by `\n`.
    Add { path: String, contents: String },
    /// Delete a file.
    Delete { path: String },
    /// Change a file by its hunks, in order, and rename it when `move_to` is set.
    Update { path: String, move_to: Option<String>, chunks: Vec<Chunk> },
}

impl PatchOperation {
    /// The path named after the operation's marker (for Update, the file before any move).
    pub fn path(&self) -> &str {
        match self {
            PatchOperation::Add { path, .. }
            | PatchOperation::Delete { path }
            | PatchOperation::Update { path, .. } => path,
        }
    }

    /// The marker's words: `Add File`, `Delete File` or `Update File`.
    pub fn marker(&self) -> &'static str {
        match self {
            PatchOperation::Add { .. } => "Add File",
            PatchOperation::Delete { .. } => "Delete File",
            PatchOperation::Update { .. } => "Update File",
        }
    }
}

/// One hunk of an Update File operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The line after `@@ `, found in the file before the old lines are looked for after it.
    pub context: Option<String>,
    /// The context and removed lines, in order: what the file must contain.
    pub old_lines: Vec<String>,
    /// The context and added lines, in order: what replaces `old_lines`.
    pub new_lines: Vec<String>,
    /// The hunk ended with `*** End of File`: it is looked for at the end of the file first.
    pub is_end_of_file: bool,
}

/// What is wrong with a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// The patch is empty or only whitespace.
    Empty,
    /// The first line is not `*** Begin Patch`.
    MissingBegin { found: String },
    /// The last line is not `*** End Patch`.
    MissingEnd { found: String },
    /// A line between operations is not a file operation.
    ExpectedOperation { found: String },
    /// A file operation's marker has no path after it (`marker` is e.g. `Add File`).
    EmptyPath { marker: &'static str },
    /// A line of an Add File operation does not start with `+`.
    AddLineWithoutPlus { found: String },
    /// An Update File operation has no hunk.
    NoHunks { path: String },
    /// A line starting with `@@` is not `@@` or `@@ <line>`.
    BadHunkHeader { found: String },
    /// A hunk header has unified-diff line numbers (`@@ -1,3 +1,4 @@`).
    UnifiedDiffHeader { found: String },
    /// A hunk header is followed by no hunk line.
    EmptyHunk,
    /// A line inside an Update File operation is neither a hunk line, a header nor a marker.
    BadHunkLine { found: String },
    /// `*** End Patch` appears before the last line.
    EndPatchNotLast,
}

/// A patch that cannot be read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The 1-based line of the patch text; none for errors about the whole patch.
    pub line: Option<usize>,
    /// What is wrong.
    pub kind: ParseErrorKind,
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HUNK_LINES: &str =
            "lines starting with \" \" (context), \"-\" (removed) or \"+\" (added)";
        const HEADER_FORM: &str =
            "\"@@\" alone or \"@@ \" followed by one line of the file to anchor on";
        match self {
            Self::Empty => write!(
                f,
                "the patch is empty; it must start with {BEGIN_PATCH} and end with {END_PATCH}"
            ),
            Self::MissingBegin { found } => {
                write!(f, "expected {BEGIN_PATCH} as the first line, found {}", quoted(found))
            }
            Self::MissingEnd { found } => write!(
                f,
                "expected {END_PATCH} as the last line, found {}; end the patch with {END_PATCH}",
                quoted(found)
            ),
            Self::ExpectedOperation { found } => write!(
                f,
                "expected a file operation ({ADD_FILE}, {DELETE_FILE}, {UPDATE_FILE}) or \
                 {END_PATCH}, found {}",
                quoted(found)
            ),
            Self::EmptyPath { marker } => {
                write!(f, "*** {marker}: has no path; write the file's path after the colon")
            }
            Self::AddLineWithoutPlus { found } => write!(
                f,
                "expected a line of the added file starting with +, found {}; every line of \
                 an added file starts with + (a lone + for an empty line)",
                quoted(found)
            ),
            Self::NoHunks { path } => {
                write!(f, "{UPDATE_FILE} {path} has no hunks; follow it with @@ and {HUNK_LINES}")
            }
            Self::BadHunkHeader { found } => {
                write!(f, "bad hunk header {}; a hunk starts with {HEADER_FORM}", quoted(found))
            }
            Self::UnifiedDiffHeader { found } => write!(
                f,
                "{} is a unified-diff hunk header; this format has no line numbers: start the \
                 hunk with {HEADER_FORM}",
                quoted(found)
            ),
            Self::EmptyHunk => write!(f, "the hunk has no lines; after @@ write {HUNK_LINES}"),
            Self::BadHunkLine { found } => write!(
                f,
                "expected a hunk line starting with \" \" (context), \"-\" (removed) or \"+\" \
                 (added), a hunk header (@@), or the next file operation, found {}",
                quoted(found)
            ),
            Self::EndPatchNotLast => {
                write!(f, "{END_PATCH} must be the last line, but more lines follow it")
            }
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

impl std::error::Error for ParseError {}

/// An error at 0-based index `index` of the patch's lines.
fn at(index: usize, kind: ParseErrorKind) -> ParseError {
    ParseError { line: Some(index + 1), kind }
}

/// The line starts a file operation or ends the patch (`*** ` after any indentation).
fn is_marker(line: &str) -> bool {
    line.trim_start().starts_with("*** ")
}

/// `context` (after `@@ `) looks like `-a[,b] +c[,d] @@…`, the header of a unified diff.
fn is_unified_range(context: &str) -> bool {
    fn range(s: &str, sign: char) -> Option<&str> {
        let s = s.strip_prefix(sign)?;
        let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let n = digits(s);
        if n == 0 {
            return None;
        }
        let s = &s[n..];
        match s.strip_prefix(',') {
            Some(rest) if digits(rest) > 0 => Some(&rest[digits(rest)..]),
            Some(_) => None,
            None => Some(s),
        }
    }
    range(context.trim(), '-')
        .and_then(|s| s.strip_prefix(' '))
        .and_then(|s| range(s, '+'))
        .is_some_and(|s| s.trim_start().starts_with(HUNK_HEADER))
}

/// Read `patch` into its file operations, in order.
pub fn parse_patch(patch: &str) -> Result<Vec<PatchOperation>, ParseError> {
    let lines: Vec<&str> = patch.lines().collect();
    let blank = |l: &&str| l.trim().is_empty();
    let Some(mut first) = lines.iter().position(|l| !blank(l)) else {
        return Err(ParseError { line: None, kind: ParseErrorKind::Empty });
    };
    let mut last = lines.iter().rposition(|l| !blank(l)).unwrap_or(first);
    if lines[first].trim() != BEGIN_PATCH
        && HEREDOC_OPENERS.contains(&lines[first].trim())
        && lines[last].trim_end().ends_with("EOF")
        && last >= first + 3
    {
        first = (first + 1..last).find(|&i| !blank(&lines[i])).unwrap_or(first + 1);
        last = (first..last).rev().find(|&i| !blank(&lines[i])).unwrap_or(first);
    }
    if lines[first].trim() != BEGIN_PATCH {
        return Err(at(first, ParseErrorKind::MissingBegin { found: lines[first].to_owned() }));
    }
    if last == first || lines[last].trim() != END_PATCH {
        return Err(at(last, ParseErrorKind::MissingEnd { found: lines[last].to_owned() }));
    }
    Parser { lines: &lines, i: first + 1, end: last }.operations()
}

/// A cursor over the lines between `*** Begin Patch` and `*** End Patch`.
struct Parser<'a> {
    lines: &'a [&'a str],
    /// The next line to read.
    i: usize,
    /// The index of `*** End Patch`.
    end: usize,
}

impl Parser<'_> {
    /// Skip lines that are empty or only whitespace.
    fn skip_blank(&mut self) {
        while self.i < self.end && self.lines[self.i].trim().is_empty() {
            self.i += 1;
        }
    }

    /// The path after `marker` on the (trimmed) line `rest`, which must not be empty.
    fn path(&self, rest: &str, marker: &'static str) -> Result<String, ParseError> {
        let path = rest.trim();
        if path.is_empty() {
            Err(at(self.i, ParseErrorKind::EmptyPath { marker }))
        } else {
            Ok(path.to_owned())
        }
    }

    fn operations(mut self) -> Result<Vec<PatchOperation>, ParseError> {
        let mut operations = Vec::new();
        loop {
            self.skip_blank();
            if self.i >= self.end {
                return Ok(operations);
            }
            let line = self.lines[self.i].trim();
            let operation = if let Some(rest) = line.strip_prefix(ADD_FILE) {
                let path = self.path(rest, "Add File")?;
                self.i += 1;
                PatchOperation::Add { path, contents: self.added_lines()? }
            } else if let Some(rest) = line.strip_prefix(DELETE_FILE) {
                let path = self.path(rest, "Delete File")?;
                self.i += 1;
                PatchOperation::Delete { path }
            } else if let Some(rest) = line.strip_prefix(UPDATE_FILE) {
                self.update(rest)?
            } else if line == END_PATCH {
                return Err(at(self.i, ParseErrorKind::EndPatchNotLast));
            } else {
                let found = self.lines[self.i].to_owned();
                return Err(at(self.i, ParseErrorKind::ExpectedOperation { found }));
            };
            operations.push(operation);
        }
    }

    /// The `+` lines of an Add File operation, each followed by `\n`.
    fn added_lines(&mut self) -> Result<String, ParseError> {
        let mut contents = String::new();
        while self.i < self.end {
            let line = self.lines[self.i];
            if let Some(text) = line.strip_prefix('+') {
                contents.push_str(text);
                contents.push('\n');
                self.i += 1;
            } else if is_marker(line) {
                break;
            } else if line.trim().is_empty() {
                // Blank lines may separate this operation from the next, not lines of the file.
                let next = (self.i..self.end).find(|&j| !self.lines[j].trim().is_empty());
                match next {
                    Some(j) if !is_marker(self.lines[j]) => {
                        let found = line.to_owned();
                        return Err(at(self.i, ParseErrorKind::AddLineWithoutPlus { found }));
                    }
                    _ => break,
                }
            } else {
                let found = line.to_owned();
                return Err(at(self.i, ParseErrorKind::AddLineWithoutPlus { found }));
            }
        }
        Ok(contents)
    }

    /// An Update File operation whose marker line (at `self.i`) ends with `rest`.
    fn update(&mut self, rest: &str) -> Result<PatchOperation, ParseError> {
        let header = self.i;
        let path = self.path(rest, "Update File")?;
        self.i += 1;
        let mut move_to = None;
        if self.i < self.end
            && let Some(rest) = self.lines[self.i].trim().strip_prefix(MOVE_TO)
        {
            move_to = Some(self.path(rest, "Move to")?);
            self.i += 1;
        }
        let mut chunks = Vec::new();
        loop {
            self.skip_blank();
            if self.i >= self.end || is_marker(self.lines[self.i]) {
                break;
            }
            chunks.push(self.chunk(chunks.is_empty())?);
        }
        if chunks.is_empty() {
            return Err(at(header, ParseErrorKind::NoHunks { path }));
        }
        Ok(PatchOperation::Update { path, move_to, chunks })
    }

    /// One hunk, from its `@@` header (which the first hunk may leave out) to the line before
    /// the next header, marker or line that is not a hunk line.
    fn chunk(&mut self, first: bool) -> Result<Chunk, ParseError> {
        let line = self.lines[self.i];
        let trimmed = line.trim();
        let mut header = None;
        let mut context = None;
        if let Some(rest) = trimmed.strip_prefix(HUNK_HEADER) {
            if !rest.is_empty() {
                let Some(text) = rest.strip_prefix(|c: char| c.is_whitespace()) else {
                    let found = line.to_owned();
                    return Err(at(self.i, ParseErrorKind::BadHunkHeader { found }));
                };
                if is_unified_range(text) {
                    let found = line.to_owned();
                    return Err(at(self.i, ParseErrorKind::UnifiedDiffHeader { found }));
                }
                if !text.trim().is_empty() {
                    context = Some(text.trim_end().to_owned());
                }
            }
            header = Some(self.i);
            self.i += 1;
        } else if !first {
            let found = line.to_owned();
            return Err(at(self.i, ParseErrorKind::BadHunkLine { found }));
        }
        let mut chunk =
            Chunk { context, old_lines: Vec::new(), new_lines: Vec::new(), is_end_of_file: false };
        let mut count = 0;
        while self.i < self.end {
            let line = self.lines[self.i];
            if line.trim() == END_OF_FILE {
                if count == 0 {
                    return Err(at(header.unwrap_or(self.i), ParseErrorKind::EmptyHunk));
                }
                chunk.is_end_of_file = true;
                self.i += 1;
                break;
            }
            if line.is_empty() {
                chunk.old_lines.push(String::new());
                chunk.new_lines.push(String::new());
            } else if let Some(text) = line.strip_prefix(' ') {
                chunk.old_lines.push(text.to_owned());
                chunk.new_lines.push(text.to_owned());
            } else if let Some(text) = line.strip_prefix('-') {
                chunk.old_lines.push(text.to_owned());
            } else if let Some(text) = line.strip_prefix('+') {
                chunk.new_lines.push(text.to_owned());
            } else {
                break;
            }
            count += 1;
            self.i += 1;
        }
        if count == 0 {
            // Nothing after the header: the next header, a marker, or the end of the patch.
            let next = self.lines.get(self.i).map_or("", |l| l.trim());
            return match header {
                Some(h)
                    if self.i >= self.end || next.starts_with(HUNK_HEADER) || is_marker(next) =>
                {
                    Err(at(h, ParseErrorKind::EmptyHunk))
                }
                _ => {
                    let found = self.lines[self.i].to_owned();
                    Err(at(self.i, ParseErrorKind::BadHunkLine { found }))
                }
            };
        }
        Ok(chunk)
    }
}

#[cfg(test)]
mod tests;
