//! A recursive walk of a directory for the file tools (grep, glob): what ripgrep and fd
//! would visit, reached the way the host reaches every path.
//!
//! [`walk`] reads directories on a few threads. Each directory is opened by its real path
//! without following a symlink anywhere in it ([`crate::open::open_with`]), listed once, and
//! its entries judged: a name the ignore rules of it and the directories above it ignore
//! ([`ignore_rules`]) is skipped, and so is a hidden name (a leading `.`) no `!` rule keeps.
//! What is left goes to the caller's visitor as an [`Entry`] (the path, the kind the listing
//! gave, never a symlink's target); a directory the visitor lets through is walked in turn.
//! Symlinks are never followed: a symlink is an entry of its own kind, and a directory
//! swapped for one after it was listed is not opened.
//!
//! An entry's modification time comes from its directory's descriptor
//! ([`Entry::modified_ms`]): one `fstatat` of the name alone, no path lookup from the root.

mod ignore_rules;

use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use ignore_rules::{Listed, Rules, Verdict};

/// What a directory entry is, as its directory's listing says (a symlink is not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

/// One entry a walk visits.
pub struct Entry<'a> {
    /// The walk root joined with the names read on the way.
    pub path: &'a Path,
    /// Its name in its directory.
    pub name: &'a OsStr,
    pub kind: Kind,
    /// Its directory, as opened when it was listed (none for the walk root).
    dir: Option<&'a File>,
}

impl Entry<'_> {
    /// The modification time (ms since the epoch, when it has one) of this entry if it is
    /// still a regular file in the directory it was listed in; an error otherwise (the walk
    /// root included: it was not listed).
    pub fn modified_ms(&self) -> std::io::Result<Option<u64>> {
        let dir = self.dir.ok_or_else(|| std::io::Error::from_raw_os_error(libc::EISDIR))?;
        crate::open::file_mtime_at(dir, self.name)
    }
}

/// What a visitor wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// Do not walk this directory.
    Skip,
    /// End the walk (on every thread).
    Quit,
}

/// A directory waiting to be read, with the rules of the directories above it.
struct Job {
    path: PathBuf,
    rules: Option<Arc<Rules>>,
}

/// The directories waiting, and how many are being read (the walk ends when both are none).
struct Queue {
    jobs: Vec<Job>,
    busy: usize,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
    quit: AtomicBool,
}

/// Walk the directory `root` (a real path) on `threads` threads (the calling one among
/// them), each with its own visitor from `visitor`; returns when the walk is over. The root
/// is visited first, as a [`Kind::Dir`] entry; a root that cannot be opened without
/// following a symlink, or listed, yields nothing more.
pub fn walk<M, V>(root: &Path, threads: usize, visitor: M)
where
    M: Fn() -> V + Sync,
    V: FnMut(&Entry) -> Flow,
{
    let name = root.file_name().unwrap_or(OsStr::new("/"));
    if visitor()(&Entry { path: root, name, kind: Kind::Dir, dir: None }) != Flow::Continue {
        return;
    }
    let shared = Shared {
        queue: Mutex::new(Queue {
            jobs: vec![Job { path: root.to_path_buf(), rules: ignore_rules::ancestors(root) }],
            busy: 0,
        }),
        ready: Condvar::new(),
        quit: AtomicBool::new(false),
    };
    std::thread::scope(|scope| {
        for _ in 1..threads.max(1) {
            scope.spawn(|| work(&shared, visitor()));
        }
        work(&shared, visitor());
    });
}

/// One thread's part: take a directory, read it, queue the directories found, until none
/// is left and none is being read (or the walk quits).
fn work<V: FnMut(&Entry) -> Flow>(shared: &Shared, mut visitor: V) {
    let lock = || shared.queue.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let job = {
            let mut queue = lock();
            loop {
                if shared.quit.load(Ordering::Relaxed) {
                    shared.ready.notify_all();
                    return;
                }
                if let Some(job) = queue.jobs.pop() {
                    queue.busy += 1;
                    break job;
                }
                if queue.busy == 0 {
                    shared.ready.notify_all();
                    return;
                }
                queue = shared.ready.wait(queue).unwrap_or_else(|e| e.into_inner());
            }
        };
        let found = read_dir(&job, &mut visitor, &shared.quit);
        let mut queue = lock();
        queue.busy -= 1;
        let woken = found.len();
        queue.jobs.extend(found);
        if woken > 1 || queue.busy == 0 || shared.quit.load(Ordering::Relaxed) {
            shared.ready.notify_all();
        } else if woken == 1 {
            shared.ready.notify_one();
        }
    }
}

