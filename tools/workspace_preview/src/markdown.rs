//! `markdown`: Markdown (CommonMark with GitHub's extensions) to safe HTML.
//!
//! pulldown-cmark parses with tables, strikethrough, task lists, footnotes and GitHub's
//! blockquote tags; a task list's checkbox becomes the text `[ ]` or `[x]` (the sanitizer
//! allows no `input`); the HTML it writes, raw HTML blocks included, is refused when it nests
//! deeper than [`MAX_NESTING`](crate::nesting::MAX_NESTING) or would make the sanitizer's tree
//! builder reopen formatting elements without end ([`nesting`](crate::nesting)), else goes through
//! [`sanitize::clean`](crate::sanitize::clean).

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

use toolhost_sdk::error_kinds::ErrorKind;

use crate::failure::Failure;
use crate::nesting::too_costly;
use crate::sanitize;

/// What a Markdown rendering found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The sanitized HTML.
    pub html: String,
    /// Headings in the source.
    pub headings: usize,
    /// The text of the first heading, if any.
    pub first_heading: Option<String>,
    /// Links and images in the source.
    pub links: usize,
}

/// The parser options: CommonMark plus GitHub's extensions.
pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM
}

/// `source` rendered to sanitized HTML; `UNSUPPORTED_CONTENT` when it nests too deep.
pub fn render(source: &str) -> Result<Rendered, Failure> {
    let mut headings = 0;
    let mut links = 0;
    let mut first_heading: Option<String> = None;
    let mut in_first_heading = false;
    let events = Parser::new_ext(source, options()).map(|event| {
        match &event {
            Event::Start(Tag::Heading { .. }) => {
                headings += 1;
                if first_heading.is_none() {
                    in_first_heading = true;
                    first_heading = Some(String::new());
                }
            }
            Event::End(TagEnd::Heading(_)) => in_first_heading = false,
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => links += 1,
            Event::Text(t) | Event::Code(t) if in_first_heading => {
                if let Some(h) = first_heading.as_mut() {
                    h.push_str(t);
                }
            }
            _ => {}
        }
        match event {
            Event::TaskListMarker(done) => {
                Event::Text(CowStr::Borrowed(if done { "[x] " } else { "[ ] " }))
            }
            other => other,
        }
    });
    let mut raw = String::with_capacity(source.len() + source.len() / 2);
    pulldown_cmark::html::push_html(&mut raw, events);
    if let Some(why) = too_costly(&raw) {
        return Err(Failure::new(
            ErrorKind::UnsupportedContent,
            format!("the Markdown renders to HTML that {why}"),
        ));
    }
    Ok(Rendered {
        html: sanitize::clean(&raw),
        headings,
        first_heading: first_heading.map(|h| h.trim().to_owned()).filter(|h| !h.is_empty()),
        links,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_ok(source: &str) -> Rendered {
        render(source).unwrap()
    }

    #[test]
    fn deep_nesting_is_refused_before_sanitizing() {
        for deep in [">".repeat(5000) + " x", "<div>".repeat(5000)] {
            let f = render(&deep).unwrap_err();
            assert_eq!(f.kind, ErrorKind::UnsupportedContent);
            assert!(f.message.contains("at most 256 levels"), "{}", f.message);
        }
        assert!(render(&(">".repeat(100) + " x")).is_ok());
    }

    #[test]
    fn gfm_features_are_kept() {
        let md = "# Title `x`\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n\
                  ~~gone~~ and **bold**\n\n```rust\nfn main() {}\n```\n\n\
                  text[^1]\n\n[^1]: note\n";
        let r = render(md).unwrap();
        let h = &r.html;
        assert!(h.contains("<h1>Title <code>x</code></h1>"), "{h}");
        assert!(
            h.contains("<table>") && h.contains("<th>a</th>") && h.contains("<td>2</td>"),
            "{h}"
        );
        assert!(h.contains("<li>[x] done</li>") && h.contains("<li>[ ] todo</li>"), "{h}");
        assert!(!h.contains("<input"), "{h}");
        assert!(h.contains("<del>gone</del>") && h.contains("<strong>bold</strong>"), "{h}");
        assert!(h.contains(r#"<pre><code class="language-rust">fn main() {}"#), "{h}");
        assert!(h.contains("<sup"), "footnote reference: {h}");
        assert_eq!(r.first_heading.as_deref(), Some("Title x"));
        assert_eq!(r.headings, 1);
    }

    #[test]
    fn links_are_counted_and_marked() {
        let r = render_ok("[a](https://e.com) ![i](img.png) [b](rel/x.md)");
        assert_eq!(r.links, 3);
        assert!(
            r.html.contains(r#"<a href="https://e.com" rel="noopener noreferrer">a</a>"#),
            "{}",
            r.html
        );
        assert!(r.html.contains(r#"<img src="img.png" alt="i">"#), "{}", r.html);
    }

    #[test]
    fn raw_html_survives_only_sanitized() {
        let r = render_ok("<div onclick=\"x()\"><b>keep</b><script>bad()</script></div>\n");
        assert_eq!(r.html.trim(), "<div><b>keep</b></div>");
    }

    #[test]
    fn empty_input_renders_empty() {
        assert_eq!(render_ok("").html, "");
    }
}
