//! The ignore rules a walk honours: `.ignore`, `.gitignore` and `.git/info/exclude` in each
//! directory, those of the walk root's ancestors included, matched as ripgrep matches them
//! (the `ignore` crate's gitignore matcher; the precedence of its walker with `hidden`,
//! `git_ignore`, `git_exclude`, `ignore` and `parents` on and `require_git` off).
//!
//! The difference is how the files are reached: they are read by the host, outside every
//! sandbox, from directories the agent can write. So each is opened in its directory's
//! descriptor without following a symlink and without waiting on a FIFO, must be a regular
//! file, and is read up to [`MAX_IGNORE_FILE_BYTES`]. A symlinked ignore file is not read (to
//! a secret, its lines would become patterns, and which of the agent's files vanish would
//! spell them out; to `/dev/zero` the read would never end), nor a FIFO (the open would wait
//! forever). `.git/info/exclude` is read only under a `.git` that is a directory: a `.git`
//! file (a worktree's) names its git dir by a path the agent wrote, anywhere.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use toolhost_limits::MAX_IGNORE_FILE_BYTES;

use crate::open::{open_dir_at, open_regular_at};

/// Which ignore files a directory's listing shows (none is opened unless it is listed).
#[derive(Debug, Default, Clone, Copy)]
pub struct Listed {
    pub ignore: bool,
    pub gitignore: bool,
    pub git: bool,
}

impl Listed {
    /// All three, for a directory that was not listed (an ancestor of the walk root).
    pub const ALL: Listed = Listed { ignore: true, gitignore: true, git: true };

    /// Note `name` if it is one of the three.
    pub fn note(&mut self, name: &[u8]) {
        match name {
            b".ignore" => self.ignore = true,
            b".gitignore" => self.gitignore = true,
            b".git" => self.git = true,
            _ => {}
        }
    }
}

/// One directory's rules, and those of the directories above it.
#[derive(Debug)]
pub struct Rules {
    ignore: Gitignore,
    gitignore: Gitignore,
    exclude: Gitignore,
    parent: Option<Arc<Rules>>,
}

/// What the rules say of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No rule matches it.
    None,
    /// A rule ignores it.
    Ignore,
    /// A `!` rule keeps it (even a hidden name).
    Keep,
}

impl Rules {
    /// The rules below `parent` of the directory `dir` (open as `fd`) given what its listing
    /// shows; `parent` itself when the directory has no rules of its own.
    pub fn child(
        parent: Option<&Arc<Rules>>,
        dir: &Path,
        fd: &File,
        listed: Listed,
    ) -> Option<Arc<Rules>> {
        let ignore =
            if listed.ignore { read_rules(dir, fd, &[".ignore"]) } else { Gitignore::empty() };
        let gitignore = if listed.gitignore {
            read_rules(dir, fd, &[".gitignore"])
        } else {
            Gitignore::empty()
        };
        let exclude = if listed.git {
            read_rules(dir, fd, &[".git", "info", "exclude"])
        } else {
            Gitignore::empty()
        };
        if ignore.is_empty() && gitignore.is_empty() && exclude.is_empty() {
            return parent.cloned();
        }
        Some(Arc::new(Rules { ignore, gitignore, exclude, parent: parent.cloned() }))
    }

    /// The verdict on `path` (`is_dir`: whether it is a directory): for each kind of file, the
    /// nearest directory's match; a `.ignore` match wins over a `.gitignore` one, which wins
    /// over `.git/info/exclude`.
    pub fn verdict(self: &Arc<Rules>, path: &Path, is_dir: bool) -> Verdict {
        let (mut ignore, mut gitignore, mut exclude) =
            (Verdict::None, Verdict::None, Verdict::None);
        let mut level = Some(self);
        while let Some(rules) = level {
            for (found, matcher) in [
                (&mut ignore, &rules.ignore),
                (&mut gitignore, &rules.gitignore),
                (&mut exclude, &rules.exclude),
            ] {
                if *found == Verdict::None && !matcher.is_empty() {
                    let m = matcher.matched(path, is_dir);
                    *found = if m.is_ignore() {
                        Verdict::Ignore
                    } else if m.is_whitelist() {
                        Verdict::Keep
                    } else {
                        Verdict::None
                    };
                }
            }
            if ignore != Verdict::None && gitignore != Verdict::None && exclude != Verdict::None {
                break;
            }
            level = rules.parent.as_ref();
        }
        [ignore, gitignore, exclude]
            .into_iter()
            .find(|v| *v != Verdict::None)
            .unwrap_or(Verdict::None)
    }
}

/// The rules of the walk root's ancestors (from `/` down to its parent), each directory
/// opened without following a symlink; `None` when none has any.
pub fn ancestors(root: &Path) -> Option<Arc<Rules>> {
    let mut chain: Vec<&Path> = root.ancestors().skip(1).collect();
    chain.reverse();
    let mut rules = None;
    for dir in chain {
        let Ok(fd) =
            crate::open::open_with(dir, libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NONBLOCK)
        else {
            continue;
        };
        rules = Rules::child(rules.as_ref(), dir, &fd, Listed::ALL);
    }
    rules
}

/// The rules in the file at `names` (a path of names below `dir`, each opened in the one
/// before it without following a symlink), rooted at `dir`; empty when it cannot be read.
fn read_rules(dir: &Path, fd: &File, names: &[&str]) -> Gitignore {
    let Some(bytes) = read_ignore_file(fd, names) else { return Gitignore::empty() };
    let from: PathBuf = names.iter().fold(dir.to_path_buf(), |p, n| p.join(n));
    let mut builder = GitignoreBuilder::new(dir);
    // As `GitignoreBuilder::add` reads a file: lines split at `\n` (a `\r` before it
    // dropped), a UTF-8 byte-order mark before the first, a line that is not UTF-8 skipped,
    // a line that is not a valid glob skipped.
    let mut rest: &[u8] = &bytes;
    let mut first = true;
    while !rest.is_empty() {
        let (line, next) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (rest[..i].strip_suffix(b"\r").unwrap_or(&rest[..i]), &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        let Ok(line) = std::str::from_utf8(line) else {
            first = false;
            continue;
        };
        let line = if first { line.trim_start_matches('\u{feff}') } else { line };
        first = false;
        let _ = builder.add_line(Some(from.clone()), line);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// The bytes (up to [`MAX_IGNORE_FILE_BYTES`]) of the regular file at `names` below `fd`.
fn read_ignore_file(fd: &File, names: &[&str]) -> Option<Vec<u8>> {
    use std::io::Read;
    let (last, dirs) = names.split_last()?;
    let mut held: Option<File> = None;
    for name in dirs {
        let next = open_dir_at(held.as_ref().unwrap_or(fd), name.as_ref()).ok()?;
        held = Some(next);
    }
    let (file, _) = open_regular_at(held.as_ref().unwrap_or(fd), last.as_ref()).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_IGNORE_FILE_BYTES).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}
