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

use std::path::{Path, PathBuf};

use crate::backend::SandboxError;
use crate::policy::{
    Access, HOME_SENSITIVE_ENTRIES, PathGrant, SandboxPolicy, Scope, is_ssh_host_key,
};
use crate::protected::Protected;

use super::case_fold::{add_any_case, fold_literal};
use super::sbpl::{
    allow_except, covered_by, dedup, literal, pattern_regex, private_alias, regex_escape,
    sensitive_regex, subpath,
};

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
    if policy.network() == crate::policy::NetworkAccess::Allow {
        s.push_str("(allow network*)\n");
    }
    let roots = policy.mode_roots();
    let touches_root = |p: &Path| roots.iter().any(|r| p.starts_with(r) || r.starts_with(p));
    let subtree_granted = |c: &Path| {
        policy.grants().iter().any(|g| g.scope == Scope::Subtree && c.starts_with(&g.path))
    };
    // Private data: every known data dir's private entries and the private files.
    let private_paths = policy.private_data_paths();
    let private: Vec<String> = private_paths.iter().map(|p| subpath(p)).collect();
    // HOME's hidden entries that are not readable (a credential tier of their own, matched
    // by a pattern: [`hidden_home_filters`]).
    let hidden = hidden_home_filters(policy, call.is_some());
    let aliased = |ps: &[PathBuf]| -> Vec<PathBuf> {
        if call.is_none() {
            return Vec::new();
        }
        ps.iter().filter_map(|p| private_alias(p)).collect()
    };

    // Reading: everywhere but credentials no subtree grant covers, host keys, private data.
    let mut unreadable: Vec<PathBuf> =
        policy.credential_paths().iter().filter(|c| !subtree_granted(c)).cloned().collect();
    // A boxed call (conformance): HOME, the temp dirs and the data dir are unreadable too;
    // the workspace is allowed back below.
    unreadable.extend(policy.boxed_away_dirs());
    let mut read_deny: Vec<String> = unreadable.iter().map(|c| subpath(c)).collect();
    read_deny.extend(hidden.iter().cloned());
    // Credential entries in every home, other users' homes (regions: where they lie).
    let homes = home_filters(policy, call.is_some());
    read_deny.extend(homes.iter().map(|(_, f)| f.clone()));
    read_deny.push(SSH_HOST_KEYS.into());
    read_deny.extend(private.iter().cloned());
    let aliases = aliased(&unreadable);
    if call.is_some() {
        read_deny.extend(aliases.iter().map(|a| subpath(a)));
        read_deny.push(SSH_HOST_KEYS_PRIVATE.into());
        add_any_case(&mut read_deny);
    }
    unreadable.extend(aliases);
    if policy.reads_confined() {
        // The operator confined reads: only what `confined_read_filters` opens, less the same.
        s.push_str(&format!(
            "(allow file-read* (require-all\n  (require-any\n    {})\n  (require-not (require-any\n    {}))))\n",
            confined_read_filters(policy, call.is_some()).join("\n    "),
            read_deny.join("\n    ")
        ));
    } else {
        s.push_str(&format!(
            "(allow file-read* (require-not (require-any\n    {})))\n",
            read_deny.join("\n    ")
        ));
    }
    if policy.reach() == crate::policy::Reach::WorkspaceOnly {
        s.push_str(&allow_except("file-read*", &subpath(policy.workspace()), &private));
    }
    for g in policy.grants() {
        if policy.reads_confined()
            || read_rule_needed(g, &unreadable)
            || hidden_home_granted(policy, g)
        {
            s.push_str(&allow_except("file-read*", &covered_by(g), &private));
        }
    }

    // Writing: the mode's roots, less everything the policy keeps from bash there.
    let pins = match call {
        Some(_) => pins(policy),
        None => Vec::new(),
    };
    if !roots.is_empty() {
        let allow: Vec<String> = roots.iter().map(|r| subpath(r)).collect();
        let mut deny: Vec<String> =
            policy.hard_protected_paths().iter().map(|p| subpath(p)).collect();
        // Git metadata of every repository, nested ones too (the policy's GitMetadata tier).
        for name in crate::git::PROTECTED_GIT_ENTRIES {
            deny.push(format!("(regex #\"/\\.git/(.*/)?{}(/|$)\")", name.replace('.', "\\.")));
        }
        for name in policy.sensitive_names() {
            deny.push(format!("(regex #\"{}\")", sensitive_regex(name)));
        }
        // Credentials: those a subtree grant covers only if they touch a root (a read grant
        // does not make one writable; outside the roots nothing is writable anyway).
        let creds: Vec<&PathBuf> = policy
            .credential_paths()
            .iter()
            .filter(|c| !subtree_granted(c) || touches_root(c))
            .collect();
        deny.extend(creds.iter().map(|c| subpath(c)));
        deny.push(SSH_HOST_KEYS.into());
        deny.extend(private.iter().cloned());
        // HOME's persistence files and hidden entries, where a root reaches them (workspace =
        // HOME, say).
        if let Some(h) = policy.home() {
            deny.extend(
                HOME_SENSITIVE_ENTRIES
                    .iter()
                    .map(|e| h.join(e))
                    .filter(|e| touches_root(e))
                    .map(|e| subpath(&e)),
            );
            if touches_root(h) {
                deny.extend(hidden.iter().cloned());
            }
        }
        deny.extend(
            homes.iter().filter(|(region, _)| touches_root(region)).map(|(_, f)| f.clone()),
        );
        if let Some(p) = call {
            let creds: Vec<PathBuf> = creds.into_iter().cloned().collect();
            deny.extend(aliased(&creds).iter().map(|a| subpath(a)));
            deny.push(SSH_HOST_KEYS_PRIVATE.into());
            deny.extend(scan_entries(p));
            deny.extend(pins.iter().map(|d| literal(d)));
            add_any_case(&mut deny);
        }
        dedup(&mut deny);
        s.push_str(&format!(
            "(allow file-write*\n  (require-all\n    (require-any\n      {})\n    (require-not (require-any\n      {}))))\n",
            allow.join("\n      "),
            deny.join("\n      ")
        ));
    }
    // Write grants: what they name, never a hard-protected path, git metadata or a pin.
    let write_grants: Vec<&PathGrant> =
        policy.grants().iter().filter(|g| g.access == Access::Write).collect();
    if !write_grants.is_empty() {
        let mut hard: Vec<String> =
            policy.hard_protected_paths().iter().map(|p| subpath(p)).collect();
        for name in crate::git::PROTECTED_GIT_ENTRIES {
            hard.push(format!("(regex #\"/\\.git/(.*/)?{}(/|$)\")", name.replace('.', "\\.")));
        }
        hard.push(DOT_GIT.into());
        hard.extend(pins.iter().map(|d| literal(d)));
        if let Some(p) = call {
            // Git metadata the scan found by shape (a bare repository's config, say); the
            // entries below a `.git` are the regexes above.
            hard.extend(
                p.entries
                    .iter()
                    .filter(|e| p.is_git_entry(e) && !crate::git::is_git_metadata(e))
                    .map(|e| subpath(e)),
            );
        }
        if call.is_some() {
            add_any_case(&mut hard);
        }
        for g in write_grants {
            s.push_str(&allow_except("file-write*", &covered_by(g), &hard));
        }
    }
    s.push_str(DEV_WRITES);
    s
}

