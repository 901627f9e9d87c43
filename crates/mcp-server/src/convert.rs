//! Conversions between toolhost and MCP: a toolset definition becomes an MCP [`Tool`]
//! (annotations from the risk), a [`ToolResult`] becomes a [`CallToolResult`] whose content is
//! the text only, with everything else under the `toolhost/…` `_meta` keys
//! (`docs/contract.md#results`, `docs/mcp.md`).

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject, Tool, ToolAnnotations};
use serde_json::Value;

use toolhost_core::result::ToolResult;
use toolhost_core::tool::{ToolDefinition, ToolRisk};

/// `_meta` key: the call's status (`succeeded`, `failed`, `denied`, `cancelled`, `outcome_unknown`).
pub const META_STATUS: &str = "toolhost/status";
/// `_meta` key: the call's artifacts (file changes), as in the ToolResult JSON.
pub const META_ARTIFACTS: &str = "toolhost/artifacts";
/// `_meta` key: whether the sandbox denied something the call tried.
pub const META_SANDBOX_DENIED: &str = "toolhost/sandboxDenied";
/// `_meta` key: the typed error (`code`, `retryable`) of a call that did not succeed.
pub const META_ERROR: &str = "toolhost/error";
/// `_meta` key: the tool call id (the change id of a file change it made).
pub const META_CALL_ID: &str = "toolhost/callId";
/// `_meta` key: what a component call cost (`wallUs`, `peakMemoryBytes`), as in the
/// ToolResult JSON's `usage`.
pub const META_USAGE: &str = "toolhost/usage";

/// The MCP tool for a toolset definition.
pub fn mcp_tool(def: &ToolDefinition) -> Tool {
    let schema: JsonObject = match &def.input_schema {
        Value::Object(map) => map.clone(),
        _ => {
            let mut m = JsonObject::new();
            m.insert("type".into(), Value::from("object"));
            m
        }
    };
    let annotations = match def.risk {
        ToolRisk::ReadOnly => ToolAnnotations::new().read_only(true).destructive(false),
        ToolRisk::WorkspaceMutation | ToolRisk::ProcessExecution => {
            ToolAnnotations::new().read_only(false).destructive(true)
        }
    };
    let mut tool =
        Tool::new(def.id.as_str().to_string(), def.description.clone(), Arc::new(schema))
            .with_annotations(annotations);
    if let Some(Value::Object(output)) = &def.output_schema {
        tool.output_schema = Some(Arc::new(output.clone()));
    }
    tool
}

/// The MCP result for a ToolResult: the text as content, the structured value (checked
/// against the tool's output schema by the runtime) as `structuredContent`, everything else
/// in `_meta`.
pub fn mcp_result(result: &ToolResult, call_id: &str) -> CallToolResult {
    let content = vec![ContentBlock::text(result.text())];
    let mut out = if result.succeeded() {
        CallToolResult::success(content)
    } else {
        CallToolResult::error(content)
    };
    out.structured_content = result.structured.clone();
    let mut meta = JsonObject::new();
    meta.insert(META_STATUS.into(), serde_json::to_value(result.status).unwrap_or(Value::Null));
    meta.insert(
        META_ARTIFACTS.into(),
        serde_json::to_value(&result.artifacts).unwrap_or_else(|_| Value::Array(vec![])),
    );
    meta.insert(META_SANDBOX_DENIED.into(), Value::Bool(result.sandbox_denied));
    meta.insert(META_CALL_ID.into(), Value::from(call_id));
    if let Some(e) = &result.error {
        meta.insert(
            META_ERROR.into(),
            serde_json::json!({"code": e.code, "retryable": e.retryable}),
        );
    }
    if let Some(usage) = &result.usage {
        meta.insert(META_USAGE.into(), serde_json::to_value(usage).unwrap_or(Value::Null));
    }
    out.meta = Some(MetaObject(meta));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_core::result::{ErrorCode, ToolError};
    use toolhost_core::tool::ToolId;

    #[test]
    fn annotations_follow_the_risk() {
        let def = |risk| ToolDefinition {
            id: ToolId::new("t"),
            description: "d".into(),
            input_schema: serde_json::json!({"type": "object", "properties": {}}),
            output_schema: None,
            risk,
        };
        let ro = serde_json::to_value(mcp_tool(&def(ToolRisk::ReadOnly))).unwrap();
        assert_eq!(ro["annotations"]["readOnlyHint"], true);
        assert_eq!(ro["inputSchema"]["type"], "object");
        let w = serde_json::to_value(mcp_tool(&def(ToolRisk::WorkspaceMutation))).unwrap();
        assert_eq!(w["annotations"]["destructiveHint"], true);
        let p = serde_json::to_value(mcp_tool(&def(ToolRisk::ProcessExecution))).unwrap();
        assert_eq!(p["annotations"]["destructiveHint"], true);
        assert_eq!(p["annotations"]["readOnlyHint"], false);
    }

    #[test]
    fn only_text_reaches_the_content() {
        let r = ToolResult::from_error(ToolError::new(ErrorCode::PermissionDenied, "no"));
        let v = serde_json::to_value(mcp_result(&r, "s-1")).unwrap();
        assert_eq!(v["isError"], true);
        assert_eq!(v["content"], serde_json::json!([{"type": "text", "text": "no"}]));
        assert_eq!(v["_meta"][META_STATUS], "failed");
        assert_eq!(v["_meta"][META_ERROR]["code"], "permission_denied");
        assert_eq!(v["_meta"][META_CALL_ID], "s-1");
    }
}
