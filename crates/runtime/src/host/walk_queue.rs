//! A walk's queue of found files: walker threads ([`toolhost_core::walk`]) only find files,
//! judge them against the policy and the globs, and queue their paths in chunks of
//! [`WALK_CHUNK`]; the instance that takes a file opens and reads it itself (`walked`), on its
//! own thread, right before the component searches it. In a parallel call the instances
//! share one queue of the same root and options ([`super::CallShare`], keyed by [`WalkKey`]).
//! The `walker` resource over it is `walk`'s.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use toolhost_core::display::quote_path;
use toolhost_core::fence::display_path;
use toolhost_core::open::open_regular;
use toolhost_policy::{Access, Actor};

use crate::wit::latest::toolhost::tool::workspace;

/// Files a walk delivers per batch.
pub const WALK_BATCH: usize = 256;

/// A walked file larger than this comes without contents (grep then streams it through
/// `open-file`, a chunk at a time).
pub const MAX_WALK_CONTENT_BYTES: u64 = 64 * 1024 * 1024;

/// A batch stops growing past this many bytes of contents: small enough that what was just
/// read is still in the CPU's cache when the guest searches it, and one batch fits the
/// guest's memory cap however large the files are.
pub const WALK_BATCH_BYTES: usize = 1024 * 1024;

/// Found files a walker thread hands over at once (one wake-up of a waiting instance per
/// this many files, not one per file).
const WALK_CHUNK: usize = 128;

/// Found files an instance takes from the shared queue at once (and then reads without
/// holding it): instances taking one file each would hand the queue's lock back and forth,
/// waking each other per file.
const WALK_TAKE: usize = 32;

/// Chunks queued ahead of the component (paths only: contents are read by the instance
/// that takes the file, so a walk's memory is this many chunks of paths plus one batch per
/// instance).
pub const WALK_QUEUE_CHUNKS: usize = 16;

/// A file the walk found, not yet read.
pub(super) struct Found {
    path: PathBuf,
    /// The path as results show it (relative to the workspace when inside it).
    display: String,
    /// The modification time, when the walk read it (walks without contents).
    modified_ms: Option<u64>,
}

/// A walk's queue of found files.
pub(super) struct WalkQueue {
    chunks: tokio::sync::mpsc::Receiver<Vec<Found>>,
    /// The files of the chunk being taken from, last first.
    current: Vec<Found>,
}

impl WalkQueue {
    /// Up to [`WALK_TAKE`] found files, last first, waiting for some when `wait`; empty once
    /// the walk is over (or when none is ready and `wait` is false).
    pub(super) async fn take(&mut self, wait: bool) -> Vec<Found> {
        if self.current.is_empty() {
            let chunk = if wait { self.chunks.recv().await } else { self.chunks.try_recv().ok() };
            let Some(mut chunk) = chunk else { return Vec::new() };
            chunk.reverse();
            self.current = chunk;
        }
        let keep = self.current.len().saturating_sub(WALK_TAKE);
        self.current.split_off(keep)
    }
}

/// One walker thread's files, handed to the queue [`WALK_CHUNK`] at a time and the rest
/// when the thread is done (dropped).
struct ChunkSender {
    tx: tokio::sync::mpsc::Sender<Vec<Found>>,
    chunk: Vec<Found>,
}

impl ChunkSender {
    /// Queue `found`; false once nobody takes files any more.
    fn send(&mut self, found: Found) -> bool {
        self.chunk.push(found);
        if self.chunk.len() < WALK_CHUNK {
            return true;
        }
        let chunk = std::mem::replace(&mut self.chunk, Vec::with_capacity(WALK_CHUNK));
        self.tx.blocking_send(chunk).is_ok()
    }
}

impl Drop for ChunkSender {
    fn drop(&mut self) {
        if !self.chunk.is_empty() {
            let _ = self.tx.blocking_send(std::mem::take(&mut self.chunk));
        }
    }
}

/// The walked file for `found`, with its contents read when `with_contents`.
pub(super) fn walked(found: Found, with_contents: bool) -> workspace::WalkedFile {
    if !with_contents {
        return workspace::WalkedFile {
            path: found.display,
            modified_ms: found.modified_ms,
            contents: None,
        };
    }
    // Open first and ask the open file (fstat): no second path lookup.
    let (modified_ms, contents) = match open_regular(&found.path) {
        Ok((mut file, meta)) if meta.len() <= MAX_WALK_CONTENT_BYTES => {
            (modified_millis(&meta), read_walked(&mut file, meta.len()))
        }
        Ok((_, meta)) => (modified_millis(&meta), None),
        Err(_) => (None, None),
    };
    workspace::WalkedFile { path: found.display, modified_ms, contents }
}

/// A file's modification time in milliseconds since the epoch, when it has one.
pub(super) fn modified_millis(meta: &std::fs::Metadata) -> Option<u64> {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as u64)
}

