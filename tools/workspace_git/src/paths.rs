//! Paths as git prints them and as this tool shows them.
//!
//! git runs with `core.quotePath=true`, so a path with a byte that is not printable ASCII, a
//! `"` or a `\` comes C-quoted (`"caf\303\251"`, `"a\tb"`); [`decode`] turns that back into
//! the path's bytes. Then the rule the file tools use for a name
//! (`toolhost_core::display::quote_path`, crates/core/src/display.rs):
//! * in the structured value ([`structured`]) a UTF-8 path is given as is (JSON carries a
//!   newline or a quote unambiguously);
//! * in the model-visible text ([`shown`]) a UTF-8 path goes through `quote_path`, so a path
//!   with a control character, a bidi control or a leading `"` is one JSON string literal
//!   and can never pass for another line;
//! * a path that is not UTF-8 is, in both, `quote_path`'s quoted form with `\xHH` for each
//!   byte that is not UTF-8 ([`quote_bytes`]): the file tools decode such a name lossily, which
//!   would make `latin1-\xe9` and `latin1-\xe8` one name; a git path must stay distinct.

/// Why a C-quoted path could not be decoded (git never prints one; a parse error then).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadQuoting(pub String);

/// The bytes of `token`, a path as git prints it: C-quoted when it starts with `"`, else
/// literal.
pub fn decode(token: &str) -> Result<Vec<u8>, BadQuoting> {
    let Some(inner) = token.strip_prefix('"') else {
        return Ok(token.as_bytes().to_vec());
    };
    let bad = || BadQuoting(token.to_owned());
    let inner = inner.strip_suffix('"').ok_or_else(bad)?;
    let bytes = inner.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            return Err(bad());
        }
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let next = *bytes.get(i + 1).ok_or_else(bad)?;
        let simple = match next {
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b't' => Some(b'\t'),
            b'n' => Some(b'\n'),
            b'v' => Some(0x0b),
            b'f' => Some(0x0c),
            b'r' => Some(b'\r'),
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            _ => None,
        };
        if let Some(byte) = simple {
            out.push(byte);
            i += 2;
            continue;
        }
        let octal = bytes.get(i + 1..i + 4).ok_or_else(bad)?;
        if !octal.iter().all(|d| (b'0'..=b'7').contains(d)) {
            return Err(bad());
        }
        let value = octal.iter().fold(0u32, |v, d| v * 8 + u32::from(d - b'0'));
        out.push(u8::try_from(value).map_err(|_| bad())?);
        i += 4;
    }
    Ok(out)
}

/// Splits a line's trailing path field(s) off: the first path token of `rest` (quoted or
/// not) and what follows it. An unquoted token ends at a tab (git quotes a path holding one).
pub fn split_token(rest: &str) -> Result<(&str, &str), BadQuoting> {
    if !rest.starts_with('"') {
        return Ok(rest.split_once('\t').unwrap_or((rest, "")));
    }
    let bytes = rest.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => {
                let after = &rest[i + 1..];
                return Ok((&rest[..=i], after.strip_prefix('\t').unwrap_or(after)));
            }
            _ => i += 1,
        }
    }
    Err(BadQuoting(rest.to_owned()))
}

/// A path's bytes for the structured value: the UTF-8 path as is, a non-UTF-8 one as
/// [`quote_bytes`] writes it.
pub fn structured(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(path) => path.to_owned(),
        Err(_) => quote_bytes(bytes),
    }
}

/// A path's bytes for the model-visible text: a UTF-8 path through [`quote_path`], a
/// non-UTF-8 one as [`quote_bytes`] writes it.
pub fn shown(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(path) => quote_path(path),
        Err(_) => quote_bytes(bytes),
    }
}

