//! The check of a successful call's structured value against the tool's output schema, and
//! the structured failure (`success: false`) that ends a call as failed.

use std::sync::Arc;
use std::time::Instant;

use super::ComponentTool;
use crate::definition::CompileError;
use crate::interrupt::{Interrupted, STOPPED_ON_CANCEL, off_the_runtime};
use toolhost_core::result::{ErrorCode, ToolError};

/// How every call ends whose structured result the host refused to pass on (no schema, no
/// value, too large, not JSON, or not matching the schema): the text of such a failure ends
/// with it.
pub const STRUCTURED_WITHHELD: &str = "the call's result was withheld: a tool with an output schema must return a structured result that matches it, and a tool without one must return none";

/// Why a structured value is withheld, worded to follow "the tool `ID`".
#[derive(Debug, thiserror::Error)]
enum Withheld {
    #[error("returned a structured result that is not JSON ({0})")]
    NotJson(serde_json::Error),
    #[error("its output schema does not compile ({0})")]
    Schema(CompileError),
    #[error(
        "returned a structured result that does not match its output schema (at `{at}`: {error})"
    )]
    Mismatch { at: String, error: String },
}

impl ComponentTool {
    /// Check a successful call's structured value against the output schema: the value a
    /// client is given must be the one the tool promised. Every refusal ends with
    /// [`STRUCTURED_WITHHELD`]. The schema was bounded when the definition was checked and
    /// its patterns run on a linear-time engine; even so the check runs on a blocking thread
    /// raced against the call's `deadline` and `cancel`, so it never outlives the call nor
    /// holds up the host's other requests.
    pub(super) async fn check_structured(
        &self,
        structured: Option<String>,
        deadline: Instant,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<Option<serde_json::Value>, ToolError> {
        let id = &self.definition.id;
        let withheld = |why: String| {
            ToolError::execution_failed(format!("the tool `{id}` {why}; {STRUCTURED_WITHHELD}"))
        };
        let Some(schema) = &self.definition.output_schema else {
            return match structured {
                None => Ok(None),
                Some(_) => Err(withheld(
                    "returned a structured result but declares no output schema".into(),
                )),
            };
        };
        let Some(text) = structured else {
            return Err(withheld(
                "declares an output schema but returned no structured result".into(),
            ));
        };
        if text.len() > toolhost_limits::MAX_STRUCTURED_BYTES {
            return Err(withheld(format!(
                "returned a structured result of {} bytes, more than the {} a structured result may have (MAX_STRUCTURED_BYTES); it must bound it as it bounds its text",
                text.len(),
                toolhost_limits::MAX_STRUCTURED_BYTES
            )));
        }
        let validator = self.output_validator.clone();
        let schema = validator.get().is_none().then(|| schema.clone());
        let check =
            off_the_runtime(deadline, cancel, move || -> Result<serde_json::Value, Withheld> {
                let value: serde_json::Value =
                    serde_json::from_str(&text).map_err(Withheld::NotJson)?;
                let validator = validator.get_or_init(|| {
                    let schema = schema.unwrap_or_default();
                    crate::definition::compile_schema(&schema).map(Arc::new)
                });
                let validator = validator.as_ref().map_err(|e| Withheld::Schema(e.clone()))?;
                if validator.is_valid(&value) {
                    return Ok(value);
                }
                match validator.validate(&value) {
                    Ok(()) => Ok(value),
                    Err(e) => {
                        let at = e.instance_path.to_string();
                        let at = if at.is_empty() { "/".to_string() } else { at };
                        Err(Withheld::Mismatch { at, error: e.to_string() })
                    }
                }
            });
        match check.await {
            Ok(Ok(Ok(value))) => Ok(Some(value)),
            Ok(Ok(Err(why))) => Err(withheld(why.to_string())),
            Ok(Err(e)) => {
                Err(withheld(format!("could not have its structured result checked ({e})")))
            }
            Err(Interrupted::Cancelled) => {
                Err(ToolError::new(ErrorCode::Cancelled, STOPPED_ON_CANCEL))
            }
            Err(Interrupted::Deadline) => Err(ToolError::new(
                ErrorCode::Timeout,
                format!(
                    "the tool `{id}` ran past its deadline while the host checked its structured result against its output schema; {STRUCTURED_WITHHELD}"
                ),
            )),
        }
    }
}

/// The error a structured value reports, if it is a structured failure
/// (docs/contract.md#structured-failures): an object whose `success` is `false`. Its
/// `error_kind`, one of the `LOCAL_EXECUTOR_*` kinds, gives the error code (another or none:
/// `execution_failed`); `terminal: false` makes it retryable; the message is the call's text.
pub(crate) fn structured_failure(value: &serde_json::Value, text: &str) -> Option<ToolError> {
    if value.get("success") != Some(&serde_json::Value::Bool(false)) {
        return None;
    }
    let kind = value
        .get("error_kind")
        .and_then(serde_json::Value::as_str)
        .and_then(toolhost_error_kinds::ErrorKind::from_name);
    let code = kind
        .and_then(|k| serde_json::from_value(serde_json::Value::from(k.code())).ok())
        .unwrap_or(ErrorCode::ExecutionFailed);
    let retryable = value.get("terminal") == Some(&serde_json::Value::Bool(false));
    Some(ToolError { code, message: text.to_owned(), retryable })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn success_false_fails_the_call_with_its_kinds_code() {
        let v = json!({"success": false, "error_kind": "LOCAL_EXECUTOR_INVALID_INPUT", "terminal": true});
        let e = structured_failure(&v, "bad revision").unwrap();
        assert_eq!(
            (e.code, e.retryable, e.message.as_str()),
            (ErrorCode::InvalidArguments, false, "bad revision")
        );
        let v =
            json!({"success": false, "error_kind": "LOCAL_EXECUTOR_TIMEOUT", "terminal": false});
        assert_eq!(
            structured_failure(&v, "t").map(|e| (e.code, e.retryable)),
            Some((ErrorCode::Timeout, true))
        );
        let v = json!({"success": false, "error_kind": "SOMETHING_ELSE"});
        assert_eq!(structured_failure(&v, "t").unwrap().code, ErrorCode::ExecutionFailed);
        for kind in toolhost_error_kinds::ErrorKind::ALL {
            let v = json!({"success": false, "error_kind": kind.name()});
            let code = structured_failure(&v, "t").unwrap().code;
            assert_eq!(serde_json::to_value(code).unwrap(), kind.code(), "{kind:?}");
        }
        assert!(structured_failure(&json!({"success": true}), "t").is_none());
        assert!(structured_failure(&json!({"ok": false}), "t").is_none());
    }
}
