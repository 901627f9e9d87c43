//! What sanitizing HTML would cost, estimated in one linear pass of html5ever's tokenizer
//! before the sanitizer builds a tree of it. html5ever's tree builder checks scopes by
//! walking the stack of open elements, so a document nesting thousands of elements costs time
//! quadratic in its depth (100,000 nested `<div>`s or `>` quotes take two minutes); and it
//! reopens ("reconstructs") formatting elements closed implicitly, so 11 KB of unclosed
//! `<b title=N>`s followed by paragraphs become 4.6 MB; and it holds the whole tree, about
//! 900 bytes an element. [`too_costly`] refuses all three first.
//!
//! The estimate follows the tree builder where cost is at stake: void elements open
//! nothing; an end tag closes the nearest open element of its name and everything opened
//! after it; a `p` closes an open `p` unless a scope boundary is in between, and `li`, `dd`,
//! `dt`, table parts and `option` close one of their own across inline elements only; the
//! list of active formatting elements keeps markers and at most three identical entries.
//! Where it is unsure it counts more, never less.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

/// Deepest nesting a rendered preview may have: far beyond any real document, and shallow
/// enough that sanitizing 8 MiB of HTML at this depth takes seconds, not minutes.
pub const MAX_NESTING: usize = 256;

fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
            | "keygen"
            | "basefont"
            | "bgsound"
            | "frame"
            | "image"
            | "isindex"
    )
}

/// Elements an `li`, `dd`, `dt`, table part or `option` start tag closes its own kind across.
fn is_inline(name: &str) -> bool {
    matches!(
        name,
        "a" | "abbr"
            | "b"
            | "bdi"
            | "bdo"
            | "big"
            | "cite"
            | "code"
            | "data"
            | "del"
            | "dfn"
            | "em"
            | "font"
            | "i"
            | "ins"
            | "kbd"
            | "mark"
            | "nobr"
            | "q"
            | "s"
            | "samp"
            | "small"
            | "span"
            | "strike"
            | "strong"
            | "sub"
            | "sup"
            | "time"
            | "tt"
            | "u"
            | "var"
            | "address"
            | "div"
            | "p"
    )
}

/// Where a `p` start tag stops looking for an open `p` (button scope).
fn is_scope_boundary(name: &str) -> bool {
    matches!(
        name,
        "applet"
            | "caption"
            | "html"
            | "table"
            | "td"
            | "th"
            | "marquee"
            | "object"
            | "template"
            | "button"
            | "svg"
            | "math"
            | "foreignObject"
            | "desc"
            | "title"
            | "mi"
            | "mo"
            | "mn"
            | "ms"
            | "mtext"
            | "annotation-xml"
    )
}

/// Start tags that close an open element of their kind across inline elements.
fn closes_own_kind(name: &str) -> bool {
    matches!(
        name,
        "li" | "dd"
            | "dt"
            | "td"
            | "th"
            | "tr"
            | "thead"
            | "tbody"
            | "tfoot"
            | "caption"
            | "colgroup"
            | "option"
            | "optgroup"
            | "rb"
            | "rt"
            | "rp"
            | "rtc"
            | "a"
            | "nobr"
    )
}

/// Whether an open `open` is of the kind a `name` start tag closes (a cell closes a cell).
fn same_kind(name: &str, open: &str) -> bool {
    fn group(n: &str) -> &str {
        match n {
            "td" | "th" => "cell",
            "dd" | "dt" => "definition",
            "thead" | "tbody" | "tfoot" => "section",
            other => other,
        }
    }
    group(name) == group(open)
}

/// Whether a `name` start tag looks for its kind past an open `open`: inline elements, and
/// the parts of a table inside the part it closes.
fn crosses(name: &str, open: &str) -> bool {
    is_inline(open)
        || match name {
            "tr" => matches!(open, "td" | "th"),
            "thead" | "tbody" | "tfoot" => matches!(open, "tr" | "td" | "th"),
            _ => false,
        }
}

