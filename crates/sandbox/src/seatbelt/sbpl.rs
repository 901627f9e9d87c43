//! The words of the Seatbelt profile language the profile is written in: a path as a string,
//! a `literal` or a `subpath` filter, a grant as the filter of what it covers, an allow rule
//! with exclusions, a HOME or sensitive-name pattern as a regex, and the `/private` spelling
//! of `/etc`, `/var` and `/tmp` paths.

use std::path::{Path, PathBuf};

use toolhost_policy::{PathGrant, Scope};

/// Top-level directories that are symlinks into `/private` on macOS.
pub(super) const PRIVATE_ALIASES: &[&str] = &["/etc", "/var", "/tmp"];

/// `p` as an SBPL string.
pub(super) fn quoted(p: &Path) -> String {
    format!("\"{}\"", p.to_string_lossy().replace('\\', "\\\\").replace('"', "\\\""))
}

/// The filter of everything under `p`.
pub(super) fn subpath(p: &Path) -> String {
    format!("(subpath {})", quoted(p))
}

/// The filter of `p` itself.
pub(super) fn literal(p: &Path) -> String {
    format!("(literal {})", quoted(p))
}

/// What `g` covers, as a filter.
pub(super) fn covered_by(g: &PathGrant) -> String {
    match g.scope {
        Scope::Exact => literal(&g.path),
        Scope::Subtree => subpath(&g.path),
    }
}

/// `/private/etc/x` for `/etc/x` (and `/var`, `/tmp`).
pub(super) fn private_alias(p: &Path) -> Option<PathBuf> {
    if !PRIVATE_ALIASES.iter().any(|a| p.starts_with(a)) {
        return None;
    }
    Some(Path::new("/private").join(p.strip_prefix("/").ok()?))
}

/// `op` allowed on `filter`, except on `excluded`.
pub(super) fn allow_except(op: &str, filter: &str, excluded: &[String]) -> String {
    if excluded.is_empty() {
        return format!("(allow {op} {filter})\n");
    }
    format!(
        "(allow {op}\n  (require-all\n    {filter}\n    (require-not (require-any\n      {}))))\n",
        excluded.join("\n      ")
    )
}

/// A HOME-relative pattern of [`toolhost_policy::READABLE_HOME_ENTRIES`] as a regex: each
/// component literal, a trailing `*` one or more characters of that component.
pub(super) fn pattern_regex(pattern: &str) -> String {
    let parts: Vec<String> = pattern
        .split('/')
        .filter(|p| !p.is_empty())
        .map(|part| match part.strip_suffix('*') {
            Some(prefix) => format!("{}[^/]+", regex_escape(prefix)),
            None => regex_escape(part),
        })
        .collect();
    parts.join("/")
}

/// `text` with the regex metacharacters escaped.
pub(super) fn regex_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "\\.^$|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `v` without repeats, first ones kept.
pub(super) fn dedup(v: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|x| seen.insert(x.clone()));
}

/// A sensitive-name pattern (`.env*`, `.git/config`) as a regex matching it at the end of a
/// path: each component literal, a trailing `*` one or more characters of that component.
pub(super) fn sensitive_regex(pattern: &str) -> String {
    let mut out = String::from("/");
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        let (lit, star) = match part.strip_suffix('*') {
            Some(p) => (p, true),
            None => (*part, false),
        };
        for ch in lit.chars() {
            if "\\.^$|?*+()[]{}".contains(ch) {
                out.push('\\');
            }
            out.push(ch);
        }
        if star {
            out.push_str("[^/]+");
        }
    }
    out.push('$');
    out
}
