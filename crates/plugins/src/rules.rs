//! The rules a tool's definition must meet before the host offers it to a model: the same at
//! `tool add`, `--tool` and (later) conformance. One place for each rule.

use toolhost_core::tool::{ToolDefinition, ToolRisk};

/// Longest tool id.
pub const MAX_ID_CHARS: usize = 64;

/// Why a definition is refused; the text names the rule and what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    #[error("its id {0:?} is not 1 to {MAX_ID_CHARS} characters of A-Z, a-z, 0-9, `_` and `-`")]
    Id(String),
    #[error("its description is blank; write one paragraph telling the model what the tool does")]
    Description,
    #[error("its input schema {0}")]
    Schema(String),
    #[error("its output schema {0}")]
    OutputSchema(String),
    #[error("the id `{0}` is taken by a built-in tool; give the tool another id")]
    BuiltinId(String),
    #[error("the id `{0}` is taken by an installed tool or another --tool; give one of them another id")]
    DuplicateId(String),
}

/// Whether `id` is 1–64 characters of `[A-Za-z0-9_-]`.
pub fn valid_id(id: &str) -> bool {
    (1..=MAX_ID_CHARS).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The rules an input and an output schema share: a JSON object with `"type": "object"`,
/// without `$schema` or `title` (seed 000 §2: the host strips nothing; the schema is read as
/// given). `why_object` and `readers` finish the refusal's sentences.
fn object_schema<'s>(
    schema: &'s serde_json::Value,
    why_object: &str,
    readers: &str,
) -> Result<&'s serde_json::Map<String, serde_json::Value>, String> {
    let Some(obj) = schema.as_object() else { return Err("is not a JSON object".into()) };
    if obj.get("type").and_then(|t| t.as_str()) != Some("object") {
        return Err(format!("must have \"type\": \"object\" ({why_object})"));
    }
    if let Some(key) = ["$schema", "title"].into_iter().find(|k| obj.contains_key(*k)) {
        return Err(format!("has `{key}`; remove it ({readers} are given the schema as it is)"));
    }
    Ok(obj)
}

/// Checks the input schema: [`object_schema`]'s rules, and its `properties` an object of
/// schemas and `required` a list of names.
pub fn check_schema(schema: &serde_json::Value) -> Result<(), DefinitionError> {
    let bad = |what: &str| Err(DefinitionError::Schema(what.to_string()));
    let obj = object_schema(schema, "a tool takes a JSON object", "models").map_err(DefinitionError::Schema)?;
    if let Some(props) = obj.get("properties") {
        let Some(props) = props.as_object() else { return bad("has `properties` that is not an object") };
        if let Some((name, _)) = props.iter().find(|(_, v)| !(v.is_object() || v.is_boolean())) {
            return Err(DefinitionError::Schema(format!("has a property `{name}` whose schema is neither an object nor a boolean")));
        }
    }
    if let Some(required) = obj.get("required") {
        if !required.as_array().is_some_and(|r| r.iter().all(|v| v.is_string())) {
            return bad("has `required` that is not a list of property names");
        }
    }
    Ok(())
}

/// Checks an output schema (toolhost:tool 0.2.0): [`object_schema`]'s rules (MCP's
/// `outputSchema` describes an object).
pub fn check_output_schema(schema: &serde_json::Value) -> Result<(), DefinitionError> {
    object_schema(schema, "a structured result is a JSON object", "clients").map(|_| ()).map_err(DefinitionError::OutputSchema)
}

/// Checks a definition against every rule, with `reserved` the ids it may not take (the
/// built-ins'). The risk must be one the host can grant to a component.
pub fn check_definition(def: &ToolDefinition, builtin_ids: &[&str]) -> Result<(), DefinitionError> {
    let id = def.id.as_str();
    if !valid_id(id) {
        return Err(DefinitionError::Id(id.to_string()));
    }
    if builtin_ids.contains(&id) {
        return Err(DefinitionError::BuiltinId(id.to_string()));
    }
    if def.description.trim().is_empty() {
        return Err(DefinitionError::Description);
    }
    check_schema(&def.input_schema)?;
    if let Some(output) = &def.output_schema {
        check_output_schema(output)?;
    }
    Ok(())
}

/// What a risk lets a component do, in words for the person who grants it.
pub fn risk_meaning(risk: ToolRisk) -> &'static str {
    match risk {
        ToolRisk::ReadOnly => "it may read files the session's policy lets it read; it can never write a file or run a program",
        ToolRisk::WorkspaceMutation => {
            "it may read, and write files where the session's policy allows writes (every write is a recorded, undoable change); it can never run a program"
        }
        ToolRisk::ProcessExecution => {
            "it may read, write where the session's policy allows writes, and run programs: each program runs inside the same OS sandbox as bash, under the session's policy, with no network unless the policy allows it"
        }
    }
}

/// How much a risk allows, for comparing grants.
pub fn risk_rank(risk: ToolRisk) -> u8 {
    match risk {
        ToolRisk::ReadOnly => 0,
        ToolRisk::WorkspaceMutation => 1,
        ToolRisk::ProcessExecution => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_follow_the_rule() {
        assert!(valid_id("a"));
        assert!(valid_id("Word_count-2"));
        assert!(valid_id(&"x".repeat(64)));
        assert!(!valid_id(""));
        assert!(!valid_id(&"x".repeat(65)));
        assert!(!valid_id("has space"));
        assert!(!valid_id("dot.ted"));
        assert!(!valid_id("ümlaut"));
    }

    #[test]
    fn schemas_follow_the_rule() {
        assert!(check_schema(&json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})).is_ok());
        assert!(check_schema(&json!({"type": "string"})).is_err());
        assert!(check_schema(&json!([1])).is_err());
        assert!(check_schema(&json!({"type": "object", "title": "X"})).is_err());
        assert!(check_schema(&json!({"type": "object", "$schema": "x"})).is_err());
        assert!(check_schema(&json!({"type": "object", "properties": {"a": 3}})).is_err());
        assert!(check_schema(&json!({"type": "object", "required": [1]})).is_err());
    }
}
