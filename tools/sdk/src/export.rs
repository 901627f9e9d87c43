//! `export_tool!` and the dispatch it expands to.

/// Export a [`Tool`](crate::Tool) as this component's `tool` interface.
///
/// ```ignore
/// toolhost_sdk::export_tool!(MyTool);
/// ```
///
/// Use it once, in the `cdylib` crate of the tool.
// rustfmt is not idempotent on this body (it re-indents lines of `macro_rules!`).
#[rustfmt::skip]
#[macro_export]
macro_rules! export_tool {
    ($tool:ty) => {
        const _: () = {
            #[doc(hidden)]
            struct __ToolhostExport;

            impl $crate::bindings::exports::toolhost::tool::tool::Guest for __ToolhostExport {
                fn describe() -> $crate::Definition {
                    $crate::__private::describe::<$tool>()
                }

                fn inspect(
                    input: ::std::string::String,
                ) -> ::std::result::Result<$crate::Inspection, $crate::ToolError> {
                    $crate::__private::inspect::<$tool>(&input)
                }

                fn execute(
                    input: ::std::string::String,
                ) -> ::std::result::Result<$crate::bindings::toolhost::tool::types::Output, $crate::ToolError> {
                    $crate::__private::execute::<$tool>(&input)
                }
            }

            $crate::bindings::export!(__ToolhostExport with_types_in $crate::bindings);
        };
    };
}

/// What `export_tool!` calls; not a stable API.
#[doc(hidden)]
pub mod __private {
    use crate::bindings::toolhost::tool::types::Output as WitOutput;
    use crate::{
        Definition, Inspection, Output, ParallelTool, Tool, ToolError, input_schema, parse_input,
    };

    fn wit(output: Output) -> Result<WitOutput, ToolError> {
        let structured = match output.structured {
            None => None,
            Some(value) => Some(serde_json::to_string(&value).map_err(|e| {
                ToolError::execution_failed(format!("cannot encode the structured result: {e}"))
            })?),
        };
        Ok(WitOutput { text: output.text, structured })
    }

    /// Parse `input`, run part `index` of `count`, serialise what it found.
    pub fn execute_part<T: ParallelTool>(
        input: &str,
        index: u32,
        count: u32,
    ) -> Result<Vec<u8>, ToolError> {
        let input = parse_input::<T::Input>(input)?;
        let part = T::default().execute_part(input, index, count)?;
        serde_json::to_vec(&part)
            .map_err(|e| ToolError::execution_failed(format!("cannot encode a part: {e}")))
    }

    /// Parse `input` and every part, then merge them.
    pub fn merge<T: ParallelTool>(
        input: &str,
        parts: Vec<Vec<u8>>,
    ) -> Result<WitOutput, ToolError> {
        let input = parse_input::<T::Input>(input)?;
        let parts = parts
            .iter()
            .map(|p| serde_json::from_slice::<T::Part>(p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ToolError::execution_failed(format!("cannot decode a part: {e}")))?;
        wit(T::default().merge(input, parts)?)
    }

    /// The tool's definition, with its input schema as JSON text.
    pub fn describe<T: Tool>() -> Definition {
        let tool = T::default();
        Definition {
            id: tool.id().to_owned(),
            description: tool.description().to_owned(),
            input_schema: input_schema::<T::Input>().to_string(),
            output_schema: tool.output_schema().map(|s| s.to_string()),
            risk: tool.risk(),
        }
    }

    /// Parse `input`, then ask the tool what the call will do.
    pub fn inspect<T: Tool>(input: &str) -> Result<Inspection, ToolError> {
        let input = parse_input::<T::Input>(input)?;
        Ok(T::default().inspect(&input))
    }

    /// Parse `input`, then run the call.
    pub fn execute<T: Tool>(input: &str) -> Result<WitOutput, ToolError> {
        let input = parse_input::<T::Input>(input)?;
        wit(T::default().run(input)?)
    }
}
