//! `unstable`: a test-only tool that breaks exactly one conformance check, `describe.stable`:
//! every fresh instance describes it with another description (a random number from WASI).

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError};

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnstableInput {
    /// Anything to echo.
    pub text: String,
}

/// The unstable test tool.
#[derive(Default)]
pub struct Unstable;

impl Tool for Unstable {
    type Input = UnstableInput;

    fn id(&self) -> &'static str {
        "unstable"
    }

    fn description(&self) -> &'static str {
        static DESCRIPTION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        DESCRIPTION.get_or_init(|| {
            use std::hash::{BuildHasher, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u8(1);
            format!(
                "Test-only tool whose description changes on every instance ({:x}).",
                h.finish()
            )
        })
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn inspect(&self, _input: &UnstableInput) -> Inspection {
        Inspection::ReadOnly
    }

    fn execute(&self, input: UnstableInput) -> Result<String, ToolError> {
        Ok(input.text)
    }
}

toolhost_sdk::export_tool!(Unstable);