/// Formatting elements: the tree builder keeps a list of them and, when text or a tag
/// comes after one was closed implicitly, opens it again ("reconstructs" it).
fn is_formatting(name: &str) -> bool {
    matches!(
        name,
        "a" | "b"
            | "big"
            | "code"
            | "em"
            | "font"
            | "i"
            | "nobr"
            | "s"
            | "small"
            | "strike"
            | "strong"
            | "tt"
            | "u"
    )
}

/// Start tags after which the tree builder does not reopen formatting elements (blocks, and
/// what belongs in a head); every other start tag and all text reopens them first.
fn keeps_formatting_closed(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "center"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "header"
            | "hgroup"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "p"
            | "search"
            | "section"
            | "summary"
            | "ul"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "pre"
            | "listing"
            | "form"
            | "li"
            | "dd"
            | "dt"
            | "plaintext"
            | "table"
            | "hr"
            | "caption"
            | "col"
            | "colgroup"
            | "tbody"
            | "thead"
            | "tfoot"
            | "tr"
            | "td"
            | "th"
            | "html"
            | "body"
            | "head"
            | "base"
            | "basefont"
            | "bgsound"
            | "link"
            | "meta"
            | "noframes"
            | "script"
            | "style"
            | "template"
            | "title"
            | "frameset"
            | "frame"
    )
}

/// Elements that put a marker on the formatting list (cleared back to it when they close).
fn is_marker(name: &str) -> bool {
    matches!(name, "td" | "th" | "caption" | "applet" | "object" | "marquee" | "template")
}

/// Most elements (start tags, and the elements the tree builder reopens) a rendered preview
/// may have: the sanitizer holds a tree of them all, about 900 bytes an element at its
/// peak (natively; less on wasm32), so 200,000 stay near 180 MB of a call's 512 MiB.
/// Markdown documents of a few MB fit (a 1 MB README has some tens of thousands).
pub const MAX_ELEMENTS: u64 = 200_000;

/// Reconstructed elements allowed per start tag of the source: a sloppy page that leaves a
/// `<b>` open in every paragraph reopens up to three (the tree builder keeps at most three
/// identical ones); one built to amplify reopens hundreds per paragraph (250 unclosed
/// `<b title=N>`s, then `<p>x` after `<p>x`).
pub const RECONSTRUCTED_PER_START: u64 = 3;

/// Reconstructed elements allowed beyond [`RECONSTRUCTED_PER_START`] per start tag.
pub const MAX_EXTRA_RECONSTRUCTED: u64 = 10_000;

/// An entry of the list of active formatting elements.
#[derive(Clone)]
enum Active {
    /// A marker, pushed by the element of this id.
    Marker(u64),
    /// A formatting element: its name and attributes, and the id of its open element.
    Element { key: String, name: String, id: u64 },
}

#[derive(Default)]
struct State {
    /// Open elements: name and id.
    stack: Vec<(String, u64)>,
    active: Vec<Active>,
    next_id: u64,
    deepest: usize,
    starts: u64,
    reconstructed: u64,
}

impl State {
    fn open(&mut self, name: &str) -> u64 {
        self.next_id += 1;
        self.stack.push((name.to_owned(), self.next_id));
        self.deepest = self.deepest.max(self.stack.len());
        self.next_id
    }

    /// Close the open element at `at` and everything opened after it.
    fn close_from(&mut self, at: usize) {
        for (name, id) in self.stack.drain(at..).collect::<Vec<_>>() {
            if is_marker(&name)
                && let Some(m) =
                    self.active.iter().rposition(|a| matches!(a, Active::Marker(i) if *i == id))
            {
                self.active.truncate(m);
            }
        }
    }

    fn after_marker(&self) -> usize {
        self.active.iter().rposition(|a| matches!(a, Active::Marker(_))).map_or(0, |m| m + 1)
    }

    /// Reopen the formatting elements closed implicitly, as the tree builder does.
    fn reconstruct(&mut self) {
        let from = self.after_marker();
        for i in from..self.active.len() {
            let Active::Element { id, name, .. } = &self.active[i] else { continue };
            if self.stack.iter().any(|(_, open)| open == id) {
                continue;
            }
            let name = name.clone();
            let new_id = self.open(&name);
            if let Active::Element { id, .. } = &mut self.active[i] {
                *id = new_id;
            }
            self.reconstructed += 1;
        }
    }

