//! `runner`: a test-only component that declares process-execution risk. The host has no
//! process capability for components yet, so `tool add` and `--tool` must refuse it.

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError};

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunnerInput {
    /// The command it would run.
    pub command: String,
}

/// The runner test tool.
#[derive(Default)]
pub struct Runner;

impl Tool for Runner {
    type Input = RunnerInput;

    fn id(&self) -> &'static str {
        "runner"
    }

    fn description(&self) -> &'static str {
        "Test-only tool that declares it runs programs."
    }

    fn risk(&self) -> Risk {
        Risk::ProcessExecution
    }

    fn inspect(&self, input: &RunnerInput) -> Inspection {
        Inspection::Runs(input.command.clone())
    }

    fn execute(&self, input: RunnerInput) -> Result<String, ToolError> {
        Err(ToolError::execution_failed(format!("cannot run {}: no process capability", input.command)))
    }
}

toolhost_sdk::export_tool!(Runner);
