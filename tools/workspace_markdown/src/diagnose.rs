//! The `diagnostics` operation: structural findings of one document, by line.
//!
//! Headings: duplicates (same level and text, or same anchor: a warning among siblings, info
//! under different parents, as in a changelog's repeated `### Added`), level jumps, a second
//! h1, empty text. Links: empty destinations, reference links whose label has no definition
//! (`[text][label]`, `[label][]`; a lone `[label]` without a definition is ordinary text and
//! not reported), definitions no link uses (but `[//]: # (comment)`, the comment idiom).
//! Paragraphs that start like `#Title`.

use std::collections::HashMap;

use pulldown_cmark::LinkType;

use crate::document::Document;
use crate::outline::outline;
use crate::report::{Diagnostic, DiagnosticKind as K, Severity};
use crate::slug::slug;

/// Every finding of `doc`, by line.
pub fn diagnose(doc: &Document<'_>) -> Vec<Diagnostic> {
    let mut out = headings(doc);
    out.extend(empty_links(doc));
    out.extend(missing_heading_spaces(doc).into_iter().map(|m| Diagnostic {
        kind: K::MissingHeadingSpace,
        severity: Severity::Warning,
        line: m.line + 1,
        message: format!(
            "`{}` is a paragraph, not a heading: a heading needs a space after `{}`",
            excerpt(doc.lines.content(m.line)),
            "#".repeat(m.hashes)
        ),
        target: None,
    }));
    out.extend(references(doc));
    out.sort_by_key(|d| d.line);
    out
}

/// A paragraph that starts like a heading without the space: `#Title`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MissingSpace {
    /// 0-based line.
    pub line: usize,
    /// Byte offset of the first `#` in the line.
    pub column: usize,
    /// How many `#` (1–6).
    pub hashes: usize,
}

/// Paragraphs of `doc` that start with 1–6 `#` followed by a letter (a digit is left alone:
/// `#123` is an issue reference).
pub fn missing_heading_spaces(doc: &Document<'_>) -> Vec<MissingSpace> {
    let text = doc.lines.text();
    doc.paragraphs
        .iter()
        .filter_map(|&at| {
            let rest = &text[at..];
            let hashes = rest.bytes().take_while(|&b| b == b'#').count();
            let next = rest[hashes..].chars().next()?;
            if !(1..=6).contains(&hashes) || !next.is_alphabetic() {
                return None;
            }
            let line = doc.lines.line_of(at) - 1;
            Some(MissingSpace { line, column: at - doc.lines.start(line), hashes })
        })
        .collect()
}

/// An earlier heading: its 1-based line and its parent (the index of the heading above it).
type Earlier = (usize, Option<usize>);

fn headings(doc: &Document<'_>) -> Vec<Diagnostic> {
    let outline = outline(doc);
    let mut out = Vec::new();
    // Every earlier heading by level and text, and by anchor, in order.
    let mut by_text: HashMap<(u8, &str), Vec<Earlier>> = HashMap::new();
    let mut by_slug: HashMap<String, Vec<Earlier>> = HashMap::new();
    let mut first_h1: Option<usize> = None;
    // Index of the nearest heading above each level: a heading's parent.
    let mut stack: Vec<(u8, usize)> = Vec::new();
    for (i, h) in doc.headings.iter().enumerate() {
        let line = h.line + 1;
        let warn = |kind, message: String| Diagnostic {
            kind,
            severity: Severity::Warning,
            line,
            message,
            target: None,
        };
        while stack.last().is_some_and(|&(level, _)| level >= h.level) {
            stack.pop();
        }
        let parent = stack.last().map(|&(_, j)| j);
        stack.push((h.level, i));
        if h.text.is_empty() {
            out.push(warn(K::EmptyHeading, format!("level-{} heading without text", h.level)));
        }
        if h.level == 1 {
            match first_h1 {
                Some(first) => out.push(warn(
                    K::MultipleH1,
                    format!("another level-1 heading; the first is at line {first}"),
                )),
                None => first_h1 = Some(line),
            }
        }
        if let Some(prev) = i.checked_sub(1).map(|j| &doc.headings[j])
            && h.level > prev.level + 1
        {
            out.push(warn(
                K::HeadingLevelJump,
                format!(
                    "heading level jumps from {} to {} (line {} is level {}); use level {}",
                    prev.level,
                    h.level,
                    prev.line + 1,
                    prev.level,
                    prev.level + 1
                ),
            ));
        }
        // The earlier copy cited: one under the same parent when there is one (a warning),
        // else the first under another parent (info).
        let key = slug(&h.slug_text);
        let same_text = by_text.get(&(h.level, h.text.as_str())).map(Vec::as_slice).unwrap_or(&[]);
        let same_slug = by_slug.get(&key).map(Vec::as_slice).unwrap_or(&[]);
        let sibling =
            |copies: &[Earlier]| copies.iter().find(|(_, p)| *p == parent).map(|(line, _)| *line);
        let earlier = sibling(same_text)
            .map(|line| (line, "same level and text", true))
            .or_else(|| sibling(same_slug).map(|line| (line, "same anchor", true)))
            .or_else(|| same_text.first().map(|e| (e.0, "same level and text", false)))
            .or_else(|| same_slug.first().map(|e| (e.0, "same anchor", false)));
        if let Some((first, why, siblings)) = earlier {
            out.push(Diagnostic {
                severity: if siblings { Severity::Warning } else { Severity::Info },
                message: format!(
                    "duplicate heading \"{}\" ({why} as line {first}{}); its anchor is #{}",
                    excerpt(&h.text),
                    if siblings { ", under the same parent" } else { "" },
                    outline[i].anchor
                ),
                ..warn(K::DuplicateHeading, String::new())
            });
        }
        by_text.entry((h.level, h.text.as_str())).or_default().push((line, parent));
        by_slug.entry(key).or_default().push((line, parent));
    }
    out
}