/// The contents of an opened walked file of `size` bytes (as `fstat` said when it was
/// opened), none past [`MAX_WALK_CONTENT_BYTES`]. The file is read straight into a buffer of
/// that size, so a file read whole takes one `read(2)`, however large (std's `read_to_end`
/// reads 8 KiB first, then probes for the end). A file that grew since is read up to
/// `size`; one that says it is empty (as some special files do) is read to its end.
fn read_walked(file: &mut std::fs::File, size: u64) -> Option<Vec<u8>> {
    use std::os::fd::AsRawFd;
    if size == 0 || size > MAX_WALK_CONTENT_BYTES {
        let mut bytes = Vec::new();
        file.take(MAX_WALK_CONTENT_BYTES + 1).read_to_end(&mut bytes).ok()?;
        return (bytes.len() as u64 <= MAX_WALK_CONTENT_BYTES).then_some(bytes);
    }
    let size = size as usize;
    let mut bytes: Vec<u8> = Vec::with_capacity(size);
    while bytes.len() < size {
        let want = size - bytes.len();
        let spare = &mut bytes.spare_capacity_mut()[..want];
        // SAFETY: the kernel writes at most `spare.len()` bytes into `spare`, memory this
        // Vec owns; `set_len` below covers only what it reported written.
        let n = unsafe { libc::read(file.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len()) };
        match n {
            0 => break,
            // SAFETY: the read initialised the `n` bytes after the current length, within
            // the capacity (`n <= want`).
            n if n > 0 => unsafe { bytes.set_len(bytes.len() + n as usize) },
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return None,
        }
    }
    Some(bytes)
}

/// Compile walk globs: `/`-separated and anchored at the walk root; a pattern without a
/// `/` (e.g. `*.rs`) matches a file name at any depth, as in ripgrep's `-g`.
pub(super) fn file_globs(globs: &[String]) -> Result<Option<globset::GlobSet>, String> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut set = globset::GlobSetBuilder::new();
    for glob in globs {
        // Globs match paths relative to the walk root: these could never match anything.
        if glob.is_empty() {
            return Err("glob is empty; pass a pattern such as **/*.rs".to_string());
        }
        if glob.starts_with('/') {
            return Err(format!(
                "glob {glob} is absolute, but globs match paths relative to the searched directory; \
                 pass that directory as path and a relative pattern (e.g. path \"/etc\", pattern \"*.conf\")"
            ));
        }
        if glob.split('/').any(|part| part == "..") {
            return Err(format!(
                "glob {glob} reaches above the searched directory; pass the directory above as path instead"
            ));
        }
        let patterns = if glob.contains('/') {
            vec![glob.trim_start_matches("./").to_string()]
        } else {
            vec![glob.clone(), format!("**/{glob}")]
        };
        for pattern in patterns {
            let g = globset::GlobBuilder::new(&pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| format!("invalid glob {glob}: {e}"))?;
            set.add(g);
        }
    }
    set.build().map(Some).map_err(|e| format!("invalid glob: {e}"))
}

/// Walk in background threads (in parallel, [`toolhost_core::walk`]) and queue the files
/// found; their contents are read later, by the instance that takes them ([`walked`]), on
/// its own thread, just before it searches them. Symlinks are not followed; paths the policy
/// will not let the tool read (the credential tier) are neither yielded nor descended into
/// (each entry is checked only when such a path can lie below the root:
/// `SandboxPolicy::reads_refusable_below`). Dropping the queue stops the walk.
pub(super) fn spawn_walk(
    root: PathBuf,
    matcher: Option<globset::GlobSet>,
    with_contents: bool,
    workspace: PathBuf,
    policy: toolhost_policy::SandboxPolicy,
) -> WalkQueue {
    use toolhost_core::walk::{Entry, Flow, Kind};
    let (tx, rx) = tokio::sync::mpsc::channel(WALK_QUEUE_CHUNKS);
    // Most walks (a workspace, a source tree) hold no location that refuses reads: then no
    // entry needs the policy's check, which would otherwise be a dozen path comparisons each.
    let check_each = policy.reads_refusable_below(&root);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    // No walked path is in the workspace when the root is neither in it nor above it.
    let never_inside = !root.starts_with(&workspace) && !workspace.starts_with(&root);
    std::thread::spawn(move || {
        toolhost_core::walk::walk(&root, threads, || {
            let mut sender = ChunkSender { tx: tx.clone(), chunk: Vec::with_capacity(WALK_CHUNK) };
            let (workspace, policy, root, matcher) = (&workspace, &policy, &root, &matcher);
            move |entry: &Entry| {
                let path = entry.path;
                if check_each && policy.check(path, Access::Read, Actor::FileTool).is_err() {
                    return Flow::Skip;
                }
                if entry.kind != Kind::File {
                    return Flow::Continue;
                }
                if let Some(m) = matcher {
                    let rel = below(path, root).unwrap_or(path);
                    if !m.is_match(rel) {
                        return Flow::Continue;
                    }
                }
                // With contents, the reader takes the mtime from the file it opens. Without,
                // the file must still be a regular file in the directory it was listed in.
                let modified_ms = if with_contents {
                    None
                } else {
                    match entry.modified_ms() {
                        Ok(ms) => ms,
                        Err(_) => return Flow::Continue,
                    }
                };
                let display = match below(path, workspace) {
                    Some(rel) => quote_path(&rel.to_string_lossy()).into_owned(),
                    // What display_path shows of a path outside the workspace, without its
                    // comparison of components.
                    None if never_inside => quote_path(&path.to_string_lossy()).into_owned(),
                    None => display_path(workspace, path),
                };
                let found = Found { path: path.to_path_buf(), display, modified_ms };
                if !sender.send(found) {
                    return Flow::Quit;
                }
                Flow::Continue
            }
        });
    });
    WalkQueue { chunks: rx, current: Vec::new() }
}

