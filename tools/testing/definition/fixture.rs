// The body every definition fixture shares (`include!`d by `badid`, `blankdesc`, `badschema`,
// `badoutput` and `describetrap`, and by the hostile ones `refloop`, `deepanyof`, `selfref`,
// `hugedesc`, `bashid` and `backtrack`, which define the constants it uses; a constant may be
// any value that turns `Into<String>`, so a fixture can build a large one when `describe` or
// `execute` runs): a tool bound straight
// to `wit/since_v0.2.0` with wit-bindgen — not through the SDK, which cannot emit a broken
// definition — that describes itself as its crate says and otherwise behaves: it takes only
// `{}`, refuses anything else as `invalid tool input: …`, and answers at once, so conformance
// fails exactly the describe check its definition breaks.

wit_bindgen::generate!({
    world: "tool-component",
    path: "../../../wit/since_v0.2.0",
});

use exports::toolhost::tool::tool::Guest;
use toolhost::tool::types::{Definition, ErrorCode, Inspection, Output, Risk, ToolError};

fn invalid(message: &str) -> ToolError {
    ToolError { code: ErrorCode::InvalidArguments, message: format!("invalid tool input: {message}"), retryable: false }
}

struct Fixture;

impl Guest for Fixture {
    fn describe() -> Definition {
        if DESCRIBE_TRAPS {
            panic!("this fixture's describe traps");
        }
        Definition {
            id: ID.into(),
            description: DESCRIPTION.into(),
            input_schema: INPUT_SCHEMA.into(),
            output_schema: OUTPUT_SCHEMA.map(Into::into),
            risk: Risk::ReadOnly,
        }
    }

    fn inspect(_input: String) -> Result<Inspection, ToolError> {
        Ok(Inspection::ReadOnly)
    }

    fn execute(input: String) -> Result<Output, ToolError> {
        let value: serde_json::Value = serde_json::from_str(&input).map_err(|e| invalid(&e.to_string()))?;
        match value.as_object() {
            Some(obj) if obj.is_empty() => Ok(Output { text: "ok".into(), structured: STRUCTURED.map(Into::into) }),
            Some(_) => Err(invalid("this tool takes no fields")),
            None => Err(invalid("expected a JSON object")),
        }
    }
}

export!(Fixture);
