//! Input schema and input parsing, both from the same `Tool::Input` type
//! (docs/contract.md#definitions-and-the-toolset).

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::ToolError;

pub use toolhost_error_kinds::INVALID_INPUT_PREFIX;

/// The JSON Schema of `T` as schemars 1 generates it, without top-level `$schema` and
/// `title` (docs/contract.md#definitions-and-the-toolset). A tool's input is a JSON object (MCP
/// requires `"type": "object"` at the top); for an enum of object variants (`#[serde(tag = …)]`),
/// which schemars writes as a bare `oneOf`, the top-level `"type": "object"` is added. An
/// integer of at most 32 bits gets its range (`minimum`, `maximum`), so the schema refuses
/// every number the parser does and the host's check names the field
/// (docs/contract.md#the-input-contract).
pub fn input_schema<T: JsonSchema>() -> serde_json::Value {
    let mut schema = schemars::schema_for!(T).to_value();
    bound_small_integers(&mut schema);
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
        let all_objects = |key: &str| {
            object.get(key).and_then(|v| v.as_array()).is_some_and(|variants| {
                !variants.is_empty()
                    && variants
                        .iter()
                        .all(|v| v.get("type").and_then(|t| t.as_str()) == Some("object"))
            })
        };
        if !object.contains_key("type") && (all_objects("oneOf") || all_objects("anyOf")) {
            object.insert("type".into(), "object".into());
        }
    }
    schema
}

/// The range of each integer `format` schemars writes for a Rust integer type of at most 32
/// bits.
fn integer_range(format: &str) -> Option<(i64, i64)> {
    Some(match format {
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        _ => return None,
    })
}

