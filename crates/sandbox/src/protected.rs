//! The protected entries of bash's writable roots, found by a scan (docs/contract.md#bash: git
//! metadata and sensitive files for bash as for the file tools).
//!
//! Before a bash call, [`scan`] walks every writable root (and HOME when a root holds it) and
//! returns what the OS sandbox must pin: every existing sensitive file and git metadata entry
//! (bound read-only over itself) and every git dir (bound over itself, so it cannot be
//! renamed, replaced or removed). After the call, [`sweep`] scans again and removes every
//! protected entry that did not exist before and no write grant covers: bash cannot create
//! a `.env`, `.gitmodules`, `.git/config` or `.git/hooks/x` that the write tool could not.
//! When HOME is writable (a HOME workspace), a hidden entry of HOME that bash made during the
//! call and that is no readable entry (`~/.vimrc`, `~/.npmrc`, `~/.tmux.conf`: files the
//! user's own programs run later, outside any sandbox) is removed the same way: such an entry
//! is a credential for every tool, which none may create.
//!
//! The scan has a budget (`toolhost_limits::PROTECTED_SCAN_ENTRIES` entries unless
//! `policy.json` sets `"scan_entries"`, [`PROTECTED_SCAN_DEPTH`] levels)
//! and fails closed: a tree past it is a [`ScanError`], and bash does not run.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use toolhost_limits::PROTECTED_SCAN_DEPTH;

use toolhost_policy::SandboxPolicy;
use toolhost_policy::git;

mod snapshot;
pub use snapshot::{Snapshot, SnapshotError};

/// What the OS sandbox must pin in the writable roots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Protected {
    /// Existing sensitive files and git metadata entries: read-only for bash.
    pub entries: Vec<PathBuf>,
    /// Git dirs (directories named `.git`, and those `.git` files and `commondir`s name):
    /// pinned in place.
    pub git_dirs: Vec<PathBuf>,
    /// HOME's hidden entries that are credentials (no readable entry), when a writable root
    /// holds HOME: bash cannot reach them (they are masked), so only new ones matter, to the
    /// sweep.
    pub home_hidden: Vec<PathBuf>,
    /// The `HEAD` of every git dir found, with its content (a regular file of at most
    /// [`MAX_HEAD_BYTES`]): git itself rewrites it (checkout, commit), but a call that deletes
    /// it or turns it into something else breaks the repository, so [`sweep`] puts it back.
    pub heads: Vec<(PathBuf, Vec<u8>)>,
}

/// The largest `HEAD` the scan keeps to put back (a ref name or an object id is far smaller).
pub const MAX_HEAD_BYTES: u64 = 4096;

impl Protected {
    /// The protected directories that are not git metadata (`~/.cargo/bin`, `~/.rustup` in a
    /// HOME workspace): the Landlock tier makes them read-only with a rule of their own
    /// instead of saving them (a toolchain is too large to save and put back), which git
    /// metadata cannot take (git writes next to it, in the `.git` directory itself).
    pub fn plain_dirs(&self) -> Vec<&Path> {
        self.entries
            .iter()
            .filter(|e| {
                e.symlink_metadata().is_ok_and(|m| m.is_dir())
                    && !self.is_git_entry(e)
                    && e.file_name().is_none_or(|n| n != ".git")
            })
            .map(PathBuf::as_path)
            .collect()
    }

    /// Whether `entry` is git metadata: by name below a `.git`, or an entry of a git dir the
    /// scan found (by its shape, or a pointer naming it). No grant makes one writable.
    pub fn is_git_entry(&self, entry: &Path) -> bool {
        git::is_git_metadata(entry)
            || entry.parent().is_some_and(|p| self.git_dirs.iter().any(|g| g == p))
    }
}

/// Why the scan could not cover the writable roots; bash does not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScanError {
    /// A root holds more entries than the scan's budget.
    #[error(
        "bash did not run: {root} holds more than {limit} files and directories, more than toolhost scans for git metadata and sensitive files before each bash call, and an unscanned part could hold a writable .git/config; use the file tools (read, grep, glob, list, edit) here, or ask the user to run bash in a smaller workspace (or to raise \"scan_entries\" in policy.json)"
    )]
    TooManyEntries { root: String, limit: usize },
    /// A directory lies deeper than the scan goes.
    #[error(
        "bash did not run: {path} is more than {PROTECTED_SCAN_DEPTH} directories deep, deeper than toolhost scans for git metadata and sensitive files before each bash call; ask the user to remove or flatten it"
    )]
    TooDeep { path: String },
}

