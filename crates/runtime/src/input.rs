//! The host's check of a call's arguments against the input schema its component declared
//! (docs/contract.md#the-input-contract): arguments that break it are refused with
//! `invalid_arguments` and the one text every tool's refusal has
//! ([`toolhost_core::input_error`]: the field, what it expected, what came), before the
//! component is instantiated — for `execute` and for `inspect` alike. A tool may lean on
//! it. A built-in parses its own input (one type with its schema); the check words its
//! refusal once that parse refused ([`crate::ComponentTool::parses_own_input`]).
//!
//! The schema was bounded when the definition was checked and its patterns run on a
//! linear-time engine; the check still runs off the async runtime, raced against the call's
//! deadline and cancel, like the check of a structured result.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;
use toolhost_core::input_error::{Step, Violation, path_of_pointer, refusal};
use toolhost_core::result::{ErrorCode, ToolError};
use toolhost_core::tool::ToolDefinition;

use crate::interrupt::{Interrupted, STOPPED_ON_CANCEL, off_the_runtime};

pub use toolhost_core::input_error::INPUT_REFUSED_BY_HOST;

/// A tool's input check: its schema's validator, compiled on first use.
#[derive(Clone, Default)]
pub(crate) struct InputCheck {
    validator: Arc<OnceLock<Result<Arc<jsonschema::Validator>, String>>>,
}

impl InputCheck {
    /// `Ok` when `input` meets `definition`'s input schema; otherwise the refusal.
    pub(crate) async fn check(
        &self,
        definition: &ToolDefinition,
        input: Value,
        deadline: Instant,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<(), ToolError> {
        let id = definition.id.to_string();
        let validator = self.validator.clone();
        let schema = validator.get().is_none().then(|| definition.input_schema.clone());
        let declared = definition.input_schema.clone();
        let check = off_the_runtime(deadline, cancel, move || -> Result<(), CheckFailed> {
            let validator = validator.get_or_init(|| {
                crate::definition::compile_schema(&schema.unwrap_or_default())
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            });
            let validator = validator.as_ref().map_err(|e| CheckFailed::Compile(e.clone()))?;
            if validator.is_valid(&input) {
                return Ok(());
            }
            match validator.validate(&input) {
                Ok(()) => Ok(()),
                Err(e) => {
                    let (path, violation) = violation(&e, &input, &declared);
                    Err(CheckFailed::Refused(refusal(&path, &violation)))
                }
            }
        });
        let failed = match check.await {
            Ok(Ok(Ok(()))) => return Ok(()),
            Ok(Ok(Err(CheckFailed::Refused(refused)))) => return Err(refused),
            Ok(Ok(Err(CheckFailed::Compile(e)))) => e,
            Ok(Err(e)) => e.to_string(),
            Err(Interrupted::Cancelled) => {
                return Err(ToolError::new(ErrorCode::Cancelled, STOPPED_ON_CANCEL));
            }
            Err(Interrupted::Deadline) => {
                return Err(ToolError::new(
                    ErrorCode::Timeout,
                    format!(
                        "the call of `{id}` ran past its deadline while the host checked its arguments against the input schema; the tool did not run"
                    ),
                ));
            }
        };
        Err(ToolError::execution_failed(format!(
            "the host could not check the arguments of `{id}` against its input schema ({failed}); the tool did not run"
        )))
    }
}

/// Why the check did not pass.
enum CheckFailed {
    /// The arguments break the schema: the refusal.
    Refused(ToolError),
    /// The schema did not compile.
    Compile(String),
}

/// The field and the violation of the schema's first complaint, in the words every tool's
/// refusal uses.
fn violation(e: &ValidationError<'_>, input: &Value, schema: &Value) -> (Vec<Step>, Violation) {
    let mut path = path_of_pointer(&e.instance_path.to_string(), input);
    let got = e.instance.clone().into_owned();
    let violation = match &e.kind {
        ValidationErrorKind::Type { kind } => {
            let names: Vec<String> = match kind {
                TypeKind::Single(t) => vec![t.to_string()],
                TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
            };
            let words: Vec<String> = names.iter().map(|n| with_article(n)).collect();
            Violation::Expected { expected: words.join(" or "), got }
        }
        ValidationErrorKind::Required { property } => {
            path.push(Step::Key(property.as_str().unwrap_or_default().to_string()));
            Violation::Missing
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            path.push(Step::Key(unexpected.first().cloned().unwrap_or_default()));
            Violation::Unknown { fields: fields_at(schema, &e.schema_path.to_string()) }
        }
        ValidationErrorKind::Enum { options } => {
            Violation::NotOneOf { allowed: options.as_array().cloned().unwrap_or_default(), got }
        }
        ValidationErrorKind::Constant { expected_value } => {
            Violation::NotOneOf { allowed: vec![expected_value.clone()], got }
        }
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context }
            if let Some(allowed) = constants(context) =>
        {
            Violation::NotOneOf { allowed, got }
        }
        kind => match bound_words(kind) {
            Some(expected) => Violation::Expected { expected, got },
            None => Violation::Other(e.to_string()),
        },
    };
    (path, violation)
}

