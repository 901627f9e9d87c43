//! The one checker of a tool component's definition (what its `describe` returns: id,
//! description, input schema, output schema), and the one way a schema is compiled.
//!
//! A definition is untrusted data the host hands to models and compiles, so it is bounded
//! before anything else reads it: [`check_described`] (the runtime, as soon as `describe`
//! returns) and [`check_definition`] (`tool add`, `--tool`, loading the installed set, with the
//! ids already taken) are the only checks, every path runs them, and every limit is named in
//! `toolhost-limits`: the description's size, each schema's size, depth, values (with its
//! `$ref`s written out), enums and regular expressions; `$ref`s resolve inside the schema and
//! never loop. [`compile_schema`] compiles a checked schema with a linear-time regex engine.
//!
//! The rules (id, description, the shape of each schema) are here; a schema's bounds and the
//! walk that writes out its `$ref`s are in `bounds`; compiling a schema is in `compile`.

use std::fmt;

use serde_json::Value;
use toolhost_core::tool::{ToolDefinition, ToolId};
use toolhost_limits::{MAX_DESCRIPTION_BYTES, MAX_SCHEMA_BYTES};

use crate::exports::Described;

mod bounds;
mod compile;

pub use bounds::{PastLimit, schema_bounds};
pub use compile::{CompileError, compile_schema};

/// Longest tool id.
pub const MAX_ID_CHARS: usize = 64;

/// Which of a definition's schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaKind {
    /// The input schema (what the model sends).
    Input,
    /// The output schema (what a structured result must match; toolhost:tool 0.2.0).
    Output,
}

impl fmt::Display for SchemaKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SchemaKind::Input => "input schema",
            SchemaKind::Output => "output schema",
        })
    }
}

/// Why a definition is refused; the text names the rule or limit and what to change.
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
    #[error(
        "the id `{id}` is taken by a built-in tool (`{builtin}`; ids are compared ignoring case, as models and clients may); give the tool another id"
    )]
    BuiltinId { id: String, builtin: String },
    #[error(
        "the id `{id}` is taken by an installed tool or another --tool (`{taken}`; ids are compared ignoring case); give one of them another id"
    )]
    DuplicateId { id: String, taken: String },
    #[error("{0}")]
    Limit(#[from] PastLimit),
}

impl DefinitionError {
    /// Whether this is a bound the definition goes past (not a rule it breaks): a definition
    /// past a bound is not read further, so it cannot even be checked.
    pub fn is_limit(&self) -> bool {
        matches!(self, DefinitionError::Limit(_))
    }
}

