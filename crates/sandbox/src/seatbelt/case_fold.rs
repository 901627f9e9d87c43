//! Case-insensitive twins of the profile's exclusions: APFS, macOS's default file system,
//! finds `.GIT/config` or `~/.SSH/id_rsa` under those names, so every path the profile
//! excludes is also excluded in any case of its ASCII letters.

use super::sbpl::dedup;

/// Appends to `filters` each one's case-insensitive twin ([`any_case`]).
pub(super) fn add_any_case(filters: &mut Vec<String>) {
    let twins: Vec<String> = filters.iter().filter_map(|f| any_case(f)).collect();
    filters.extend(twins);
    dedup(filters);
}

/// `filter` (a `literal`, `subpath` or `regex` of this generator) as a regex that matches its
/// paths whatever the case of their ASCII letters: APFS, macOS's default file system, finds
/// `.GIT/config` or `~/.SSH/id_rsa` under those names, and the path Seatbelt matches may be
/// spelled as the command spelled it. `None` for a path a regex literal cannot hold (`"`, `\`).
fn any_case(filter: &str) -> Option<String> {
    let inner = |prefix: &str| filter.strip_prefix(prefix)?.strip_suffix("\")")?.strip_prefix('"');
    let (body, tail) = if let Some(p) = inner("(subpath ") {
        (fold_literal(p)?, "(/|$)")
    } else if let Some(p) = inner("(literal ") {
        (fold_literal(p)?, "$")
    } else {
        let r = filter.strip_prefix("(regex #\"")?.strip_suffix("\")")?;
        return Some(format!("(regex #\"{}\")", fold_regex(r)));
    };
    Some(format!("(regex #\"^{body}{tail}\")"))
}

/// A regex for the literal text `p` (as `quoted` wrote it), letters in either case.
pub(super) fn fold_literal(p: &str) -> Option<String> {
    if p.contains(['"', '\\']) {
        return None;
    }
    let mut out = String::new();
    for c in p.chars() {
        if c.is_ascii_alphabetic() {
            out.extend(['[', c.to_ascii_lowercase(), c.to_ascii_uppercase(), ']']);
        } else {
            if "\\.^$|?*+()[]{}".contains(c) {
                out.push('\\');
            }
            out.push(c);
        }
    }
    Some(out)
}

/// `r` with each ASCII letter outside escapes and bracket expressions matched in either case.
fn fold_regex(r: &str) -> String {
    let mut out = String::new();
    let mut chars = r.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                out.extend(chars.next());
            }
            '[' => {
                out.push(c);
                for b in chars.by_ref() {
                    out.push(b);
                    if b == ']' {
                        break;
                    }
                }
            }
            c if c.is_ascii_alphabetic() => {
                out.extend(['[', c.to_ascii_lowercase(), c.to_ascii_uppercase(), ']'])
            }
            c => out.push(c),
        }
    }
    out
}
