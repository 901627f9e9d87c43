//! One pass of pulldown-cmark over a Markdown text (GitHub's dialect: tables,
//! strikethrough, task lists, footnotes, alerts, YAML front matter; no heading attributes),
//! collecting what every operation reads: headings, links, broken references, reference
//! definitions, paragraph starts, the lines kept verbatim (code, HTML, front matter), the
//! lines that end in a hard break, and the `id`/`name` attributes of raw HTML.

use std::cell::RefCell;
use std::collections::HashSet;
use std::ops::Range;

use pulldown_cmark::{BrokenLink, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::lines::Lines;

/// One heading, ATX (`## x`) or Setext (`x` over `===`/`---`).
#[derive(Debug, Clone)]
pub struct Heading {
    /// 1–6.
    pub level: u8,
    /// Plain text: code spans' text kept, emphasis markers dropped, link text and image alt
    /// text kept, line breaks as spaces.
    pub text: String,
    /// The text GitHub slugs: [`Heading::text`] with line breaks kept as newlines.
    pub slug_text: String,
    /// 0-based first line.
    pub line: usize,
    /// 0-based last line (the underline of a Setext heading).
    pub end_line: usize,
    /// Written with `#`.
    pub atx: bool,
    /// Outside every block quote, list and footnote.
    pub top_level: bool,
}

/// One link or image.
#[derive(Debug, Clone)]
pub struct Link {
    /// The destination as parsed (entities and escapes resolved, not percent-decoded).
    pub dest: String,
    /// 0-based line where it starts.
    pub line: usize,
    /// An image (`![alt](src)`).
    pub image: bool,
    /// How it was written.
    pub link_type: LinkType,
}

/// A reference link whose label has no definition (`[text][label]`, `[label][]`).
#[derive(Debug, Clone)]
pub struct BrokenReference {
    /// 0-based line.
    pub line: usize,
    /// The label as written.
    pub label: String,
    /// How it was written.
    pub link_type: LinkType,
}

/// A reference definition (`[label]: dest`).
#[derive(Debug, Clone)]
pub struct Definition {
    /// The label, normalised ([`normalize_label`]).
    pub label: String,
    /// The destination.
    pub dest: String,
    /// 0-based line.
    pub line: usize,
}

/// What one parse found.
#[derive(Debug)]
pub struct Document<'a> {
    /// The text's lines.
    pub lines: Lines<'a>,
    /// Every heading, in document order.
    pub headings: Vec<Heading>,
    /// Every link and image, in document order.
    pub links: Vec<Link>,
    /// Reference links without a definition.
    pub broken: Vec<BrokenReference>,
    /// Reference definitions, in document order.
    pub definitions: Vec<Definition>,
    /// Normalised labels that some link or image uses.
    pub used_labels: HashSet<String>,
    /// Byte offsets where paragraphs start.
    pub paragraphs: Vec<usize>,
    /// Per 0-based line: inside a code block, an HTML block or front matter.
    pub verbatim: Vec<bool>,
    /// Per 0-based line: ends in a hard line break.
    pub hard_break: Vec<bool>,
    /// `id` and `name` attribute values of raw HTML (anchors a link may point at).
    pub html_anchors: Vec<String>,
}

/// The parser options: GitHub's dialect, heading attributes off.
pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_GFM
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
}

