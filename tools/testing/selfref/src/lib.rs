//! `selfref`: Test-only component whose INPUT schema is a `oneOf` whose variant is a `$ref`
//! to the schema itself: validating anything against it never ends (and a generator that
//! follows it never stops). Every path must refuse it.

const ID: &str = "selfref";
const DESCRIPTION: &str = "Test-only tool whose input schema is one of itself.";
const INPUT_SCHEMA: &str = r##"{"type":"object","properties":{"q":{"$ref":"#/$defs/node"}},"oneOf":[{"$ref":"#"}],"$defs":{"node":{"oneOf":[{"$ref":"#/$defs/node"},{"type":"string"}]}}}"##;
const OUTPUT_SCHEMA: Option<&str> = None;
const STRUCTURED: Option<&str> = None;
const DESCRIBE_TRAPS: bool = false;

include!("../../definition/fixture.rs");
