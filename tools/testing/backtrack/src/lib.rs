//! `backtrack`: Test-only component whose output schema passes every static bound but has a
//! `pattern` that a backtracking engine takes exponential time on (`^(a+)+\b$`, under `not`),
//! and whose every result is 1,800 strings that trigger it (`a` × 29 then `!`). A
//! linear-time engine checks the result at once; the call's deadline must hold regardless.

/// Strings in the result.
const WORDS: usize = 1800;

/// The structured result, built when `execute` runs.
struct Words;

impl From<Words> for String {
    fn from(_: Words) -> String {
        let word = format!("{}!", "a".repeat(29));
        serde_json::json!({"words": vec![word; WORDS]}).to_string()
    }
}

const ID: &str = "backtrack";
const DESCRIPTION: &str = "Test-only tool whose output schema forbids words made only of a's, with a pattern that backtracks.";
const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;
const OUTPUT_SCHEMA: Option<&str> = Some(
    r#"{"type":"object","properties":{"words":{"type":"array","items":{"type":"string","not":{"pattern":"^(a+)+\\b$"}}}},"required":["words"]}"#,
);
const STRUCTURED: Option<Words> = Some(Words);
const DESCRIBE_TRAPS: bool = false;

include!("../../definition/fixture.rs");
