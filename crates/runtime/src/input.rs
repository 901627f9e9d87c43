//! The host's check of a call's arguments against the input schema its component declared
//! (docs/contract.md#the-input-contract): arguments that break it are refused with
//! `invalid_arguments` and a text starting `invalid tool input: ` that names the first
//! violation, before the component is instantiated — for `execute` and for `inspect` alike.
//! A tool may lean on it. The built-in components check their own input with the exact
//! texts of the contract and are exempt ([`crate::ComponentTool::checks_own_input`]).
//!
//! The schema was bounded when the definition was checked and its patterns run on a
//! linear-time engine; the check still runs off the async runtime, raced against the call's
//! deadline and cancel, like the check of a structured result.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use serde_json::Value;
use toolhost_core::result::{ErrorCode, ToolError};
use toolhost_core::tool::ToolDefinition;

use crate::component_tool::STOPPED_ON_CANCEL;
use crate::component_tool::store::{Interrupted, off_the_runtime};

/// How every refusal of the host's input check ends: the model and the author can tell that
/// the component never saw the arguments.
pub const INPUT_REFUSED_BY_HOST: &str =
    "the host checked the arguments against the tool's input schema; the tool did not run";

/// At most this many characters of the violation are quoted (it may quote the arguments).
const MAX_VIOLATION_CHARS: usize = 300;

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
        let check = off_the_runtime(deadline, cancel, move || -> Result<(), String> {
            let validator = validator.get_or_init(|| {
                crate::definition::compile_schema(&schema.unwrap_or_default())
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            });
            let validator = validator.as_ref().map_err(Clone::clone)?;
            if validator.is_valid(&input) {
                return Ok(());
            }
            match validator.validate(&input) {
                Ok(()) => Ok(()),
                Err(e) => {
                    let at = e.instance_path.to_string();
                    let mut what: String = e.to_string();
                    if what.chars().count() > MAX_VIOLATION_CHARS {
                        what = what.chars().take(MAX_VIOLATION_CHARS).collect::<String>() + "…";
                    }
                    Err(format!("at `{}`: {what}", if at.is_empty() { "/" } else { &at }))
                }
            }
        });
        match check.await {
            Ok(Ok(Ok(()))) => Ok(()),
            Ok(Ok(Err(why))) => Err(ToolError::invalid_arguments(format!(
                "invalid tool input: {why}; {INPUT_REFUSED_BY_HOST}"
            ))),
            Ok(Err(e)) => Err(ToolError::execution_failed(format!(
                "the host could not check the arguments of `{id}` against its input schema ({e}); the tool did not run"
            ))),
            Err(Interrupted::Cancelled) => {
                Err(ToolError::new(ErrorCode::Cancelled, STOPPED_ON_CANCEL))
            }
            Err(Interrupted::Deadline) => Err(ToolError::new(
                ErrorCode::Timeout,
                format!(
                    "the call of `{id}` ran past its deadline while the host checked its arguments against the input schema; the tool did not run"
                ),
            )),
        }
    }
}
