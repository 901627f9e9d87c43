//! The tool contract on the host side (docs/contract.md#definitions-and-the-toolset): the typed
//! [`NativeTool`] trait for tools that live in the host (bash), the type-erased [`DynTool`] the registry
//! stores, and [`ToolAdapter`], which turns one into the other. Component tools implement
//! [`DynTool`] directly (see `runtime::component_tool`): their input type lives in the component.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::context::{ToolCallContext, ToolSessionContext};
pub use crate::input_error::INVALID_INPUT_PREFIX;
use crate::result::{
    ToolError, ToolResult, ToolResultArtifact, ToolResultContent, ToolResultStatus,
};

/// A tool's stable id, written out explicitly (never derived from a type name).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ToolId(Arc<str>);

impl ToolId {
    /// Wrap an id.
    pub fn new(id: impl AsRef<str>) -> Self {
        ToolId(Arc::from(id.as_ref()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ToolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for ToolId {
    fn from(s: &str) -> Self {
        ToolId::new(s)
    }
}

/// What a tool may change: a hint for users and clients, never a permission decision
/// (docs/contract.md#definitions-and-the-toolset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolRisk {
    ReadOnly,
    WorkspaceMutation,
    ProcessExecution,
}

impl ToolRisk {
    /// The risk as written in the WIT contract and shown to users (`read-only`, …).
    pub fn name(self) -> &'static str {
        match self {
            ToolRisk::ReadOnly => "read-only",
            ToolRisk::WorkspaceMutation => "workspace-mutation",
            ToolRisk::ProcessExecution => "process-execution",
        }
    }
}

/// What the model is told about a tool: id + description + input schema + risk
/// (docs/contract.md#definitions-and-the-toolset).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    pub id: ToolId,
    pub description: String,
    pub input_schema: serde_json::Value,
    /// JSON Schema of the structured value a successful call returns beside its text
    /// (MCP `outputSchema`); none for tools that return text only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<serde_json::Value>,
    pub risk: ToolRisk,
}

/// Facts a tool reports before it runs (docs/contract.md#before-a-call-runs-inspect).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallInspection {
    ReadOnly,
    Writes(String),
    Runs(String),
}

/// What a host-native tool produced: the model-visible text plus what travels beside it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    pub text: String,
    pub artifacts: Vec<ToolResultArtifact>,
    pub sandbox_denied: bool,
    /// The structured value beside the text, for a tool with an output schema
    /// ([`NativeTool::output_schema`]).
    pub structured: Option<serde_json::Value>,
}

impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        ToolOutput { text, ..Default::default() }
    }
}

/// A tool implemented in the host, with a typed input
/// (docs/contract.md#definitions-and-the-toolset).
#[async_trait]
pub trait NativeTool: Send + Sync + 'static {
    /// The input; serde parses it and schemars describes it, from this one type.
    type Input: DeserializeOwned + JsonSchema + Send + 'static;

    /// The stable id, written out.
    fn id(&self) -> ToolId;
    /// The description the model reads.
    fn description(&self) -> &'static str;
    /// What the tool may change.
    fn risk(&self) -> ToolRisk;
    /// Facts before execution; read-only unless the tool says otherwise.
    fn inspect(&self, _input: &Self::Input) -> CallInspection {
        CallInspection::ReadOnly
    }
    /// JSON Schema of the structured value a successful call returns beside its text
    /// ([`ToolOutput::structured`]); none for a tool of text only.
    fn output_schema(&self) -> Option<serde_json::Value> {
        None
    }
    /// Run one call.
    async fn execute(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: Self::Input,
    ) -> Result<ToolOutput, ToolError>;
}

/// A tool with its input type erased, as the registry stores it.
#[async_trait]
pub trait DynTool: Send + Sync + 'static {
    /// The definition advertised to the model.
    fn definition(&self) -> &ToolDefinition;
    /// Facts before execution, from the JSON input.
    async fn inspect(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: &serde_json::Value,
    ) -> Result<CallInspection, ToolError>;
    /// Run one call on the JSON input; never panics, always one result.
    async fn call(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: serde_json::Value,
    ) -> ToolResult;
    /// Why the tool is disabled for the rest of the session (a component that crashed on
    /// too many calls in a row), if it is; its calls then fail with that text.
    fn disabled(&self) -> Option<String> {
        None
    }
    /// Whether every program this tool runs needs a person's approval first
    /// (docs/workspace-tools.md#approvals): `workspace_shell`, `workspace_tests`. Such a tool
    /// takes no escalation parameters; its run is the approval ([`Self::planned_run`]).
    fn asks_before_running(&self) -> bool {
        false
    }
    /// For a tool that [asks before running](Self::asks_before_running): the one run this
    /// call will make, with what the host found out about it (its program file, directory,
    /// policy), or none when it runs nothing — what the approval stage
    /// (`crate::approval::stage::decide`) asks a person about before [`Self::call`]. An error
    /// (a run the host would refuse anyway, a description it cannot read) ends the call
    /// before anyone is asked, and nothing runs. Any other tool runs nothing it must ask
    /// about.
    async fn planned_run(
        &self,
        _session: &ToolSessionContext,
        _call: ToolCallContext,
        _input: &serde_json::Value,
    ) -> Result<Option<crate::approval::RunApproval>, ToolError> {
        Ok(None)
    }
}

/// The JSON Schema of `T` as tools advertise it: `$schema` and `title` removed
/// (docs/contract.md#definitions-and-the-toolset).
pub fn input_schema<T: JsonSchema>() -> serde_json::Value {
    let mut value = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.remove("$schema");
        map.remove("title");
    }
    value
}

/// Parse a tool input, or the `invalid_arguments` error the model sees, naming the field
/// (docs/contract.md#the-input-contract, [`crate::input_error`]).
pub fn parse_input<T: DeserializeOwned>(input: &serde_json::Value) -> Result<T, ToolError> {
    crate::input_error::parse_at(input, &[])
}

/// Erases a typed [`NativeTool`] into a [`DynTool`]: parses the input, passes both contexts,
/// and turns the output or error into a [`ToolResult`]
/// (docs/contract.md#definitions-and-the-toolset).
pub struct ToolAdapter<T: NativeTool> {
    tool: T,
    definition: ToolDefinition,
}

impl<T: NativeTool> ToolAdapter<T> {
    /// Adapt `tool`, computing its definition once.
    pub fn new(tool: T) -> Self {
        let definition = ToolDefinition {
            id: tool.id(),
            description: tool.description().to_string(),
            input_schema: input_schema::<T::Input>(),
            output_schema: tool.output_schema(),
            risk: tool.risk(),
        };
        ToolAdapter { tool, definition }
    }
}

#[async_trait]
impl<T: NativeTool> DynTool for ToolAdapter<T> {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    async fn inspect(
        &self,
        _session: &ToolSessionContext,
        _call: ToolCallContext,
        input: &serde_json::Value,
    ) -> Result<CallInspection, ToolError> {
        Ok(self.tool.inspect(&parse_input::<T::Input>(input)?))
    }

    async fn call(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: serde_json::Value,
    ) -> ToolResult {
        let input = match parse_input::<T::Input>(&input) {
            Ok(input) => input,
            Err(e) => return ToolResult::from_error(e),
        };
        match self.tool.execute(session, call, input).await {
            Ok(out) => ToolResult {
                status: ToolResultStatus::Succeeded,
                content: vec![ToolResultContent::Text { text: out.text }],
                artifacts: out.artifacts,
                error: None,
                sandbox_denied: out.sandbox_denied,
                structured: out.structured,
                usage: None,
            },
            Err(e) => ToolResult::from_error(e),
        }
    }
}
