//! Where a preview's source comes from: the [`HostSource`] trait (the SDK's fenced `stat` and
//! `open-file`, and cancellation) so the tool's logic runs natively in tests, and
//! [`load_text`], which reads a Markdown or HTML source from a file or takes it inline.

use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::limits::PREVIEW_MAX_SOURCE_BYTES;
use toolhost_sdk::{EntryKind, PathStat, READ_CHUNK_BYTES, ToolError};

use crate::failure::{Failure, Halt, from_host};

/// A file opened for reading.
pub trait Reader {
    /// The path to show the model (relative to the workspace when inside it).
    fn display_path(&self) -> String;
    /// The next chunk of at most `max` bytes; empty at the end.
    fn read(&mut self, max: u32) -> Result<Vec<u8>, ToolError>;
}

/// What the tool asks of the host.
pub trait HostSource {
    /// The reader [`HostSource::open`] returns.
    type File: Reader;
    /// What is at `path`, or none when nothing is there (fenced by the host).
    fn stat(&self, path: &str) -> Result<Option<PathStat>, ToolError>;
    /// Open the regular file at `path` (fenced by the host).
    fn open(&self, path: &str) -> Result<Self::File, ToolError>;
    /// Whether the call was cancelled.
    fn cancelled(&self) -> bool;
}

/// The [`HostSource`] of a real call: the SDK's imported handles.
pub struct SdkHost;

impl Reader for toolhost_sdk::File {
    fn display_path(&self) -> String {
        toolhost_sdk::File::display_path(self)
    }
    fn read(&mut self, max: u32) -> Result<Vec<u8>, ToolError> {
        toolhost_sdk::File::read(self, max)
    }
}

impl HostSource for SdkHost {
    type File = toolhost_sdk::File;
    fn stat(&self, path: &str) -> Result<Option<PathStat>, ToolError> {
        toolhost_sdk::stat(path)
    }
    fn open(&self, path: &str) -> Result<Self::File, ToolError> {
        toolhost_sdk::open_file(path)
    }
    fn cancelled(&self) -> bool {
        toolhost_sdk::cancelled()
    }
}

/// The error a cancelled call ends with.
pub fn cancelled_error() -> Halt {
    Halt::Error(ToolError::cancelled(toolhost_sdk::scan::CANCELLED))
}

/// A source to render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewSource {
    /// Its text.
    pub text: String,
    /// Its size in bytes (as read, or of the inline content).
    pub bytes: u64,
    /// The file's display path; none for inline content.
    pub path: Option<String>,
}

/// `path`'s stat, refusing what is not a regular file.
pub fn stat_file<H: HostSource>(host: &H, path: &str) -> Result<PathStat, Halt> {
    match host.stat(path).map_err(from_host)? {
        None => Err(Failure::new(ErrorKind::NotFound, format!("no file at {path}")).into()),
        Some(s) if s.kind == EntryKind::Directory => Err(Failure::new(
            ErrorKind::InvalidInput,
            format!("{path} is a directory; workspace_preview previews one file"),
        )
        .into()),
        Some(s) if s.kind != EntryKind::File => Err(Failure::new(
            ErrorKind::UnsupportedContent,
            format!("{path} is not a regular file"),
        )
        .into()),
        Some(s) => Ok(s),
    }
}

fn too_large(what: &str, bytes: u64) -> Halt {
    Failure::new(
        ErrorKind::UnsupportedContent,
        format!(
            "{what} is {bytes} bytes; workspace_preview renders sources of at most \
             {PREVIEW_MAX_SOURCE_BYTES} bytes (8 MiB)"
        ),
    )
    .into()
}

/// The source of a `markdown` or `html` preview: the file at `path` when given (read whole,
/// at most [`PREVIEW_MAX_SOURCE_BYTES`], UTF-8 without NUL bytes), else `content`.
pub fn load_text<H: HostSource>(
    host: &H,
    path: Option<&str>,
    content: Option<&str>,
    format: &str,
) -> Result<PreviewSource, Halt> {
    let Some(path) = path else {
        let text = content.unwrap_or_default();
        if text.len() > PREVIEW_MAX_SOURCE_BYTES {
            return Err(too_large("content", text.len() as u64));
        }
        return Ok(PreviewSource { text: text.to_owned(), bytes: text.len() as u64, path: None });
    };
    let stat = stat_file(host, path)?;
    if stat.size > PREVIEW_MAX_SOURCE_BYTES as u64 {
        return Err(too_large(path, stat.size));
    }
    let mut file = host.open(path).map_err(from_host)?;
    let shown = file.display_path();
    let mut bytes = Vec::with_capacity(stat.size as usize);
    loop {
        if host.cancelled() {
            return Err(cancelled_error());
        }
        let chunk = file.read(READ_CHUNK_BYTES).map_err(from_host)?;
        if chunk.is_empty() {
            break;
        }
        bytes.extend_from_slice(&chunk);
        if bytes.len() > PREVIEW_MAX_SOURCE_BYTES {
            return Err(too_large(&shown, bytes.len() as u64));
        }
    }
    let size = bytes.len() as u64;
    let text = decode(bytes, &shown, format)?;
    Ok(PreviewSource { text, bytes: size, path: Some(shown) })
}