/// Adds the missing `minimum`/`maximum` of every small integer in `schema`.
fn bound_small_integers(schema: &mut serde_json::Value) {
    match schema {
        serde_json::Value::Object(object) => {
            if let Some((min, max)) =
                object.get("format").and_then(|f| f.as_str()).and_then(integer_range)
            {
                object.entry("minimum").or_insert(min.into());
                object.entry("maximum").or_insert(max.into());
            }
            object.values_mut().for_each(bound_small_integers);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(bound_small_integers),
        _ => {}
    }
}

/// serde's text without the members only the host adds (`$operator`): the model is never
/// told of them.
fn without_host_members(text: String) -> String {
    let mut out = text;
    while let Some(start) = out.find("`$") {
        let Some(len) = out[start + 1..].find('`') else { break };
        let mut end = start + len + 2;
        let mut start = start;
        if out[..start].ends_with(", ") {
            start -= 2;
        } else if out[end..].starts_with(", ") {
            end += 2;
        }
        out.replace_range(start..end, "");
    }
    out
}

/// Deserialise a tool input; a failure is `invalid-arguments` whose message is
/// [`INVALID_INPUT_PREFIX`] followed by serde's message. The input must be a JSON object (the
/// schema's top level): serde alone would take an array for a struct whose fields all have
/// defaults.
pub fn parse_input<T: DeserializeOwned>(json: &str) -> Result<T, ToolError> {
    let invalid = |e: &dyn std::fmt::Display| {
        ToolError::invalid_arguments(without_host_members(format!("{INVALID_INPUT_PREFIX}{e}")))
    };
    if !json.trim_start().starts_with('{')
        && serde_json::from_str::<serde::de::IgnoredAny>(json).is_ok()
    {
        return Err(invalid(&"expected a JSON object"));
    }
    serde_json::from_str(json).map_err(|e| invalid(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use serde::Deserialize;
    use serde_json::json;

    /// How to greet.
    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Greet {
        /// Who to greet.
        name: String,
        /// How loudly.
        #[serde(default)]
        volume: Volume,
        /// Times to repeat.
        repeat_count: Option<u32>,
    }

    /// Loudness.
    #[derive(Debug, Default, Deserialize, JsonSchema, PartialEq)]
    #[serde(rename_all = "kebab-case")]
    enum Volume {
        #[default]
        Quiet,
        VeryLoud,
    }

    /// What to do.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(tag = "action", rename_all = "kebab-case")]
    #[allow(dead_code)]
    enum Act {
        /// Stop.
        Stop,
        /// Go somewhere.
        Go {
            /// Where.
            to: String,
        },
    }

    #[test]
    fn a_tagged_enum_input_is_an_object_at_the_top() {
        let schema = input_schema::<Act>();
        assert_eq!(schema["type"], json!("object"));
        assert!(schema["oneOf"].is_array());
        assert_eq!(input_schema::<Greet>()["type"], json!("object"));
    }

    /// All fields optional.
    #[derive(Debug, Deserialize, JsonSchema, PartialEq, Default)]
    struct Paged {
        #[serde(default)]
        offset: u32,
    }

    #[test]
    fn only_an_object_is_an_input() {
        assert_eq!(parse_input::<Paged>("{}").unwrap(), Paged::default());
        for not_object in ["[]", "[3]", "null", "\"x\"", "1"] {
            let e = parse_input::<Paged>(not_object).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArguments, "{not_object}");
            assert!(e.message.starts_with(INVALID_INPUT_PREFIX), "{not_object}: {}", e.message);
        }
    }

    fn schema_accepts(value: &serde_json::Value) -> bool {
        // A tiny check of the parts of the schema these tests exercise.
        let schema = input_schema::<Greet>();
        let object = value.as_object().unwrap();
        let required = schema["required"].as_array().unwrap();
        if required.iter().any(|r| !object.contains_key(r.as_str().unwrap())) {
            return false;
        }
        let properties = schema["properties"].as_object().unwrap();
        if schema["additionalProperties"] == json!(false)
            && object.keys().any(|k| !properties.contains_key(k))
        {
            return false;
        }
        if let Some(v) = object.get("volume") {
            let volume = &schema["$defs"]["Volume"];
            let allowed: Vec<&serde_json::Value> = match volume["enum"].as_array() {
                Some(values) => values.iter().collect(),
                None => volume["oneOf"].as_array().unwrap().iter().map(|o| &o["const"]).collect(),
            };
            if !allowed.contains(&v) {
                return false;
            }
        }
        true
    }

    fn parser_accepts(value: &serde_json::Value) -> bool {
        parse_input::<Greet>(&value.to_string()).is_ok()
    }

    #[test]
    fn schema_has_no_schema_or_title_but_keeps_descriptions() {
        let schema = input_schema::<Greet>();
        assert!(schema.get("$schema").is_none());
        assert!(schema.get("title").is_none());
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["name"]["description"], "Who to greet.");
        assert!(schema["properties"].get("repeatCount").is_some(), "camelCase names");
    }

    #[test]
    fn schema_and_parser_agree() {
        let cases = [
            (json!({"name": "a"}), true),
            (json!({"name": "a", "volume": "very-loud", "repeatCount": 2}), true),
            (json!({}), false),                  // required field missing
            (json!({"volume": "quiet"}), false), // required field missing
            (json!({"name": "a", "volume": "shouting"}), false), // unknown enum value
            (json!({"name": "a", "volume": "VeryLoud"}), false), // enum uses the serde name
            (json!({"name": "a", "extra": 1}), false), // deny_unknown_fields
            (json!({"name": "a", "repeat_count": 1}), false), // snake_case is unknown
        ];
        for (value, expected) in cases {
            assert_eq!(schema_accepts(&value), expected, "schema on {value}");
            assert_eq!(parser_accepts(&value), expected, "parser on {value}");
        }
        let schema = input_schema::<Greet>();
        assert_eq!(schema["required"], json!(["name"]));
    }

    #[test]
    fn parse_failure_is_invalid_arguments_with_prefix() {
        let err = parse_input::<Greet>("{\"name\": 3}").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArguments);
        assert!(!err.retryable);
        let serde_message = serde_json::from_str::<Greet>("{\"name\": 3}").unwrap_err().to_string();
        assert_eq!(err.message, format!("invalid tool input: {serde_message}"));
        let err = parse_input::<Greet>("not json").unwrap_err();
        assert!(err.message.starts_with("invalid tool input: "), "{}", err.message);
    }

    /// With a member only the host adds.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Operated {
        command: String,
        #[serde(rename = "$operator", default)]
        operator: Option<serde_json::Value>,
        limit: Option<u32>,
    }

    #[test]
    fn the_hosts_members_are_never_named_and_small_integers_are_bounded() {
        let err = parse_input::<Operated>(r#"{"command":"ls","bogus":1}"#).unwrap_err();
        assert!(!err.message.contains("$operator"), "{}", err.message);
        assert!(err.message.contains("`command`, `limit`"), "{}", err.message);
        assert_eq!(without_host_members("`$operator`, `a`".into()), "`a`");
        let schema = input_schema::<Greet>();
        assert_eq!(schema["properties"]["repeatCount"]["maximum"], json!(u32::MAX));
        assert_eq!(schema["properties"]["repeatCount"]["minimum"], json!(0));
    }

    #[test]
    fn parse_success_applies_defaults() {
        let greet: Greet = parse_input(r#"{"name":"x"}"#).unwrap();
        assert_eq!(greet, Greet { name: "x".into(), volume: Volume::Quiet, repeat_count: None });
    }
}
