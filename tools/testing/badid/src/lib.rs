//! `badid`: Test-only component whose id breaks the id rules (conformance must fail exactly describe.id).

const ID: &str = "bad id!";
const DESCRIPTION: &str = "Test-only tool whose id has a space and a bang.";
const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;
const OUTPUT_SCHEMA: Option<&str> = None;
const STRUCTURED: Option<&str> = None;
const DESCRIBE_TRAPS: bool = false;

include!("../../definition/fixture.rs");