    fn start(&mut self, name: &str, key: String) {
        self.starts += 1;
        if name == "p" {
            let found = self.stack.iter().rposition(|(n, _)| n == "p" || is_scope_boundary(n));
            if let Some(at) = found.filter(|&at| self.stack[at].0 == "p") {
                self.close_from(at);
            }
        } else if closes_own_kind(name) {
            let found =
                self.stack.iter().rposition(|(n, _)| same_kind(name, n) || !crosses(name, n));
            if let Some(at) = found.filter(|&at| same_kind(name, &self.stack[at].0)) {
                self.close_from(at);
            }
        }
        if !keeps_formatting_closed(name) {
            self.reconstruct();
        }
        let id = self.open(name);
        if is_marker(name) {
            self.active.push(Active::Marker(id));
        } else if is_formatting(name) {
            // At most three identical entries after the last marker (the "Noah's Ark" rule).
            let from = self.after_marker();
            let same: Vec<usize> = (from..self.active.len())
                .filter(|&i| matches!(&self.active[i], Active::Element { key: k, .. } if *k == key))
                .collect();
            if same.len() >= 3 {
                self.active.remove(same[0]);
            }
            self.active.push(Active::Element { key, name: name.to_owned(), id });
        }
    }

    fn end(&mut self, name: &str) {
        if is_formatting(name) {
            let from = self.after_marker();
            if let Some(i) = (from..self.active.len())
                .rev()
                .find(|&i| matches!(&self.active[i], Active::Element { name: n, .. } if n == name))
            {
                self.active.remove(i);
            }
        }
        if let Some(at) = self.stack.iter().rposition(|(n, _)| n == name) {
            self.close_from(at);
        }
    }

    fn elements(&self) -> u64 {
        self.starts + self.reconstructed
    }

    fn over(&self) -> bool {
        self.deepest > MAX_NESTING
            || self.elements() > MAX_ELEMENTS
            || self.reconstructed > RECONSTRUCTED_PER_START * self.starts + MAX_EXTRA_RECONSTRUCTED
    }
}

#[derive(Default)]
struct Depth {
    state: RefCell<State>,
}

impl TokenSink for Depth {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        if state.over() {
            return TokenSinkResult::Continue;
        }
        let tag = match token {
            Token::TagToken(tag) => tag,
            Token::CharacterTokens(_) => {
                state.reconstruct();
                return TokenSinkResult::Continue;
            }
            _ => return TokenSinkResult::Continue,
        };
        let name: &str = &tag.name;
        if tag.kind == TagKind::EndTag {
            state.end(name);
            return TokenSinkResult::Continue;
        }
        if is_void(name) {
            state.starts += 1;
            if !keeps_formatting_closed(name) {
                state.reconstruct();
            }
            return TokenSinkResult::Continue;
        }
        let key = if is_formatting(name) {
            let mut attrs: Vec<String> =
                tag.attrs.iter().map(|a| format!("{}={}", &*a.name.local, &*a.value)).collect();
            attrs.sort();
            format!("{name} {}", attrs.join(" "))
        } else {
            String::new()
        };
        state.start(name, key);
        // Read raw-text content as the tree builder would, so a `<div>` in a script is text.
        match name {
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            "textarea" | "title" => TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        }
    }
}

