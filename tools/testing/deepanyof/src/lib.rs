//! `deepanyof`: Test-only component whose output schema is a chain of 40 `$defs`, each an
//! `anyOf` of two references to the next: a few kilobytes that are 2^40 schemas written out.
//! Every path must refuse it before anything compiles it.

/// The output schema, built when `describe` runs.
struct Chain;

/// Levels of the chain.
const LEVELS: usize = 40;

impl From<Chain> for String {
    fn from(_: Chain) -> String {
        let mut defs = serde_json::Map::new();
        for i in 0..LEVELS {
            let next = format!("#/$defs/l{}", i + 1);
            defs.insert(
                format!("l{i}"),
                serde_json::json!({"anyOf": [{"$ref": next}, {"type": "object", "properties": {"x": {"$ref": next}}}]}),
            );
        }
        defs.insert(format!("l{LEVELS}"), serde_json::json!({"type": "integer"}));
        serde_json::json!({"type": "object", "properties": {"v": {"$ref": "#/$defs/l0"}}, "$defs": defs}).to_string()
    }
}

const ID: &str = "deepanyof";
const DESCRIPTION: &str = "Test-only tool whose output schema is an anyOf chain 40 levels deep.";
const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;
const OUTPUT_SCHEMA: Option<Chain> = Some(Chain);
const STRUCTURED: Option<&str> = Some(r#"{"v":{"x":{"x":{"x":1}}}}"#);
const DESCRIBE_TRAPS: bool = false;

include!("../../definition/fixture.rs");
