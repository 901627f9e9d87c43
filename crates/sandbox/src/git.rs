//! Git metadata: which entries of a git dir run code or redirect git when the user next runs
//! git outside the sandbox, and how to find the git dirs a tree holds.
//!
//! A git dir is a directory named `.git`, the directory a `.git` *file* names
//! (`gitdir: PATH`), the directory its `commondir` names, and every `worktrees/*` and
//! `modules/**` git dir inside one. In each, the [`PROTECTED_GIT_ENTRIES`] are hard-protected:
//! `config` (`core.fsmonitor`, `core.hooksPath`, aliases and filters run commands),
//! `config.worktree`, `hooks/`, `info/` (attributes select filters), `commondir` and `gitdir`
//! (they point git at another, possibly planted, git dir).

use std::path::{Path, PathBuf};

/// The entries of a git dir that are never writable by a tool or bash.
pub const PROTECTED_GIT_ENTRIES: &[&str] =
    &["config", "config.worktree", "hooks", "info", "commondir", "gitdir"];

/// Whether `path` is git metadata by name: an entry named `.git` itself (a git dir, or a
/// `.git` file that points elsewhere), or a [`PROTECTED_GIT_ENTRIES`] name anywhere below a
/// `.git` component (`.git/config`, `.git/worktrees/w/commondir`, `.git/modules/m/hooks/x`).
pub fn is_git_metadata(path: &Path) -> bool {
    let mut below_git = false;
    let mut last = None;
    for part in path.components().map(|c| c.as_os_str()) {
        if below_git && PROTECTED_GIT_ENTRIES.iter().any(|e| part == *e) {
            return true;
        }
        if part == ".git" {
            below_git = true;
        }
        last = Some(part);
    }
    last.is_some_and(|l| l == ".git")
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
        "config" => meta.is_file() && read_small(path).is_some_and(|t| config_is_inert(&t)),
        _ => false,
    }
}

/// Whether git config text holds only [`INERT_CONFIG_KEYS`] (no includes, nothing unparsed).
fn config_is_inert(text: &str) -> bool {
    let mut section: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            let Some(header) = header.strip_suffix(']') else { return false };
            let mut parts = header.splitn(2, ' ');
            let name = parts.next().unwrap_or("").to_ascii_lowercase();
            section = Some(match parts.next() {
                Some(sub) if sub.starts_with('"') && sub.ends_with('"') && sub.len() >= 2 => {
                    format!("{name} *")
                }
                Some(_) => return false,
                None => name,
            });
            continue;
        }
        let Some(sec) = &section else { return false };
        let key = line.split('=').next().unwrap_or("").trim().to_ascii_lowercase();
        if line.ends_with('\\') || !INERT_CONFIG_KEYS.iter().any(|(s, k)| s == sec && *k == key) {
            return false;
        }
    }
    true
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

    #[test]
    fn only_what_git_init_and_clone_write_is_inert() {
        assert!(config_is_inert(
            "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n[remote \"origin\"]\n\turl = https://x/y\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"
        ));
        for bad in [
            "[core]\n\tfsmonitor = ./evil\n",
            "[core]\n\thooksPath = /tmp/h\n",
            "[alias]\n\tst = !evil\n",
            "[include]\n\tpath = ../x\n",
            "[remote \"o\"]\n\tuploadpack = evil\n",
            "core.fsmonitor=evil\n",
            "[core] fsmonitor = evil\n",
            "[core]\n\tbare = false \\\n",
        ] {
            assert!(!config_is_inert(bad), "{bad:?}");
        }
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
