//! `blankdesc`: Test-only component whose description is blank (conformance must fail exactly describe.description).

const ID: &str = "blankdesc";
const DESCRIPTION: &str = "  \n ";
const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;
const OUTPUT_SCHEMA: Option<&str> = None;
const STRUCTURED: Option<&str> = None;
const DESCRIBE_TRAPS: bool = false;

include!("../../definition/fixture.rs");
