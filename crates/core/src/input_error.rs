//! The one way a call's arguments that break its tool's input schema are told to the model
//! (docs/contract.md#the-input-contract), whichever tool it is and whoever found it: the
//! host's schema check of a component's arguments (`runtime::input`), the host's parse of a
//! host tool's typed input ([`parse_input`]) and of the escalation parameters. Every text
//! names the field (`path`, `sandboxPermissions.paths[0].access`), says what it expected
//! and what it got, and ends with [`INPUT_REFUSED_BY_HOST`]:
//!
//! ```text
//! invalid tool input: `path`: expected a string, got 5; the host checked the arguments against the tool's input schema; the tool did not run
//! ```
//!
//! Members whose names start with `$` (the operator's `$operator`, which the host adds for a
//! tool and which no schema lists) are never named among a tool's fields.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::result::ToolError;

pub use toolhost_error_kinds::INVALID_INPUT_PREFIX;

/// How every refusal of a call's arguments ends: the model and the author can tell that the
/// tool never saw them.
pub const INPUT_REFUSED_BY_HOST: &str =
    "the host checked the arguments against the tool's input schema; the tool did not run";

/// At most this many characters of a value are quoted (it is the model's own input).
const MAX_VALUE_CHARS: usize = 60;
/// At most this many characters of a checker's own words are quoted.
const MAX_OTHER_CHARS: usize = 300;

/// One step from the top of the arguments to a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A member of an object.
    Key(String),
    /// An element of an array.
    Index(usize),
}

/// What is wrong with the value at a field.
#[derive(Debug, Clone, PartialEq)]
pub enum Violation {
    /// The value is of the wrong type (or out of the type's range): `expected` in words
    /// ("a string", "an integer from 0 to 4294967295").
    Expected {
        /// What the schema takes there.
        expected: String,
        /// What the call sent.
        got: Value,
    },
    /// A required field is absent (the path ends with its name).
    Missing,
    /// A field the tool does not take (the path ends with its name); `fields` are the ones
    /// taken there, when known.
    Unknown {
        /// The fields the object there takes.
        fields: Vec<String>,
    },
    /// A value outside a fixed set.
    NotOneOf {
        /// The values taken.
        allowed: Vec<Value>,
        /// What the call sent.
        got: Value,
    },
    /// Anything else, in the checker's own words.
    Other(String),
}

/// The field a path names, as the model wrote it: `path`, `edits[2].oldString`; empty for
/// the arguments as a whole.
pub fn field_name(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) if out.is_empty() => out.push_str(key),
            Step::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The path a JSON pointer (`/sandboxPermissions/paths/0`) names; a segment of digits under
/// an array is an index, which the pointer alone cannot tell, so `arguments` decides.
pub fn path_of_pointer(pointer: &str, arguments: &Value) -> Vec<Step> {
    let mut at = Some(arguments);
    let mut path = Vec::new();
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        match at {
            Some(Value::Array(items)) if let Ok(i) = segment.parse::<usize>() => {
                at = items.get(i);
                path.push(Step::Index(i));
            }
            _ => {
                at = at.and_then(|v| v.get(&segment));
                path.push(Step::Key(segment));
            }
        }
    }
    path
}

/// A value as the text shows it: compact JSON, cut after [`MAX_VALUE_CHARS`] characters.
pub fn value_text(value: &Value) -> String {
    cut(&value.to_string(), MAX_VALUE_CHARS)
}

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() > max {
        text.chars().take(max).collect::<String>() + "…"
    } else {
        text.to_string()
    }
}

