//! `runtimefs`: a test-only tool that imports `wasi:filesystem` but not `wasi:sockets`, the
//! way the runtime of a JavaScript (componentize-js) component does — its std calls `std::fs`
//! on a path that is never taken (the host links WASI with no environment, so the variable it
//! looks for is never set). Conformance passes it `static.imports` and names only what it
//! imports (`tests/tests/conformance.rs`; docs/authoring.md, "WASI a language runtime
//! imports").

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError};

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuntimeFsInput {
    /// The file whose size to tell.
    pub path: String,
}

/// The test tool.
#[derive(Default)]
pub struct RuntimeFs;

impl Tool for RuntimeFs {
    type Input = RuntimeFsInput;

    fn id(&self) -> &'static str {
        "runtimefs"
    }

    fn description(&self) -> &'static str {
        "Test-only tool that tells a file's size; its runtime imports WASI files."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn inspect(&self, _input: &RuntimeFsInput) -> Inspection {
        Inspection::ReadOnly
    }

    fn execute(&self, input: RuntimeFsInput) -> Result<String, ToolError> {
        if std::env::var_os("TOOLHOST_RUNTIMEFS_NEVER_SET").is_some() {
            // Never taken: here only so that the component imports wasi:filesystem.
            return Ok(std::fs::read(&input.path).map(|b| b.len()).unwrap_or(0).to_string());
        }
        let file = toolhost_sdk::open_file(&input.path)?;
        Ok(format!("{}: {} bytes", file.display_path(), file.size()))
    }
}

toolhost_sdk::export_tool!(RuntimeFs);
