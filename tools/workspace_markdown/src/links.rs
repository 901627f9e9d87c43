//! The `link_check_local` operation: every link and image whose destination is local
//! ([`crate::target`]) is checked against the workspace: the target must exist (a directory
//! counts), and a `#fragment` must be an anchor of this file or, for a Markdown target, of
//! that file (each other file is read and parsed once; at most [`MAX_OTHER_FILES`] of them,
//! each at most `MARKDOWN_MAX_FILE_BYTES`). External links are counted, not fetched.

use std::collections::{HashMap, HashSet};

use toolhost_sdk::error_kinds::ErrorKind;

use crate::diagnose::excerpt;
use crate::document::Document;
use crate::outline::anchors;
use crate::report::{Diagnostic, DiagnosticKind as K, Severity};
use crate::slug::slug;
use crate::target::{Target, classify, is_markdown, normalize};
use crate::workspace::{Failure, Kind, Workspace};

/// Most other Markdown files read to check the anchors links name in them.
pub const MAX_OTHER_FILES: usize = 200;

/// Bytes of other files' anchors kept at once (each anchor counted with 32 bytes of
/// overhead); past it the kept anchors are dropped and a file linked again is read again
/// (counting towards [`MAX_OTHER_FILES`]).
pub const MAX_CACHED_ANCHOR_BYTES: usize = 16 * 1024 * 1024;

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
    /// Empty destinations.
    pub empty: usize,
    /// Local links that could not be checked.
    pub unchecked: usize,
    /// Links to other sites (not checked).
    pub external: usize,
}

/// The anchors of a file, or why they could not be read.
type Anchors = Result<HashSet<String>, String>;

/// Check the links of `doc`, the file shown as `path`. Fails only when the call was
/// cancelled (a [`Failure`] of kind `Cancelled`).
pub fn check_links(
    doc: &Document<'_>,
    path: &str,
    ws: &mut dyn Workspace,
    cancelled: &dyn Fn() -> bool,
) -> Result<LinkCheck, Failure> {
    check(doc, path, ws, cancelled, MAX_CACHED_ANCHOR_BYTES)
}

/// [`check_links`] keeping at most `cache_bytes` of other files' anchors.
fn check(
    doc: &Document<'_>,
    path: &str,
    ws: &mut dyn Workspace,
    cancelled: &dyn Fn() -> bool,
    cache_bytes: usize,
) -> Result<LinkCheck, Failure> {
    let own = anchors(doc);
    let (mut files_read, mut cached) = (0usize, 0usize);
    let me = normalize("", path);
    let mut stats: HashMap<String, Option<Kind>> = HashMap::new();
    let mut others: HashMap<String, Anchors> = HashMap::new();
    let mut out = LinkCheck::default();
    for (i, link) in doc.links.iter().enumerate() {
        if i % 16 == 0 && cancelled() {
            return Err(Failure::new(ErrorKind::Cancelled, "the call was cancelled"));
        }
        let line = link.line + 1;
        let mut finding = |kind, severity, message: String| {
            out.diagnostics.push(Diagnostic {
                kind,
                severity,
                line,
                message,
                target: Some(link.dest.clone()),
            });
        };
        let what = if link.image { "image" } else { "link" };
        let (fragment, anchors_of) = match classify(&link.dest, path) {
            Target::External => {
                out.external += 1;
                continue;
            }
            Target::Empty => {
                out.checked += 1;
                out.empty += 1;
                finding(
                    K::EmptyLink,
                    Severity::Warning,
                    format!("{what} with an empty destination"),
                );
                continue;
            }
            Target::SelfAnchor(f) => {
                out.checked += 1;
                (Some(f), None)
            }
            Target::Local { path: target, fragment } if target == me => {
                out.checked += 1;
                (fragment, None)
            }
            Target::Local { path: target, fragment } => {
                let kind = match stats.get(&target) {
                    Some(k) => *k,
                    None => match ws.stat(&target) {
                        Ok(k) => *stats.entry(target.clone()).or_insert(k),
                        Err(f) if f.kind == ErrorKind::Cancelled => return Err(f),
                        Err(f) => {
                            out.checked += 1;
                            out.unchecked += 1;
                            finding(K::UncheckedLink, Severity::Info, f.message);
                            continue;
                        }
                    },
                };
                out.checked += 1;
                match kind {
                    None => {
                        out.broken += 1;
                        finding(
                            K::BrokenLink,
                            Severity::Error,
                            format!("{what} target {target} does not exist"),
                        );
                        continue;
                    }
                    Some(Kind::File) if fragment.as_deref().is_some_and(|f| !f.is_empty()) => {
                        if !is_markdown(&target) {
                            continue;
                        }
                        (fragment, Some(target))
                    }
                    Some(_) => continue,
                }
            }
        };
        let Some(fragment) = fragment.filter(|f| !f.is_empty()) else {
            continue;
        };
        let set = match &anchors_of {
            None => &own,
            Some(target) => {
                if !others.contains_key(target) && files_read >= MAX_OTHER_FILES {
                    out.unchecked += 1;
                    finding(
                        K::UncheckedLink,
                        Severity::Info,
                        format!(
                            "#{fragment} not checked in {target}: anchors are read from at most {MAX_OTHER_FILES} other files"
                        ),
                    );
                    continue;
                }
                if !others.contains_key(target) {
                    files_read += 1;
                    let read = match ws.load(target) {
                        Ok(loaded) => Ok(anchors(&Document::parse(&loaded.text))),
                        Err(f) if f.kind == ErrorKind::Cancelled => return Err(f),
                        Err(f) => Err(f.message),
                    };
                    let bytes =
                        read.as_ref().map_or(0, |set| set.iter().map(|a| a.len() + 32).sum());
                    if cached + bytes > cache_bytes {
                        others.clear();
                        cached = 0;
                    }
                    cached += bytes;
                    others.insert(target.clone(), read);
                }
                match &others[target] {
                    Ok(set) => set,
                    Err(why) => {
                        out.unchecked += 1;
                        finding(
                            K::UncheckedLink,
                            Severity::Info,
                            format!("#{fragment} not checked: {why}"),
                        );
                        continue;
                    }
                }
            }
        };
        if !has_anchor(set, &fragment) {
            out.missing_anchors += 1;
            let file = anchors_of.as_deref().unwrap_or("this file");
            let hint = match slug(&fragment) {
                s if s != fragment && set.contains(&s) => format!("; did you mean #{s}?"),
                _ => String::new(),
            };
            finding(
                K::MissingAnchor,
                Severity::Error,
                format!("#{} is not a heading anchor of {file}{hint}", excerpt(&fragment)),
            );
        }
    }
    Ok(out)
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
