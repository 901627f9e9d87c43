//! Git metadata: which entries of a git dir run code or redirect git when the user next runs
//! git outside the sandbox, how git's own discovery finds git dirs, and how a config is judged.
//!
//! A git dir is what git's discovery takes for one: a directory named `.git`, the directory a
//! `.git` *file* names (`gitdir: PATH`), the directory its `commondir` names, every
//! `worktrees/*` and `modules/**` git dir inside one — and **any directory that has the shape
//! of one** ([`has_git_dir_shape`]: a `HEAD` with `objects` and `refs`, or with a
//! `commondir`), whatever its name: git takes such a directory for a (bare) repository when
//! the user runs git in it or below it. In each, the [`PROTECTED_GIT_ENTRIES`] are
//! hard-protected: `config` (`core.fsmonitor`, `core.hooksPath`, aliases and filters run
//! commands), `config.worktree`, `hooks/`, `info/` (attributes select filters), `commondir`
//! and `gitdir` (they point git at another, possibly planted, git dir). Writing the entry that
//! would give a directory that shape is refused too ([`write_refusal`]): a repository is built
//! one file per call, so the state *after* each write is what is judged; a change of several
//! files at once (`workspace.commit-all`, undo and reapply) is judged as a whole
//! ([`change_refusal`]), on every entry that exists before it or after it, so no order of its
//! parts lays out a repository either.
//!
//! Git's own state — [`GIT_STATE_ENTRIES`]: `HEAD`, `refs/`, `objects/`, `packed-refs`,
//! `index` — runs no code, but a file tool that deletes or rewrites one breaks the repository
//! or points `HEAD` anywhere. No file tool, undo or reapply writes it ([`is_git_state`]); bash
//! may, because git itself writes it on every commit, and bash's sweep puts back a `HEAD`
//! that a call deleted or turned into something else than a file (`toolhost_sandbox`'s
//! protected-entry scan).
//!
//! A config that bash created is kept only when git's own parser, over the whole file, finds
//! nothing but [`INERT_CONFIG_KEYS`] in it ([`is_inert_new_entry`]); never a hand-written
//! scanner or a prefix of the file.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The entries of a git dir that are never writable by a tool or bash.
pub const PROTECTED_GIT_ENTRIES: &[&str] =
    &["config", "config.worktree", "hooks", "info", "commondir", "gitdir"];

/// The entries of a git dir that hold git's own state: which commit is checked out, the refs,
/// the objects and the index. Written by git alone: never by a file tool, undo or reapply.
pub const GIT_STATE_ENTRIES: &[&str] = &["HEAD", "refs", "objects", "packed-refs", "index"];

/// The entries whose presence gives a directory the shape of a git dir to git's discovery
/// (`setup.c`'s `is_git_directory`: `HEAD`, and `objects` and `refs` — found through
/// `commondir` when there is one).
pub const GIT_DIR_SHAPE_ENTRIES: &[&str] = &["HEAD", "objects", "refs", "commondir"];

/// Whether `dir` has the shape git's discovery takes for a git dir, counting `extra` (a
/// name about to be created in it) as present: a `HEAD` and either a `commondir` or both
/// `objects` and `refs`. Judged by presence alone (any file type, `HEAD`'s content unread),
/// which is stricter than git: every directory git accepts has this shape.
pub fn has_git_dir_shape(dir: &Path, extra: Option<&OsStr>) -> bool {
    let has =
        |name: &str| extra == Some(OsStr::new(name)) || dir.join(name).symlink_metadata().is_ok();
    has("HEAD") && (has("commondir") || (has("objects") && has("refs")))
}

/// Why a write of a path is git metadata, judged on disk ([`write_refusal`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitWriteRefusal {
    /// The path is (or lies below) a protected entry of a git dir found by its shape.
    Metadata {
        /// The git dir.
        git_dir: PathBuf,
    },
    /// Creating the path would give `dir` the shape of a git dir.
    WouldMakeRepository {
        /// The directory that would become a repository.
        dir: PathBuf,
    },
}

/// Whether writing (creating or changing) the real path `path` is refused as git metadata
/// beyond what [`is_git_metadata`] says by name: a [`PROTECTED_GIT_ENTRIES`] or
/// [`GIT_STATE_ENTRIES`] entry (or below one) of a directory that has the shape of a git dir, or an entry whose creation
/// would give its directory that shape (the `HEAD`, `objects`, `refs` or `commondir` that
/// completes it, or anything inside a not yet existing `objects`/`refs` that would). A
/// directory named `.git` may still be completed: its protected entries are refused by name.
/// One `lstat` per path component with one of those names, so cheap on every write.
pub fn write_refusal(path: &Path) -> Option<GitWriteRefusal> {
    refusal_protecting(path, true)
}

