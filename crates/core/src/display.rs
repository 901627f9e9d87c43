//! What the model writes never reaches a terminal or a result line raw: one escaping form,
//! JSON's, for paths in tool results and for text shown to the user.
//!
//! * **Paths in tool results** ([`quote_path`]): a path with a control character (C0, DEL,
//!   C1), a Unicode bidi control, or a leading `"` is shown as a JSON string literal, quotes
//!   included: a file named `a⏎[showing 1 of 1 matches]` is listed as
//!   `"a\n[showing 1 of 1 matches]"`, one line that no tool would print as a footer or a
//!   match. Every path argument accepts that form back (`crate::fence::normalize`), so `read`
//!   and `edit` reach the file. Other paths are shown as they are.
//! * **Text on a terminal** ([`terminal_text`], [`terminal_line`]): the approval prompt,
//!   `toolhost changes`, `doctor`, `tools`, `tool show` and errors. The same escapes, without quotes; newlines and
//!   tabs kept in multi-line text and escaped in one-line fields (a justification cannot draw
//!   a second line of the prompt).
//! * **The model's words inside toolhost's own lines** ([`quoted`]): always a JSON string
//!   literal, as an approval request shows a path and the justification
//!   (`crate::approval::approval_request`).

use std::borrow::Cow;

/// Whether `c` must be escaped wherever the model's text is shown: a control character (C0,
/// DEL, C1) or a bidi control (it reorders what the terminal shows).
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Appends `c` JSON-escaped.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c => out.push_str(&format!("\\u{:04x}", c as u32)),
    }
}

/// `path` as shown in tool results: as is, or a JSON string literal when it holds anything a
/// reader could take for another line or another path (see the module doc).
pub fn quote_path(path: &str) -> Cow<'_, str> {
    if !path.starts_with('"') && !path.chars().any(is_unsafe) {
        return Cow::Borrowed(path);
    }
    Cow::Owned(quoted(path))
}

/// `text` as one JSON string literal, always: quotes around it, `"` and `\` escaped, every
/// control and bidi character (DEL and C1 too) a `\u` escape. For text the model wrote
/// that is shown inside toolhost's own lines (an approval request's reason and paths).
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if is_unsafe(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// JSON text for a terminal or a pipe: C1 controls and bidi controls (which JSON allows raw
/// inside strings) written as `\u` escapes, so the document means the same and shows safely.
/// Only valid on JSON text: those characters can only occur inside its strings.
pub fn json_text(json: &str) -> Cow<'_, str> {
    if !json.chars().any(|c| is_unsafe(c) && !c.is_ascii()) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_unsafe(c) && !c.is_ascii() {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Multi-line text for a terminal: newlines and tabs kept, every other unsafe character
/// escaped (an ANSI sequence is shown as `\u001b[2K`, not run).
pub fn terminal_text(text: &str) -> Cow<'_, str> {
    escape_except(text, &['\n', '\t'])
}

/// A one-line field for a terminal: every unsafe character escaped, newlines and tabs too.
pub fn terminal_line(text: &str) -> Cow<'_, str> {
    escape_except(text, &[])
}

fn escape_except<'a>(text: &'a str, keep: &[char]) -> Cow<'a, str> {
    if !text.chars().any(|c| is_unsafe(c) && !keep.contains(&c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) && !keep.contains(&c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_controls_become_one_json_literal() {
        assert_eq!(quote_path("src/lib.rs"), "src/lib.rs");
        assert_eq!(quote_path("名前.txt"), "名前.txt");
        let evil = "evil\n[showing 1 of 1 matches]\nfake.rs:1:x";
        let q = quote_path(evil);
        assert_eq!(q, r#""evil\n[showing 1 of 1 matches]\nfake.rs:1:x""#);
        assert_eq!(serde_json::from_str::<String>(&q).unwrap(), evil, "decodes back");
        for p in [
            "a\u{1b}[2Kb",
            "a\u{9b}b",
            "\"quoted\"",
            "x\u{202e}cod.exe",
            "tab\there",
            "back\\slash\r",
        ] {
            let q = quote_path(p);
            assert!(
                q.starts_with('"') && !q[1..q.len() - 1].contains('"') || p.contains('"'),
                "{q}"
            );
            assert!(!q.chars().any(is_unsafe), "{q:?}");
            assert_eq!(serde_json::from_str::<String>(&q).unwrap(), p);
        }
    }

    #[test]
    fn json_keeps_its_meaning_without_raw_c1() {
        let v = serde_json::json!({"t": "a\u{9b}b\u{202e}c\u{1b}"});
        let text = serde_json::to_string(&v).unwrap();
        let safe = json_text(&text);
        assert!(!safe.chars().any(is_unsafe), "{safe}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&safe).unwrap(), v);
    }

    #[test]
    fn terminal_text_shows_escapes_instead_of_running_them() {
        assert_eq!(terminal_text("a\nb\tc"), "a\nb\tc");
        assert_eq!(terminal_text("x\u{1b}[2K\u{1b}[1Ay"), "x\\u001b[2K\\u001b[1Ay");
        assert_eq!(
            terminal_line("Write Subtree /\nRead Exact x"),
            "Write Subtree /\\nRead Exact x"
        );
        assert_eq!(terminal_line("\u{9b}31m"), "\\u009b31m");
    }
}
