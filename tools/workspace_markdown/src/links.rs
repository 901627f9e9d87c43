//! The `link_check_local` operation: every link and image whose destination is local
//! ([`crate::target`]) is checked against the workspace: the target must exist (a directory
//! counts), and a `#fragment` must be an anchor of this file or, for a Markdown target, of
//! that file. External links — a scheme (`https:`, `mailto:`), `//host`, or an email
//! autolink (`<help@crates.io>`) — are counted, not fetched.
//!
//! Two passes: the first checks what `stat` settles (each target asked once) and gathers the
//! fragments named in each other Markdown file; the second reads each of those files once
//! and checks all of its fragments together — at most [`MAX_OTHER_FILES`] files and
//! [`MAX_OTHER_BYTES`] in all, each at most `MARKDOWN_MAX_FILE_BYTES`.

use std::collections::{HashMap, HashSet};

use pulldown_cmark::LinkType;

use toolhost_sdk::error_kinds::ErrorKind;

use crate::diagnose::excerpt;
use crate::document::Document;
use crate::outline::anchors;
use crate::report::{Diagnostic, DiagnosticKind as K, Severity};
use crate::slug::slug;
use crate::target::{Target, classify, is_markdown, normalize};
use crate::workspace::{Failure, PathKind, Workspace};

/// Most other Markdown files read to check the anchors links name in them.
pub const MAX_OTHER_FILES: usize = 200;

/// Most bytes of other Markdown files read in all: parsing them is most of the operation's
/// time (measured in the component: 6 MiB of nothing but headings, 9 s; real documents,
/// a small part of that).
pub const MAX_OTHER_BYTES: usize = 8 * 1024 * 1024;

/// What the check found.
#[derive(Debug, Default)]
pub struct LinkCheck {
    /// Findings, by line.
    pub diagnostics: Vec<Diagnostic>,
    /// Local links and images checked (anchors of this file included).
    pub checked: usize,
    /// Targets that do not exist.
    pub broken: usize,
    /// Fragments that are no anchor of their file.
    pub missing_anchors: usize,
    /// Local links that could not be checked.
    pub unchecked: usize,
    /// Links to other sites (not checked).
    pub external: usize,
}

/// A link whose fragment is checked in another Markdown file.
struct Pending {
    line: usize,
    dest: String,
    fragment: String,
}

impl LinkCheck {
    fn push(&mut self, line: usize, dest: &str, kind: K, severity: Severity, message: String) {
        self.diagnostics.push(Diagnostic {
            kind,
            severity,
            line,
            message,
            target: Some(dest.to_owned()),
        });
    }

    /// Check `fragment` against `set`, the anchors of `file`.
    fn anchor(&mut self, set: &HashSet<String>, file: &str, line: usize, dest: &str, f: &str) {
        if has_anchor(set, f) {
            return;
        }
        self.missing_anchors += 1;
        let hint = match slug(f) {
            s if s != f && set.contains(&s) => format!("; did you mean #{s}?"),
            _ => String::new(),
        };
        let message = format!("#{} is not a heading anchor of {file}{hint}", excerpt(f));
        self.push(line, dest, K::MissingAnchor, Severity::Error, message);
    }
}

/// The call was cancelled.
fn cancelled_failure() -> Failure {
    Failure::new(ErrorKind::Cancelled, "the call was cancelled")
}

/// Check the links of `doc`, the file shown as `path`. Fails only when the call was
/// cancelled (a [`Failure`] of kind `Cancelled`).
pub fn check_links(
    doc: &Document<'_>,
    path: &str,
    ws: &mut dyn Workspace,
    cancelled: &dyn Fn() -> bool,
) -> Result<LinkCheck, Failure> {
    check(doc, path, ws, cancelled, MAX_OTHER_BYTES)
}

/// [`check_links`] reading at most `max_other_bytes` of other files.
fn check(
    doc: &Document<'_>,
    path: &str,
    ws: &mut dyn Workspace,
    cancelled: &dyn Fn() -> bool,
    max_other_bytes: usize,
) -> Result<LinkCheck, Failure> {
    let mut out = LinkCheck::default();
    let pending = check_targets(doc, path, ws, cancelled, &mut out)?;
    check_other_anchors(pending, ws, cancelled, max_other_bytes, &mut out)?;
    out.diagnostics.sort_by_key(|d| d.line);
    Ok(out)
}

/// Other Markdown files, in the order first linked, with the fragments named in each.
type PendingAnchors = Vec<(String, Vec<Pending>)>;