/// [`write_refusal`], with a shaped directory's [`GIT_STATE_ENTRIES`] protected only when
/// `state` is set (bash may write git's state: [`runs_or_redirects_git`]).
fn refusal_protecting(path: &Path, state: bool) -> Option<GitWriteRefusal> {
    let mut dir = PathBuf::new();
    let mut below_new = false;
    for comp in path.components() {
        let name = comp.as_os_str();
        if matches!(comp, std::path::Component::Normal(_)) && !below_new {
            let protected = PROTECTED_GIT_ENTRIES.iter().any(|e| name == *e)
                || state && GIT_STATE_ENTRIES.iter().any(|e| name == *e);
            let shape = GIT_DIR_SHAPE_ENTRIES.iter().any(|e| name == *e);
            if protected && has_git_dir_shape(&dir, None) {
                return Some(GitWriteRefusal::Metadata { git_dir: dir });
            }
            if shape {
                let child = dir.join(name);
                let exists = child.symlink_metadata().is_ok();
                if !exists
                    && dir.file_name() != Some(OsStr::new(".git"))
                    && !has_git_dir_shape(&dir, None)
                    && has_git_dir_shape(&dir, Some(name))
                {
                    return Some(GitWriteRefusal::WouldMakeRepository { dir });
                }
            }
        }
        dir.push(name);
        // Below a component that does not exist yet nothing exists: no more lookups.
        if !below_new && dir.parent().is_some() && dir.symlink_metadata().is_err() {
            below_new = true;
        }
    }
    None
}

/// Whether `path` is git metadata by name: an entry named `.git` itself (a git dir, or a
/// `.git` file that points elsewhere), or a [`PROTECTED_GIT_ENTRIES`] name anywhere below a
/// `.git` component (`.git/config`, `.git/worktrees/w/commondir`, `.git/modules/m/hooks/x`).
pub fn is_git_metadata(path: &Path) -> bool {
    below_dot_git_named(path, PROTECTED_GIT_ENTRIES)
        || path.components().next_back().is_some_and(|l| l.as_os_str() == ".git")
}

/// Whether `path` is git's own state by name: a [`GIT_STATE_ENTRIES`] name anywhere below a
/// `.git` component (`.git/HEAD`, `.git/refs/heads/main`, `.git/worktrees/w/index`).
pub fn is_git_state(path: &Path) -> bool {
    below_dot_git_named(path, GIT_STATE_ENTRIES)
}

/// Whether no file tool, undo, reapply or recovery may write `path` because it is git's: git
/// metadata or git's own state by name ([`is_git_metadata`], [`is_git_state`]), or an entry
/// of a directory that has a git dir's shape ([`write_refusal`]'s `Metadata`).
pub fn is_owned_by_git(path: &Path) -> bool {
    is_git_metadata(path)
        || is_git_state(path)
        || matches!(write_refusal(path), Some(GitWriteRefusal::Metadata { .. }))
}

/// Whether bash may not write `path` because it is git's: git metadata that runs code or
/// redirects git ([`is_git_metadata`], or a protected entry of a directory shaped like a git
/// dir). Git's own state is not among them: git writes it on every commit, and bash's sweep
/// puts back a `HEAD` a call removed.
pub fn runs_or_redirects_git(path: &Path) -> bool {
    is_git_metadata(path)
        || matches!(refusal_protecting(path, false), Some(GitWriteRefusal::Metadata { .. }))
}

/// Whether a component of `path` below a `.git` component is one of `names`.
fn below_dot_git_named(path: &Path, names: &[&str]) -> bool {
    let mut below_git = false;
    for part in path.components().map(|c| c.as_os_str()) {
        if below_git && names.iter().any(|e| part == *e) {
            return true;
        }
        if part == ".git" {
            below_git = true;
        }
    }
    false
}