/// `path` below `base`, by slicing bytes: a walk builds every path as its root joined with
/// the names it read, so when the bytes of `base` and a `/` start `path`, the rest is what
/// `Path::strip_prefix` would give, without comparing component by component (a cost per
/// walked file). `None` when `path` is not below `base` that way (the caller falls back).
fn below<'p>(path: &'p std::path::Path, base: &std::path::Path) -> Option<&'p std::path::Path> {
    use std::os::unix::ffi::OsStrExt;
    let (p, b) = (path.as_os_str().as_bytes(), base.as_os_str().as_bytes());
    if b.is_empty()
        || b.ends_with(b"/")
        || p.len() <= b.len() + 1
        || !p.starts_with(b)
        || p[b.len()] != b'/'
    {
        return None;
    }
    Some(std::path::Path::new(std::ffi::OsStr::from_bytes(&p[b.len() + 1..])))
}

/// The walk options a shared walk is keyed by (with its root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct WalkKey {
    pub(super) root: PathBuf,
    pub(super) globs: Vec<String>,
    pub(super) with_contents: bool,
}

/// A walk's queue, taken from by every instance of the call that opened the same walk.
pub(super) type SharedQueue = Arc<tokio::sync::Mutex<WalkQueue>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_slices_what_strip_prefix_would_give() {
        use std::path::Path;
        for (path, base) in [
            ("/w/a/b.rs", "/w"),
            ("/w/a", "/w"),
            ("/wx/a", "/w"),
            ("/w", "/w"),
            ("/w/", "/w"),
            ("/", "/"),
            ("/w/a", "/w/"),
        ] {
            let (p, b) = (Path::new(path), Path::new(base));
            if let Some(rel) = below(p, b) {
                assert_eq!(Some(rel), p.strip_prefix(b).ok(), "{path} below {base}");
            }
        }
        assert_eq!(below(Path::new("/w/a/b.rs"), Path::new("/w")), Some(Path::new("a/b.rs")));
        assert_eq!(below(Path::new("/wx/a"), Path::new("/w")), None);
    }

    #[test]
    fn every_found_file_reaches_the_queue_once_in_takes_of_at_most_walk_take() {
        let (tx, rx) = tokio::sync::mpsc::channel(WALK_QUEUE_CHUNKS);
        let n = WALK_CHUNK * 3 + 5;
        std::thread::spawn(move || {
            let mut sender = ChunkSender { tx, chunk: Vec::new() };
            for i in 0..n {
                let found = Found {
                    path: PathBuf::from(format!("f{i}")),
                    display: format!("f{i}"),
                    modified_ms: None,
                };
                assert!(sender.send(found));
            }
            // The last 5 are handed over when the walker thread is done.
        });
        let mut queue = WalkQueue { chunks: rx, current: Vec::new() };
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let mut seen = Vec::new();
        runtime.block_on(async {
            loop {
                let taken = queue.take(true).await;
                if taken.is_empty() {
                    break;
                }
                assert!(taken.len() <= WALK_TAKE);
                seen.extend(taken.into_iter().rev().map(|f| f.display));
            }
        });
        assert_eq!(seen, (0..n).map(|i| format!("f{i}")).collect::<Vec<_>>());
    }

    #[test]
    fn globs_that_could_never_match_are_refused_with_what_to_do() {
        for (glob, says) in [
            ("", "is empty"),
            ("/etc/*", "is absolute"),
            ("../*.rs", "reaches above"),
            ("src/../../x", "reaches above"),
        ] {
            let e = file_globs(&[glob.to_string()]).unwrap_err();
            assert!(e.contains(says), "{glob:?}: {e}");
        }
        for fine in ["**/*.rs", "./src/*.ts", "a..b/*", "*.tar.gz"] {
            assert!(file_globs(&[fine.to_string()]).is_ok(), "{fine}");
        }
    }

    #[test]
    fn a_walked_file_is_read_as_fstat_saw_it() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.txt");
        std::fs::write(&plain, "ok").unwrap();
        let (mut file, meta) = open_regular(&plain).unwrap();
        assert_eq!(read_walked(&mut file, meta.len()).as_deref(), Some(&b"ok"[..]));
        // A file that grew after fstat is read as it was; one that claims to be empty, whole.
        let (mut file, meta) = open_regular(&plain).unwrap();
        std::fs::write(&plain, "ok, and more").unwrap();
        assert_eq!(read_walked(&mut file, meta.len()).as_deref(), Some(&b"ok"[..]));
        let (mut file, _) = open_regular(&plain).unwrap();
        assert_eq!(read_walked(&mut file, 0).as_deref(), Some(&b"ok, and more"[..]));
    }
}