/// The filters for HOME's hidden entries that are not readable
/// ([`SandboxPolicy::is_hidden_home`]): a path below HOME whose first component begins with
/// `.`, less the readable entries (as regexes: a `*` is one component's rest), this policy's
/// data dir and the roots chosen inside a hidden entry. In a call's profile HOME is matched in
/// any case (the exceptions only as spelled: a case variant stays closed) and, under `/tmp`,
/// `/var` or `/etc`, with its `/private` spelling too.
fn hidden_home_filters(policy: &SandboxPolicy, call: bool) -> Vec<String> {
    let Some(home) = policy.home() else { return Vec::new() };
    let mut spellings = vec![home.to_path_buf()];
    if call {
        spellings.extend(private_alias(home));
    }
    let mut out = Vec::new();
    for h in spellings {
        let Some(h_text) = h.to_str() else { continue };
        let respell = |p: &Path| -> Option<PathBuf> { Some(h.join(p.strip_prefix(home).ok()?)) };
        let base = if call { fold_literal(h_text) } else { Some(regex_escape(h_text)) };
        let Some(base) = base else { continue };
        let mut except: Vec<String> = policy
            .readable_home_entries()
            .iter()
            .map(|e| format!("(regex #\"^{}/{}(/|$)\")", regex_escape(h_text), pattern_regex(e)))
            .collect();
        except.extend(
            policy
                .data_dir()
                .into_iter()
                .chain(policy.exempt_roots().iter().map(PathBuf::as_path))
                .filter_map(respell)
                .map(|p| subpath(&p)),
        );
        out.push(format!(
            "(require-all (regex #\"^{base}/\\.\") (require-not (require-any\n      {})))",
            except.join("\n      ")
        ));
    }
    out
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
        crate::policy::SYSTEM_READ_DIRS.iter().map(|d| subpath(Path::new(d))).collect();
    let mut users: Vec<String> =
        crate::policy::USER_DATA_IN_SYSTEM.iter().map(|d| subpath(Path::new(d))).collect();
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

/// Whether `g` opens for reading part of HOME's hidden entries (so it needs a read rule of its
/// own): it lies in one, or it is a subtree grant over HOME.
fn hidden_home_granted(policy: &SandboxPolicy, g: &PathGrant) -> bool {
    policy.is_hidden_home(&g.path)
        || policy.is_home_credential(&g.path)
        || policy.is_other_home_closed(&g.path)
        || (g.scope == Scope::Subtree
            && (policy.home().is_some_and(|h| h.starts_with(&g.path))
                || policy.homes_refusable_below(&g.path)))
}

/// The filters for the credential entries of every home and for other users' homes
/// ([`SandboxPolicy::is_home_credential`], [`SandboxPolicy::is_other_home_closed`]), each
/// with the region it lies in (the profile denies writes there only where a root touches
/// it). The entries of one place are one regex of alternatives. In a call's profile a home's
/// base path is matched in any case (its exceptions only as spelled) and, under `/tmp`,
/// `/var` or `/etc`, with its `/private` spelling too.
fn home_filters(policy: &SandboxPolicy, call: bool) -> Vec<(PathBuf, String)> {
    let alternatives = |entries: &[String]| -> Option<String> {
        let alts: Vec<String> = entries.iter().map(|e| pattern_regex(e)).collect();
        (!alts.is_empty()).then(|| format!("({})", alts.join("|")))
    };
    let creds = alternatives(policy.home_credential_entries());
    let starred: Vec<String> =
        policy.home_credential_entries().iter().filter(|e| e.contains('*')).cloned().collect();
    let readable = alternatives(policy.readable_home_entries());
    let opened = policy.home_openings();
    let mut out: Vec<(PathBuf, String)> = Vec::new();
    // `place` spelled `s`: its base matched in any case in a call's profile.
    let base = |s: &Path| -> Option<String> {
        let text = s.to_str()?;
        if call { fold_literal(text) } else { Some(regex_escape(text)) }
    };
    let spellings = |p: &Path| -> Vec<PathBuf> {
        let mut v = vec![p.to_path_buf()];
        if call {
            v.extend(private_alias(p));
        }
        v
    };
    // HOME's own listed entries are denied by path ([`SandboxPolicy::credential_paths`]);
    // those with a `*` here.
    if let (Some(home), Some(alts)) = (policy.home(), alternatives(&starred)) {
        for s in spellings(home) {
            if let Some(b) = base(&s) {
                out.push((home.to_path_buf(), format!("(regex #\"^{b}/{alts}(/|$)\")")));
            }
        }
    }
    let respell = |p: &Path, from: &Path, to: &Path| -> Option<PathBuf> {
        Some(to.join(p.strip_prefix(from).ok()?))
    };
    // A closed place: `shape` (a regex tail after the base) less the readable entries at
    // `readable_at` (a regex tail), and `except` (paths, excepted as subpaths).
    let closed = |region: &Path, s: &Path, shape: &str, readable_at: &str, except: &[PathBuf]| {
        let b = base(s)?;
        let plain = regex_escape(s.to_str()?);
        let mut excepts: Vec<String> = Vec::new();
        if let Some(r) = &readable {
            excepts.push(format!("(regex #\"^{plain}{readable_at}{r}(/|$)\")"));
        }
        excepts.extend(except.iter().filter_map(|e| respell(e, region, s)).map(|e| subpath(&e)));
        let filter = format!("(regex #\"^{b}{shape}\")");
        Some(if excepts.is_empty() {
            filter
        } else {
            format!(
                "(require-all {filter} (require-not (require-any\n      {})))",
                excepts.join("\n      ")
            )
        })
    };
    for parent in policy.other_home_parents() {
        for s in spellings(parent) {
            if let (Some(b), Some(alts)) = (base(&s), &creds) {
                out.push((parent.clone(), format!("(regex #\"^{b}/[^/]+/{alts}(/|$)\")")));
            }
        }
        // Homes inside HOME are HOME's.
        if policy.home().is_some_and(|h| parent.starts_with(h)) {
            continue;
        }
        let depth = parent.components().count();
        let whole = !opened.iter().any(|r| parent.starts_with(r));
        let mut except: Vec<PathBuf> = Vec::new();
        // The home that holds HOME is not another user's.
        if let Some(h) = policy.home()
            && let Ok(rest) = h.strip_prefix(parent)
            && let Some(first) = rest.iter().next()
        {
            except.push(parent.join(first));
        }
        // Roots and the data dir inside a home; a home that is a root itself is closed as
        // HOME is (its hidden entries), by a filter of its own.
        let mut own_homes: Vec<PathBuf> = Vec::new();
        for r in opened.iter().filter(|r| r.starts_with(parent)) {
            let n = r.components().count();
            if n > depth + 1 {
                except.push(r.clone());
            } else if n == depth + 1 && whole {
                except.push(r.clone());
                own_homes.push(r.clone());
            }
        }
        let shape = if whole { "/[^/]+(/|$)" } else { "/[^/]+/\\." };
        for s in spellings(parent) {
            out.extend(closed(parent, &s, shape, "/[^/]+/", &except).map(|f| (parent.clone(), f)));
        }
        for home in own_homes {
            let inside: Vec<PathBuf> =
                opened.iter().filter(|r| r.starts_with(&home) && **r != home).cloned().collect();
            for s in spellings(&home) {
                out.extend(closed(&home, &s, "/\\.", "/", &inside).map(|f| (home.clone(), f)));
            }
        }
    }
    for dir in policy.other_home_dirs() {
        for s in spellings(dir) {
            if let (Some(b), Some(alts)) = (base(&s), &creds) {
                out.push((dir.clone(), format!("(regex #\"^{b}/{alts}(/|$)\")")));
            }
        }
        if !policy.is_other_home(dir) {
            continue;
        }
        let whole = !opened.iter().any(|r| dir.starts_with(r));
        let inside: Vec<PathBuf> =
            opened.iter().filter(|r| r.starts_with(dir) && *r != dir).cloned().collect();
        let shape = if whole { "(/|$)" } else { "/\\." };
        for s in spellings(dir) {
            out.extend(closed(dir, &s, shape, "/", &inside).map(|f| (dir.clone(), f)));
        }
    }
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
