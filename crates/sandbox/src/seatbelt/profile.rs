//! The macOS Seatbelt profile (SBPL) for a [`SandboxPolicy`] and one call's scan.
//!
//! The profile is `(deny default)` and allow rules only. A rule may exclude paths within
//! itself (`require-not`), but no deny rule overrides an allow, so the verdict does not depend
//! on how Seatbelt settles two matching rules (sources disagree: the last one, or the most
//! specific). In order:
//!
//! 1. process, signal (within the sandbox), sysctl, mach and shared-memory operations; the
//!    network only when the policy allows it;
//! 2. reading everywhere except credential locations no subtree grant covers, `/etc/ssh/*_key`
//!    and the data dir's private entries (when the operator confined reads, only within what
//!    [`confined_read_filters`] opens); then one rule per grant the first one does not
//!    already cover (every grant, when reads are confined);
//! 3. writing under the mode's writable roots (grants are not roots here), except
//!    hard-protected paths, git metadata by name, sensitive names, credentials, HOME's
//!    persistence files; then one rule per write grant, never over a hard-protected path;
//! 4. writing `/dev/null`, `/dev/zero`, `/dev/tty` and `/dev/fd/*`.
//!
//! [`seatbelt_profile`] holds what follows from the policy alone. [`call_profile`], the
//! profile bash runs under, adds what the file system holds at the call: the scan's protected
//! entries (denied literally, like bubblewrap's read-only carve-outs), the existing
//! directories inside a writable root above a protected location (pinned: renaming one would
//! move what it holds out from under its rules, as a bind mount cannot be renamed on Linux),
//! the `/private/…` spelling of `/etc`, `/var` and `/tmp` paths (Seatbelt matches resolved
//! paths, and on macOS those three are symlinks into `/private`), and a case-insensitive twin
//! of every exclusion (`case_fold.rs`: APFS finds `.GIT/config` as `.git/config`).
//!
//! The reading and the writing rules are each a function of their own over what both need
//! (`Shared`); the filters for the homes (HOME's hidden entries, every home's credential
//! entries, other users' homes) are in `homes`.

use std::path::{Path, PathBuf};

use crate::backend::SandboxError;
use crate::protected::Protected;
use toolhost_policy::{
    Access, HOME_SENSITIVE_ENTRIES, PathGrant, SandboxPolicy, Scope, is_ssh_host_key,
};

use super::case_fold::add_any_case;
use super::sbpl::{
    allow_except, covered_by, dedup, literal, pattern_regex, private_alias, regex_escape,
    sensitive_regex, subpath,
};

mod homes;

use homes::{hidden_home_filters, hidden_home_granted, home_filters};

/// Operations bash needs besides files: exec, fork, signals to its own processes, sysctl
/// reads, mach lookups and POSIX shared memory.
const HEADER: &str = "(version 1)\n(deny default)\n(allow process-exec)\n(allow process-fork)\n(allow signal (target same-sandbox))\n(allow sysctl-read)\n(allow mach-lookup)\n(allow ipc-posix-shm)\n";

/// The SSH host private keys, `/etc/ssh/*_key` (and their macOS spelling).
const SSH_HOST_KEYS: &str = r#"(regex #"^/etc/ssh/[^/]+_key$")"#;
const SSH_HOST_KEYS_PRIVATE: &str = r#"(regex #"^/private/etc/ssh/[^/]+_key$")"#;

/// An entry named `.git` (a git dir or a `.git` file): git metadata itself.
const DOT_GIT: &str = r#"(regex #"/\.git$")"#;

/// The device nodes every command writes.
const DEV_WRITES: &str = "(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\") (regex #\"^/dev/fd/\"))\n";

/// The Seatbelt profile that follows from `policy` alone (a pure function: no file system
/// access beyond what the policy already holds). bash runs under [`call_profile`].
pub fn seatbelt_profile(policy: &SandboxPolicy) -> String {
    render(policy, None)
}

