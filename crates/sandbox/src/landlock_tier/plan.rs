//! What the Landlock tier grants, worked out from the same policy the fence and bubblewrap's
//! mounts use. Landlock only grants: a rule gives access to a whole directory tree. So
//! whatever the policy hides (credentials, data dirs, HOME's hidden entries, other users'
//! homes, the session's sockets) is kept out by granting its *siblings* instead: starting
//! from `/`, a directory with nothing hidden below it is granted whole; one with something
//! hidden below it is not granted itself (it cannot be listed), and each of its entries is
//! judged the same way. The writable roots are granted for writing the same way.
//!
//! Symlinks found on the way are never followed (a rule opens what it names; a link to a
//! credential must not grant the credential): access through a link is judged where it
//! points. Entries that appear after the plan was made are not granted: fail closed.

use std::path::{Path, PathBuf};

use toolhost_limits::LANDLOCK_PLAN_MAX_DIR_ENTRIES;

use crate::protected::Protected;
use toolhost_policy::{Access, SandboxPolicy};

/// What one rule of the policy makes of a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Hidden: neither read nor written.
    Deny,
    /// Read and executed.
    Read,
    /// Read, executed and written.
    Write,
}

/// The grants of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TierPlan {
    /// Trees granted for reading and executing.
    pub read: Vec<PathBuf>,
    /// Trees granted for writing too.
    pub write: Vec<PathBuf>,
}

/// Device files every command may read and write (a fixed set, not the host's `/dev`).
pub const DEVICES: &[&str] =
    &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"];

/// The plan for `policy` and the scan of its writable roots: the path rules they imply, then
/// the walk from `/`.
pub fn plan(policy: &SandboxPolicy, protected: &Protected) -> TierPlan {
    let rules = rules(policy, protected);
    let mut out = TierPlan::default();
    walk(Path::new("/"), &rules, &mut out);
    out.read.sort();
    out.read.dedup();
    out.write.sort();
    out.write.dedup();
    out
}

/// The path rules of `policy`, as bubblewrap's mount plan reads them (the most specific
/// rule of a path decides).
fn rules(policy: &SandboxPolicy, protected: &Protected) -> Vec<(PathBuf, Rule)> {
    let mut rules: Vec<(PathBuf, Rule)> = Vec::new();
    let mut data_dirs: Vec<PathBuf> =
        policy.data_dir().map(Path::to_path_buf).into_iter().collect();
    data_dirs.extend(policy.other_data_dirs().iter().cloned());
    for d in data_dirs.iter().filter(|d| d.is_dir()) {
        rules.push((d.clone(), Rule::Deny));
        rules.push((d.join("spill"), Rule::Read));
    }
    for f in policy.private_files() {
        rules.push((f.clone(), Rule::Deny));
    }
    let roots: Vec<PathBuf> = policy.writable_roots();
    let mut masks: Vec<toolhost_policy::HomeMask> =
        policy.confined_home_mask().into_iter().collect();
    masks.extend(policy.hidden_home_masks());
    masks.extend(policy.other_home_masks());
    for m in masks {
        rules.push((m.path, Rule::Deny));
        // A kept entry (a package cache, a toolchain) is writable where a writable root holds
        // it, as bubblewrap binds it back; the protected ones among them are put back after
        // the call ([`crate::protected::Snapshot`]).
        for (k, access) in m.keep {
            let writable = access == Access::Write || roots.iter().any(|r| k.starts_with(r));
            rules.push((k, if writable { Rule::Write } else { Rule::Read }));
        }
    }
    for d in policy.confined_away_dirs() {
        rules.push((d, Rule::Deny));
    }
    for r in policy.confined_read_binds() {
        rules.push((r, Rule::Read));
    }
    for d in policy.boxed_away_dirs() {
        rules.push((d, Rule::Deny));
    }
    for u in policy.unreadable_paths() {
        let real = std::fs::canonicalize(&u).unwrap_or(u);
        for g in policy.grants().iter().filter(|g| g.path.starts_with(&real) && g.path != real) {
            let rule = if g.access == Access::Write { Rule::Write } else { Rule::Read };
            rules.push((g.path.clone(), rule));
        }
        rules.push((real, Rule::Deny));
    }
    for (socket, _) in crate::mounts::session_sockets() {
        rules.push((socket, Rule::Deny));
    }
    for root in policy.writable_roots().into_iter().filter(|r| r.exists()) {
        rules.push((root, Rule::Write));
    }
    // Protected directories that are not git metadata stay read-only (git metadata and
    // protected files are saved and put back instead: `crate::protected::Snapshot`).
    let plain = protected.plain_dirs();
    for dir in &plain {
        rules.push((dir.to_path_buf(), Rule::Read));
    }
    // Nothing inside one of them is writable, whatever rule named it (a kept
    // `.local/lib/python3.12` inside the sensitive `.local/lib`).
    for (path, rule) in &mut rules {
        if *rule == Rule::Write && plain.iter().any(|d| path.starts_with(d)) {
            *rule = Rule::Read;
        }
    }
    // The data dirs stay hidden inside a writable root (the more specific rule decides, and
    // a data dir is pushed again after the roots so it wins over a root that is the same path).
    for d in data_dirs.iter().filter(|d| d.is_dir()) {
        rules.push((d.clone(), Rule::Deny));
        rules.push((d.join("spill"), Rule::Read));
    }
    rules
}

