//! `hoarder`: a test-only, read-only tool that makes the host hold resources for it through
//! the `call` interface, bound straight to `wit/since_v0.2.0` with wit-bindgen (the SDK would
//! finish its spills): what a hostile component does to a host that bounds only the
//! component's own memory.
//!
//! Input `{"action": ..., "count": N, "bytes": B}`:
//! * `open`: open `count` spills and append a line of `bytes` bytes to each, never finishing
//!   one (each is kept in the host's buffer until the call ends);
//! * `files`: open, fill with `bytes` bytes (in 1 MiB lines) and finish `count` spills, one
//!   after another (each a file kept in the spill dir);
//! * `progress`: report `count` progress messages of `bytes` bytes each.
//!
//! Each returns a one-line summary (`opened N`, `finished N files`, `reported N`) when the
//! host let it run to the end.

wit_bindgen::generate!({
    world: "tool-component",
    path: "../../../wit/since_v0.2.0",
});

use exports::toolhost::tool::tool::Guest;
use toolhost::tool::call::{Spill, report_progress};
use toolhost::tool::types::{Definition, ErrorCode, Inspection, Output, Risk, ToolError};

const SCHEMA: &str = r#"{"type":"object","properties":{"action":{"type":"string","enum":["open","files","progress"]},"count":{"type":"integer","minimum":0},"bytes":{"type":"integer","minimum":0}},"required":["action","count","bytes"],"additionalProperties":false}"#;

/// Largest line `files` appends at once.
const LINE: usize = 1 << 20;

fn invalid(message: &str) -> ToolError {
    ToolError {
        code: ErrorCode::InvalidArguments,
        message: format!("invalid tool input: {message}"),
        retryable: false,
    }
}

/// The action, count and bytes of `input`.
fn parse(input: &str) -> Result<(String, u64, u64), ToolError> {
    let value: serde_json::Value =
        serde_json::from_str(input).map_err(|e| invalid(&e.to_string()))?;
    let action = value["action"].as_str().ok_or_else(|| invalid("`action` must be a string"))?;
    let count = value["count"].as_u64().ok_or_else(|| invalid("`count` must be a whole number"))?;
    let bytes = value["bytes"].as_u64().ok_or_else(|| invalid("`bytes` must be a whole number"))?;
    match action {
        "open" | "files" | "progress" => Ok((action.to_string(), count, bytes)),
        other => Err(invalid(&format!("unknown action `{other}`"))),
    }
}

struct Hoarder;

impl Guest for Hoarder {
    fn describe() -> Definition {
        Definition {
            id: "hoarder".into(),
            description: "Test-only tool that makes the host hold spills, spill files and progress messages for it.".into(),
            input_schema: SCHEMA.into(),
            output_schema: None,
            risk: Risk::ReadOnly,
        }
    }

    fn inspect(input: String) -> Result<Inspection, ToolError> {
        parse(&input).map(|_| Inspection::ReadOnly)
    }

    fn execute(input: String) -> Result<Output, ToolError> {
        let (action, count, bytes) = parse(&input)?;
        let text = match action.as_str() {
            "open" => {
                let line = "x".repeat(bytes as usize);
                let mut kept = Vec::new();
                for _ in 0..count {
                    let spill = Spill::new();
                    spill.append(&line);
                    kept.push(spill);
                }
                format!("opened {}", kept.len())
            }
            "files" => {
                let line = "y".repeat((bytes as usize).min(LINE));
                for _ in 0..count {
                    let spill = Spill::new();
                    let mut left = bytes;
                    while left > 0 {
                        let n = left.min(line.len() as u64 + 1);
                        spill.append(&line[..(n - 1) as usize]);
                        left -= n;
                    }
                    spill.finish();
                }
                format!("finished {count} files")
            }
            _ => {
                let message = "z".repeat(bytes as usize);
                for i in 0..count {
                    report_progress(&message, Some(i as f64 / count.max(1) as f64));
                }
                format!("reported {count}")
            }
        };
        Ok(Output { text, structured: None })
    }
}

export!(Hoarder);