/// `bytes` as text, or why they are not: a NUL byte (binary) or invalid UTF-8. A leading
/// byte-order mark is dropped.
pub fn decode(bytes: Vec<u8>, shown: &str, format: &str) -> Result<String, Halt> {
    let unsupported = |why: String| -> Halt {
        Failure::new(
            ErrorKind::UnsupportedContent,
            format!("{shown} {why}; the {format} preview needs UTF-8 text (try artifact_summary)"),
        )
        .into()
    };
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        return Err(unsupported(format!("looks binary (a NUL byte at offset {at})")));
    }
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.drain(..3);
            }
            Ok(text)
        }
        Err(e) => Err(unsupported(format!(
            "is not valid UTF-8 (an invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))),
    }
}

#[cfg(test)]
pub mod fake {
    //! An in-memory [`HostSource`] for tests.

    use super::*;
    use std::cell::Cell;
    use std::collections::BTreeMap;

    /// Files by path, with optional denied paths and a cancel flag.
    #[derive(Default)]
    pub struct FakeHost {
        pub files: BTreeMap<String, (Vec<u8>, Option<u64>)>,
        pub dirs: Vec<String>,
        pub denied: Vec<String>,
        pub cancel: Cell<bool>,
        /// Bytes served per `read`, to exercise chunking.
        pub chunk: usize,
    }

    impl FakeHost {
        /// A host with one file.
        pub fn with(path: &str, bytes: &[u8]) -> Self {
            let mut host = FakeHost { chunk: 7 * 1024, ..Default::default() };
            host.files.insert(path.to_owned(), (bytes.to_vec(), Some(1_764_921_600_000)));
            host
        }
    }

    /// A reader over a copy of a file's bytes.
    pub struct FakeFile {
        path: String,
        bytes: Vec<u8>,
        at: usize,
        chunk: usize,
    }

    impl Reader for FakeFile {
        fn display_path(&self) -> String {
            self.path.clone()
        }
        fn read(&mut self, max: u32) -> Result<Vec<u8>, ToolError> {
            let end = (self.at + self.chunk.min(max as usize)).min(self.bytes.len());
            let out = self.bytes[self.at..end].to_vec();
            self.at = end;
            Ok(out)
        }
    }

    impl HostSource for FakeHost {
        type File = FakeFile;
        fn stat(&self, path: &str) -> Result<Option<PathStat>, ToolError> {
            if self.denied.iter().any(|d| d == path) {
                return Err(ToolError::permission_denied(format!(
                    "{path} is outside the workspace"
                )));
            }
            if self.dirs.iter().any(|d| d == path) {
                return Ok(Some(PathStat {
                    kind: EntryKind::Directory,
                    size: 0,
                    modified_ms: None,
                }));
            }
            Ok(self.files.get(path).map(|(b, m)| PathStat {
                kind: EntryKind::File,
                size: b.len() as u64,
                modified_ms: *m,
            }))
        }
        fn open(&self, path: &str) -> Result<FakeFile, ToolError> {
            let (bytes, _) =
                self.files.get(path).ok_or_else(|| ToolError::execution_failed("gone"))?;
            Ok(FakeFile {
                path: path.to_owned(),
                bytes: bytes.clone(),
                at: 0,
                chunk: self.chunk.max(1),
            })
        }
        fn cancelled(&self) -> bool {
            self.cancel.get()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fake::FakeHost;
    use super::*;

    fn failure(r: Result<PreviewSource, Halt>) -> Failure {
        match r {
            Err(Halt::Failed(f)) => f,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn a_file_is_read_whole_across_chunks() {
        let text = "# T\n".repeat(10_000);
        let host = FakeHost::with("a.md", text.as_bytes());
        let s = load_text(&host, Some("a.md"), Some("ignored"), "markdown").unwrap();
        assert_eq!(s.text, text);
        assert_eq!(s.bytes, text.len() as u64);
        assert_eq!(s.path.as_deref(), Some("a.md"));
    }

    #[test]
    fn inline_content_has_no_path() {
        let s = load_text(&FakeHost::default(), None, Some("hi"), "markdown").unwrap();
        assert_eq!((s.text.as_str(), s.bytes, s.path), ("hi", 2, None));
    }

    #[test]
    fn failures_have_kinds() {
        let mut host = FakeHost::with("bin", b"PK\x03\x04\0\0");
        host.files.insert("latin1".into(), (b"caf\xe9".to_vec(), None));
        host.files.insert("bom".into(), ("\u{feff}x".as_bytes().to_vec(), None));
        host.dirs.push("d".into());
        host.denied.push("../x".into());
        let kind = |p: &str| failure(load_text(&host, Some(p), None, "html")).kind;
        assert_eq!(kind("nope"), ErrorKind::NotFound);
        assert_eq!(kind("d"), ErrorKind::InvalidInput);
        assert_eq!(kind("../x"), ErrorKind::PathDenied);
        assert_eq!(kind("bin"), ErrorKind::UnsupportedContent);
        let f = failure(load_text(&host, Some("latin1"), None, "html"));
        assert!(
            f.message.contains("not valid UTF-8 (an invalid byte at offset 3)"),
            "{}",
            f.message
        );
        assert_eq!(load_text(&host, Some("bom"), None, "html").unwrap().text, "x");
    }

    #[test]
    fn too_large_sources_are_refused() {
        let big = vec![b'a'; PREVIEW_MAX_SOURCE_BYTES + 1];
        let host = FakeHost::with("big.md", &big);
        let f = failure(load_text(&host, Some("big.md"), None, "markdown"));
        assert_eq!(f.kind, ErrorKind::UnsupportedContent);
        assert!(f.message.contains("at most 8388608 bytes"), "{}", f.message);
        let inline = String::from_utf8(big).unwrap();
        let f = failure(load_text(&host, None, Some(&inline), "markdown"));
        assert_eq!(f.kind, ErrorKind::UnsupportedContent);
    }

    #[test]
    fn cancellation_is_the_host_error() {
        let host = FakeHost::with("a.md", b"x");
        host.cancel.set(true);
        match load_text(&host, Some("a.md"), None, "markdown") {
            Err(Halt::Error(e)) => assert_eq!(e.code, toolhost_sdk::ErrorCode::Cancelled),
            other => panic!("{other:?}"),
        }
    }
}