/// The rule of `path`: the last of the most specific rules naming it or a parent of it.
fn verdict(rules: &[(PathBuf, Rule)], path: &Path) -> Rule {
    let mut best: Option<(usize, Rule)> = None;
    for (p, rule) in rules {
        if path.starts_with(p) {
            let depth = p.components().count();
            if best.is_none_or(|(d, _)| depth >= d) {
                best = Some((depth, *rule));
            }
        }
    }
    best.map_or(Rule::Read, |(_, r)| r)
}

/// Grant `dir`'s tree when every rule below it agrees with its own; else judge each entry.
fn walk(dir: &Path, rules: &[(PathBuf, Rule)], out: &mut TierPlan) {
    let here = verdict(rules, dir);
    let mixed =
        rules.iter().any(|(p, _)| p.starts_with(dir) && p != dir && verdict(rules, p) != here);
    if !mixed {
        match here {
            Rule::Read => out.read.push(dir.to_path_buf()),
            Rule::Write => out.write.push(dir.to_path_buf()),
            Rule::Deny => {}
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten().take(LANDLOCK_PLAN_MAX_DIR_ENTRIES) {
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_symlink() {
            continue;
        }
        walk(&entry.path(), rules, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_policy::SandboxMode;

    fn under(plan: &[PathBuf], p: &Path) -> bool {
        plan.iter().any(|g| p.starts_with(g))
    }

    #[test]
    fn credentials_and_the_data_dir_are_left_out_and_their_siblings_granted() {
        // Outside the temp dir, which the policy makes writable.
        let d = tempfile::tempdir_in("/var/tmp").unwrap();
        let root = d.path().canonicalize().unwrap();
        let home = root.join("home");
        let ws = root.join("ws");
        for p in [".ssh", ".config/gh", ".toolhost/spill", "projects/a", ".bashrc-dir"] {
            std::fs::create_dir_all(home.join(p)).unwrap();
        }
        std::fs::write(home.join(".ssh/id_ed25519"), "k").unwrap();
        std::fs::write(home.join("notes.txt"), "n").unwrap();
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::os::unix::fs::symlink(home.join(".ssh"), home.join("projects/ssh-link")).unwrap();
        let temp = root.join("tmp");
        std::fs::create_dir_all(&temp).unwrap();
        let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, &ws)
            .private_temp_dir(&temp)
            .home(&home)
            .data_dir(home.join(".toolhost"))
            .build();
        let plan = plan(&policy, &Protected::default());
        assert!(!under(&plan.read, &home.join(".ssh/id_ed25519")), "{plan:?}");
        assert!(!under(&plan.write, &home.join(".ssh/id_ed25519")), "{plan:?}");
        assert!(!under(&plan.read, &home.join(".toolhost/toolhost.db")), "{plan:?}");
        assert!(under(&plan.read, &home.join(".toolhost/spill/x")), "{plan:?}");
        assert!(under(&plan.read, &home.join("notes.txt")), "{plan:?}");
        assert!(under(&plan.read, &home.join("projects/a")), "{plan:?}");
        assert!(under(&plan.write, &ws.join("src/new.rs")), "{plan:?}");
        assert!(!under(&plan.write, &home.join("notes.txt")), "{plan:?}");
        // HOME itself holds something hidden: it is not granted whole (not listable).
        assert!(!plan.read.contains(&home), "{plan:?}");
        assert!(!plan.read.iter().any(|p| p == Path::new("/")), "{plan:?}");
        // A link to a credential grants nothing: it is judged where it points.
        assert!(!plan.read.contains(&home.join("projects/ssh-link")), "{plan:?}");
        // The system stays readable.
        assert!(under(&plan.read, Path::new("/usr/bin/env")), "{plan:?}");
    }
}
