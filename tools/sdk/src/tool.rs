//! The `Tool` trait: the guest side of the tool contract
//! (docs/contract.md#definitions-and-the-toolset).

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::{Inspection, Output, Risk, ToolError};

/// A tool: a stable id, a typed input, a risk hint and the code that runs a call.
///
/// The component constructs the tool with [`Default`] for each call, so a tool keeps no
/// state between calls. Export it with [`export_tool!`](crate::export_tool).
pub trait Tool: Default {
    /// The input; serde parses it and schemars describes it, from this one type.
    type Input: DeserializeOwned + JsonSchema;

    /// The stable id, written out explicitly (never derived from the type name).
    fn id(&self) -> &'static str;

    /// One paragraph for the model.
    fn description(&self) -> &'static str;

    /// What the tool may change; shown to users, never a permission decision.
    fn risk(&self) -> Risk;

    /// Facts about a call before it runs (docs/contract.md#before-a-call-runs-inspect); read-only
    /// by default.
    fn inspect(&self, input: &Self::Input) -> Inspection {
        let _ = input;
        Inspection::ReadOnly
    }

    /// Run the call; the text is what the model sees.
    fn execute(&self, input: Self::Input) -> Result<String, ToolError>;

    /// JSON Schema (`type: object`) of the structured value [`Tool::run`] returns beside the
    /// text, for a tool that returns one ([`output_schema`](crate::output_schema) derives it
    /// from a type); none by default.
    fn output_schema(&self) -> Option<serde_json::Value> {
        None
    }

    /// Run the call as the host does: text and, for a tool with an output schema, the
    /// structured value ([`Output::structured`]). By default, [`Tool::execute`]'s text alone; a
    /// tool with an output schema overrides this (and has `execute` return `run`'s text).
    fn run(&self, input: Self::Input) -> Result<Output, ToolError> {
        self.execute(input).map(Output::from)
    }
}

/// A [`Tool`] whose call the host may split into parts that run at once in several
/// instances (world `parallel-tool-component`), then merge. Export it with
/// [`export_parallel_tool!`](crate::export_parallel_tool); `execute` stays the one-instance
/// path and must give the same text as parts + merge.
///
/// Within one call the parts' walks of the same directory with the same options share one
/// queue (each file reaches one part), and the n-th [`Spill`](crate::Spill) of every part and
/// of `merge` is the same file: parts append, `merge` finishes.
pub trait ParallelTool: Tool {
    /// What a part found; serialised between the part and `merge` (as JSON).
    type Part: serde::Serialize + DeserializeOwned;

    /// Part `index` of `count` of the call.
    fn execute_part(
        &self,
        input: Self::Input,
        index: u32,
        count: u32,
    ) -> Result<Self::Part, ToolError>;

    /// The call's output from every part's findings (in part order): its text
    /// (`Output::from(text)`), and its structured value for a tool with an output schema.
    fn merge(&self, input: Self::Input, parts: Vec<Self::Part>) -> Result<Output, ToolError>;
}
