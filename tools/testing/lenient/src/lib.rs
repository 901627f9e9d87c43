//! `lenient`: a test-only tool that ignores its own schema: the schema says `path` is a
//! string, but it takes any JSON value there and answers as if all were well. The host's
//! input check refuses such arguments before it runs (`tests/tests/host_enforces_input_schemas.rs`),
//! so it passes conformance by leaning on that check.

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError};

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LenientInput {
    /// A path (any value is taken, whatever the schema says).
    #[schemars(with = "String")]
    pub path: serde_json::Value,
}

/// The lenient test tool.
#[derive(Default)]
pub struct Lenient;

impl Tool for Lenient {
    type Input = LenientInput;

    fn id(&self) -> &'static str {
        "lenient"
    }

    fn description(&self) -> &'static str {
        "Test-only tool that accepts inputs its schema forbids."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn inspect(&self, _input: &LenientInput) -> Inspection {
        Inspection::ReadOnly
    }

    fn execute(&self, input: LenientInput) -> Result<String, ToolError> {
        Ok(format!("took {}", input.path.to_string().chars().take(40).collect::<String>()))
    }
}

toolhost_sdk::export_tool!(Lenient);
