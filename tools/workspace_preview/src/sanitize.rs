//! The sanitizer every HTML preview passes through: one strict `ammonia` policy.
//!
//! Kept: ammonia's default set of formatting elements (headings, paragraphs, lists, tables,
//! `pre`/`code`, `blockquote`, `img`, links, …) with their plain attributes, and a
//! `language-*` class on `code`. Removed: every other element — `script` and `style`
//! together with their content, `iframe`, `object`, `embed`, `form`, `input`, `svg`, `math`,
//! … (their text stays, as text) — every `on*` event-handler attribute, `style`, `id`, and
//! comments. URLs (`href`, `src`, `cite`) keep only the schemes http, https and mailto, or
//! are relative; anything else (`javascript:`, `vbscript:`, `data:`, however encoded or
//! cased) loses the attribute. Every link gets `rel="noopener noreferrer"`.

use std::sync::OnceLock;

use ammonia::Builder;

/// URL schemes a kept `href`/`src` may use; relative URLs pass too.
pub const URL_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// Elements removed together with their content (not only their tags).
pub const CLEAN_CONTENT_TAGS: [&str; 9] =
    ["script", "style", "noscript", "template", "textarea", "title", "xmp", "noembed", "noframes"];

/// Default elements of ammonia that this policy drops: image maps (`area` carries an
/// `href` of its own and adds nothing to a preview).
const DROPPED_DEFAULT_TAGS: [&str; 2] = ["area", "map"];

fn builder() -> &'static Builder<'static> {
    static POLICY: OnceLock<Builder<'static>> = OnceLock::new();
    POLICY.get_or_init(|| {
        let mut b = Builder::default();
        b.rm_tags(DROPPED_DEFAULT_TAGS)
            .url_schemes(URL_SCHEMES.into_iter().collect())
            .clean_content_tags(CLEAN_CONTENT_TAGS.into_iter().collect())
            .link_rel(Some("noopener noreferrer"))
            .strip_comments(true)
            .add_tag_attributes("code", ["class"])
            .attribute_filter(|element, attribute, value| {
                if element == "code" && attribute == "class" {
                    return language_class(value).map(Into::into);
                }
                if URL_ATTRIBUTES.contains(&attribute)
                    && scheme(value).is_some_and(|s| !URL_SCHEMES.contains(&s.as_str()))
                {
                    return None;
                }
                Some(value.into())
            });
        b
    })
}

/// Attributes of the kept elements whose value is a URL.
const URL_ATTRIBUTES: [&str; 3] = ["href", "src", "cite"];

/// The scheme `url` names once percent-decoded, stripped of ASCII whitespace and control
/// characters and lower-cased (none for a relative URL). ammonia already checks the scheme
/// as a browser parses it; this second check also drops a URL that spells a script scheme
/// only after decoding (`jav%09ascript:`), in case something downstream decodes it.
pub fn scheme(url: &str) -> Option<String> {
    let bytes = url.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                decoded.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                decoded.push(b);
                i += 1;
            }
        }
    }
    let plain: String = String::from_utf8_lossy(&decoded)
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    let colon = plain.find(':')?;
    let name = &plain[..colon];
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    valid.then(|| name.to_owned())
}

/// The `language-*` class of a code block (as pulldown-cmark writes it), if that is all
/// the class says and its name is plain (letters, digits, `+-_.#`).
fn language_class(value: &str) -> Option<String> {
    let name = value.strip_prefix("language-")?;
    let plain = !name.is_empty()
        && name.len() <= 40
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "+-_.#".contains(c));
    plain.then(|| value.to_owned())
}

/// `html` sanitized by the policy: well-formed markup with nothing executable.
pub fn clean(html: &str) -> String {
    builder().clean(html).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_keeps_a_plain_language_class_only() {
        assert_eq!(
            clean(r#"<pre><code class="language-rust">x</code></pre>"#),
            r#"<pre><code class="language-rust">x</code></pre>"#
        );
        assert_eq!(clean(r#"<code class="x language-rust">x</code>"#), "<code>x</code>");
        assert_eq!(clean(r#"<code class="language-a&quot;b">x</code>"#), "<code>x</code>");
        assert_eq!(clean(r#"<p class="language-rust">x</p>"#), "<p>x</p>");
    }

    #[test]
    fn links_get_rel_and_keep_safe_urls() {
        assert_eq!(
            clean(r#"<a href="https://e.com/a?b=1&amp;c=2">x</a>"#),
            r#"<a href="https://e.com/a?b=1&amp;c=2" rel="noopener noreferrer">x</a>"#
        );
        assert_eq!(
            clean(r#"<a href="docs/x.md#y">x</a>"#),
            r#"<a href="docs/x.md#y" rel="noopener noreferrer">x</a>"#
        );
        assert_eq!(
            clean(r#"<a href="mailto:a@b.c">x</a>"#),
            r#"<a href="mailto:a@b.c" rel="noopener noreferrer">x</a>"#
        );
        assert_eq!(
            clean(r#"<a href="ftp://e.com/">x</a>"#),
            r#"<a rel="noopener noreferrer">x</a>"#
        );
    }

    #[test]
    fn schemes_are_found_after_decoding() {
        assert_eq!(scheme("https://e.com"), Some("https".into()));
        assert_eq!(scheme("jav%09ascript:alert(1)"), Some("javascript".into()));
        assert_eq!(scheme("%6A%61vascript:x"), Some("javascript".into()));
        assert_eq!(scheme(" JaVa\tScRiPt:x"), Some("javascript".into()));
        assert_eq!(scheme("docs/a:b"), None);
        assert_eq!(scheme("#x:y"), None);
        assert_eq!(scheme("a.md"), None);
        assert_eq!(
            clean(r#"<a href="jav%09ascript:alert(1)">x</a>"#),
            r#"<a rel="noopener noreferrer">x</a>"#
        );
        assert_eq!(
            clean(r#"<img src="https://e.com/a%20b.png">"#),
            r#"<img src="https://e.com/a%20b.png">"#
        );
    }

    #[test]
    fn removed_elements_lose_their_content_when_it_is_code() {
        assert_eq!(clean("<p>a<script>alert(1)</script>b</p>"), "<p>ab</p>");
        assert_eq!(clean("<style>p{}</style><p>x</p>"), "<p>x</p>");
        assert_eq!(clean("<textarea><b>t</b></textarea>z"), "z");
        assert_eq!(clean("<form><input value=x>keep</form>"), "keep");
    }
}