fn empty_links(doc: &Document<'_>) -> Vec<Diagnostic> {
    doc.links
        .iter()
        .filter(|l| l.dest.trim().is_empty() && !matches!(l.link_type, LinkType::Email))
        .map(|l| Diagnostic {
            kind: K::EmptyLink,
            severity: Severity::Warning,
            line: l.line + 1,
            message: if l.image {
                "image with an empty source".into()
            } else {
                "link with an empty destination".into()
            },
            target: Some(String::new()),
        })
        .collect()
}

fn references(doc: &Document<'_>) -> Vec<Diagnostic> {
    let undefined = doc
        .broken
        .iter()
        .filter(|b| matches!(b.link_type, LinkType::Reference | LinkType::Collapsed))
        .map(|b| Diagnostic {
            kind: K::UndefinedReference,
            severity: Severity::Warning,
            line: b.line + 1,
            message: format!(
                "reference [{}] has no definition (add `[{}]: <url>`)",
                excerpt(&b.label),
                excerpt(&b.label)
            ),
            target: None,
        });
    // `[//]: # (a comment)` and `[comment]: <>` are the Markdown comment idiom, not links.
    let comment = |dest: &str| dest.is_empty() || dest == "#";
    let unused = doc
        .definitions
        .iter()
        .filter(|d| !doc.used_labels.contains(&d.label) && !comment(&d.dest))
        .map(|d| Diagnostic {
            kind: K::UnusedReference,
            severity: Severity::Info,
            line: d.line + 1,
            message: format!("reference definition [{}] is not used", excerpt(&d.label)),
            target: None,
        });
    undefined.chain(unused).collect()
}

/// At most 80 characters of `s`, for a message.
pub fn excerpt(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(usize, &'static str, Severity)> {
        diagnose(&Document::parse(text))
            .into_iter()
            .map(|d| (d.line, d.kind.name(), d.severity))
            .collect()
    }

    #[test]
    fn heading_findings() {
        use Severity::*;
        let text = "# A\n\n### Deep\n\n# B\n\n## Same\n\n## Same\n\n#\n\n## same!\n";
        assert_eq!(
            kinds(text),
            [
                (3, "heading_level_jump", Warning),
                (5, "multiple_h1", Warning),
                (9, "duplicate_heading", Warning),
                (11, "empty_heading", Warning),
                (11, "multiple_h1", Warning),
                (13, "duplicate_heading", Info),
            ]
        );
    }

    #[test]
    fn duplicates_under_different_parents_are_info() {
        let text = "# Log\n\n## 1.0\n\n### Added\n\n## 0.9\n\n### Added\n";
        assert_eq!(kinds(text), [(9, "duplicate_heading", Severity::Info)]);
        let d = &diagnose(&Document::parse(text))[0];
        assert!(d.message.contains("#added-1"), "{}", d.message);
        assert!(d.message.contains("line 5"), "{}", d.message);
    }

    #[test]
    fn a_duplicate_among_siblings_is_a_warning_citing_its_sibling() {
        // `### Added` under 1.0 first, then twice under 0.9: the second copy under 0.9 is a
        // sibling's duplicate (a warning citing line 9, not line 5 under 1.0).
        let text = "# Log\n\n## 1.0\n\n### Added\n\n## 0.9\n\n### Added\n\n### Added\n";
        use Severity::*;
        assert_eq!(
            kinds(text),
            [(9, "duplicate_heading", Info), (11, "duplicate_heading", Warning)]
        );
        let found = diagnose(&Document::parse(text));
        assert!(found[0].message.contains("as line 5)"), "{}", found[0].message);
        assert!(
            found[1].message.contains("as line 9, under the same parent)"),
            "{}",
            found[1].message
        );
        assert!(found[1].message.contains("#added-2"), "{}", found[1].message);
        // The same anchor under the same parent is a sibling too.
        let text = "# T\n\n## 1.0\n\n### Fixed!\n\n## 0.9\n\n### Fixed\n\n### Fixed?\n";
        assert_eq!(
            kinds(text),
            [(9, "duplicate_heading", Info), (11, "duplicate_heading", Warning)]
        );
        let found = diagnose(&Document::parse(text));
        assert!(found[1].message.contains("same anchor as line 9"), "{}", found[1].message);
    }

    #[test]
    fn link_and_paragraph_findings() {
        let text = "#Title\n\n#123 is an issue\n\n[x]() ![y]()\n\n[a][nope] [b][ok] [lonely]\n\n[ok]: a.md\n[spare]: b.md\n[//]: # (a comment)\n\n```\n#code\n```\n";
        assert_eq!(
            kinds(text),
            [
                (1, "missing_heading_space", Severity::Warning),
                (5, "empty_link", Severity::Warning),
                (5, "empty_link", Severity::Warning),
                (7, "undefined_reference", Severity::Warning),
                (10, "unused_reference", Severity::Info),
            ]
        );
    }

    #[test]
    fn a_clean_document_has_none() {
        assert!(kinds("# T\n\n## A\n\n### B\n\n## C\n\n[x](y.md)\n").is_empty());
    }
}