/// The profile of one bash call: [`seatbelt_profile`] plus what `protected` (the scan of
/// the call's writable roots) and the file system hold. Fails when a path cannot be written
/// into SBPL (not UTF-8, or a sensitive name with a `"`).
pub fn call_profile(policy: &SandboxPolicy, protected: &Protected) -> Result<String, SandboxError> {
    check_expressible(policy, protected)?;
    Ok(render(policy, Some(protected)))
}

fn check_expressible(policy: &SandboxPolicy, protected: &Protected) -> Result<(), SandboxError> {
    let unsupported =
        |p: &Path| SandboxError::UnsupportedPath(format!("{} is not UTF-8", p.display()));
    let paths = policy
        .writable_roots()
        .into_iter()
        .chain(policy.hard_protected_paths())
        .chain(policy.credential_paths().iter().cloned())
        .chain(policy.grants().iter().map(|g| g.path.clone()))
        .chain(policy.home().map(Path::to_path_buf))
        .chain(policy.other_home_parents().iter().cloned())
        .chain(policy.other_home_dirs().iter().cloned())
        .chain(policy.home_openings())
        .chain(policy.data_dir().map(Path::to_path_buf))
        .chain(policy.read_roots().iter().cloned())
        .chain(protected.entries.iter().chain(&protected.git_dirs).cloned());
    for p in paths {
        if p.to_str().is_none() {
            return Err(unsupported(&p));
        }
    }
    if let Some(name) = policy.sensitive_names().iter().find(|n| n.contains('"')) {
        return Err(SandboxError::UnsupportedPath(format!(
            "the sensitive name {name:?} holds a '\"'"
        )));
    }
    // HOME and the readable entries are written into regexes: no `"` nor `\` there.
    if let Some(h) = policy.home().and_then(Path::to_str).filter(|h| h.contains(['"', '\\'])) {
        return Err(SandboxError::UnsupportedPath(format!("HOME {h:?} holds a '\"' or a '\\'")));
    }
    if let Some(e) = policy
        .readable_home_entries()
        .iter()
        .chain(policy.home_credential_entries())
        .find(|e| e.contains(['"', '\\']))
    {
        return Err(SandboxError::UnsupportedPath(format!(
            "the HOME entry {e:?} (readable or credential) holds a '\"' or a '\\'"
        )));
    }
    // So are the places of other users' homes.
    if let Some(p) = policy
        .other_home_parents()
        .iter()
        .chain(policy.other_home_dirs())
        .find(|p| p.to_str().is_none_or(|t| t.contains(['"', '\\'])))
    {
        return Err(SandboxError::UnsupportedPath(format!(
            "the home place {} holds a '\"' or a '\\'",
            p.display()
        )));
    }
    Ok(())
}

fn render(policy: &SandboxPolicy, call: Option<&Protected>) -> String {
    let mut s = String::from(HEADER);
    if policy.network() == toolhost_policy::NetworkAccess::Allow {
        s.push_str("(allow network*)\n");
    }
    let shared = Shared::new(policy, call);
    read_rules(&mut s, &shared);
    write_rules(&mut s, &shared);
    write_grant_rules(&mut s, &shared);
    s.push_str(DEV_WRITES);
    s
}

/// What the reading and the writing rules both need.
struct Shared<'a> {
    policy: &'a SandboxPolicy,
    /// The call's scan (a call's profile), or none (the policy's alone).
    call: Option<&'a Protected>,
    /// The mode's writable roots.
    roots: &'a [PathBuf],
    /// Private data: every known data dir's private entries and the private files.
    private: Vec<String>,
    /// HOME's hidden entries that are not readable (a credential tier of their own, matched
    /// by a pattern: [`hidden_home_filters`]).
    hidden: Vec<String>,
    /// Credential entries in every home, other users' homes, each with its region.
    homes: Vec<(PathBuf, String)>,
    /// The pinned directories (a call's profile only).
    pins: Vec<PathBuf>,
}

impl<'a> Shared<'a> {
    fn new(policy: &'a SandboxPolicy, call: Option<&'a Protected>) -> Self {
        Shared {
            policy,
            call,
            roots: policy.mode_roots(),
            private: policy.private_data_paths().iter().map(|p| subpath(p)).collect(),
            hidden: hidden_home_filters(policy, call.is_some()),
            homes: home_filters(policy, call.is_some()),
            pins: if call.is_some() { pins(policy) } else { Vec::new() },
        }
    }

