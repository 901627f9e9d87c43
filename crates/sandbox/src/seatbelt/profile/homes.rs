//! The filters for the homes: HOME's hidden entries, the credential entries of every home,
//! and other users' homes, closed.

use std::path::{Path, PathBuf};

use toolhost_policy::{PathGrant, SandboxPolicy, Scope};

use super::super::case_fold::fold_literal;
use super::super::sbpl::{pattern_regex, private_alias, regex_escape, subpath};

/// The filters for HOME's hidden entries that are not readable
/// ([`SandboxPolicy::is_hidden_home`]): a path below HOME whose first component begins with
/// `.`, less the readable entries (as regexes: a `*` is one component's rest), this policy's
/// data dir and the roots chosen inside a hidden entry. In a call's profile HOME is matched in
/// any case (the exceptions only as spelled: a case variant stays closed) and, under `/tmp`,
/// `/var` or `/etc`, with its `/private` spelling too.
pub(super) fn hidden_home_filters(policy: &SandboxPolicy, call: bool) -> Vec<String> {
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

/// Whether `g` opens for reading part of HOME's hidden entries (so it needs a read rule of its
/// own): it lies in one, or it is a subtree grant over HOME.
pub(super) fn hidden_home_granted(policy: &SandboxPolicy, g: &PathGrant) -> bool {
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
pub(super) fn home_filters(policy: &SandboxPolicy, call: bool) -> Vec<(PathBuf, String)> {
    let mut homes = HomeFilters {
        policy,
        call,
        creds: alternatives(policy.home_credential_entries()),
        readable: alternatives(policy.readable_home_entries()),
        opened: policy.home_openings(),
        out: Vec::new(),
    };
    homes.starred_in_home();
    for parent in policy.other_home_parents() {
        homes.home_parent(parent);
    }
    for dir in policy.other_home_dirs() {
        homes.home_dir(dir);
    }
    homes.out
}

/// The entries' patterns as one regex of alternatives, if there are any.
fn alternatives(entries: &[String]) -> Option<String> {
    let alts: Vec<String> = entries.iter().map(|e| pattern_regex(e)).collect();
    (!alts.is_empty()).then(|| format!("({})", alts.join("|")))
}

/// [`home_filters`] as it goes: what every place needs, and the filters so far.
struct HomeFilters<'a> {
    policy: &'a SandboxPolicy,
    call: bool,
    /// Every home's credential entries, as alternatives.
    creds: Option<String>,
    /// Every home's readable entries, as alternatives.
    readable: Option<String>,
    /// The roots, the data dir and the like: what a home's closing leaves open.
    opened: Vec<PathBuf>,
    out: Vec<(PathBuf, String)>,
}

impl HomeFilters<'_> {
    /// A place spelled `s`, as a regex: its base matched in any case in a call's profile.
    fn base(&self, s: &Path) -> Option<String> {
        let text = s.to_str()?;
        if self.call { fold_literal(text) } else { Some(regex_escape(text)) }
    }

    /// The spellings of `p`: itself, and in a call's profile its `/private` one.
    fn spellings(&self, p: &Path) -> Vec<PathBuf> {
        let mut v = vec![p.to_path_buf()];
        if self.call {
            v.extend(private_alias(p));
        }
        v
    }

    /// HOME's own listed credential entries are denied by path
    /// ([`SandboxPolicy::credential_paths`]); those with a `*` here.
    fn starred_in_home(&mut self) {
        let starred: Vec<String> = self
            .policy
            .home_credential_entries()
            .iter()
            .filter(|e| e.contains('*'))
            .cloned()
            .collect();
        if let (Some(home), Some(alts)) = (self.policy.home(), alternatives(&starred)) {
            for s in self.spellings(home) {
                if let Some(b) = self.base(&s) {
                    self.out.push((home.to_path_buf(), format!("(regex #\"^{b}/{alts}(/|$)\")")));
                }
            }
        }
    }

    /// The credential entries of every home in `region` spelled `s`: `region`'s homes
    /// (`home_tail`: `/[^/]+` for a parent of homes, empty for a home).
    fn credentials(&mut self, region: &Path, home_tail: &str) {
        for s in self.spellings(region) {
            if let (Some(b), Some(alts)) = (self.base(&s), &self.creds) {
                let filter = format!("(regex #\"^{b}{home_tail}/{alts}(/|$)\")");
                self.out.push((region.to_path_buf(), filter));
            }
        }
    }

    /// A closed place `region`, in each spelling: `shape` (a regex tail after the base) less
    /// the readable entries at `readable_at` (a regex tail), and `except` (paths, excepted as
    /// subpaths).
    fn closed(&mut self, region: &Path, shape: &str, readable_at: &str, except: &[PathBuf]) {
        for s in self.spellings(region) {
            if let Some(filter) = self.closed_spelled(region, &s, shape, readable_at, except) {
                self.out.push((region.to_path_buf(), filter));
            }
        }
    }

    /// [`Self::closed`] for one spelling `s` of `region`.
    fn closed_spelled(
        &self,
        region: &Path,
        s: &Path,
        shape: &str,
        readable_at: &str,
        except: &[PathBuf],
    ) -> Option<String> {
        let b = self.base(s)?;
        let plain = regex_escape(s.to_str()?);
        let mut excepts: Vec<String> = Vec::new();
        if let Some(r) = &self.readable {
            excepts.push(format!("(regex #\"^{plain}{readable_at}{r}(/|$)\")"));
        }
        let respell = |p: &PathBuf| Some(s.join(p.strip_prefix(region).ok()?));
        excepts.extend(except.iter().filter_map(respell).map(|e| subpath(&e)));
        let filter = format!("(regex #\"^{b}{shape}\")");
        Some(if excepts.is_empty() {
            filter
        } else {
            format!(
                "(require-all {filter} (require-not (require-any\n      {})))",
                excepts.join("\n      ")
            )
        })
    }

    /// A place that holds other users' homes (`/home`): their credential entries, and the
    /// homes themselves closed (whole, or their hidden entries where a root is inside).
    fn home_parent(&mut self, parent: &Path) {
        self.credentials(parent, "/[^/]+");
        // Homes inside HOME are HOME's.
        if self.policy.home().is_some_and(|h| parent.starts_with(h)) {
            return;
        }
        let depth = parent.components().count();
        let whole = !self.opened.iter().any(|r| parent.starts_with(r));
        let mut except: Vec<PathBuf> = Vec::new();
        // The home that holds HOME is not another user's.
        if let Some(h) = self.policy.home()
            && let Ok(rest) = h.strip_prefix(parent)
            && let Some(first) = rest.iter().next()
        {
            except.push(parent.join(first));
        }
        // Roots and the data dir inside a home; a home that is a root itself is closed as
        // HOME is (its hidden entries), by a filter of its own.
        let mut own_homes: Vec<PathBuf> = Vec::new();
        for r in self.opened.iter().filter(|r| r.starts_with(parent)) {
            let n = r.components().count();
            if n > depth + 1 {
                except.push(r.clone());
            } else if n == depth + 1 && whole {
                except.push(r.clone());
                own_homes.push(r.clone());
            }
        }
        let shape = if whole { "/[^/]+(/|$)" } else { "/[^/]+/\\." };
        self.closed(parent, shape, "/[^/]+/", &except);
        for home in own_homes {
            let inside: Vec<PathBuf> = self
                .opened
                .iter()
                .filter(|r| r.starts_with(&home) && **r != home)
                .cloned()
                .collect();
            self.closed(&home, "/\\.", "/", &inside);
        }
    }

    /// Another user's home by itself (`/root`): its credential entries, and the home closed.
    fn home_dir(&mut self, dir: &Path) {
        self.credentials(dir, "");
        if !self.policy.is_other_home(dir) {
            return;
        }
        let whole = !self.opened.iter().any(|r| dir.starts_with(r));
        let inside: Vec<PathBuf> =
            self.opened.iter().filter(|r| r.starts_with(dir) && *r != dir).cloned().collect();
        let shape = if whole { "(/|$)" } else { "/\\." };
        self.closed(dir, shape, "/", &inside);
    }
}
