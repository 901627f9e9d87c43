//! `shapeless`: a test-only tool whose structured result breaks its own output schema — the
//! schema promises `count` as an integer, the tool sends a string — the way a tool drifts
//! when its author changes the code and not the schema. The host must fail every call
//! rather than hand a client a value the schema lied about; conformance must fail exactly
//! `outputs.structured`. It also echoes the text in the value, so a long input makes a value
//! past `MAX_STRUCTURED_BYTES`, which the host withholds too.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolhost_sdk::{Inspection, Output, Risk, Tool, ToolError, output_schema};

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShapelessInput {
    /// The text whose words it counts.
    pub text: String,
}

/// What the output schema promises.
#[derive(Serialize, JsonSchema)]
pub struct Promised {
    /// How many words the text has.
    pub count: u64,
}

/// What it sends instead (and the text back, so a long input makes a long value).
#[derive(Serialize)]
pub struct Sent {
    count: String,
    text: String,
}

/// The shapeless test tool.
#[derive(Default)]
pub struct Shapeless;

impl Tool for Shapeless {
    type Input = ShapelessInput;

    fn id(&self) -> &'static str {
        "shapeless"
    }

    fn description(&self) -> &'static str {
        "Test-only tool that counts the words of a text and returns a structured result that breaks its output schema."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn inspect(&self, _input: &ShapelessInput) -> Inspection {
        Inspection::ReadOnly
    }

    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(output_schema::<Promised>())
    }

    fn execute(&self, input: ShapelessInput) -> Result<String, ToolError> {
        self.run(input).map(|o| o.text)
    }

    fn run(&self, input: ShapelessInput) -> Result<Output, ToolError> {
        let n = input.text.split_whitespace().count();
        Output::structured(
            format!("{n} words"),
            &Sent { count: format!("{n} words"), text: input.text },
        )
    }
}

toolhost_sdk::export_tool!(Shapeless);