fn measure(html: &str) -> State {
    let tokenizer = Tokenizer::new(Depth::default(), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.state.into_inner()
}

/// Why sanitizing `html` would cost too much, if it would: it nests deeper than
/// [`MAX_NESTING`], has more than [`MAX_ELEMENTS`] elements, or makes the tree builder reopen closed formatting elements more than
/// [`RECONSTRUCTED_PER_START`] times per start tag plus [`MAX_EXTRA_RECONSTRUCTED`].
pub fn too_costly(html: &str) -> Option<String> {
    let state = measure(html);
    if state.deepest > MAX_NESTING {
        return Some(format!(
            "nests elements at least {} deep (the preview sanitizes at most {MAX_NESTING} levels)",
            state.deepest
        ));
    }
    if state.elements() > MAX_ELEMENTS {
        return Some(format!(
            "has at least {} elements (the preview sanitizes at most {MAX_ELEMENTS})",
            state.elements()
        ));
    }
    if state.reconstructed > RECONSTRUCTED_PER_START * state.starts + MAX_EXTRA_RECONSTRUCTED {
        return Some(format!(
            "reopens unclosed formatting elements at least {} times for {} tags (at most \
             {RECONSTRUCTED_PER_START} per tag plus {MAX_EXTRA_RECONSTRUCTED})",
            state.reconstructed, state.starts
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(html: &str) -> usize {
        measure(html).deepest
    }

    #[test]
    fn flat_documents_are_shallow() {
        assert_eq!(depth(&"<p>x</p>".repeat(1000)), 1);
        assert_eq!(depth(&"<p>x".repeat(1000)), 1);
        assert_eq!(depth(&format!("<ul>{}</ul>", "<li>x".repeat(1000))), 2);
        assert_eq!(depth(&format!("<table>{}</table>", "<tr><td>a<td>b".repeat(1000))), 3);
        assert_eq!(depth(&"<br><img src=x><hr>".repeat(1000)), 0);
        assert_eq!(depth(&format!("<script>{}</script>", "<div>".repeat(1000))), 1);
        // The inner `p` closes the outer one across the `div`, as in a browser.
        assert_eq!(depth("<div><p>a<div><p>b</div></div>"), 3);
    }

    #[test]
    fn nesting_is_counted() {
        assert_eq!(depth(&"<div>".repeat(300)), 257, "counting stops past the limit");
        assert_eq!(depth(&format!("<p>{}<p>x", "<i>".repeat(5))), 6, "reopened inside the p");
        assert_eq!(depth(&"<ul><li>".repeat(100)), 200, "nested lists do not close items");
        assert_eq!(depth(&"<div/>".repeat(100)), 100, "a slash does not close a div");
        assert_eq!(depth(&"<table><tr><td>".repeat(50)), 150);
        assert!(too_costly(&"<blockquote>".repeat(1000)).unwrap().contains("at least 257 deep"));
        assert!(too_costly(&"<div>x</div>".repeat(10_000)).is_none());
    }

    #[test]
    fn reopened_formatting_is_counted() {
        // 250 distinct unclosed `b`s inside a `p`, then paragraphs: each reopens all 250.
        let bold: String = (0..250).map(|i| format!("<b title={i}>")).collect();
        let amplify = format!("<p>{bold}{}", "<p>x".repeat(1000));
        let state = measure(&amplify);
        assert!(
            state.reconstructed > RECONSTRUCTED_PER_START * state.starts + MAX_EXTRA_RECONSTRUCTED,
            "counting stopped past the bound"
        );
        assert!(state.reconstructed >= 250 * 40, "{}", state.reconstructed);
        assert!(too_costly(&amplify).unwrap().contains("reopens unclosed formatting"));
        // Identical ones are kept three at a time, as in a browser.
        let same = format!("<p>{}{}", "<b>".repeat(250), "<p>x".repeat(1000));
        assert_eq!(measure(&same).reconstructed, 3000);
        // Sloppy but ordinary: unclosed `b`s in table cells, a `b` per paragraph.
        let cells = format!("<table>{}</table>", "<tr><td><b>x</td>".repeat(5000));
        assert!(too_costly(&cells).is_none(), "{:?}", too_costly(&cells));
        assert!(too_costly(&"<p><b>x".repeat(20_000)).is_none());
    }

    #[test]
    fn elements_are_counted() {
        assert!(too_costly(&"<img src=a>".repeat(200_000)).is_none());
        let many = too_costly(&"<img src=a>".repeat(200_001)).unwrap();
        assert!(many.contains("at least 200001 elements"), "{many}");
        assert!(too_costly(&"<p>x</p>".repeat(150_000)).is_none());
    }
}
