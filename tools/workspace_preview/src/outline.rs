//! `html`: an HTML page summarised as text with html5ever's tokenizer (no regex).
//!
//! [`summarize`] feeds the page to the tokenizer; the [`Collector`] sink keeps the title,
//! the headings, the link targets and the visible text: the content of `script`, `style`,
//! `noscript`, `template` (and the other raw-text elements) is dropped, whitespace is
//! collapsed, and block elements start their own lines. [`Summary::render`] writes the
//! preview.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

/// Link targets listed in the preview (the count covers them all).
pub const LISTED_LINKS: usize = 20;

/// Headings kept for the outline (the count covers them all).
pub const LISTED_HEADINGS: usize = 200;

/// What a page says, as text.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The `<title>`, whitespace collapsed.
    pub title: Option<String>,
    /// Heading levels (1–6) and texts, the first [`LISTED_HEADINGS`].
    pub headings: Vec<(u8, String)>,
    /// Every heading.
    pub heading_count: usize,
    /// The first [`LISTED_LINKS`] link targets (`a href`), as written.
    pub links: Vec<String>,
    /// Every `a` with an `href`.
    pub link_count: usize,
    /// The visible text: one line per block.
    pub text: String,
}

/// Elements whose content is never shown, with the tokenizer state their content is in.
fn hidden(name: &str) -> Option<Option<RawKind>> {
    Some(match name {
        "script" => Some(RawKind::ScriptData),
        "style" | "noscript" | "xmp" | "iframe" | "noembed" | "noframes" => Some(RawKind::Rawtext),
        "textarea" => Some(RawKind::Rcdata),
        "template" => None,
        _ => return None,
    })
}

/// Elements that start and end a line of text.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "body"
            | "br"
            | "caption"
            | "dd"
            | "details"
            | "dialog"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "legend"
            | "li"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "summary"
            | "table"
            | "tbody"
            | "thead"
            | "tfoot"
            | "tr"
            | "ul"
    )
}

fn heading_level(name: &str) -> Option<u8> {
    match name.as_bytes() {
        [b'h', d @ b'1'..=b'6'] => Some(d - b'0'),
        _ => None,
    }
}

/// Text with whitespace collapsed and lines broken at blocks.
#[derive(Default)]
struct Lines {
    out: String,
    pending_space: bool,
}

impl Lines {
    fn push(&mut self, text: &str) {
        for c in text.chars() {
            if c.is_whitespace() {
                self.pending_space = true;
            } else if c != '\0' {
                if self.pending_space && !self.out.is_empty() && !self.out.ends_with('\n') {
                    self.out.push(' ');
                }
                self.pending_space = false;
                self.out.push(c);
            }
        }
    }
    fn space(&mut self) {
        self.pending_space = true;
    }
    fn newline(&mut self) {
        self.pending_space = false;
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
    }
}

/// The tokenizer's sink: what it has seen so far.
#[derive(Default)]
pub struct Collector {
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    summary: Summary,
    text: Lines,
    /// The hidden element being skipped and how deep it nests.
    skipping: Option<(String, usize)>,
    title: Option<Lines>,
    heading: Option<(u8, Lines)>,
}

impl State {
    fn characters(&mut self, s: &str) {
        if let Some(title) = self.title.as_mut() {
            title.push(s);
            return;
        }
        if self.skipping.is_some() {
            return;
        }
        if let Some((_, h)) = self.heading.as_mut() {
            h.push(s);
        }
        self.text.push(s);
    }

    fn tag(&mut self, tag: Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        let start = tag.kind == TagKind::StartTag;
        if let Some((skipped, depth)) = self.skipping.as_mut() {
            if name == skipped.as_str() {
                if start && !tag.self_closing {
                    *depth += 1;
                } else if !start {
                    *depth -= 1;
                    if *depth == 0 {
                        self.skipping = None;
                    }
                }
            }
            return TokenSinkResult::Continue;
        }
        if name == "title" {
            // Every title's content is RCDATA; the first non-empty one is the page's.
            if start {
                self.title = Some(Lines::default());
                return TokenSinkResult::RawData(RawKind::Rcdata);
            }
            if let Some(t) = self.title.take()
                && self.summary.title.is_none()
            {
                self.summary.title = Some(t.out).filter(|t| !t.is_empty());
            }
            return TokenSinkResult::Continue;
        }
        // `<script/>` opens a script all the same (HTML ignores the slash here).
        if start && let Some(raw) = hidden(name) {
            self.skipping = Some((name.to_owned(), 1));
            return raw.map_or(TokenSinkResult::Continue, TokenSinkResult::RawData);
        }
        if name == "plaintext" && start {
            self.text.newline();
            return TokenSinkResult::Plaintext;
        }
        if start
            && name == "a"
            && let Some(href) = tag.attrs.iter().find(|a| &*a.name.local == "href")
        {
            self.summary.link_count += 1;
            if self.summary.links.len() < LISTED_LINKS {
                self.summary.links.push(href.value.trim().to_owned());
            }
        }
        if start
            && name == "img"
            && let Some(alt) = tag.attrs.iter().find(|a| &*a.name.local == "alt")
        {
            let alt = alt.value.trim();
            if !alt.is_empty() {
                self.characters(&format!(" [image: {alt}] "));
            }
        }
        if let Some(level) = heading_level(name) {
            if start {
                self.heading = Some((level, Lines::default()));
            } else if let Some((level, h)) = self.heading.take() {
                self.summary.heading_count += 1;
                if self.summary.headings.len() < LISTED_HEADINGS {
                    self.summary.headings.push((level, h.out));
                }
            }
        }
        if is_block(name) {
            self.text.newline();
        } else if matches!(name, "td" | "th") {
            self.text.space();
        }
        TokenSinkResult::Continue
    }
}