/// Why a change that writes all of `writes` (real paths, created or changed, in any order) is
/// refused as git metadata, judged as a whole: on the entries that exist before the change
/// *or* after it (every state its parts could pass through, in any order). A directory not
/// named `.git` that would have a git dir's shape ([`has_git_dir_shape`]) and one of its
/// [`GIT_DIR_SHAPE_ENTRIES`], [`GIT_STATE_ENTRIES`] or [`PROTECTED_GIT_ENTRIES`] written by
/// the change: [`GitWriteRefusal::WouldMakeRepository`] when it has no such shape on disk,
/// [`GitWriteRefusal::Metadata`] when it has. The first refused path and why.
pub fn change_refusal(writes: &[&Path]) -> Option<(PathBuf, GitWriteRefusal)> {
    use std::collections::HashSet;
    let mut made: HashSet<&Path> = HashSet::new();
    for w in writes {
        made.extend(w.ancestors());
    }
    let present = |p: &Path| made.contains(p) || p.symlink_metadata().is_ok();
    let shaped_after = |dir: &Path| {
        let has = |name: &str| present(&dir.join(name));
        has("HEAD") && (has("commondir") || (has("objects") && has("refs")))
    };
    for w in writes {
        let mut dir = PathBuf::new();
        for comp in w.components() {
            let name = comp.as_os_str();
            let git_entry = [GIT_DIR_SHAPE_ENTRIES, GIT_STATE_ENTRIES, PROTECTED_GIT_ENTRIES]
                .iter()
                .any(|list| list.iter().any(|e| name == *e));
            if matches!(comp, std::path::Component::Normal(_))
                && git_entry
                && dir.file_name() != Some(OsStr::new(".git"))
                && shaped_after(&dir)
            {
                let why = if has_git_dir_shape(&dir, None) {
                    GitWriteRefusal::Metadata { git_dir: dir }
                } else {
                    GitWriteRefusal::WouldMakeRepository { dir }
                };
                return Some((w.to_path_buf(), why));
            }
            dir.push(name);
        }
    }
    None
}

/// The git dir a `.git` file names (`gitdir: PATH`, relative to the file's directory), if it
/// is one.
pub fn gitdir_of_file(dot_git_file: &Path) -> Option<PathBuf> {
    let text = read_small(dot_git_file)?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    if target.is_empty() {
        return None;
    }
    Some(dot_git_file.parent()?.join(target))
}

/// The directory a git dir's `commondir` names, if it has one.
pub fn commondir_of(git_dir: &Path) -> Option<PathBuf> {
    let text = read_small(&git_dir.join("commondir"))?;
    let target = text.lines().next()?.trim();
    if target.is_empty() {
        return None;
    }
    Some(git_dir.join(target))
}

/// The git dirs nested in `git_dir`: `worktrees/*` and every directory under `modules/` that
/// holds a `HEAD` (submodules may nest). Bounded by `budget` entries.
pub fn nested_git_dirs(git_dir: &Path, budget: &mut usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(git_dir.join("worktrees")) {
        for e in entries.flatten() {
            *budget = budget.saturating_sub(1);
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                out.push(e.path());
            }
        }
    }
    let mut stack = vec![git_dir.join("modules")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            if *budget == 0 {
                return out;
            }
            *budget -= 1;
            if !e.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let p = e.path();
            if p.join("HEAD").is_file() {
                out.push(p.clone());
                stack.push(p.join("modules"));
            } else {
                stack.push(p);
            }
        }
    }
    out
}

/// Keys a new repository's `config` may hold and stay inert (what `git init` and `git clone`
/// write): `(section, key)`, with `*` for a subsection of any name. Anything else (`core.fsmonitor`,
/// `core.hooksPath`, `alias.*`, `filter.*`, `include.path`, `remote.*.uploadpack`, …) can run a
/// command at the user's next git command.
pub const INERT_CONFIG_KEYS: &[(&str, &str)] = &[
    ("core", "repositoryformatversion"),
    ("core", "filemode"),
    ("core", "bare"),
    ("core", "logallrefupdates"),
    ("core", "ignorecase"),
    ("core", "precomposeunicode"),
    ("core", "symlinks"),
    ("extensions", "objectformat"),
    ("extensions", "refstorage"),
    ("remote *", "url"),
    ("remote *", "fetch"),
    ("branch *", "remote"),
    ("branch *", "merge"),
];

