//! `static.*` and `describe.*`: what the component is, and the definition it describes.

use super::*;

pub(super) fn static_failure(report: &mut Report, e: InvalidComponent) {
    let (name, text) = match &e {
        InvalidComponent::NotWasm | InvalidComponent::CoreModule | InvalidComponent::Compile(_) => {
            ("static.component", e.to_string())
        }
        InvalidComponent::ForeignImport(_) => ("static.imports", e.to_string()),
        InvalidComponent::NoToolExport(_) | InvalidComponent::Link(_) => {
            ("static.exports", e.to_string())
        }
        InvalidComponent::Describe(_) => ("describe.returns", e.to_string()),
        InvalidComponent::Definition(d) => (definition_check(d), e.to_string()),
    };
    for passed in ["static.component", "static.imports", "static.exports", "describe.returns"] {
        if passed == name {
            break;
        }
        push(report, passed, Outcome::Pass, "");
    }
    push(report, name, Outcome::Fail, text);
}

/// The `describe.*` check a definition's refusal belongs to (the runtime checks every
/// definition with [`rules::check_definition`] as soon as `describe` returns).
pub(super) fn definition_check(e: &rules::DefinitionError) -> &'static str {
    use rules::DefinitionError as E;
    match e {
        E::Id(_) | E::BuiltinId { .. } | E::DuplicateId { .. } => "describe.id",
        E::Description => "describe.description",
        E::Schema(_) => "describe.schema",
        E::OutputSchema(_) | E::Limit(_) => "describe.output-schema",
    }
}

/// The `describe.*` checks; the schema's validator when the schema is one.
pub(super) async fn describe_checks(
    report: &mut Report,
    tool: &ComponentTool,
    def: &ToolDefinition,
) -> Option<jsonschema::Validator> {
    push(report, "describe.returns", Outcome::Pass, format!("describes `{}`", def.id));
    match (tool.describe_again().await, tool.describe_again().await) {
        (Ok(a), Ok(b)) if &a == def && &b == def => {
            push(report, "describe.stable", Outcome::Pass, "the same on every fresh instance")
        }
        (Err(e), _) | (_, Err(e)) => {
            push(report, "describe.stable", Outcome::Fail, format!("a second describe failed: {e}"))
        }
        _ => push(
            report,
            "describe.stable",
            Outcome::Fail,
            "a fresh instance describes the tool differently; describe must return a constant",
        ),
    }
    id_check(report, def.id.as_str());
    if def.description.trim().is_empty() {
        push(
            report,
            "describe.description",
            Outcome::Fail,
            rules::DefinitionError::Description.to_string(),
        );
    } else {
        push(report, "describe.description", Outcome::Pass, "");
    }
    push(report, "describe.risk", Outcome::Pass, def.risk.name());
    let validator = schema_check(report, &def.input_schema);
    output_schema_check(report, def);
    property_descriptions_check(report, &def.input_schema);
    validator
}

/// `describe.id`: a valid id, and a warning for a built-in's.
fn id_check(report: &mut Report, id: &str) {
    if !rules::valid_id(id) {
        push(
            report,
            "describe.id",
            Outcome::Fail,
            rules::DefinitionError::Id(id.into()).to_string(),
        );
    } else if rules::RESERVED_IDS.iter().any(|b| b.eq_ignore_ascii_case(id)) {
        push(
            report,
            "describe.id",
            Outcome::Warn,
            format!(
                "`{id}` is a built-in tool's id: `tool add` refuses it, give a third-party tool another"
            ),
        );
    } else {
        push(report, "describe.id", Outcome::Pass, format!("`{id}`"));
    }
}

/// `describe.schema`: the input schema is one the host accepts and compiles; its validator.
fn schema_check(report: &mut Report, schema: &Value) -> Option<jsonschema::Validator> {
    match rules::check_schema(schema).map_err(|e| e.to_string()).and_then(|()| {
        toolhost_runtime::definition::compile_schema(schema)
            .map_err(|e| format!("its input schema does not compile as JSON Schema 2020-12: {e}"))
    }) {
        Ok(v) => {
            push(
                report,
                "describe.schema",
                Outcome::Pass,
                "a valid JSON Schema (2020-12) of an object",
            );
            Some(v)
        }
        Err(e) => {
            push(report, "describe.schema", Outcome::Fail, e);
            None
        }
    }
}

/// `describe.property-descriptions`: a warning for each property the model reads without a
/// description.
fn property_descriptions_check(report: &mut Report, schema: &Value) {
    let undocumented = undocumented_properties(schema);
    if undocumented.is_empty() {
        push(
            report,
            "describe.property-descriptions",
            Outcome::Pass,
            "every property has a description",
        );
    } else {
        push(
            report,
            "describe.property-descriptions",
            Outcome::Warn,
            format!(
                "properties without a description (the model reads them): {}; give each a \"description\" in the input schema `describe` returns (in Rust with schemars, a doc comment on the field; in Python or JavaScript, the \"description\" key in the schema text)",
                undocumented.join(", ")
            ),
        );
    }
}

/// How an inspection is named in a report.
pub(super) fn inspection_name(i: &CallInspection) -> String {
    match i {
        CallInspection::ReadOnly => "read-only".into(),
        CallInspection::Writes(path) => format!("writes({path:?})"),
        CallInspection::Runs(command) => format!("runs({command:?})"),
    }
}

/// `describe.output-schema`: none (text results only), or a valid JSON Schema 2020-12 of an
/// object (toolhost:tool 0.2.0).
pub(super) fn output_schema_check(report: &mut Report, def: &ToolDefinition) {
    let Some(schema) = &def.output_schema else {
        push(report, "describe.output-schema", Outcome::Pass, "none: the tool returns text only");
        return;
    };
    let checked = rules::check_output_schema(schema).map_err(|e| e.to_string());
    match checked {
        Ok(_) => push(
            report,
            "describe.output-schema",
            Outcome::Pass,
            "a valid JSON Schema (2020-12) of an object",
        ),
        Err(e) => push(report, "describe.output-schema", Outcome::Fail, e),
    }
}

/// Top-level (and variant) properties with no `description`, after local `$ref`s.
pub(super) fn undocumented_properties(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut objects = vec![schema];
    for key in ["oneOf", "anyOf"] {
        if let Some(vs) = schema.get(key).and_then(Value::as_array) {
            objects.extend(vs);
        }
    }
    for obj in objects {
        let Some(props) = obj.get("properties").and_then(Value::as_object) else { continue };
        for (name, p) in props {
            let p = crate::generate::resolve(schema, p);
            let described =
                p.get("description").and_then(Value::as_str).is_some_and(|d| !d.trim().is_empty())
                    || p.get("const").is_some();
            if !described && !out.contains(name) {
                out.push(name.clone());
            }
        }
    }
    out
}