impl TokenSink for Collector {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        match token {
            Token::TagToken(tag) => state.tag(tag),
            Token::CharacterTokens(s) => {
                state.characters(&s);
                TokenSinkResult::Continue
            }
            _ => TokenSinkResult::Continue,
        }
    }
}

/// The summary of `html`.
pub fn summarize(html: &str) -> Summary {
    let tokenizer = Tokenizer::new(Collector::default(), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let state = tokenizer.sink.state.into_inner();
    let mut summary = state.summary;
    if summary.title.is_none()
        && let Some(t) = state.title
    {
        summary.title = Some(t.out).filter(|t| !t.is_empty());
    }
    summary.text = state.text.out.trim_end().to_owned();
    summary
}

impl Summary {
    /// The preview: title, outline, links, then the text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!("Title: {}\n", self.title.as_deref().unwrap_or("(none)")));
        out.push_str(&format!("Headings: {}\n", self.heading_count));
        for (level, text) in &self.headings {
            let indent = "  ".repeat(usize::from(*level - 1));
            out.push_str(&format!("{indent}{} {text}\n", "#".repeat(usize::from(*level))));
        }
        if self.heading_count > self.headings.len() {
            out.push_str(&format!("  … {} more\n", self.heading_count - self.headings.len()));
        }
        out.push_str(&format!("Links: {}", self.link_count));
        if self.link_count > self.links.len() {
            out.push_str(&format!(" (the first {} below)", self.links.len()));
        }
        out.push('\n');
        for link in &self.links {
            out.push_str(&format!("- {link}\n"));
        }
        out.push_str("Text:\n");
        out.push_str(&self.text);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<!doctype html><html><head><title> My  Page </title>\
        <style>body { color: red }</style><script>var x = '<h1>no</h1>';</script></head>\
        <body><h1>Main</h1><p>Hello   <b>world</b>\n and more.</p>\
        <noscript><p>enable js</p></noscript><template><p>tpl</p></template>\
        <h2>Sub &amp; section</h2><ul><li>one</li><li>two <a href=\"/x\">x</a></li></ul>\
        <a href=\"https://e.com/?a=1&amp;b=2\">e</a><a name=\"anchor\">n</a>\
        <table><tr><td>c1</td><td>c2</td></tr></table><img alt=\"logo\" src=\"l.png\">\
        <textarea>hidden</textarea></body></html>";

    #[test]
    fn a_page_is_summarised() {
        let s = summarize(PAGE);
        assert_eq!(s.title.as_deref(), Some("My Page"));
        assert_eq!(s.headings, vec![(1, "Main".to_owned()), (2, "Sub & section".to_owned())]);
        assert_eq!(s.links, vec!["/x".to_owned(), "https://e.com/?a=1&b=2".to_owned()]);
        assert_eq!(s.link_count, 2);
        assert_eq!(
            s.text,
            "Main\nHello world and more.\nSub & section\none\ntwo x\nen\nc1 c2\n[image: logo]"
        );
        for hidden in ["color", "var x", "no<", "enable js", "tpl", "hidden"] {
            assert!(!s.text.contains(hidden), "{hidden} in {}", s.text);
        }
    }

    #[test]
    fn the_rendering_has_every_part() {
        let r = summarize(PAGE).render();
        assert!(
            r.starts_with(
                "Title: My Page\nHeadings: 2\n# Main\n  ## Sub & section\nLinks: 2\n- /x\n"
            ),
            "{r}"
        );
        assert!(r.contains("Text:\nMain\nHello world and more."), "{r}");
    }

    #[test]
    fn many_links_are_counted_beyond_the_list() {
        let html: String = (0..30).map(|i| format!("<a href=\"/{i}\">{i}</a>")).collect();
        let s = summarize(&html);
        assert_eq!((s.link_count, s.links.len()), (30, LISTED_LINKS));
        assert!(s.render().contains("Links: 30 (the first 20 below)"));
    }

    #[test]
    fn broken_markup_does_not_leak_script() {
        let s = summarize(
            "<p>a<script>if (a < b) { document.write('</p>') }</script>b<script>unclosed",
        );
        assert_eq!(s.text, "ab");
        let s = summarize("<title>t</title><title>second</title>x");
        assert_eq!((s.title.as_deref(), s.text.as_str()), (Some("t"), "x"));
        let s = summarize("<script><script>x</script>y");
        assert_eq!(s.text, "y");
        let s =
            summarize("<script/>alert(1)</script>z<template><template>a</template>b</template>c");
        assert_eq!(s.text, "zc");
    }
}