/// A reference label as CommonMark matches it: case-folded, inner whitespace collapsed.
pub fn normalize_label(label: &str) -> String {
    label.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// A heading being read.
struct Open {
    level: u8,
    range: Range<usize>,
    text: String,
    slug_text: String,
    top_level: bool,
}

impl<'a> Document<'a> {
    /// Parse `text`, without its byte order mark if it has one (as GitHub and the `edit`
    /// tool leave it out): every offset, line and `oldString` is of the text after it.
    pub fn parse(text: &'a str) -> Self {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let lines = Lines::new(text);
        let n = lines.count();
        let broken = RefCell::new(Vec::new());
        let callback = |link: BrokenLink<'a>| {
            broken.borrow_mut().push((link.span.start, link.link_type, link.reference.to_string()));
            None::<(CowStr<'a>, CowStr<'a>)>
        };
        let mut doc = Document {
            lines,
            headings: Vec::new(),
            links: Vec::new(),
            broken: Vec::new(),
            definitions: Vec::new(),
            used_labels: HashSet::new(),
            paragraphs: Vec::new(),
            verbatim: vec![false; n],
            hard_break: vec![false; n],
            html_anchors: Vec::new(),
        };
        let mut iter = Parser::new_with_broken_link_callback(text, options(), Some(callback))
            .into_offset_iter();
        let mut depth = 0usize;
        let mut heading: Option<Open> = None;
        for (event, range) in &mut iter {
            doc.event(event, range, &mut depth, &mut heading);
        }
        let mut definitions: Vec<Definition> = iter
            .reference_definitions()
            .iter()
            .map(|(label, def)| Definition {
                label: normalize_label(label),
                dest: def.dest.to_string(),
                line: doc.lines.line_of(def.span.start) - 1,
            })
            .collect();
        drop(iter);
        definitions.sort_by_key(|d| d.line);
        doc.definitions = definitions;
        doc.broken = broken
            .into_inner()
            .into_iter()
            .map(|(start, link_type, label)| BrokenReference {
                line: doc.lines.line_of(start) - 1,
                label,
                link_type,
            })
            .collect();
        doc
    }

    /// Take in one event.
    fn event(
        &mut self,
        event: Event<'_>,
        range: Range<usize>,
        depth: &mut usize,
        heading: &mut Option<Open>,
    ) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                *heading = Some(Open {
                    level: level as u8,
                    range,
                    text: String::new(),
                    slug_text: String::new(),
                    top_level: *depth == 0,
                });
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(open) = heading.take() {
                    self.push_heading(open);
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(open) = heading.as_mut() {
                    open.text.push_str(&t);
                    open.slug_text.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(open) = heading.as_mut() {
                    open.text.push(' ');
                    open.slug_text.push('\n');
                }
                if matches!(event, Event::HardBreak) {
                    let line = self.lines.line_of(range.start) - 1;
                    self.hard_break[line] = true;
                }
            }
            Event::Start(
                Tag::BlockQuote(_) | Tag::List(_) | Tag::Item | Tag::FootnoteDefinition(_),
            ) => *depth += 1,
            Event::End(
                TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item | TagEnd::FootnoteDefinition,
            ) => *depth = depth.saturating_sub(1),
            Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock | Tag::MetadataBlock(_)) => {
                for line in self.lines.span(&range) {
                    self.verbatim[line] = true;
                }
            }
            Event::Start(Tag::Paragraph) => self.paragraphs.push(range.start),
            Event::Start(Tag::Link { link_type, dest_url, id, .. }) => {
                self.push_link(link_type, &dest_url, &id, range.start, false)
            }
            Event::Start(Tag::Image { link_type, dest_url, id, .. }) => {
                self.push_link(link_type, &dest_url, &id, range.start, true)
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                self.html_anchors.extend(html_anchors(&html));
            }
            _ => {}
        }
    }

    fn push_heading(&mut self, open: Open) {
        let text = self.lines.text();
        let first = self.lines.line_of(open.range.start) - 1;
        let mut last = *self.lines.span(&open.range).end();
        // A Setext heading's range may stop before its underline; the underline is the
        // first line after the text that is all `=` or `-`.
        let atx = text[open.range.start..].trim_start_matches(' ').starts_with('#');
        if !atx {
            while last + 1 < self.lines.count() {
                let c = self.lines.content(last).trim();
                if !c.is_empty() && c.bytes().all(|b| b == b'=' || b == b'-') {
                    break;
                }
                last += 1;
            }
        }
        self.headings.push(Heading {
            level: open.level,
            text: open.text.trim().to_owned(),
            // pulldown-cmark already left out the source's surrounding whitespace; what is
            // left (`&#x20;`) counts, as GitHub counts it.
            slug_text: open.slug_text,
            line: first,
            end_line: last,
            atx,
            top_level: open.top_level,
        });
    }

    fn push_link(&mut self, link_type: LinkType, dest: &str, id: &str, start: usize, image: bool) {
        if matches!(link_type, LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut) {
            self.used_labels.insert(normalize_label(id));
        }
        self.links.push(Link {
            dest: dest.to_owned(),
            line: self.lines.line_of(start) - 1,
            image,
            link_type,
        });
    }
}

