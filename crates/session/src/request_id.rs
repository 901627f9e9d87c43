//! The `"id"` of a request line too long to parse, found by [`IdScanner`] as the bytes stream
//! by: a JSON tokenizer with constant state that watches the top-level object for its `"id"`
//! member, so an oversize request can still be answered for its id (JSON-RPC's `id`, the JSON
//! Lines session's `id`) without the line ever being held in memory.

use serde_json::Value;

/// Longest raw `"id"` value kept (a string id with escapes, or a number); a longer one is not
/// an id anyone can match, and the answer goes out with a null id.
const MAX_ID_BYTES: usize = 256;

/// Finds the top-level `"id"` member of a JSON object fed in pieces.
#[derive(Debug, Default)]
pub struct IdScanner {
    /// Open `{`/`[` around the current byte.
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// At depth 1: the next string is a member name.
    expect_key: bool,
    /// The member name being read (only its first bytes: enough to tell `id` from others).
    key: Vec<u8>,
    reading_key: bool,
    /// The raw bytes of the `"id"` member's value while it is read.
    value: Option<Vec<u8>>,
    found: Option<Vec<u8>>,
    done: bool,
}

impl IdScanner {
    /// A scanner at the start of a line.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the scan is over (the id was found, or the line cannot have one).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Feed the next bytes of the line.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.done {
                return;
            }
            self.step(b);
        }
    }

    /// The id: a string or a number, if the line's top-level object has one.
    pub fn id(&self) -> Option<Value> {
        let raw = self.found.as_ref()?;
        match serde_json::from_slice::<Value>(raw).ok()? {
            v @ (Value::String(_) | Value::Number(_)) => Some(v),
            _ => None,
        }
    }

    fn step(&mut self, b: u8) {
        if self.in_string {
            if let Some(v) = &mut self.value {
                v.push(b);
            }
            if self.reading_key && self.key.len() < 4 {
                self.key.push(b);
            }
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                self.reading_key = false;
            }
            self.check_value_size();
            return;
        }
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => {}
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.reading_key = true;
                    self.key.clear();
                }
                if let Some(v) = &mut self.value {
                    v.push(b);
                }
            }
            b'{' | b'[' => {
                if self.depth == 0 && b != b'{' {
                    // Not an object: no member can be its id.
                    self.done = true;
                    return;
                }
                if self.value.is_some() {
                    // An object or array is no id.
                    self.value = None;
                    self.done = true;
                    return;
                }
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_key = true;
                }
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.finish_value();
                }
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    self.done = true;
                }
            }
            b':' if self.depth == 1 => {
                self.expect_key = false;
                // The name read last, with its closing quote: `id"`.
                if self.key == b"id\"" {
                    self.value = Some(Vec::new());
                }
            }
            b',' if self.depth == 1 => {
                self.finish_value();
                self.expect_key = true;
            }
            _ => {
                if self.depth == 0 {
                    self.done = true;
                } else if let Some(v) = &mut self.value {
                    v.push(b);
                    self.check_value_size();
                }
            }
        }
    }

    fn finish_value(&mut self) {
        if let Some(v) = self.value.take() {
            self.found = Some(v);
            self.done = true;
        }
    }

    fn check_value_size(&mut self) {
        if self.value.as_ref().is_some_and(|v| v.len() > MAX_ID_BYTES) {
            self.value = None;
            self.done = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Option<Value> {
        let mut s = IdScanner::new();
        s.feed(text.as_bytes());
        s.id()
    }

    #[test]
    fn finds_the_top_level_id_wherever_it_is() {
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":1}}"#),
            Some(7.into())
        );
        assert_eq!(
            scan(r#"{"method":"m","params":{"id":1,"a":[{"id":2}]},"id":"c-3"}"#),
            Some("c-3".into())
        );
        assert_eq!(scan(r#" { "id" : -12 , "tool":"read"}"#), Some((-12).into()));
        assert_eq!(scan(r#"{"i\"d":1,"id":"q\"uote"}"#), Some("q\"uote".into()));
        assert_eq!(scan(r#"{"a":"id","b":"x:id","id":2.5}"#), Some(2.5.into()));
    }

    #[test]
    fn finds_it_across_pieces_and_stops_there() {
        let mut s = IdScanner::new();
        for piece in [r#"{"jsonrpc":"2.0","i"#, r#"d"#, r#"":4"#, r#"2,"params":{"#] {
            s.feed(piece.as_bytes());
        }
        assert!(s.is_done());
        assert_eq!(s.id(), Some(42.into()));
    }

    #[test]
    fn no_id_when_there_is_none_or_it_is_not_a_string_or_number() {
        assert_eq!(scan(r#"{"method":"notifications/x","params":{"id":1}}"#), None);
        assert_eq!(scan(r#"{"id":null}"#), None);
        assert_eq!(scan(r#"{"id":{"a":1}}"#), None);
        assert_eq!(scan(r#"[{"id":1}]"#), None);
        assert_eq!(scan("not json at all"), None);
        let long = format!(r#"{{"id":"{}"}}"#, "x".repeat(MAX_ID_BYTES + 1));
        assert_eq!(scan(&long), None);
        // Truncated before the id's value ends: not an id.
        assert_eq!(scan(r#"{"id":"abc"#), None);
    }
}