/// Whether a git metadata entry bash *created* is inert, so that `git init` and `git clone`
/// keep working in bash: a `config` of only [`INERT_CONFIG_KEYS`], a `hooks/` of only
/// `*.sample` files (git never runs them), an `info/` of only `exclude`. Everything else
/// (`commondir`, `gitdir`, `config.worktree`, a `.git` file, a real hook) is not.
pub fn is_inert_new_entry(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return false };
    let Ok(meta) = path.symlink_metadata() else { return true };
    let only_files = |ok: &dyn Fn(&str) -> bool| {
        meta.is_dir()
            && std::fs::read_dir(path).is_ok_and(|entries| {
                entries.flatten().all(|e| {
                    e.file_type().is_ok_and(|t| t.is_file())
                        && e.file_name().to_str().is_some_and(ok)
                })
            })
    };
    match name {
        "hooks" => only_files(&|n| n.ends_with(".sample")),
        "info" => only_files(&|n| n == "exclude"),
        "config" => meta.is_file() && config_file_is_inert(path),
        _ => false,
    }
}

/// Whether the config file at `path` holds only [`INERT_CONFIG_KEYS`], as git's own parser
/// reads the whole file (`git config --file F --no-includes --list -z`, [`config_keys`]). Any
/// include (`include.*`, `includeIf.*`) is not inert; neither is a file git cannot parse, one
/// larger than [`toolhost_limits::MAX_GIT_CONFIG_JUDGE_BYTES`], nor any file when git cannot
/// be run: the judgement fails closed.
pub fn config_file_is_inert(path: &Path) -> bool {
    config_keys(path).is_ok_and(|keys| keys.iter().all(|k| key_is_inert(k)))
}

/// Whether one key as git prints it (`section.key` or `section.subsection.key`: section and
/// key lowercased by git, the subsection as written) is one of [`INERT_CONFIG_KEYS`].
fn key_is_inert(key: &str) -> bool {
    let Some((section, rest)) = key.split_once('.') else { return false };
    let (sub, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    INERT_CONFIG_KEYS.iter().any(|(s, k)| {
        let (sec, any_sub) = match s.strip_suffix(" *") {
            Some(sec) => (sec, true),
            None => (*s, false),
        };
        sec == section && *k == name && any_sub == sub.is_some()
    })
}

/// Why git's own parser could not list a config file's keys ([`config_keys`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigJudgeError {
    /// Not a regular file (a symlink, a directory, a FIFO) or not readable.
    #[error("{0} is not a regular file")]
    NotAFile(PathBuf),
    /// Larger than [`toolhost_limits::MAX_GIT_CONFIG_JUDGE_BYTES`].
    #[error("{0} is larger than toolhost judges")]
    TooLarge(PathBuf),
    /// No git was found in a fixed system location or an absolute `PATH` entry.
    #[error("no git to judge {0} with")]
    NoGit(PathBuf),
    /// git failed, refused the file or did not answer in time.
    #[error("git could not parse {0}")]
    Unparsed(PathBuf),
}

/// Every key of the config file at `path`, as git's own parser lists them, includes not
/// followed (`git config --file F --no-includes --list -z`, no system or global config, an
/// empty environment, bounded in time and output).
pub fn config_keys(path: &Path) -> Result<Vec<String>, ConfigJudgeError> {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let meta = path.symlink_metadata().map_err(|_| ConfigJudgeError::NotAFile(path.into()))?;
    if !meta.is_file() {
        return Err(ConfigJudgeError::NotAFile(path.into()));
    }
    if meta.len() > toolhost_limits::MAX_GIT_CONFIG_JUDGE_BYTES {
        return Err(ConfigJudgeError::TooLarge(path.into()));
    }
    let git = trusted_git().ok_or_else(|| ConfigJudgeError::NoGit(path.into()))?;
    let unparsed = || ConfigJudgeError::Unparsed(path.into());
    let mut child = Command::new(git)
        .args(["config", "--no-includes", "--list", "-z", "--file"])
        .arg(path)
        .env_clear()
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_SYSTEM", "/dev/null")
        .env("HOME", "/nonexistent")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|_| unparsed())?;
    let mut stdout = child.stdout.take().ok_or_else(unparsed)?;
    // Keys and values come out at most a few times the file's size; more is not a config.
    let bound = 4 * toolhost_limits::MAX_GIT_CONFIG_JUDGE_BYTES;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let r = (&mut stdout).take(bound + 1).read_to_end(&mut out);
        r.map(|_| out)
    });
    let deadline = std::time::Instant::now()
        + std::time::Duration::from_millis(toolhost_limits::GIT_CONFIG_JUDGE_TIMEOUT_MS);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(2))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(unparsed());
            }
        }
    };
    let out = reader.join().ok().and_then(Result::ok).ok_or_else(unparsed)?;
    if !status.success() || out.len() as u64 > bound {
        return Err(unparsed());
    }
    Ok(out
        .split(|b| *b == 0)
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            let key = entry.split(|b| *b == b'\n').next().unwrap_or_default();
            String::from_utf8_lossy(key).into_owned()
        })
        .collect())
}