/// Scan the writable roots of `policy` and its workspace (and HOME when a writable root holds
/// it).
pub fn scan(policy: &SandboxPolicy) -> Result<Protected, ScanError> {
    let mut roots: Vec<PathBuf> =
        policy.writable_roots().into_iter().filter(|r| r.is_dir()).collect();
    // The workspace in every mode: its git dirs are found for a read-only bash too.
    if !roots.iter().any(|r| policy.workspace().starts_with(r)) && policy.workspace().is_dir() {
        roots.push(policy.workspace().to_path_buf());
    }
    if let Some(h) = policy.home()
        && roots.iter().any(|r| h.starts_with(r))
        && !roots.iter().any(|r| r == h)
    {
        roots.push(h.to_path_buf());
    }
    // A root inside another is scanned as part of it.
    let all = roots.clone();
    roots.retain(|r| !all.iter().any(|o| o != r && r.starts_with(o)));
    let limit = policy.scan_entries();
    let mut walk =
        Walk { policy, budget: limit, limit, out: Protected::default(), seen_git: HashSet::new() };
    for root in &roots {
        walk.dir(root, root, 0)?;
    }
    dedup(&mut walk.out.entries);
    dedup(&mut walk.out.git_dirs);
    dedup(&mut walk.out.home_hidden);
    Ok(walk.out)
}

/// After a bash call that started at `since`: remove every protected entry that `before` did
/// not have, that changed since the call started, and that no write grant of `policy` covers.
/// Returns the entries removed (empty when bash created none). The session's private temp dir
/// is swept like the workspace; a temp dir other programs share (`policy.json`'s `temp_dir`)
/// is not (they create files there while bash runs; see docs/security.md).
pub fn sweep(
    policy: &SandboxPolicy,
    before: &Protected,
    since: std::time::SystemTime,
) -> Result<Vec<PathBuf>, ScanError> {
    let after = scan(policy)?;
    let since_secs =
        since.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
    let mut removed = Vec::new();
    let unmade = unmake_new_git_dirs(policy, before, &after, since_secs, &mut removed);
    put_back_heads(before, &mut removed);
    // New hidden entries of a writable HOME: credentials no tool may create.
    let known_hidden: HashSet<&PathBuf> = before.home_hidden.iter().collect();
    for p in after.home_hidden.iter().filter(|p| !known_hidden.contains(p)) {
        let Ok(meta) = p.symlink_metadata() else { continue };
        if made_before(&meta, since_secs) || policy.write_granted(p) {
            continue;
        }
        remove_entry(p, meta.is_dir(), &mut removed);
    }
    let known: HashSet<&PathBuf> = before.entries.iter().collect();
    for p in
        after.entries.iter().filter(|p| !known.contains(p) && !policy.only_in_shared_temp_dir(p))
    {
        if unmade.iter().any(|g| p.parent() == Some(g.as_path())) {
            continue;
        }
        let Ok(meta) = p.symlink_metadata() else { continue };
        // An entry the scan before the call missed but that is older than the call is not
        // bash's doing.
        if made_before(&meta, since_secs) {
            continue;
        }
        // A new git dir is not removed, only what in it could run code (`git init` works).
        let new_git_dir = meta.is_dir() && p.file_name().is_some_and(|n| n == ".git");
        if new_git_dir
            || (policy.write_granted(p) && !after.is_git_entry(p))
            || git::is_inert_new_entry(p)
        {
            continue;
        }
        remove_entry(p, meta.is_dir(), &mut removed);
    }
    Ok(removed)
}

