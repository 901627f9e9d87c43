//! The little of PEM and DER that key files need: one PEM block's label and bytes, and a
//! strict reader of DER's tag-length-value items (definite lengths only, no trailing bytes
//! where a caller asks for none). Every malformed input is `None`, never a panic.

use base64::Engine;

/// The DER tag of a SEQUENCE.
pub const SEQUENCE: u8 = 0x30;
/// The DER tag of an OBJECT IDENTIFIER.
pub const OID: u8 = 0x06;
/// The DER tag of a BIT STRING.
pub const BIT_STRING: u8 = 0x03;
/// The DER tag of an INTEGER.
pub const INTEGER: u8 = 0x02;
/// The DER tag of an OCTET STRING.
pub const OCTET_STRING: u8 = 0x04;

/// The label and decoded bytes of the first PEM block in `text`
/// (`-----BEGIN LABEL-----` … `-----END LABEL-----`).
pub fn pem_block(text: &[u8]) -> Option<(String, Vec<u8>)> {
    let text = std::str::from_utf8(text).ok()?;
    let start = text.find("-----BEGIN ")?;
    let rest = &text[start + "-----BEGIN ".len()..];
    let (label, rest) = rest.split_once("-----")?;
    let end_marker = format!("-----END {label}-----");
    let (body, _) = rest.split_once(end_marker.as_str())?;
    let base64: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD.decode(base64).ok()?;
    Some((label.to_string(), bytes))
}

/// One DER item at the start of `input`: its tag, its contents and what follows it.
pub fn item(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    // High-tag-number forms do not occur in key files.
    if tag & 0x1f == 0x1f {
        return None;
    }
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = match first {
        n if n < 0x80 => (usize::from(n), rest),
        0x81 => {
            let (&n, rest) = rest.split_first()?;
            (n >= 0x80).then_some((usize::from(n), rest))?
        }
        0x82 => {
            let (bytes, rest) = (rest.get(..2)?, rest.get(2..)?);
            let n = usize::from(u16::from_be_bytes([bytes[0], bytes[1]]));
            (n >= 0x100).then_some((n, rest))?
        }
        // Longer than 64 KiB, indefinite or non-minimal: no key file is.
        _ => return None,
    };
    Some((tag, rest.get(..len)?, rest.get(len..)?))
}

/// The contents of the one item with `tag` that is the whole of `input`.
pub fn only(input: &[u8], tag: u8) -> Option<&[u8]> {
    let (found, contents, rest) = item(input)?;
    (found == tag && rest.is_empty()).then_some(contents)
}

/// The contents of the item with `tag` at the start of `input`, and what follows it.
pub fn next(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (found, contents, rest) = item(input)?;
    (found == tag).then_some((contents, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_read_strictly() {
        assert_eq!(item(&[0x30, 0x01, 0x05, 0xff]), Some((0x30, &[0x05][..], &[0xff][..])));
        assert_eq!(only(&[0x30, 0x01, 0x05, 0xff], SEQUENCE), None, "trailing bytes");
        assert_eq!(item(&[0x30, 0x02, 0x05]), None, "truncated");
        assert_eq!(item(&[0x30, 0x81, 0x05, 0, 0, 0, 0, 0]), None, "non-minimal length");
        assert_eq!(item(&[0x30, 0x80, 0x00, 0x00]), None, "indefinite length");
        assert_eq!(item(&[0x1f, 0x01, 0x00]), None, "high tag number");
        assert_eq!(item(&[]), None);
        let long = [&[0x04, 0x82, 0x01, 0x00][..], &[7; 256]].concat();
        assert_eq!(only(&long, OCTET_STRING).map(<[u8]>::len), Some(256));
    }

    #[test]
    fn a_pem_block_gives_its_label_and_bytes() {
        let text = b"junk\n-----BEGIN PUBLIC KEY-----\nAQID\nBA==\n-----END PUBLIC KEY-----\n";
        assert_eq!(pem_block(text), Some(("PUBLIC KEY".into(), vec![1, 2, 3, 4])));
        assert_eq!(pem_block(b"-----BEGIN A-----\nAQID\n-----END B-----\n"), None);
        assert_eq!(pem_block(b"-----BEGIN A-----\n!!\n-----END A-----\n"), None);
        assert_eq!(pem_block(b"no pem here"), None);
    }
}
