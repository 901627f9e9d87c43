//! The outline: every heading with its GitHub anchor, and the set of anchors a `#fragment`
//! may name.

use std::collections::HashSet;

use crate::document::Document;
use crate::report::OutlineEntry;
use crate::slug::Slugger;

/// Every heading of `doc` in document order, with its unique anchor.
pub fn outline(doc: &Document<'_>) -> Vec<OutlineEntry> {
    let mut slugger = Slugger::default();
    doc.headings
        .iter()
        .map(|h| OutlineEntry {
            level: h.level,
            text: h.text.clone(),
            line: h.line + 1,
            anchor: slugger.slug(&h.slug_text),
        })
        .collect()
}

/// The fragments that lead somewhere in `doc`: heading anchors and raw HTML `id`/`name`s.
pub fn anchors(doc: &Document<'_>) -> HashSet<String> {
    let mut set: HashSet<String> = outline(doc).into_iter().map(|e| e.anchor).collect();
    set.extend(doc.html_anchors.iter().cloned());
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_levels_and_anchors() {
        let text = "\
# Hello, World!

```sh
# a comment, not a heading
```

Intro
=====

## foo
## Foo
## foo

Sub *title* with `code`
-----------------------

### C++ & [links](x.md)
";
        let doc = Document::parse(text);
        let got: Vec<(u8, String, usize, String)> =
            outline(&doc).into_iter().map(|e| (e.level, e.text, e.line, e.anchor)).collect();
        let want = [
            (1, "Hello, World!", 1, "hello-world"),
            (1, "Intro", 7, "intro"),
            (2, "foo", 10, "foo"),
            (2, "Foo", 11, "foo-1"),
            (2, "foo", 12, "foo-2"),
            (2, "Sub title with code", 14, "sub-title-with-code"),
            (3, "C++ & links", 17, "c--links"),
        ];
        let want: Vec<(u8, String, usize, String)> =
            want.iter().map(|(l, t, n, a)| (*l, t.to_string(), *n, a.to_string())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn entity_spaces_count() {
        let doc = Document::parse("# &#x20;a&#x20;\n\n#   spaced   \n");
        let anchors: Vec<String> = outline(&doc).into_iter().map(|e| e.anchor).collect();
        assert_eq!(anchors, ["-a-", "spaced"]);
    }

    #[test]
    fn anchors_include_raw_html_ids() {
        let doc = Document::parse("# Top\n\n<a id=\"custom\"></a>\n");
        let set = anchors(&doc);
        assert!(set.contains("top") && set.contains("custom"));
        assert_eq!(set.len(), 2);
    }
}
