//! `stuck`: a test-only tool whose `execute` never returns, whatever the input, and never
//! checks `cancelled()`: only the host's deadline stops it. `toolhost conformance` must still
//! finish within its budget.

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError};

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StuckInput {
    /// Anything: the tool never gets past it.
    pub path: String,
}

/// The stuck test tool.
#[derive(Default)]
pub struct Stuck;

impl Tool for Stuck {
    type Input = StuckInput;

    fn id(&self) -> &'static str {
        "stuck"
    }

    fn description(&self) -> &'static str {
        "Test-only tool whose execute never returns."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn inspect(&self, _input: &StuckInput) -> Inspection {
        Inspection::ReadOnly
    }

    fn execute(&self, input: StuckInput) -> Result<String, ToolError> {
        let mut n: u64 = input.path.len() as u64;
        loop {
            n = std::hint::black_box(n.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
}

toolhost_sdk::export_tool!(Stuck);