    /// Whether `p` and a writable root lie one within the other.
    fn touches_root(&self, p: &Path) -> bool {
        self.roots.iter().any(|r| p.starts_with(r) || r.starts_with(p))
    }

    /// Whether a subtree grant covers `c`.
    fn subtree_granted(&self, c: &Path) -> bool {
        self.policy.grants().iter().any(|g| g.scope == Scope::Subtree && c.starts_with(&g.path))
    }

    /// The `/private/…` spellings of `ps` in a call's profile.
    fn aliased(&self, ps: &[PathBuf]) -> Vec<PathBuf> {
        if self.call.is_none() {
            return Vec::new();
        }
        ps.iter().filter_map(|p| private_alias(p)).collect()
    }
}

/// Reading: everywhere but credentials no subtree grant covers, host keys, private data; then
/// a rule per grant the first does not already cover.
fn read_rules(s: &mut String, c: &Shared) {
    let policy = c.policy;
    let mut unreadable: Vec<PathBuf> =
        policy.credential_paths().iter().filter(|p| !c.subtree_granted(p)).cloned().collect();
    // A boxed call (conformance): HOME, the temp dirs and the data dir are unreadable too;
    // the workspace is allowed back below.
    unreadable.extend(policy.boxed_away_dirs());
    let mut read_deny: Vec<String> = unreadable.iter().map(|p| subpath(p)).collect();
    read_deny.extend(c.hidden.iter().cloned());
    // Credential entries in every home, other users' homes (regions: where they lie).
    read_deny.extend(c.homes.iter().map(|(_, f)| f.clone()));
    read_deny.push(SSH_HOST_KEYS.into());
    read_deny.extend(c.private.iter().cloned());
    let aliases = c.aliased(&unreadable);
    if c.call.is_some() {
        read_deny.extend(aliases.iter().map(|a| subpath(a)));
        read_deny.push(SSH_HOST_KEYS_PRIVATE.into());
        add_any_case(&mut read_deny);
    }
    unreadable.extend(aliases);
    if policy.reads_confined() {
        // The operator confined reads: only what `confined_read_filters` opens, less the same.
        s.push_str(&format!(
            "(allow file-read* (require-all\n  (require-any\n    {})\n  (require-not (require-any\n    {}))))\n",
            confined_read_filters(policy, c.call.is_some()).join("\n    "),
            read_deny.join("\n    ")
        ));
    } else {
        s.push_str(&format!(
            "(allow file-read* (require-not (require-any\n    {})))\n",
            read_deny.join("\n    ")
        ));
    }
    if policy.reach() == toolhost_policy::Reach::WorkspaceOnly {
        s.push_str(&allow_except("file-read*", &subpath(policy.workspace()), &c.private));
    }
    for g in policy.grants() {
        if policy.reads_confined()
            || read_rule_needed(g, &unreadable)
            || hidden_home_granted(policy, g)
        {
            s.push_str(&allow_except("file-read*", &covered_by(g), &c.private));
        }
    }
}

/// Writing: the mode's roots, less everything the policy keeps from bash there.
fn write_rules(s: &mut String, c: &Shared) {
    if c.roots.is_empty() {
        return;
    }
    let allow: Vec<String> = c.roots.iter().map(|r| subpath(r)).collect();
    let deny = write_denials(c);
    s.push_str(&format!(
        "(allow file-write*\n  (require-all\n    (require-any\n      {})\n    (require-not (require-any\n      {}))))\n",
        allow.join("\n      "),
        deny.join("\n      ")
    ));
}

