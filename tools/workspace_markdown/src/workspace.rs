//! What the tool reads, behind one small trait ([`Workspace`]) so every operation also runs
//! natively in tests: [`HostWorkspace`] reads through the SDK's fenced `stat` and `open_file`, and
//! turns each refusal into a [`Failure`] with its `LOCAL_EXECUTOR_*` kind.

pub use toolhost_sdk::Failure;
use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::limits::MARKDOWN_MAX_FILE_BYTES;
use toolhost_sdk::{EntryKind, READ_CHUNK_BYTES, ToolError, open_file, stat};

/// What is at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Something else (a device, a socket).
    Other,
}

/// A Markdown file read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The path to show (relative to the workspace when inside it).
    pub display_path: String,
    /// Its text.
    pub text: String,
}

/// The reads an operation makes.
pub trait Workspace {
    /// What is at `path`, or none when nothing is.
    fn stat(&mut self, path: &str) -> Result<Option<PathKind>, Failure>;
    /// The text of the file at `path`: UTF-8, at most `MARKDOWN_MAX_FILE_BYTES`.
    fn load(&mut self, path: &str) -> Result<Loaded, Failure>;
}

/// The message of a file past the size limit.
pub fn too_large(path: &str, size: u64) -> Failure {
    Failure::new(
        ErrorKind::UnsupportedContent,
        format!(
            "{path} is {size} bytes; workspace_markdown reads files of at most {MARKDOWN_MAX_FILE_BYTES} bytes (2 MiB)"
        ),
    )
}

/// `bytes` as the text of `path`, or why not.
pub fn decode(path: &str, bytes: Vec<u8>) -> Result<String, Failure> {
    String::from_utf8(bytes).map_err(|e| {
        Failure::new(
            ErrorKind::UnsupportedContent,
            format!(
                "{path} is not UTF-8 text (invalid byte at offset {}); workspace_markdown reads Markdown text only",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// The kind of an SDK error ([`ToolError::error_kind`]): a refused path, a missing one, a
/// cancelled call…
pub fn from_tool_error(e: ToolError) -> Failure {
    Failure::new(e.error_kind(), e.message)
}

/// The workspace of this call, through the host.
#[derive(Debug, Default)]
pub struct HostWorkspace;

impl Workspace for HostWorkspace {
    fn stat(&mut self, path: &str) -> Result<Option<PathKind>, Failure> {
        let found = stat(path).map_err(from_tool_error)?;
        Ok(found.map(|s| match s.kind {
            EntryKind::File => PathKind::File,
            EntryKind::Directory => PathKind::Dir,
            EntryKind::Symlink | EntryKind::Other => PathKind::Other,
        }))
    }

    fn load(&mut self, path: &str) -> Result<Loaded, Failure> {
        match stat(path).map_err(from_tool_error)? {
            None => {
                return Err(Failure::new(
                    ErrorKind::NotFound,
                    format!("{path} does not exist; use list or glob to find the right path"),
                ));
            }
            Some(s) if s.kind == EntryKind::Directory => {
                return Err(Failure::new(
                    ErrorKind::InvalidInput,
                    format!("{path} is a directory; pass the path of a Markdown file in it"),
                ));
            }
            Some(s) if s.kind != EntryKind::File => {
                return Err(Failure::new(
                    ErrorKind::UnsupportedContent,
                    format!("{path} is not a regular file"),
                ));
            }
            Some(s) if s.size > MARKDOWN_MAX_FILE_BYTES => return Err(too_large(path, s.size)),
            Some(_) => {}
        }
        let file = open_file(path).map_err(from_tool_error)?;
        let display_path = file.display_path();
        let mut bytes = Vec::with_capacity(usize::try_from(file.size()).unwrap_or(0));
        loop {
            let chunk = file.read(READ_CHUNK_BYTES).map_err(from_tool_error)?;
            if chunk.is_empty() {
                break;
            }
            bytes.extend_from_slice(&chunk);
            if bytes.len() as u64 > MARKDOWN_MAX_FILE_BYTES {
                return Err(too_large(&display_path, bytes.len() as u64));
            }
        }
        Ok(Loaded { text: decode(&display_path, bytes)?, display_path })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdk_errors_map_to_kinds() {
        let kind = |e: ToolError| from_tool_error(e).kind;
        assert_eq!(kind(ToolError::permission_denied("no")), ErrorKind::PathDenied);
        assert_eq!(
            kind(ToolError::invalid_arguments("x.md does not exist; use list")),
            ErrorKind::NotFound
        );
        assert_eq!(kind(ToolError::invalid_arguments("x is a directory")), ErrorKind::InvalidInput);
        assert_eq!(kind(ToolError::cancelled("c")), ErrorKind::Cancelled);
        assert_eq!(kind(ToolError::execution_failed("io")), ErrorKind::Internal);
    }

    #[test]
    fn not_utf8_and_too_large() {
        let f = decode("a.md", vec![b'o', b'k', 0xff]).unwrap_err();
        assert_eq!(f.kind, ErrorKind::UnsupportedContent);
        assert!(f.message.contains("offset 2"), "{}", f.message);
        assert_eq!(decode("a.md", b"# x".to_vec()).unwrap(), "# x");
        let f = too_large("a.md", MARKDOWN_MAX_FILE_BYTES + 1);
        assert_eq!(f.kind, ErrorKind::UnsupportedContent);
        assert!(f.message.starts_with("a.md is 2097153 bytes"), "{}", f.message);
    }
}