/// The values of `id="…"` and `name="…"` attributes in a piece of raw HTML.
pub fn html_anchors(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut found = Vec::new();
    for attr in ["id", "name"] {
        let mut from = 0;
        while let Some(at) = lower[from..].find(attr).map(|i| i + from) {
            from = at + attr.len();
            let before_ok = at > 0 && bytes[at - 1].is_ascii_whitespace();
            let rest = lower[from..].trim_start();
            if !before_ok || !rest.starts_with('=') {
                continue;
            }
            let value_at = html.len() - rest[1..].trim_start().len();
            let value = &html[value_at..];
            let v = match value.chars().next() {
                Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or(""),
                _ => value.split(|c: char| c.is_whitespace() || c == '>').next().unwrap_or(""),
            };
            if !v.is_empty() {
                found.push(v.to_owned());
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_atx_setext_and_not_in_code() {
        let text = "# One\n\n```\n# not a heading\n```\n\nTwo *em* `code`\n===\n\n    # indented code\n\n<div>\n# html\n</div>\n\n> ## Quoted [link](x.md) ![alt](i.png)\n\nThree\n---\n";
        let doc = Document::parse(text);
        let got: Vec<(u8, &str, usize, usize, bool, bool)> = doc
            .headings
            .iter()
            .map(|h| (h.level, h.text.as_str(), h.line, h.end_line, h.atx, h.top_level))
            .collect();
        assert_eq!(
            got,
            [
                (1, "One", 0, 0, true, true),
                (1, "Two em code", 6, 7, false, true),
                (2, "Quoted link alt", 15, 15, true, false),
                (2, "Three", 17, 18, false, true),
            ]
        );
        assert!(doc.verbatim[2] && doc.verbatim[3] && doc.verbatim[4] && !doc.verbatim[5]);
        assert!(doc.verbatim[9] && doc.verbatim[11] && doc.verbatim[13] && !doc.verbatim[14]);
    }

    #[test]
    fn a_byte_order_mark_is_left_out() {
        let doc = Document::parse("\u{feff}# T\n");
        assert_eq!(doc.headings[0].text, "T");
        assert_eq!(doc.lines.text(), "# T\n");
    }

    #[test]
    fn front_matter_is_not_a_heading() {
        let doc = Document::parse("---\ntitle: x\n---\n\n# Real\n");
        assert_eq!(doc.headings.len(), 1);
        assert_eq!(doc.headings[0].text, "Real");
        assert!(doc.verbatim[1]);
    }

    #[test]
    fn links_references_and_definitions() {
        let text = "[a](x.md) [b][used] [c][missing] [d][] [Used]\n\n[used]: y.md\n[Unused  Label]: z.md\n";
        let doc = Document::parse(text);
        let dests: Vec<&str> = doc.links.iter().map(|l| l.dest.as_str()).collect();
        assert_eq!(dests, ["x.md", "y.md", "y.md"]);
        let broken: Vec<&str> = doc.broken.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(broken, ["missing", "d"]);
        let defs: Vec<(&str, usize)> =
            doc.definitions.iter().map(|d| (d.label.as_str(), d.line)).collect();
        assert_eq!(defs, [("used", 2), ("unused label", 3)]);
        assert!(doc.used_labels.contains("used"));
    }

    #[test]
    fn hard_breaks_and_html_anchors() {
        let doc = Document::parse("a  \nb\n\n<a name=\"top\"></a>\n\n<h2 id='x y'>T</h2>\n");
        assert_eq!(doc.hard_break, [true, false, false, false, false, false]);
        assert_eq!(doc.html_anchors, ["top", "x y"]);
        assert_eq!(html_anchors("<div data-id=\"no\" ID=yes>"), ["yes"]);
    }
}