/// What the writing rule keeps from bash inside the roots.
fn write_denials(c: &Shared) -> Vec<String> {
    let policy = c.policy;
    let mut deny: Vec<String> = policy.hard_protected_paths().iter().map(|p| subpath(p)).collect();
    // Git metadata of every repository, nested ones too (the policy's GitMetadata tier).
    for name in toolhost_policy::git::PROTECTED_GIT_ENTRIES {
        deny.push(format!("(regex #\"/\\.git/(.*/)?{}(/|$)\")", name.replace('.', "\\.")));
    }
    for name in policy.sensitive_names() {
        deny.push(format!("(regex #\"{}\")", sensitive_regex(name)));
    }
    // Credentials: those a subtree grant covers only if they touch a root (a read grant
    // does not make one writable; outside the roots nothing is writable anyway).
    let creds: Vec<PathBuf> = policy
        .credential_paths()
        .iter()
        .filter(|p| !c.subtree_granted(p) || c.touches_root(p))
        .cloned()
        .collect();
    deny.extend(creds.iter().map(|p| subpath(p)));
    deny.push(SSH_HOST_KEYS.into());
    deny.extend(c.private.iter().cloned());
    // HOME's persistence files and hidden entries, where a root reaches them (workspace =
    // HOME, say).
    if let Some(h) = policy.home() {
        deny.extend(
            HOME_SENSITIVE_ENTRIES
                .iter()
                .map(|e| h.join(e))
                .filter(|e| c.touches_root(e))
                .map(|e| subpath(&e)),
        );
        if c.touches_root(h) {
            deny.extend(c.hidden.iter().cloned());
        }
    }
    deny.extend(
        c.homes.iter().filter(|(region, _)| c.touches_root(region)).map(|(_, f)| f.clone()),
    );
    if let Some(p) = c.call {
        deny.extend(c.aliased(&creds).iter().map(|a| subpath(a)));
        deny.push(SSH_HOST_KEYS_PRIVATE.into());
        deny.extend(scan_entries(p));
        deny.extend(c.pins.iter().map(|d| literal(d)));
        add_any_case(&mut deny);
    }
    dedup(&mut deny);
    deny
}

/// Write grants: what they name, never a hard-protected path, git metadata or a pin.
fn write_grant_rules(s: &mut String, c: &Shared) {
    let policy = c.policy;
    let write_grants: Vec<&PathGrant> =
        policy.grants().iter().filter(|g| g.access == Access::Write).collect();
    if write_grants.is_empty() {
        return;
    }
    let mut hard: Vec<String> = policy.hard_protected_paths().iter().map(|p| subpath(p)).collect();
    for name in toolhost_policy::git::PROTECTED_GIT_ENTRIES {
        hard.push(format!("(regex #\"/\\.git/(.*/)?{}(/|$)\")", name.replace('.', "\\.")));
    }
    hard.push(DOT_GIT.into());
    hard.extend(c.pins.iter().map(|d| literal(d)));
    if let Some(p) = c.call {
        // Git metadata the scan found by shape (a bare repository's config, say); the
        // entries below a `.git` are the regexes above.
        hard.extend(
            p.entries
                .iter()
                .filter(|e| p.is_git_entry(e) && !toolhost_policy::git::is_git_metadata(e))
                .map(|e| subpath(e)),
        );
        add_any_case(&mut hard);
    }
    for g in write_grants {
        s.push_str(&allow_except("file-write*", &covered_by(g), &hard));
    }
}