/// The git that judges configs: the first executable `git` in a fixed system location, else
/// in an absolute `PATH` entry (a relative entry could name a program the workspace planted).
fn trusted_git() -> Option<&'static Path> {
    static GIT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    GIT.get_or_init(|| {
        use std::os::unix::fs::PermissionsExt;
        let fixed = ["/usr/bin/git", "/usr/local/bin/git", "/bin/git", "/opt/homebrew/bin/git"];
        let from_path = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .unwrap_or_default();
        fixed
            .iter()
            .map(PathBuf::from)
            .chain(from_path.into_iter().filter(|d| d.is_absolute()).map(|d| d.join("git")))
            .find(|p| {
                p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            })
    })
    .as_deref()
}

/// A small text file's content (git's pointer files are one line), without following a
/// symlink at the last component.
fn read_small(path: &Path) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(4096).read_to_string(&mut text).ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_metadata_by_name() {
        for p in [
            "/w/.git",
            "/w/sub/.git",
            "/w/.git/config",
            "/w/.git/config.worktree",
            "/w/.git/hooks",
            "/w/.git/hooks/pre-commit",
            "/w/.git/info/attributes",
            "/w/.git/commondir",
            "/w/.git/worktrees/w1/gitdir",
            "/w/.git/modules/m/config",
            "/w/node_modules/p/.git/hooks/x",
        ] {
            assert!(is_git_metadata(Path::new(p)), "{p}");
        }
        for p in [
            "/w/.git/HEAD",
            "/w/.git/objects/ab/cd",
            "/w/config",
            "/w/hooks/x",
            "/w/.github/config",
            "/w/.gitignore",
        ] {
            assert!(!is_git_metadata(Path::new(p)), "{p}");
        }
    }

    fn inert(text: &str) -> bool {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("config");
        std::fs::write(&f, text).unwrap();
        config_file_is_inert(&f)
    }

    #[test]
    fn only_what_git_init_and_clone_write_is_inert() {
        assert!(inert(
            "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n[remote \"origin\"]\n\turl = https://x/y\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"
        ));
        assert!(inert(""));
        // A continued line is one value, as git reads it: `core.bare` holding the rest.
        assert!(inert("[core]\n\tbare = false \\\n\tfsmonitor = evil\n"));
        let padded = format!("{}[core]\n\tfsmonitor = ./evil\n", "# pad\n".repeat(2000));
        for bad in [
            "[core]\n\tfsmonitor = ./evil\n",
            "[core]\n\thooksPath = /tmp/h\n",
            "[alias]\n\tst = !evil\n",
            "[include]\n\tpath = ../x\n",
            "[remote \"o\"]\n\tuploadpack = evil\n",
            "[core] fsmonitor = evil\n",
            "[core]\n\tworktree = .\n",
            "[remote]\n\turl = x\n",
            // Past the first 4 KiB, and an include on a header line.
            &padded,
            "[includeIf \"gitdir:/\"] path = ../inc.cfg ;\"]\n",
            "[core]\n\tbare = false\n[includeIf \"gitdir:/\"]\n\tpath = x\n",
            // Not parseable by git: not inert.
            "[core\n\tbare = false\n",
        ] {
            assert!(!inert(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_directory_with_the_shape_of_a_git_dir_is_one_and_writes_that_complete_it_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        let names = ["HEAD", "objects/.keep", "refs/heads/.keep"];
        // In every order, the write that would complete the shape is refused.
        for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            let d = ws.join(format!("o{}{}{}", order[0], order[1], order[2]));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("config"), "[core]\n\tfsmonitor = evil\n").unwrap();
            for (i, &n) in order.iter().enumerate() {
                let p = d.join(names[n]);
                let refused = write_refusal(&p);
                if i < 2 {
                    assert_eq!(refused, None, "{}", p.display());
                    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                    std::fs::write(&p, "").unwrap();
                } else {
                    assert_eq!(
                        refused,
                        Some(GitWriteRefusal::WouldMakeRepository { dir: d.clone() })
                    );
                }
            }
            assert!(!has_git_dir_shape(&d, None));
        }
        // A commondir completes it too; a `.git` may be completed (its entries are refused by
        // name); an existing one's config and hooks are refused wherever it is.
        let c = ws.join("c");
        std::fs::create_dir_all(&c).unwrap();
        std::fs::write(c.join("HEAD"), "").unwrap();
        assert!(matches!(
            write_refusal(&c.join("commondir")),
            Some(GitWriteRefusal::WouldMakeRepository { .. })
        ));
        let g = ws.join("sub/.git");
        std::fs::create_dir_all(g.join("objects")).unwrap();
        std::fs::create_dir_all(g.join("refs")).unwrap();
        assert_eq!(write_refusal(&g.join("HEAD")), None);
        let bare = ws.join("bare");
        for d in ["objects", "refs"] {
            std::fs::create_dir_all(bare.join(d)).unwrap();
        }
        std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        for p in ["config", "hooks/pre-commit", "info/attributes", "commondir"] {
            assert_eq!(
                write_refusal(&bare.join(p)),
                Some(GitWriteRefusal::Metadata { git_dir: bare.clone() }),
                "{p}"
            );
        }
        // Its state is git's too: HEAD, refs, objects, packed-refs, index.
        for p in ["HEAD", "objects/ab/cd", "refs/heads/x", "packed-refs", "index"] {
            assert_eq!(
                write_refusal(&bare.join(p)),
                Some(GitWriteRefusal::Metadata { git_dir: bare.clone() }),
                "{p}"
            );
        }
        assert_eq!(write_refusal(&bare.join("description")), None);
        assert_eq!(write_refusal(&ws.join("plain/config")), None);
    }

    #[test]
    fn a_change_that_lays_out_a_repository_is_refused_whole_in_every_order() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        let parts = ["HEAD", "objects/info/x", "refs/heads/x", "config"];
        let orders: [[usize; 4]; 4] = [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]];
        // In a new directory, in the workspace root itself, and in one where some parts exist.
        for (k, order) in orders.iter().enumerate() {
            for base in [ws.join(format!("evil{k}")), ws.join(format!("root{k}"))] {
                std::fs::create_dir_all(&base).unwrap();
                let writes: Vec<PathBuf> = order.iter().map(|&i| base.join(parts[i])).collect();
                let refs: Vec<&Path> = writes.iter().map(PathBuf::as_path).collect();
                let (path, why) = change_refusal(&refs).expect("refused");
                assert_eq!(why, GitWriteRefusal::WouldMakeRepository { dir: base.clone() });
                assert!(refs.contains(&path.as_path()));
                // Each alone, against the disk before the change, passes: the old hole.
                assert!(refs.iter().all(|p| write_refusal(p).is_none()));
            }
        }
        let half = ws.join("half");
        std::fs::create_dir_all(half.join("objects")).unwrap();
        std::fs::write(half.join("HEAD"), "").unwrap();
        let refs = half.join("refs/heads/main");
        assert_eq!(
            change_refusal(&[&half.join("src/a.rs"), &refs]),
            Some((refs.clone(), GitWriteRefusal::WouldMakeRepository { dir: half.clone() }))
        );
        // Ordinary changes, and a `.git` being completed (its entries are refused by name).
        let plain = [ws.join("src/HEAD.md"), ws.join("refs/notes.txt"), ws.join("objects.rs")];
        let plain: Vec<&Path> = plain.iter().map(PathBuf::as_path).collect();
        assert_eq!(change_refusal(&plain), None);
        let g = ws.join("sub/.git");
        assert_eq!(
            change_refusal(&[&g.join("HEAD"), &g.join("objects/x"), &g.join("refs/y")]),
            None
        );
        assert!(is_git_state(&g.join("HEAD")) && is_git_state(&g.join("refs/y")));
        assert!(!is_git_state(&ws.join("refs/y")) && !is_git_state(&g.join("description")));
    }

    #[test]
    fn pointer_files_are_followed_relative_to_their_directory() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("wt")).unwrap();
        std::fs::write(d.join("wt/.git"), "gitdir: ../main/.git/worktrees/wt\n").unwrap();
        assert_eq!(
            gitdir_of_file(&d.join("wt/.git")).unwrap(),
            d.join("wt/../main/.git/worktrees/wt")
        );
        std::fs::create_dir_all(d.join("g")).unwrap();
        std::fs::write(d.join("g/commondir"), "../evil\n").unwrap();
        assert_eq!(commondir_of(&d.join("g")).unwrap(), d.join("g/../evil"));
        std::fs::write(d.join("x"), "nothing").unwrap();
        assert!(gitdir_of_file(&d.join("x")).is_none());
    }
}