/// A directory's listing: the names back to back, and where each is.
struct Listing {
    names: Vec<u8>,
    entries: Vec<(usize, usize, u8)>,
}

/// List the directory open as `dir` (through a duplicate of its descriptor, which
/// `closedir` closes).
fn list(dir: &File) -> Option<Listing> {
    use std::os::fd::AsRawFd;
    // SAFETY: duplicating a live descriptor; the duplicate is owned by the DIR below.
    let dup = unsafe { libc::fcntl(dir.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) };
    if dup < 0 {
        return None;
    }
    // SAFETY: `dup` is a directory descriptor nothing else owns; on failure it is closed.
    let stream = unsafe { libc::fdopendir(dup) };
    if stream.is_null() {
        // SAFETY: still ours when fdopendir failed.
        unsafe { libc::close(dup) };
        return None;
    }
    let mut listing = Listing { names: Vec::with_capacity(4096), entries: Vec::with_capacity(64) };
    loop {
        // SAFETY: a live DIR stream; the entry is read before the next call.
        let entry = unsafe { libc::readdir(stream) };
        if entry.is_null() {
            break;
        }
        // SAFETY: readdir returned a valid entry whose name is NUL-terminated.
        let (name, kind) = unsafe {
            (std::ffi::CStr::from_ptr((*entry).d_name.as_ptr()).to_bytes(), (*entry).d_type)
        };
        if name == b"." || name == b".." {
            continue;
        }
        listing.entries.push((listing.names.len(), name.len(), kind));
        listing.names.extend_from_slice(name);
    }
    // SAFETY: closing the stream we opened (and its descriptor).
    unsafe { libc::closedir(stream) };
    Some(listing)
}

/// The kind of the entry `name` in `dir` from its listing's type, asking the filesystem
/// (without following a symlink) when the listing does not say.
fn kind_of(dir: &File, name: &[u8], d_type: u8) -> Option<Kind> {
    Some(match d_type {
        libc::DT_REG => Kind::File,
        libc::DT_DIR => Kind::Dir,
        libc::DT_LNK => Kind::Symlink,
        libc::DT_UNKNOWN => {
            let st = crate::open::stat_at(dir, OsStr::from_bytes(name)).ok()?;
            match st.st_mode & libc::S_IFMT {
                libc::S_IFREG => Kind::File,
                libc::S_IFDIR => Kind::Dir,
                libc::S_IFLNK => Kind::Symlink,
                _ => Kind::Other,
            }
        }
        _ => Kind::Other,
    })
}

/// Read the directory of `job`: visit each entry its rules and the hidden rule let through,
/// and return the directories to walk next.
fn read_dir<V: FnMut(&Entry) -> Flow>(job: &Job, visitor: &mut V, quit: &AtomicBool) -> Vec<Job> {
    let Ok(dir) =
        crate::open::open_with(&job.path, libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NONBLOCK)
    else {
        return Vec::new();
    };
    let Some(listing) = list(&dir) else { return Vec::new() };
    let mut listed = Listed::default();
    for &(at, len, _) in &listing.entries {
        listed.note(&listing.names[at..at + len]);
    }
    let rules = Rules::child(job.rules.as_ref(), &job.path, &dir, listed);
    let mut path = job.path.as_os_str().as_bytes().to_vec();
    if !path.ends_with(b"/") {
        path.push(b'/');
    }
    let base = path.len();
    let mut next = Vec::new();
    for &(at, len, d_type) in &listing.entries {
        if quit.load(Ordering::Relaxed) {
            break;
        }
        let name = &listing.names[at..at + len];
        let Some(kind) = kind_of(&dir, name, d_type) else { continue };
        path.truncate(base);
        path.extend_from_slice(name);
        let full = Path::new(OsStr::from_bytes(&path));
        let verdict = rules.as_ref().map_or(Verdict::None, |r| r.verdict(full, kind == Kind::Dir));
        if verdict == Verdict::Ignore || (verdict == Verdict::None && name.starts_with(b".")) {
            continue;
        }
        let entry = Entry { path: full, name: OsStr::from_bytes(name), kind, dir: Some(&dir) };
        match visitor(&entry) {
            Flow::Quit => {
                quit.store(true, Ordering::Relaxed);
                break;
            }
            Flow::Continue if kind == Kind::Dir => {
                next.push(Job { path: full.to_path_buf(), rules: rules.clone() })
            }
            _ => {}
        }
    }
    next
}

#[cfg(test)]
mod tests;