/// The first pass: every local link's target looked up (each path once) and this file's
/// fragments checked; the fragments named in other Markdown files are left for
/// [`check_other_anchors`].
fn check_targets(
    doc: &Document<'_>,
    path: &str,
    ws: &mut dyn Workspace,
    cancelled: &dyn Fn() -> bool,
    out: &mut LinkCheck,
) -> Result<PendingAnchors, Failure> {
    let own = anchors(doc);
    let me = normalize("", path);
    let mut stats: HashMap<String, Option<PathKind>> = HashMap::new();
    let mut pending: PendingAnchors = Vec::new();
    let mut pending_at: HashMap<String, usize> = HashMap::new();
    for (i, link) in doc.links.iter().enumerate() {
        if i % 16 == 0 && cancelled() {
            return Err(cancelled_failure());
        }
        let (line, dest) = (link.line + 1, link.dest.as_str());
        let Some((target, fragment)) = local_target(link, path, &me, out) else { continue };
        out.checked += 1;
        let Some(target) = target else {
            if !fragment.is_empty() {
                out.anchor(&own, "this file", line, dest, &fragment);
            }
            continue;
        };
        let kind = match stats.get(&target) {
            Some(k) => *k,
            None => match ws.stat(&target) {
                Ok(k) => *stats.entry(target.clone()).or_insert(k),
                Err(f) if f.kind == ErrorKind::Cancelled => return Err(f),
                Err(f) => {
                    out.unchecked += 1;
                    out.push(line, dest, K::UncheckedLink, Severity::Info, f.message);
                    continue;
                }
            },
        };
        match kind {
            None => {
                out.broken += 1;
                let what = if link.image { "image" } else { "link" };
                let message = format!("{what} target {target} does not exist");
                out.push(line, dest, K::BrokenLink, Severity::Error, message);
            }
            Some(PathKind::File) if !fragment.is_empty() && is_markdown(&target) => {
                let at = *pending_at.entry(target.clone()).or_insert_with(|| {
                    pending.push((target.clone(), Vec::new()));
                    pending.len() - 1
                });
                pending[at].1.push(Pending { line, dest: dest.to_owned(), fragment });
            }
            Some(_) => {}
        }
    }
    Ok(pending)
}

/// A link's local target (none: this file, `me`) and its fragment (empty for none); none for
/// an external link (counted) or an empty one (a finding of `diagnostics`).
fn local_target(
    link: &crate::document::Link,
    path: &str,
    me: &str,
    out: &mut LinkCheck,
) -> Option<(Option<String>, String)> {
    // An email autolink (`<help@crates.io>`) is a `mailto:` link without the scheme
    // written: an address, not a file.
    if link.link_type == LinkType::Email {
        out.external += 1;
        return None;
    }
    match classify(&link.dest, path) {
        Target::External => {
            out.external += 1;
            None
        }
        Target::Empty => None,
        Target::SelfAnchor(f) => Some((None, f)),
        Target::Local { path: target, fragment } if target == me => {
            Some((None, fragment.unwrap_or_default()))
        }
        Target::Local { path: target, fragment } => {
            Some((Some(target), fragment.unwrap_or_default()))
        }
    }
}

/// The second pass: the anchors of the other Markdown files, each read once (at most
/// `MAX_OTHER_FILES` files and `max_other_bytes` bytes; a fragment past that is noted as not
/// checked).
fn check_other_anchors(
    pending: PendingAnchors,
    ws: &mut dyn Workspace,
    cancelled: &dyn Fn() -> bool,
    max_other_bytes: usize,
    out: &mut LinkCheck,
) -> Result<(), Failure> {
    let (mut files, mut bytes) = (0usize, 0usize);
    for (target, links) in pending {
        if cancelled() {
            return Err(cancelled_failure());
        }
        let why = if files >= MAX_OTHER_FILES {
            Err(format!("anchors are read from at most {MAX_OTHER_FILES} other files"))
        } else if bytes >= max_other_bytes {
            Err(format!("anchors are read from at most {max_other_bytes} bytes of other files"))
        } else {
            files += 1;
            match ws.load(&target) {
                Ok(loaded) => {
                    bytes += loaded.text.len();
                    Ok(anchors(&Document::parse(&loaded.text)))
                }
                Err(f) if f.kind == ErrorKind::Cancelled => return Err(f),
                Err(f) => Err(f.message),
            }
        };
        for p in links {
            match &why {
                Ok(set) => out.anchor(set, &target, p.line, &p.dest, &p.fragment),
                Err(why) => {
                    out.unchecked += 1;
                    let message = format!("#{} not checked in {target}: {why}", p.fragment);
                    out.push(p.line, &p.dest, K::UncheckedLink, Severity::Info, message);
                }
            }
        }
    }
    Ok(())
}

/// Whether `fragment` names an anchor of `set`: as written, lowercased, or with GitHub's
/// `user-content-` prefix.
fn has_anchor(set: &HashSet<String>, fragment: &str) -> bool {
    let f = fragment.strip_prefix("user-content-").unwrap_or(fragment);
    set.contains(f) || set.contains(&f.to_lowercase())
}

#[cfg(test)]
#[path = "links_tests.rs"]
mod tests;