fn backticked(names: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    names
        .into_iter()
        .filter(|n| !n.as_ref().starts_with('$'))
        .map(|n| format!("`{}`", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The refusal the model sees for `violation` at `path`: `invalid tool input: `, the field,
/// what was expected and what came, then [`INPUT_REFUSED_BY_HOST`].
pub fn refusal_text(path: &[Step], violation: &Violation) -> String {
    let field = field_name(path);
    let at = if field.is_empty() { String::new() } else { format!("`{field}`: ") };
    let what = match violation {
        Violation::Expected { expected, got } => {
            format!("{at}expected {expected}, got {}", value_text(got))
        }
        Violation::Missing => format!("`{field}` is missing; it is required"),
        Violation::Unknown { fields } => {
            let parent = field_name(&path[..path.len().saturating_sub(1)]);
            let listed = backticked(fields);
            let taken = match (parent.is_empty(), listed.is_empty()) {
                (_, true) => String::new(),
                (true, false) => format!("; the fields it takes are {listed}"),
                (false, false) => format!("; the fields `{parent}` takes are {listed}"),
            };
            format!("`{field}` is not a field this tool takes{taken}")
        }
        Violation::NotOneOf { allowed, got } => {
            let allowed: Vec<String> = allowed.iter().map(value_text).collect();
            format!("{at}expected one of {}, got {}", allowed.join(", "), value_text(got))
        }
        Violation::Other(text) => format!("{at}{}", cut(text, MAX_OTHER_CHARS)),
    };
    format!("{INVALID_INPUT_PREFIX}{what}; {INPUT_REFUSED_BY_HOST}")
}

/// [`refusal_text`] as an `invalid_arguments` error.
pub fn refusal(path: &[Step], violation: &Violation) -> ToolError {
    ToolError::invalid_arguments(refusal_text(path, violation))
}

/// Where in `input` serde's first complaint is: the text is written out with every value's
/// place noted, parsed again, and the place the parser stopped at is looked up.
fn locate<T: DeserializeOwned>(input: &Value) -> Option<Vec<Step>> {
    let mut text = String::new();
    let mut spans = Vec::new();
    write_spanned(input, &mut Vec::new(), &mut text, &mut spans);
    let error = serde_json::from_str::<T>(&text).err()?;
    let at = error.column().checked_sub(1)?;
    // The innermost span holding the place: the one that starts last among those that do.
    spans
        .iter()
        .filter(|(start, end, _)| *start <= at && at <= *end)
        .max_by_key(|(start, end, path)| (*start, path.len(), usize::MAX - end))
        .map(|(_, _, path)| path.clone())
}

type Span = (usize, usize, Vec<Step>);

/// `value` as compact JSON (one line) into `out`, noting the byte span of every member
/// (its key and value) and of every element with the path to it.
fn write_spanned(value: &Value, path: &mut Vec<Step>, out: &mut String, spans: &mut Vec<Span>) {
    match value {
        Value::Object(members) => {
            out.push('{');
            for (i, (key, member)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let start = out.len();
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                path.push(Step::Key(key.clone()));
                write_spanned(member, path, out, spans);
                spans.push((start, out.len(), path.clone()));
                path.pop();
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let start = out.len();
                path.push(Step::Index(i));
                write_spanned(item, path, out, spans);
                spans.push((start, out.len(), path.clone()));
                path.pop();
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// The value at `path` in `input`.
fn value_at<'a>(input: &'a Value, path: &[Step]) -> Option<&'a Value> {
    path.iter().try_fold(input, |at, step| match step {
        Step::Key(key) => at.get(key),
        Step::Index(i) => at.get(i),
    })
}

/// `Some(rest)` after `prefix`.
fn after<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.strip_prefix(prefix)
}

/// The names between backticks in serde's list (`` `a`, `b` ``).
fn names_in(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// serde's words for what it expected, as the refusal says it.
fn expected_words(serde: &str) -> String {
    let range = |min: i128, max: i128| format!("an integer from {min} to {max}");
    match serde {
        "u8" => range(0, u8::MAX.into()),
        "u16" => range(0, u16::MAX.into()),
        "u32" => range(0, u32::MAX.into()),
        "u64" | "usize" => range(0, u64::MAX.into()),
        "i8" => range(i8::MIN.into(), i8::MAX.into()),
        "i16" => range(i16::MIN.into(), i16::MAX.into()),
        "i32" => range(i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => range(i64::MIN.into(), i64::MAX.into()),
        "a sequence" => "an array".into(),
        "a map" => "an object".into(),
        s if s.starts_with("struct ") => "an object".into(),
        s if s.starts_with("a boolean") || s.starts_with("a string") => s.into(),
        s => s.into(),
    }
}

/// serde's message for the value at `path`, as a [`Violation`].
fn from_serde(message: &str, path: &[Step], input: &Value) -> Violation {
    let got = value_at(input, path).cloned().unwrap_or(Value::Null);
    if let Some(rest) =
        after(message, "invalid type: ").or_else(|| after(message, "invalid value: "))
        && let Some((_, expected)) = rest.rsplit_once(", expected ")
    {
        return Violation::Expected { expected: expected_words(expected), got };
    }
    if let Some(rest) = after(message, "unknown field ") {
        let fields = rest.split_once(", expected").map(|(_, list)| names_in(list));
        return Violation::Unknown { fields: fields.unwrap_or_default() };
    }
    if let Some(rest) = after(message, "unknown variant ") {
        let allowed = rest.split_once(", expected").map(|(_, list)| names_in(list));
        let allowed = allowed.unwrap_or_default().into_iter().map(Value::String).collect();
        return Violation::NotOneOf { allowed, got };
    }
    if after(message, "missing field ").is_some() {
        return Violation::Missing;
    }
    Violation::Other(message.to_string())
}

/// The path `locate` found, completed for a missing field: serde stops at the end of an
/// object, so the field is put under the innermost object on the way that lacks it.
fn completed(mut path: Vec<Step>, message: &str, input: &Value) -> Vec<Step> {
    if let Some(rest) = after(message, "missing field ")
        && let Some(name) = names_in(rest).into_iter().next()
    {
        while !matches!(value_at(input, &path), Some(Value::Object(m)) if !m.contains_key(&name))
            && path.pop().is_some()
        {}
        path.push(Step::Key(name));
    }
    path
}

/// Parse `input` (the arguments, or a part of them at `prefix`) into `T`; a failure is the
/// refusal naming the field below `prefix`. Every input (and part of one) parsed here is an object: serde alone would take an array
/// for a struct.
pub fn parse_at<T: DeserializeOwned>(input: &Value, prefix: &[Step]) -> Result<T, ToolError> {
    if !input.is_object() {
        let expected = "an object".to_string();
        return Err(refusal(prefix, &Violation::Expected { expected, got: input.clone() }));
    }
    let error = match T::deserialize(input) {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e.to_string(),
    };
    let found = completed(locate::<T>(input).unwrap_or_default(), &error, input);
    let violation = from_serde(&error, &found, input);
    let mut path = prefix.to_vec();
    path.extend(found);
    Err(refusal(&path, &violation))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Input {
        command: String,
        timeout_ms: Option<u32>,
        #[serde(default)]
        paths: Vec<Grant>,
        #[serde(rename = "$operator", default)]
        operator: Option<Value>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Grant {
        path: String,
        access: Access,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Access {
        Read,
        Write,
    }

    fn text(input: Value) -> String {
        parse_at::<Input>(&input, &[]).unwrap_err().message
    }

    #[test]
    fn every_refusal_names_the_field() {
        assert_eq!(
            text(json!({"command": 5})),
            format!(
                "invalid tool input: `command`: expected a string, got 5; {INPUT_REFUSED_BY_HOST}"
            )
        );
        assert!(
            text(json!({"command": "ls", "timeoutMs": 5_000_000_000u64}))
                .starts_with("invalid tool input: `timeoutMs`: expected an integer from 0 to 4294967295, got 5000000000;")
        );
        assert!(
            text(json!({"timeoutMs": 5}))
                .starts_with("invalid tool input: `command` is missing; it is required;"),
            "{}",
            text(json!({"timeoutMs": 5}))
        );
        let nested = text(
            json!({"command": "ls", "paths": [{"path": "a", "access": "read"}, {"path": 3, "access": "read"}]}),
        );
        assert!(
            nested.starts_with("invalid tool input: `paths[1].path`: expected a string, got 3;"),
            "{nested}"
        );
        let variant = text(json!({"command": "ls", "paths": [{"path": "a", "access": "all"}]}));
        assert!(
            variant.starts_with(
                "invalid tool input: `paths[0].access`: expected one of \"read\", \"write\", got \"all\";"
            ),
            "{variant}"
        );
        let top = text(json!([1]));
        assert!(top.starts_with("invalid tool input: expected an object, got [1];"), "{top}");
    }

    #[test]
    fn an_unknown_field_lists_the_fields_but_never_the_operators() {
        let t = text(json!({"command": "ls", "bogus": 1}));
        assert!(
            t.starts_with(
                "invalid tool input: `bogus` is not a field this tool takes; the fields it takes are `command`, `timeoutMs`, `paths`;"
            ),
            "{t}"
        );
        assert!(!t.contains("$operator"), "{t}");
        let nested =
            text(json!({"command": "ls", "paths": [{"path": "a", "access": "read", "x": 1}]}));
        assert!(
            nested.contains("`paths[0].x` is not a field this tool takes; the fields `paths[0]` takes are `path`, `access`"),
            "{nested}"
        );
    }

    #[test]
    fn a_pointer_becomes_a_field_name() {
        let args = json!({"a": [{"b": 1}], "0": {"1": 2}});
        assert_eq!(field_name(&path_of_pointer("/a/0/b", &args)), "a[0].b");
        assert_eq!(field_name(&path_of_pointer("/0/1", &args)), "0.1");
        assert_eq!(field_name(&path_of_pointer("", &args)), "");
    }
}