/// Put back every `HEAD` of `before` that the call removed or turned into something other
/// than a regular file (a directory, a symlink, a FIFO): without it git no longer takes the
/// directory for a repository, and its discovery goes on to the directories above. A `HEAD`
/// git rewrote (a checkout) stays as it is.
fn put_back_heads(before: &Protected, restored: &mut Vec<PathBuf>) {
    for (head, content) in &before.heads {
        let now = head.symlink_metadata();
        if now.as_ref().is_ok_and(|m| m.is_file()) {
            continue;
        }
        if let Ok(meta) = now {
            let mut ignored = Vec::new();
            remove_entry(head, meta.is_dir(), &mut ignored);
        }
        // Never through a git dir that became a symlink: the put-back stays where it was.
        let Some(dir) = head.parent().filter(|d| d.symlink_metadata().is_ok_and(|m| m.is_dir()))
        else {
            continue;
        };
        let temp = dir.join(format!(".HEAD.toolhost-{}", std::process::id()));
        let written = std::fs::write(&temp, content).and_then(|()| std::fs::rename(&temp, head));
        if written.is_ok() {
            restored.push(head.clone());
        } else {
            let _ = std::fs::remove_file(&temp);
        }
    }
}

/// Whether the entry `meta` describes was made before the call that started at `since_secs`
/// (the 1 s slack covers coarse timestamps).
fn made_before(meta: &std::fs::Metadata, since_secs: i64) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.ctime() < since_secs - 1
}

/// Removes `p` (a directory with all it holds) and, once gone, adds it to `removed`.
fn remove_entry(p: &Path, is_dir: bool, removed: &mut Vec<PathBuf>) {
    let gone = if is_dir { std::fs::remove_dir_all(p) } else { std::fs::remove_file(p) };
    if gone.is_ok() {
        removed.push(p.to_path_buf());
    }
}

/// A directory that got the shape of a git dir during the call with something in it that
/// could run code: the entries the call added to give it that shape are removed, so it is no
/// repository at all (the user's files in it, a `config/` say, stay untouched). Returns the
/// directories so unmade; one whose shape is older than the call loses what could run code
/// instead.
fn unmake_new_git_dirs(
    policy: &SandboxPolicy,
    before: &Protected,
    after: &Protected,
    since_secs: i64,
    removed: &mut Vec<PathBuf>,
) -> Vec<PathBuf> {
    let known_git: HashSet<&PathBuf> = before.git_dirs.iter().collect();
    let runs_code = |p: &Path| p.symlink_metadata().is_ok() && !git::is_inert_new_entry(p);
    let mut unmade: Vec<PathBuf> = Vec::new();
    for g in after
        .git_dirs
        .iter()
        .filter(|g| !known_git.contains(g) && !policy.only_in_shared_temp_dir(g))
    {
        if g.file_name().is_some_and(|n| n == ".git") || !git::has_git_dir_shape(g, None) {
            continue;
        }
        if !git::PROTECTED_GIT_ENTRIES.iter().any(|e| runs_code(&g.join(e))) {
            continue;
        }
        for name in git::GIT_DIR_SHAPE_ENTRIES {
            let p = g.join(name);
            let Ok(meta) = p.symlink_metadata() else { continue };
            if !made_before(&meta, since_secs) {
                remove_entry(&p, meta.is_dir(), removed);
            }
        }
        if git::has_git_dir_shape(g, None) {
            // Its shape is older than the call (the scan before missed it): what could run
            // code goes instead, whenever it was made.
            for p in git::PROTECTED_GIT_ENTRIES.iter().map(|e| g.join(e)).filter(|p| runs_code(p)) {
                remove_entry(&p, p.is_dir() && !p.is_symlink(), removed);
            }
        } else {
            unmade.push(g.clone());
        }
    }
    unmade
}

struct Walk<'a> {
    policy: &'a SandboxPolicy,
    budget: usize,
    limit: usize,
    out: Protected,
    seen_git: HashSet<PathBuf>,
}

