//! The one way the host compiles a schema: JSON Schema 2020-12 with `pattern`s on a
//! linear-time regex engine.

use serde_json::Value;
use toolhost_limits::SCHEMA_REGEX_SIZE_LIMIT;

/// Why a schema does not compile: the JSON Schema library's text, and for a regular
/// expression, why the engine refuses it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// A `pattern` the linear-time engine refuses (or that compiles past its size limit).
    #[error(
        "{0} (patterns run on a linear-time engine: no lookaround and no backreference, and each compiles within SCHEMA_REGEX_SIZE_LIMIT, {SCHEMA_REGEX_SIZE_LIMIT} bytes)"
    )]
    Pattern(String),
    /// Anything else the library refuses.
    #[error("{0}")]
    Schema(String),
}

/// A validator for a schema that passed [`check_schema`](super::check_schema) or
/// [`check_output_schema`](super::check_output_schema): JSON Schema 2020-12, with `pattern`s
/// on the `regex` crate's linear-time engine, each compiled within
/// [`SCHEMA_REGEX_SIZE_LIMIT`]. The only way the host compiles a schema.
pub fn compile_schema(schema: &Value) -> Result<jsonschema::Validator, CompileError> {
    jsonschema::draft202012::options()
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(SCHEMA_REGEX_SIZE_LIMIT)
                .dfa_size_limit(SCHEMA_REGEX_SIZE_LIMIT),
        )
        .build(schema)
        .map_err(|e| {
            let text = e.to_string();
            if text.contains("regex") {
                CompileError::Pattern(text)
            } else {
                CompileError::Schema(text)
            }
        })
}

#[cfg(test)]
mod tests {
    use super::super::check_output_schema;
    use super::*;
    use serde_json::json;

    #[test]
    fn patterns_compile_on_a_linear_time_engine() {
        let schema = json!({"type": "object", "properties": {"w": {"type": "string", "not": {"pattern": "^(a+)+\\b$"}}}});
        assert!(check_output_schema(&schema).is_ok());
        let validator = compile_schema(&schema).unwrap();
        let word = format!("{}!", "a".repeat(4000));
        let started = std::time::Instant::now();
        assert!(validator.is_valid(&json!({"w": word})));
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
        // Lookaround and backreferences need backtracking: refused, saying why.
        let look = json!({"type": "object", "properties": {"w": {"type": "string", "pattern": "^(?=a)a$"}}});
        let err = check_output_schema(&look).unwrap_err().to_string();
        assert!(err.contains("linear-time engine"), "{err}");
    }
}