/// A path that is not UTF-8, in [`quote_path`]'s quoted form with each byte that is not UTF-8
/// written `\xHH`: always quoted, so it is never taken for a UTF-8 name (which `quote_path`
/// never writes with `\x`), and two such names stay two (the file tools' lossy decoding would
/// show `latin1-\xe9` and `latin1-\xe8` as the same `latin1-\u{fffd}`).
pub fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 8);
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        push_quoted(&mut out, chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('"');
    out
}

/// Whether `c` must be escaped where the model's text is shown: a control character (C0,
/// DEL, C1) or a bidi control (the rule of crates/core/src/display.rs).
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `path` as the file tools show it (`toolhost_core::display::quote_path`): as is, or a JSON
/// string literal, quotes included, when it has an unsafe character or starts with `"`.
pub fn quote_path(path: &str) -> String {
    if !path.starts_with('"') && !path.chars().any(is_unsafe) {
        return path.to_owned();
    }
    let mut out = String::with_capacity(path.len() + 8);
    out.push('"');
    push_quoted(&mut out, path);
    out.push('"');
    out
}

/// `text` with `"`, `\` and every unsafe character escaped as JSON escapes them.
fn push_quoted(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_unsafe(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_quoted_paths_decode_to_their_bytes() {
        assert_eq!(decode("plain/path.rs").unwrap(), b"plain/path.rs");
        assert_eq!(decode(r#""caf\303\251""#).unwrap(), "café".as_bytes());
        assert_eq!(decode(r#""a\tb\nc\"d\\e""#).unwrap(), b"a\tb\nc\"d\\e");
        assert_eq!(decode(r#""bad\377""#).unwrap(), b"bad\xff");
        assert_eq!(decode(r#""\a\b\v\f\r""#).unwrap(), b"\x07\x08\x0b\x0c\r");
        for broken in [r#""open"#, r#""x\q""#, r#""x\40""#, r#""x\400""#, r#""a"b""#, "\"x\\"] {
            assert!(decode(broken).is_err(), "{broken}");
        }
    }

    #[test]
    fn tokens_split_at_the_tab_or_the_closing_quote() {
        assert_eq!(split_token("new\told").unwrap(), ("new", "old"));
        assert_eq!(split_token("only").unwrap(), ("only", ""));
        assert_eq!(split_token(r#""a\"\tb"	"c""#).unwrap(), (r#""a\"\tb""#, r#""c""#));
        assert_eq!(split_token(r#""x\\""#).unwrap(), (r#""x\\""#, ""));
        assert!(split_token(r#""never closed"#).is_err());
    }

    #[test]
    fn paths_follow_the_file_tools_rule() {
        assert_eq!(structured("a\nb".as_bytes()), "a\nb");
        assert_eq!(structured("é".as_bytes()), "é");
        assert_eq!(structured(b"x\xff"), r#""x\xff""#);
        assert_eq!(structured(b"\"q\n\xff\xfe"), r#""\"q\n\xff\xfe""#);
        assert_ne!(structured(b"latin1-\xe9.txt"), structured(b"latin1-\xe8.txt"));
        assert_eq!(shown(b"caf\xe9"), r#""caf\xe9""#);
        assert_eq!(shown("caf\u{e9}".as_bytes()), "café");
        assert_eq!(shown(b"src/lib.rs"), "src/lib.rs");
        assert_eq!(shown("名前.txt".as_bytes()), "名前.txt");
        assert_eq!(shown(b"a\nb"), r#""a\nb""#);
        assert_eq!(shown(b"tab\there"), r#""tab\there""#);
        assert_eq!(shown(b"\"quoted\""), r#""\"quoted\"""#);
        assert_eq!(shown(b"x\xe2\x80\xaecod"), r#""x\u202ecod""#);
        assert_eq!(shown(b"esc\x1b[2K"), r#""esc\u001b[2K""#);
        for p in ["a\u{9b}b", "back\\slash\r", "a\nb\tc\"d"] {
            let q = shown(p.as_bytes());
            assert_eq!(serde_json::from_str::<String>(&q).unwrap(), p, "decodes back");
        }
    }
}
