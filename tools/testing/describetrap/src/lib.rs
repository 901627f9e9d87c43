//! `describetrap`: Test-only component whose describe traps (conformance must fail exactly describe.returns).

const ID: &str = "describetrap";
const DESCRIPTION: &str = "Test-only tool whose describe panics.";
const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;
const OUTPUT_SCHEMA: Option<&str> = None;
const STRUCTURED: Option<&str> = None;
const DESCRIBE_TRAPS: bool = true;

include!("../../definition/fixture.rs");
