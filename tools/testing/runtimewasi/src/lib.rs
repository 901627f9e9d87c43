//! `runtimewasi`: a test-only tool that imports `wasi:filesystem` and `wasi:sockets` the way
//! the runtime of a Python (componentize-py) component does — its std calls `std::fs` and
//! `std::net` on a path that is never taken (the host links WASI with no environment, so the
//! variable it looks for is never set) — and otherwise reads through the workspace
//! capability. Conformance passes it `static.imports` and names those packages in
//! `isolation.ambient` (`tests/tests/conformance.rs`; docs/authoring.md, "WASI a language
//! runtime imports").

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError};

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuntimeWasiInput {
    /// The file whose size to tell.
    pub path: String,
}

/// The test tool.
#[derive(Default)]
pub struct RuntimeWasi;

impl Tool for RuntimeWasi {
    type Input = RuntimeWasiInput;

    fn id(&self) -> &'static str {
        "runtimewasi"
    }

    fn description(&self) -> &'static str {
        "Test-only tool that tells a file's size; its runtime imports WASI files and sockets."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn inspect(&self, _input: &RuntimeWasiInput) -> Inspection {
        Inspection::ReadOnly
    }

    fn execute(&self, input: RuntimeWasiInput) -> Result<String, ToolError> {
        if std::env::var_os("TOOLHOST_RUNTIMEWASI_NEVER_SET").is_some() {
            // Never taken: here only so that the component imports what a language runtime
            // imports (wasi:filesystem, wasi:sockets).
            let ambient = std::fs::read(&input.path).map(|b| b.len()).unwrap_or(0);
            let net = std::net::TcpStream::connect("127.0.0.1:9").is_ok();
            return Ok(format!("{ambient} {net}"));
        }
        let file = toolhost_sdk::open_file(&input.path)?;
        Ok(format!("{}: {} bytes", file.display_path(), file.size()))
    }
}

toolhost_sdk::export_tool!(RuntimeWasi);
