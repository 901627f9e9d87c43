//! How a text file is stored, for tools that change text the way its file keeps it: a UTF-8
//! byte order mark set aside ([`split_bom`]), and whether every line ends with `\r\n`
//! ([`is_crlf_only`]). `edit` and `apply_patch` both match and write through these.

/// The UTF-8 byte order mark.
pub const BOM: char = '\u{FEFF}';

/// `text` with a leading [`BOM`] set aside: the mark (if there was one) and the rest.
pub fn split_bom(text: &str) -> (Option<char>, &str) {
    match text.strip_prefix(BOM) {
        Some(body) => (Some(BOM), body),
        None => (None, text),
    }
}

/// Every line of `text` ends with `\r\n` (and there is at least one line break).
pub fn is_crlf_only(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut any = false;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            if i == 0 || bytes[i - 1] != b'\r' {
                return false;
            }
            any = true;
        }
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bom_is_set_aside_and_crlf_only_means_every_line() {
        assert_eq!(split_bom("\u{FEFF}a"), (Some(BOM), "a"));
        assert_eq!(split_bom("a"), (None, "a"));
        assert!(is_crlf_only("a\r\nb\r\n"));
        assert!(!is_crlf_only("a\r\nb\n"));
        assert!(!is_crlf_only("no break"));
        assert!(!is_crlf_only("\n"));
    }
}
