//! What a link destination points at, without touching the workspace: external (a scheme,
//! `//host`), this file's own `#anchor`, or a local path resolved against the Markdown
//! file's directory (or, for `/docs/x.md`, the workspace root), percent-decoded, without its
//! `?query`, lexically normalised (`.` and `..` as a browser does).

use percent_encoding::percent_decode_str;

/// Where a link leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// No destination at all.
    Empty,
    /// Another site, or a scheme (`https:`, `mailto:`, …): not checked.
    External,
    /// An anchor of this file (`#x`; empty for `#`).
    SelfAnchor(String),
    /// A workspace path, with the fragment it names, if any.
    Local { path: String, fragment: Option<String> },
}

/// Classify `dest`, a destination in the file shown as `from`.
pub fn classify(dest: &str, from: &str) -> Target {
    let dest = dest.trim();
    if dest.is_empty() {
        return Target::Empty;
    }
    if dest.starts_with("//") || has_scheme(dest) {
        return Target::External;
    }
    let (rest, fragment) = match dest.split_once('#') {
        Some((rest, f)) => (rest, Some(decode(f))),
        None => (dest, None),
    };
    let path = rest.split_once('?').map_or(rest, |(p, _)| p);
    if path.is_empty() {
        return Target::SelfAnchor(fragment.unwrap_or_default());
    }
    let path = decode(path);
    let resolved = match path.strip_prefix('/') {
        Some(root_relative) => normalize("", root_relative),
        None => normalize(parent(from), &path),
    };
    Target::Local { path: resolved, fragment }
}

/// `scheme:` as URLs have it (a letter, then letters, digits, `+`, `-`, `.`), of two letters
/// or more so that a Windows drive (`C:`) is not taken for one.
fn has_scheme(dest: &str) -> bool {
    let Some((scheme, _)) = dest.split_once(':') else {
        return false;
    };
    scheme.len() >= 2
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

fn decode(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// The directory part of `path` (empty for a bare name).
pub fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |i| if i == 0 { "/" } else { &path[..i] })
}

/// `rel` joined to `base`, with `.` and `..` resolved lexically; `..` past a relative base
/// stays (the host refuses what leaves the workspace), past `/` it stops. `.` when empty.
pub fn normalize(base: &str, rel: &str) -> String {
    let absolute = if base.is_empty() { rel.starts_with('/') } else { base.starts_with('/') };
    let mut parts: Vec<&str> = Vec::new();
    for part in base.split('/').chain(rel.split('/')) {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&p) if p != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

/// Whether `path` names a Markdown file (by its extension), whose anchors can be checked.
pub fn is_markdown(path: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e).to_ascii_lowercase();
    matches!(ext.as_str(), "md" | "markdown" | "mdown" | "mkd" | "mkdn" | "mdx")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(path: &str, fragment: Option<&str>) -> Target {
        Target::Local { path: path.into(), fragment: fragment.map(Into::into) }
    }

    #[test]
    fn external_and_empty() {
        for dest in ["https://x.org/a", "mailto:me@x.org", "//cdn.x.org/a.js", "ftp://h", "tel:1"] {
            assert_eq!(classify(dest, "docs/a.md"), Target::External, "{dest}");
        }
        assert_eq!(classify("", "a.md"), Target::Empty);
        assert_eq!(classify("  ", "a.md"), Target::Empty);
    }

    #[test]
    fn anchors_of_this_file() {
        assert_eq!(classify("#usage", "a.md"), Target::SelfAnchor("usage".into()));
        assert_eq!(classify("#", "a.md"), Target::SelfAnchor(String::new()));
        assert_eq!(classify("?x=1#y", "a.md"), Target::SelfAnchor("y".into()));
        assert_eq!(classify("#%C3%BCber", "a.md"), Target::SelfAnchor("über".into()));
    }

    #[test]
    fn local_paths() {
        assert_eq!(classify("b.md", "docs/a.md"), local("docs/b.md", None));
        assert_eq!(classify("./img/x.png", "docs/a.md"), local("docs/img/x.png", None));
        assert_eq!(classify("../README.md#intro", "docs/a.md"), local("README.md", Some("intro")));
        assert_eq!(classify("/src/lib.rs?plain=1", "docs/a.md"), local("src/lib.rs", None));
        assert_eq!(classify("my%20file.md", "a.md"), local("my file.md", None));
        assert_eq!(classify("../../x.md", "docs/a.md"), local("../x.md", None));
        assert_eq!(classify("sub/", "a.md"), local("sub", None));
        assert_eq!(classify("..", "a.md"), local("..", None));
        assert_eq!(classify(".", "a.md"), local(".", None));
        assert_eq!(classify("C:/x.md", "a.md"), local("C:/x.md", None));
        assert_eq!(classify("x.md", "/abs/dir/a.md"), local("/abs/dir/x.md", None));
        assert_eq!(classify("../../../x.md", "/abs/a.md"), local("/x.md", None));
        assert_eq!(normalize("", "/abs/./a.md"), "/abs/a.md");
        assert_eq!(normalize("", "a/../.."), "..");
    }

    #[test]
    fn markdown_extensions() {
        assert!(is_markdown("a/B.MD") && is_markdown("x.markdown"));
        assert!(!is_markdown("x.rs") && !is_markdown("md"));
    }
}
