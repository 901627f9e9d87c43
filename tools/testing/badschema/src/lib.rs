//! `badschema`: Test-only component whose input schema is not valid JSON Schema (conformance must fail exactly describe.schema).

const ID: &str = "badschema";
const DESCRIPTION: &str =
    "Test-only tool whose input schema names a type JSON Schema does not have.";
const INPUT_SCHEMA: &str =
    r#"{"type":"object","properties":{"n":{"type":"integer-ish","description":"A number."}}}"#;
const OUTPUT_SCHEMA: Option<&str> = None;
const STRUCTURED: Option<&str> = None;
const DESCRIBE_TRAPS: bool = false;

include!("../../definition/fixture.rs");