/// What a bound the value broke takes, in words ("a number of at most 10").
fn bound_words(kind: &ValidationErrorKind) -> Option<String> {
    let plural = |n: &u64, one: &str| if *n == 1 { one.to_string() } else { format!("{one}s") };
    Some(match kind {
        ValidationErrorKind::Minimum { limit } => format!("a number of at least {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("a number of at most {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => format!("a number above {limit}"),
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("a number below {limit}"),
        ValidationErrorKind::MinLength { limit } => {
            format!("a string of at least {limit} {}", plural(limit, "character"))
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("a string of at most {limit} {}", plural(limit, "character"))
        }
        ValidationErrorKind::MinItems { limit } => {
            format!("an array of at least {limit} {}", plural(limit, "item"))
        }
        ValidationErrorKind::MaxItems { limit } => {
            format!("an array of at most {limit} {}", plural(limit, "item"))
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("a string matching the pattern `{pattern}`")
        }
        _ => return None,
    })
}

/// `string` → `a string`, `integer` → `an integer`, `null` stays.
fn with_article(name: &str) -> String {
    match name {
        "null" => "null".into(),
        n if n.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {n}"),
        n => format!("a {n}"),
    }
}

/// The values of a `oneOf`/`anyOf` whose every branch is one `const` (a documented enum).
fn constants(context: &[Vec<ValidationError<'static>>]) -> Option<Vec<Value>> {
    context
        .iter()
        .map(|branch| {
            branch.iter().find_map(|e| match &e.kind {
                ValidationErrorKind::Constant { expected_value } => Some(expected_value.clone()),
                _ => None,
            })
        })
        .collect::<Option<Vec<Value>>>()
        .filter(|values| !values.is_empty())
}

/// The properties the schema declares where the keyword at `keyword` (a JSON pointer into
/// the schema, through `$ref`s) sits; none when it cannot be followed.
fn fields_at(root: &Value, keyword: &str) -> Vec<String> {
    let segments: Vec<String> =
        keyword.split('/').skip(1).map(|s| s.replace("~1", "/").replace("~0", "~")).collect();
    let mut at = root;
    for segment in &segments[..segments.len().saturating_sub(1)] {
        at = if segment == "$ref" {
            let Some(target) = at.get("$ref").and_then(Value::as_str) else { return vec![] };
            let Some(pointer) = target.strip_prefix('#') else { return vec![] };
            match root.pointer(pointer) {
                Some(next) => next,
                None => return vec![],
            }
        } else {
            match at {
                Value::Array(items) => {
                    match segment.parse::<usize>().ok().and_then(|i| items.get(i)) {
                        Some(next) => next,
                        None => return vec![],
                    }
                }
                _ => match at.get(segment) {
                    Some(next) => next,
                    None => return vec![],
                },
            }
        };
    }
    at.get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().filter(|k| !k.starts_with('$')).cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolhost_core::input_error::refusal_text;

    fn refused(schema: Value, input: Value) -> String {
        let validator = crate::definition::compile_schema(&schema).unwrap();
        let e = validator.validate(&input).unwrap_err();
        let (path, violation) = violation(&e, &input, &schema);
        refusal_text(&path, &violation)
    }

    #[test]
    fn every_violation_names_the_field_in_the_one_style() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["path"],
            "properties": {
                "path": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "maximum": 10},
                "mode": {"enum": ["a", "b"]},
                "grant": {"$ref": "#/$defs/Grant"},
            },
            "$defs": {"Grant": {"type": "object", "additionalProperties": false,
                "properties": {"access": {"type": "string"}}}},
        });
        let cases = [
            (json!({"path": 5}), "`path`: expected a string, got 5"),
            (json!({}), "`path` is missing; it is required"),
            (json!({"path": ""}), "`path`: expected a string of at least 1 character, got \"\""),
            (json!({"path": "a", "limit": 11}), "`limit`: expected a number of at most 10, got 11"),
            (json!({"path": "a", "mode": "c"}), "`mode`: expected one of \"a\", \"b\", got \"c\""),
            (
                json!({"path": "a", "x": 1}),
                "`x` is not a field this tool takes; the fields it takes are `grant`, `limit`, `mode`, `path`",
            ),
            (
                json!({"path": "a", "grant": {"y": 1}}),
                "`grant.y` is not a field this tool takes; the fields `grant` takes are `access`",
            ),
            (json!([1]), "expected an object, got [1]"),
        ];
        for (input, what) in cases {
            let text = refused(schema.clone(), input.clone());
            assert_eq!(
                text,
                format!("invalid tool input: {what}; {INPUT_REFUSED_BY_HOST}"),
                "{input}"
            );
        }
    }
}
