//! `bulky`: a test-only tool of about 18 MB — the size of a tool built with componentize-py —
//! whose bulk is a payload in its data. `cargo xtask bench tools` installs it to measure what
//! an installed tool costs the calls of other tools (nothing, until it is called), and
//! `installed_tools_cost_nothing_until_called` to see that a session does not read it.

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError};

/// The payload, written by the build script.
static PAYLOAD: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/payload.bin"));

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkyInput {
    /// A byte offset into the payload.
    pub offset: u64,
}

/// The bulky test tool.
#[derive(Default)]
pub struct Bulky;

impl Tool for Bulky {
    type Input = BulkyInput;

    fn id(&self) -> &'static str {
        "bulky"
    }

    fn description(&self) -> &'static str {
        "Test-only tool of about 18 MB: says the payload's size and its byte at an offset."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn inspect(&self, _input: &BulkyInput) -> Inspection {
        Inspection::ReadOnly
    }

    fn execute(&self, input: BulkyInput) -> Result<String, ToolError> {
        let at = usize::try_from(input.offset).ok().filter(|&i| i < PAYLOAD.len());
        match at {
            Some(i) => Ok(format!("{} bytes; byte {i} is {}", PAYLOAD.len(), PAYLOAD[i])),
            None => Err(ToolError::invalid_arguments(format!(
                "invalid tool input: `offset` must be below {}",
                PAYLOAD.len()
            ))),
        }
    }
}

toolhost_sdk::export_tool!(Bulky);