impl Walk<'_> {
    fn dir(&mut self, root: &Path, dir: &Path, depth: usize) -> Result<(), ScanError> {
        if depth > PROTECTED_SCAN_DEPTH {
            return Err(ScanError::TooDeep { path: dir.display().to_string() });
        }
        let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
        let in_home = self.policy.home().is_some_and(|h| h == dir);
        // Which of the entries that give a directory a git dir's shape it holds.
        let mut shape = [false; 4];
        for e in entries.flatten() {
            self.spend(root)?;
            let path = e.path();
            if let Some(i) = git::GIT_DIR_SHAPE_ENTRIES.iter().position(|n| e.file_name() == *n) {
                shape[i] = true;
            }
            let Ok(ft) = e.file_type() else { continue };
            if in_home
                && e.file_name().as_encoded_bytes().starts_with(b".")
                && self.policy.is_hidden_home(&path)
            {
                self.out.home_hidden.push(path.clone());
            }
            if e.file_name() == ".git" {
                self.out.entries.push(path.clone());
                if ft.is_dir() {
                    self.git_dir(root, &path)?;
                } else if ft.is_file()
                    && let Some(target) = git::gitdir_of_file(&path)
                {
                    self.git_dir(root, &target)?;
                }
                continue;
            }
            if self.policy.is_protected_name(&path) {
                self.out.entries.push(path.clone());
                continue;
            }
            if ft.is_dir() {
                self.dir(root, &path, depth + 1)?;
            }
        }
        // A directory git's discovery takes for a git dir whatever its name (a bare
        // repository, one planted as plain files): its entries are git metadata too.
        let [head, objects, refs, commondir] = shape;
        if head && (commondir || (objects && refs)) && dir.file_name() != Some(".git".as_ref()) {
            self.git_dir(root, dir)?;
        }
        Ok(())
    }

    fn git_dir(&mut self, root: &Path, dir: &Path) -> Result<(), ScanError> {
        let Ok(real) = std::fs::canonicalize(dir) else { return Ok(()) };
        if !real.is_dir() || !self.seen_git.insert(real.clone()) {
            return Ok(());
        }
        self.out.git_dirs.push(real.clone());
        let head = real.join("HEAD");
        if let Ok(meta) = head.symlink_metadata()
            && meta.is_file()
            && meta.len() <= MAX_HEAD_BYTES
            && let Ok(content) = std::fs::read(&head)
        {
            self.out.heads.push((head, content));
        }
        for name in git::PROTECTED_GIT_ENTRIES {
            let p = real.join(name);
            if p.symlink_metadata().is_ok() {
                self.out.entries.push(p);
            }
        }
        if let Some(common) = git::commondir_of(&real) {
            self.git_dir(root, &common)?;
        }
        let nested = git::nested_git_dirs(&real, &mut self.budget);
        if self.budget == 0 {
            return Err(ScanError::TooManyEntries {
                root: root.display().to_string(),
                limit: self.limit,
            });
        }
        for n in nested {
            self.git_dir(root, &n)?;
        }
        Ok(())
    }

    fn spend(&mut self, root: &Path) -> Result<(), ScanError> {
        if self.budget == 0 {
            return Err(ScanError::TooManyEntries {
                root: root.display().to_string(),
                limit: self.limit,
            });
        }
        self.budget -= 1;
        Ok(())
    }
}

