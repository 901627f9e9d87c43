//! The approval of a tool that asks before every run (docs/workspace-tools.md#approvals):
//! before `execute`, the host hands the tool the operator's `shell` rules as `$operator`, asks
//! its `inspect` which program the call will run (`runs(<RunApproval as JSON>)`), checks what
//! `process.run` would refuse of it, asks the session's approver, and gives the call a
//! [`RunGate`] that lets exactly that run through, once. A call whose `inspect` says it runs
//! nothing gets a closed gate.

use std::sync::Arc;

use toolhost_core::approval::{Approval, RunApproval, RunGate, RunSandbox, wait_for_approval};
use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::result::{ToolError, ToolResult};
use toolhost_core::tool::CallInspection;
use toolhost_limits::APPROVED_RUN_MAX_TIMEOUT_MS;
use toolhost_sandbox::policy::{NetworkAccess, POLICY_FILE, SandboxMode};

use super::ComponentTool;
use super::store::run;
use crate::exports::Prepared;

/// The input member the operator's rules reach the tool in; never in its schema.
pub const OPERATOR_MEMBER: &str = "$operator";

impl ComponentTool {
    /// The input text `execute` gets and the call it runs under, once the run it describes
    /// was approved; the call's result when it was not (or cannot be asked).
    pub(super) async fn gate(
        &self,
        session: &ToolSessionContext,
        mut call: ToolCallContext,
        mut input: serde_json::Value,
        pre: &Prepared,
    ) -> Result<(String, ToolCallContext), ToolResult> {
        let id = self.definition.id.to_string();
        if let Some(object) = input.as_object_mut() {
            let rules = serde_json::to_value(call.sandbox_policy.shell()).unwrap_or_default();
            object.insert(OPERATOR_MEMBER.into(), rules);
        }
        let text = input.to_string();
        // `inspect` runs nothing itself.
        let mut inspecting = call.clone();
        inspecting.run_gate = Some(Arc::new(RunGate::closed()));
        let asked = text.clone();
        let said =
            run(&self.runtime, pre, &self.grant, session.clone(), inspecting, move |pre, store| {
                Box::pin(async move { pre.inspect(store, &asked).await })
            })
            .await;
        let inspection = said.value.and_then(|inner| inner).map_err(ToolResult::from_error)?;
        let CallInspection::Runs(described) = inspection else {
            call.run_gate = Some(Arc::new(RunGate::closed()));
            return Ok((text, call));
        };
        let mut approval: RunApproval = serde_json::from_str(&described).map_err(|e| {
            ToolResult::from_error(ToolError::execution_failed(format!(
                "the `{id}` tool described the program it would run in a form the host cannot read ({e}), so nothing ran"
            )))
        })?;
        self.check_run(session, &call, &approval).map_err(ToolResult::from_error)?;
        let policy = &call.sandbox_policy;
        approval.sandbox = RunSandbox {
            workspace: session.working_directory.clone(),
            writable: policy.mode() == SandboxMode::WorkspaceWrite
                && !self.grant.runs_programs_read_only(),
            network: policy.network() == NetworkAccess::Allow
                && !self.grant.runs_programs_read_only(),
        };
        let asking = Approval::Run(&approval);
        let outcome = wait_for_approval(&*session.approver, &id, asking, &call).await;
        if let Some(refused) = outcome.refusal(&id, asking) {
            return Err(refused);
        }
        call.run_gate = Some(Arc::new(RunGate::approved(approval)));
        Ok((text, call))
    }

    /// What would stop `run` anyway, refused before anyone is asked: a timeout out of range,
    /// a program the operator's `command_whitelist` does not list, what `process.run` refuses.
    fn check_run(
        &self,
        session: &ToolSessionContext,
        call: &ToolCallContext,
        run: &RunApproval,
    ) -> Result<(), ToolError> {
        let id = &self.definition.id;
        if run.timeout_ms == 0 || run.timeout_ms > APPROVED_RUN_MAX_TIMEOUT_MS {
            return Err(ToolError::invalid_arguments(format!(
                "the `{id}` run's timeout is {} ms; it must be 1 to {APPROVED_RUN_MAX_TIMEOUT_MS}",
                run.timeout_ms
            )));
        }
        let policy_file = session.data_dir.join(POLICY_FILE);
        let whitelist = &call.sandbox_policy.shell().command_whitelist;
        if !whitelist.is_empty() && !whitelist.contains(&run.program) {
            return Err(ToolError::permission_denied(format!(
                "{} is not in the operator's command_whitelist ({}), which allows only: {}; nothing ran",
                toolhost_core::display::quoted(&run.program),
                policy_file.display(),
                whitelist.join(", ")
            )));
        }
        crate::host::check_approved_run(run, &call.sandbox_policy, &policy_file)
            .map_err(crate::exports::error)
    }
}
