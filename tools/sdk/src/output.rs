//! What a call returns (`wit/since_v0.3.0`): the text the model sees and, for a tool that
//! declares an output schema, a structured value the host checks against it and serves to
//! MCP clients as `structuredContent`. Both must be complete on their own: several clients
//! show only one of the two.

use schemars::JsonSchema;
use serde::Serialize;

use crate::ToolError;

/// A call's output.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// What the model sees.
    pub text: String,
    /// The structured value (a JSON object matching the tool's output schema), if any.
    pub structured: Option<serde_json::Value>,
}

impl From<String> for Output {
    fn from(text: String) -> Self {
        Output { text, structured: None }
    }
}

impl Output {
    /// `text` with `value` as the structured result.
    pub fn structured<T: Serialize>(text: impl Into<String>, value: &T) -> Result<Self, ToolError> {
        let value = serde_json::to_value(value).map_err(|e| {
            ToolError::execution_failed(format!("cannot encode the structured result: {e}"))
        })?;
        Ok(Output { text: text.into(), structured: Some(value) })
    }
}

/// The output schema of a tool whose structured value is a `T` (the same rules as
/// [`input_schema`](crate::input_schema): no `$schema` or `title`, `type: object`).
pub fn output_schema<T: JsonSchema>() -> serde_json::Value {
    crate::input_schema::<T>()
}