/// An id a new definition's id must differ from, ignoring ASCII case.
#[derive(Debug, Clone, Copy)]
pub enum Taken<'a> {
    /// A built-in tool's.
    Builtin(&'a str),
    /// Another third-party tool's (installed, or an earlier `--tool`).
    Tool(&'a str),
    /// An installed tool's that a definition with exactly this id upgrades (`tool add`).
    Upgradable(&'a str),
}

/// Whether `id` is 1–64 characters of `[A-Za-z0-9_-]`.
pub fn valid_id(id: &str) -> bool {
    (1..=MAX_ID_CHARS).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// What `describe` returned, bounded, parsed and checked by [`check_definition`] (with no id
/// taken: the runtime does not know the installed set). The sizes are checked on the text,
/// before any JSON is parsed.
pub(crate) fn check_described(d: Described) -> Result<ToolDefinition, DefinitionError> {
    if !valid_id(&d.id) {
        return Err(DefinitionError::Id(d.id.chars().take(MAX_ID_CHARS * 2).collect()));
    }
    if d.description.len() > MAX_DESCRIPTION_BYTES {
        return Err(PastLimit::DescriptionBytes { bytes: d.description.len() }.into());
    }
    let parse = |kind: SchemaKind, text: &str| -> Result<Value, DefinitionError> {
        if text.len() > MAX_SCHEMA_BYTES {
            return Err(PastLimit::SchemaBytes { kind, bytes: text.len() }.into());
        }
        serde_json::from_str(text).map_err(|e| schema_error(kind, format!("is not JSON: {e}")))
    };
    let input_schema = parse(SchemaKind::Input, &d.input_schema)?;
    let output_schema =
        d.output_schema.as_deref().map(|text| parse(SchemaKind::Output, text)).transpose()?;
    let def = ToolDefinition {
        id: ToolId::new(&d.id),
        description: d.description,
        input_schema,
        output_schema,
        risk: d.risk,
    };
    check_definition(&def, &[])?;
    Ok(def)
}

/// Checks a definition against every rule and limit, its id against the ids `taken`: the
/// one check every path runs (the runtime after `describe`, `tool add`, `--tool`, loading the
/// installed set, conformance).
pub fn check_definition(def: &ToolDefinition, taken: &[Taken<'_>]) -> Result<(), DefinitionError> {
    check_rules(def, taken, Schemas::Validate)
}

/// [`check_definition`] for a definition the host remembered (`crate::cache`) after it passed
/// [`check_definition`] under the same rules ([`DEFINITION_RULES_VERSION`]): every rule but
/// validating the schemas against the JSON Schema meta-schema and compiling them, which cost a
/// process ~10 ms and ~13 MB the first time (the meta-schema's own validator is built) — paid
/// by every call of every tool when any tool is installed. Safe because the remembered
/// definition lives beside the component's compilation in the protected data dir
/// (`docs/security.md`), which the host already trusts more (it runs that compilation as
/// code); an input schema is compiled again when the tool is first called.
pub fn check_remembered(def: &ToolDefinition, taken: &[Taken<'_>]) -> Result<(), DefinitionError> {
    check_rules(def, taken, Schemas::TrustChecked)
}

/// The version of the definition rules ([`check_definition`]) a remembered definition passed:
/// part of its cache file's name, so raising it makes every definition be described and
/// checked again. Raise it whenever a rule becomes stricter.
pub const DEFINITION_RULES_VERSION: u32 = 1;

/// Whether [`check_rules`] validates and compiles the schemas.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Schemas {
    Validate,
    TrustChecked,
}

fn check_rules(
    def: &ToolDefinition,
    taken: &[Taken<'_>],
    schemas: Schemas,
) -> Result<(), DefinitionError> {
    let id = def.id.as_str();
    if !valid_id(id) {
        return Err(DefinitionError::Id(id.chars().take(MAX_ID_CHARS * 2).collect()));
    }
    for t in taken {
        match *t {
            Taken::Builtin(other) if other.eq_ignore_ascii_case(id) => {
                return Err(DefinitionError::BuiltinId { id: id.into(), builtin: other.into() });
            }
            Taken::Tool(other) if other.eq_ignore_ascii_case(id) => {
                return Err(DefinitionError::DuplicateId { id: id.into(), taken: other.into() });
            }
            Taken::Upgradable(other) if other != id && other.eq_ignore_ascii_case(id) => {
                return Err(DefinitionError::DuplicateId { id: id.into(), taken: other.into() });
            }
            _ => {}
        }
    }
    if def.description.len() > MAX_DESCRIPTION_BYTES {
        return Err(PastLimit::DescriptionBytes { bytes: def.description.len() }.into());
    }
    if def.description.trim().is_empty() {
        return Err(DefinitionError::Description);
    }
    check_schema_rules(&def.input_schema, schemas)?;
    if let Some(output) = &def.output_schema {
        check_output_schema_rules(output, schemas)?;
    }
    Ok(())
}

/// Checks an input schema: [`schema_bounds`], a JSON object with `"type": "object"` and no
/// `$schema` or `title` (the host strips nothing: the model is given it as it is), its
/// `properties` an object of schemas and `required` a list of names, and valid JSON Schema
/// 2020-12 that [`compile_schema`] compiles.
pub fn check_schema(schema: &Value) -> Result<(), DefinitionError> {
    check_schema_rules(schema, Schemas::Validate)
}

fn check_schema_rules(schema: &Value, schemas: Schemas) -> Result<(), DefinitionError> {
    let kind = SchemaKind::Input;
    schema_bounds(schema, kind)?;
    let bad = |what: &str| Err(schema_error(kind, what.to_string()));
    let obj = object_schema(schema, kind, "a tool takes a JSON object", "models")?;
    if let Some(props) = obj.get("properties") {
        let Some(props) = props.as_object() else {
            return bad("has `properties` that is not an object");
        };
        if let Some((name, _)) = props.iter().find(|(_, v)| !(v.is_object() || v.is_boolean())) {
            return Err(schema_error(
                kind,
                format!("has a property `{name}` whose schema is neither an object nor a boolean"),
            ));
        }
    }
    if let Some(required) = obj.get("required")
        && !required.as_array().is_some_and(|r| r.iter().all(|v| v.is_string()))
    {
        return bad("has `required` that is not a list of property names");
    }
    match schemas {
        Schemas::Validate => valid_json_schema(schema, kind),
        Schemas::TrustChecked => Ok(()),
    }
}

/// Checks an output schema (toolhost:tool 0.2.0): [`schema_bounds`], an object's schema (MCP's
/// `outputSchema` describes an object) without `$schema` or `title`, and valid JSON Schema
/// 2020-12 that [`compile_schema`] compiles.
pub fn check_output_schema(schema: &Value) -> Result<(), DefinitionError> {
    check_output_schema_rules(schema, Schemas::Validate)
}

fn check_output_schema_rules(schema: &Value, schemas: Schemas) -> Result<(), DefinitionError> {
    let kind = SchemaKind::Output;
    schema_bounds(schema, kind)?;
    object_schema(schema, kind, "a structured result is a JSON object", "clients")?;
    match schemas {
        Schemas::Validate => valid_json_schema(schema, kind),
        Schemas::TrustChecked => Ok(()),
    }
}

fn schema_error(kind: SchemaKind, text: String) -> DefinitionError {
    match kind {
        SchemaKind::Input => DefinitionError::Schema(text),
        SchemaKind::Output => DefinitionError::OutputSchema(text),
    }
}

/// Valid against the 2020-12 meta-schema, and compiles.
fn valid_json_schema(schema: &Value, kind: SchemaKind) -> Result<(), DefinitionError> {
    jsonschema::meta::validate(schema)
        .map_err(|e| schema_error(kind, format!("is not valid JSON Schema: {e}")))?;
    compile_schema(schema)
        .map_err(|e| schema_error(kind, format!("does not compile as JSON Schema 2020-12: {e}")))?;
    Ok(())
}

/// The rules an input and an output schema share: a JSON object with `"type": "object"`,
/// without `$schema` or `title`. `why_object` and `readers` finish the refusal's sentences.
fn object_schema<'s>(
    schema: &'s Value,
    kind: SchemaKind,
    why_object: &str,
    readers: &str,
) -> Result<&'s serde_json::Map<String, Value>, DefinitionError> {
    let refuse = |text: String| Err(schema_error(kind, text));
    let Some(obj) = schema.as_object() else { return refuse("is not a JSON object".into()) };
    if obj.get("type").and_then(|t| t.as_str()) != Some("object") {
        return refuse(format!("must have \"type\": \"object\" ({why_object})"));
    }
    if let Some(key) = ["$schema", "title"].into_iter().find(|k| obj.contains_key(*k)) {
        return refuse(format!("has `{key}`; remove it ({readers} are given the schema as it is)"));
    }
    Ok(obj)
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
        assert!(
            check_schema(&json!({"type": "object", "properties": {"n": {"type": "integer-ish"}}}))
                .is_err()
        );
    }

    #[test]
    fn sizes_are_checked_on_the_text_before_it_is_parsed() {
        let described = |description: String, input_schema: String| Described {
            id: "t".into(),
            description,
            input_schema,
            output_schema: None,
            risk: toolhost_core::tool::ToolRisk::ReadOnly,
        };
        let huge = described("x".repeat(32 << 20), r#"{"type":"object"}"#.into());
        assert!(matches!(
            check_described(huge),
            Err(DefinitionError::Limit(PastLimit::DescriptionBytes { .. }))
        ));
        // Not JSON at all, and too large: refused for its size, never parsed.
        let big = described("d".into(), "[".repeat(MAX_SCHEMA_BYTES + 1));
        assert!(matches!(
            check_described(big),
            Err(DefinitionError::Limit(PastLimit::SchemaBytes { kind: SchemaKind::Input, .. }))
        ));
        let fine = described(
            "d".into(),
            r#"{"type":"object","properties":{"a":{"type":"string"}}}"#.into(),
        );
        assert_eq!(check_described(fine).unwrap().id.as_str(), "t");
    }

    #[test]
    fn ids_differ_from_taken_ones_ignoring_case() {
        let def = |id: &str| ToolDefinition {
            id: ToolId::new(id),
            description: "d".into(),
            input_schema: json!({"type": "object"}),
            output_schema: None,
            risk: toolhost_core::tool::ToolRisk::ReadOnly,
        };
        let builtin = [Taken::Builtin("bash")];
        assert!(matches!(
            check_definition(&def("Bash"), &builtin),
            Err(DefinitionError::BuiltinId { .. })
        ));
        assert!(matches!(
            check_definition(&def("bash"), &builtin),
            Err(DefinitionError::BuiltinId { .. })
        ));
        assert!(check_definition(&def("bashful"), &builtin).is_ok());
        assert!(
            check_definition(&def("tidy"), &[Taken::Upgradable("tidy")]).is_ok(),
            "the same id upgrades"
        );
        assert!(matches!(
            check_definition(&def("Tidy"), &[Taken::Upgradable("tidy")]),
            Err(DefinitionError::DuplicateId { .. })
        ));
        assert!(matches!(
            check_definition(&def("tidy"), &[Taken::Tool("tidy")]),
            Err(DefinitionError::DuplicateId { .. })
        ));
    }
}