/// What stays readable when the operator confined reads (`policy/reads.rs`, which the fence
/// judges by): `/` itself, the writable roots, the data dir and the read roots, the readable
/// entries of HOME and of every home, and the system directories less the users' data in them
/// and the homes. Exceptions are matched as spelled (a case variant stays closed), with the
/// `/private` spelling of roots in a call's profile.
fn confined_read_filters(policy: &SandboxPolicy, call: bool) -> Vec<String> {
    let mut out = vec![literal(Path::new("/"))];
    let mut places: Vec<PathBuf> = policy.home_openings();
    places.extend(policy.read_roots().iter().cloned());
    if call {
        let aliases: Vec<PathBuf> = places.iter().filter_map(|p| private_alias(p)).collect();
        places.extend(aliases);
    }
    out.extend(places.iter().map(|p| subpath(p)));
    let alts: Vec<String> =
        policy.readable_home_entries().iter().map(|e| pattern_regex(e)).collect();
    let plain = |p: &Path| p.to_str().map(regex_escape);
    if !alts.is_empty() {
        let alts = format!("({})", alts.join("|"));
        out.extend(policy.home().and_then(plain).map(|h| format!("(regex #\"^{h}/{alts}(/|$)\")")));
        for parent in policy.other_home_parents().iter().filter_map(|p| plain(p)) {
            out.push(format!("(regex #\"^{parent}/[^/]+/{alts}(/|$)\")"));
        }
        for dir in policy.other_home_dirs().iter().filter_map(|p| plain(p)) {
            out.push(format!("(regex #\"^{dir}/{alts}(/|$)\")"));
        }
    }
    let system: Vec<String> =
        toolhost_policy::SYSTEM_READ_DIRS.iter().map(|d| subpath(Path::new(d))).collect();
    let mut users: Vec<String> =
        toolhost_policy::USER_DATA_IN_SYSTEM.iter().map(|d| subpath(Path::new(d))).collect();
    users.extend(
        policy
            .home()
            .into_iter()
            .chain(policy.other_home_parents().iter().map(PathBuf::as_path))
            .chain(policy.other_home_dirs().iter().map(PathBuf::as_path))
            .map(subpath),
    );
    out.push(format!(
        "(require-all (require-any {}) (require-not (require-any {})))",
        system.join(" "),
        users.join(" ")
    ));
    out
}

/// Whether the read rule leaves part of what `g` covers unreadable (`unreadable`: the
/// credential locations it excludes), so `g` needs a rule of its own.
fn read_rule_needed(g: &PathGrant, unreadable: &[PathBuf]) -> bool {
    let key = |p: &Path| {
        is_ssh_host_key(p)
            || p.strip_prefix("/private").is_ok_and(|q| is_ssh_host_key(&Path::new("/").join(q)))
    };
    let inside = unreadable.iter().any(|c| g.path.starts_with(c)) || key(&g.path);
    match g.scope {
        Scope::Exact => inside,
        Scope::Subtree => {
            inside
                || unreadable.iter().any(|c| c.starts_with(&g.path))
                || ["/etc/ssh", "/private/etc/ssh"]
                    .iter()
                    .any(|d| Path::new(d).starts_with(&g.path))
        }
    }
}

/// The scan's protected entries as exclusions: a `.git` directory and every file literally
/// (the directory pinned, its contents git's own), other directories with all they hold;
/// through a symlink, its target too.
fn scan_entries(protected: &Protected) -> Vec<String> {
    let mut out = Vec::new();
    for e in &protected.entries {
        let real = std::fs::canonicalize(e).ok();
        for p in std::iter::once(e.clone()).chain(real.filter(|r| r != e)) {
            let is_dir = p.symlink_metadata().is_ok_and(|m| m.is_dir());
            let dot_git = p.file_name().is_some_and(|n| n == ".git");
            out.push(if is_dir && !dot_git { subpath(&p) } else { literal(&p) });
        }
    }
    for g in protected.git_dirs.iter().filter(|g| g.file_name().is_none_or(|n| n != ".git")) {
        out.push(literal(g));
    }
    dedup(&mut out);
    out
}

/// Existing directories strictly inside a writable root above a protected location: the
/// data dir, configured hard-protected paths and each root's `.git/hooks`, credentials and
/// HOME's persistence files.
fn pins(policy: &SandboxPolicy) -> Vec<PathBuf> {
    let roots = policy.mode_roots();
    let mut guarded: Vec<PathBuf> = policy.hard_protected_paths();
    guarded.extend(policy.credential_paths().iter().cloned());
    // What the credential entries with a `*` name in HOME and the homes (found on disk).
    guarded.extend(policy.unreadable_paths());
    if let Some(h) = policy.home() {
        guarded.extend(HOME_SENSITIVE_ENTRIES.iter().map(|e| h.join(e)));
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for g in &guarded {
        for a in g.ancestors().skip(1) {
            if roots.iter().any(|r| a.starts_with(r) && a != r)
                && a.is_dir()
                && !out.iter().any(|o| o == a)
            {
                out.push(a.to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests;
