//! `refloop`: Test-only component whose output schema is a `$ref` loop (`a` → `b` → `a`) that
//! makes no progress: `tool add`, `--tool`, loading and conformance must refuse it before
//! anything compiles or validates against it.

const ID: &str = "refloop";
const DESCRIPTION: &str =
    "Test-only tool whose output schema refers from a to b and from b back to a.";
const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;
const OUTPUT_SCHEMA: Option<&str> = Some(
    r##"{"type":"object","properties":{"v":{"$ref":"#/$defs/a"}},"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"allOf":[{"$ref":"#/$defs/a"}]}}}"##,
);
const STRUCTURED: Option<&str> = Some(r#"{"v":1}"#);
const DESCRIBE_TRAPS: bool = false;

include!("../../definition/fixture.rs");
