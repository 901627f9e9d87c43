//! `badoutput`: Test-only component whose output schema is not an object's (conformance must fail exactly describe.output-schema).

const ID: &str = "badoutput";
const DESCRIPTION: &str =
    "Test-only tool whose output schema describes an array, which MCP's outputSchema cannot be.";
const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;
const OUTPUT_SCHEMA: Option<&str> = Some(r#"{"type":"array"}"#);
// A value its (wrong) schema accepts, so only the schema's own check fails.
const STRUCTURED: Option<&str> = Some("[]");
const DESCRIBE_TRAPS: bool = false;

include!("../../definition/fixture.rs");