fn dedup(v: &mut Vec<PathBuf>) {
    let mut seen = HashSet::new();
    v.retain(|p| seen.insert(p.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_policy::SandboxMode;

    fn policy(ws: &Path, home: &Path) -> SandboxPolicy {
        SandboxPolicy::builder(SandboxMode::WorkspaceWrite, ws)
            .home(home)
            .config(toolhost_policy::PolicyConfig {
                temp_dir: Some(ws.to_path_buf()),
                ..Default::default()
            })
            .build()
    }

    #[test]
    fn finds_git_dirs_at_any_depth_and_what_their_pointers_name() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let ws = base.join("ws");
        for d in [".git/hooks", "node_modules/p/.git/hooks", "a/b/c/d/e/f/.git/info", "evil", "wt"]
        {
            std::fs::create_dir_all(ws.join(d)).unwrap();
        }
        std::fs::write(ws.join(".git/config"), "").unwrap();
        std::fs::write(ws.join(".git/commondir"), "../evil\n").unwrap();
        std::fs::write(ws.join("evil/config"), "").unwrap();
        std::fs::write(ws.join("wt/.git"), "gitdir: ../evil\n").unwrap();
        std::fs::write(ws.join("a/.env"), "").unwrap();
        std::fs::write(ws.join("a/b/.env.local"), "").unwrap();
        let p = scan(&policy(&ws, &base.join("home"))).unwrap();
        for g in [".git", "node_modules/p/.git", "a/b/c/d/e/f/.git", "evil"] {
            assert!(p.git_dirs.contains(&ws.join(g)), "{g}: {:?}", p.git_dirs);
        }
        for e in [
            ".git",
            ".git/config",
            ".git/hooks",
            ".git/commondir",
            "evil/config",
            "wt/.git",
            "a/.env",
            "a/b/.env.local",
            "node_modules/p/.git/hooks",
            "a/b/c/d/e/f/.git/info",
        ] {
            assert!(p.entries.contains(&ws.join(e)), "{e}: {:?}", p.entries);
        }
    }

    #[test]
    fn the_scan_carves_exactly_the_protected_entries_of_every_writable_root() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        for d in ["ws/.git/hooks", "ws/sub", "home/.ssh", "extra", "tmp", "data/spill", "out"] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        for f in ["ws/.env", "ws/sub/.env.local", "ws/.git/config", "home/.netrc", "home/.bashrc"] {
            std::fs::write(base.join(f), "x").unwrap();
        }
        let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, base.join("ws"))
            .home(base.join("home"))
            .data_dir(base.join("data"))
            .config(toolhost_policy::PolicyConfig {
                extra_writable_roots: vec![base.join("extra")],
                temp_dir: Some(base.join("tmp")),
                ..Default::default()
            })
            .build();
        let mut carve = scan(&policy).unwrap().entries;
        carve.sort();
        let mut want: Vec<PathBuf> =
            ["ws/.env", "ws/.git", "ws/.git/config", "ws/.git/hooks", "ws/sub/.env.local"]
                .iter()
                .map(|r| base.join(r))
                .collect();
        want.sort();
        assert_eq!(carve, want);
    }

    #[test]
    fn a_tree_past_the_budget_fails_closed() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        let mut deep = ws.clone();
        for _ in 0..=PROTECTED_SCAN_DEPTH + 1 {
            deep.push("d");
        }
        std::fs::create_dir_all(&deep).unwrap();
        assert!(matches!(scan(&policy(&ws, &ws.join("nohome"))), Err(ScanError::TooDeep { .. })));
    }

    #[test]
    fn the_sweep_removes_only_new_protected_entries() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::write(ws.join(".env"), "old").unwrap();
        let pol = policy(&ws, &ws.join("nohome"));
        let before = scan(&pol).unwrap();
        let since = std::time::SystemTime::now();
        std::fs::write(ws.join("sub.env"), "fine").unwrap();
        std::fs::create_dir_all(ws.join("x")).unwrap();
        std::fs::write(ws.join("x/.env"), "new").unwrap();
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        std::fs::write(ws.join(".git/hooks/pre-commit"), "new").unwrap();
        std::fs::write(ws.join(".gitmodules"), "new").unwrap();
        let mut removed = sweep(&pol, &before, since).unwrap();
        removed.sort();
        assert_eq!(removed, vec![ws.join(".git/hooks"), ws.join(".gitmodules"), ws.join("x/.env")]);
        assert_eq!(std::fs::read_to_string(ws.join(".env")).unwrap(), "old");
        assert!(ws.join("sub.env").exists());
    }

    #[test]
    fn in_a_home_workspace_new_hidden_entries_but_readable_ones_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(home.join(".cargo")).unwrap();
        std::fs::write(home.join(".old"), "mine").unwrap();
        let pol = policy(&home, &home);
        let before = scan(&pol).unwrap();
        assert!(before.home_hidden.contains(&home.join(".old")));
        let since = std::time::SystemTime::now();
        std::fs::write(home.join(".vimrc"), "!evil").unwrap();
        std::fs::create_dir_all(home.join(".newtool")).unwrap();
        std::fs::write(home.join(".newtool/init"), "evil").unwrap();
        std::fs::write(home.join(".cargo/new.crate"), "fine").unwrap();
        std::fs::write(home.join("notes.txt"), "fine").unwrap();
        let mut removed = sweep(&pol, &before, since).unwrap();
        removed.sort();
        assert_eq!(removed, vec![home.join(".newtool"), home.join(".vimrc")]);
        assert_eq!(std::fs::read_to_string(home.join(".old")).unwrap(), "mine");
        assert!(home.join(".cargo/new.crate").exists() && home.join("notes.txt").exists());
    }
}
