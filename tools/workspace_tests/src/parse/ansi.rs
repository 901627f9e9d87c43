//! Terminal escapes out of a run's output before it is parsed: colour and other CSI
//! sequences (`ESC [ … final`), OSC sequences (`ESC ] … BEL` or `ESC ] … ESC \`, e.g.
//! hyperlinks), character-set escapes (`ESC ( B`) and two-byte escapes; a carriage return ends a line like a newline does.

const ESC: char = '\u{1b}';

/// `text` without terminal escape sequences, every `\r\n` and lone `\r` a `\n`.
pub fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.next() {
                // CSI: parameters and intermediates, then one final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or the string terminator ESC \.
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == ESC && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                // nF escapes (`ESC ( B`): intermediates, then one final character.
                Some(c) if (' '..='/').contains(&c) => {
                    for c in chars.by_ref() {
                        if !(' '..='/').contains(&c) {
                            break;
                        }
                    }
                }
                // Any other escape is two characters long.
                _ => {}
            },
            // The 8-bit CSI.
            '\u{9b}' => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_links_and_returns_go() {
        assert_eq!(strip("\u{1b}[1m\u{1b}[31mFAILED\u{1b}[0m x"), "FAILED x");
        assert_eq!(strip("a\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{1b}\\b"), "alinkb");
        assert_eq!(strip("one\r\ntwo\rthree\n"), "one\ntwo\nthree\n");
        assert_eq!(strip("\u{1b}(Bplain \u{9b}2Kend\u{1b}="), "plain end");
        assert_eq!(strip("✓ unicode stays ❯"), "✓ unicode stays ❯");
        assert_eq!(strip("cut at the end \u{1b}["), "cut at the end ");
    }

    #[test]
    fn real_coloured_output_reads_like_plain_output() {
        let colour = crate::parse::fixtures::text("vitest_color");
        assert!(!colour.contains(ESC));
        assert!(colour.contains("      Tests  2 failed | 2 passed | 1 skipped (5)"), "{colour}");
        assert!(colour.contains(" FAIL  sum.test.js > math > adds wrong"));
        let cargo = crate::parse::fixtures::text("cargo_color");
        assert!(cargo.contains("test result: FAILED. 1 passed; 2 failed;"), "{cargo}");
    }
}
