//! The run a call of a tool that asks before every run will make
//! (docs/workspace-tools.md#approvals), found out before anyone is asked: the host hands the
//! tool the operator's `shell` rules as `$operator`, asks its `inspect` which program the
//! call will run (`runs(<toolhost_run_spec::RunSpec as JSON>)`), checks what `process.run`
//! would refuse of it, and finds out what the run will actually be ([`RunFacts`]: the program
//! file on PATH, the policy with every writable place, the session's private cache dir, a
//! package manager's scripts). That is [`DynTool::planned_run`] of a component tool; the
//! core's approval stage (`toolhost_core::approval::decide`) asks the session's approver about
//! it and gives the call a `RunGate` that lets exactly that run through, once, in
//! `host/process.rs`. A call whose `inspect` says it runs nothing runs nothing.
//!
//! [`DynTool::planned_run`]: toolhost_core::tool::DynTool::planned_run

use std::sync::Arc;

use toolhost_core::approval::package::{package_manager, package_scripts};
use toolhost_core::approval::program::{NotFound, find_program};
use toolhost_core::approval::{RunApproval, RunFacts, RunGate};
use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::fence::Intent;
use toolhost_core::result::ToolError;
use toolhost_core::tool::{CallInspection, DynTool};
use toolhost_limits::APPROVED_RUN_MAX_TIMEOUT_MS;
use toolhost_policy::{Access, POLICY_FILE, PathGrant, SandboxMode, SandboxPolicy, Scope};
use toolhost_run_spec::RunSpec;

use super::ComponentTool;
use super::instance::{call_deadline, run};
use crate::host::{run_cache_parent, run_policy};

/// The input member the operator's rules reach the tool in; never in its schema.
pub const OPERATOR_MEMBER: &str = "$operator";

/// The input text a tool that asks before every run gets, for `inspect` and `execute`
/// alike: `input` with the operator's `shell` rules of `policy` as [`OPERATOR_MEMBER`].
pub(super) fn with_operator(input: &serde_json::Value, policy: &SandboxPolicy) -> String {
    let mut input = input.clone();
    if let Some(object) = input.as_object_mut() {
        let rules = serde_json::to_value(policy.shell()).unwrap_or_default();
        object.insert(OPERATOR_MEMBER.into(), rules);
    }
    input.to_string()
}

impl ComponentTool {
    /// The one run this call will make, checked and with its facts found out; none when its
    /// `inspect` says it runs nothing; the call's error when it may not run (before anyone
    /// is asked). Refusals of the input are worded as the call's would be.
    pub(super) async fn plan_run(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: &serde_json::Value,
    ) -> Result<Option<RunApproval>, ToolError> {
        let (deadline, cancel) = (call_deadline(&call), call.cancel.clone());
        match self.described_run(session, call, input).await {
            Err(e) if self.parses_own_input => {
                Err(self.reworded(e, input.clone(), deadline, &cancel).await)
            }
            planned => planned,
        }
    }

    /// [`Self::plan_run`] before its refusals are reworded.
    async fn described_run(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: &serde_json::Value,
    ) -> Result<Option<RunApproval>, ToolError> {
        if !self.parses_own_input {
            let deadline = call_deadline(&call);
            self.input_check.check(&self.definition, input.clone(), deadline, &call.cancel).await?;
        }
        let pre = self.pre().await?;
        if let Some(reason) = self.disabled() {
            return Err(ToolError::execution_failed(reason));
        }
        let text = with_operator(input, &call.sandbox_policy);
        // `inspect` runs nothing itself.
        let mut inspecting = call.clone();
        inspecting.run_gate = Some(Arc::new(RunGate::closed()));
        let said =
            run(&self.runtime, pre, &self.grant, session.clone(), inspecting, move |pre, store| {
                Box::pin(async move { pre.inspect(store, &text).await })
            })
            .await;
        let CallInspection::Runs(described) = said.value.and_then(|inner| inner)? else {
            return Ok(None);
        };
        let id = &self.definition.id;
        let spec = RunSpec::from_json(&described).map_err(|e| {
            ToolError::execution_failed(format!(
                "the `{id}` tool described the program it would run in a form the host cannot read ({e}), so nothing ran"
            ))
        })?;
        let mut approval = RunApproval::from(spec);
        self.check_run(session, &call, &approval)?;
        approval.facts = self.run_facts(session, &call, &approval);
        self.check_program(&call, &approval)?;
        Ok(Some(approval))
    }

    /// What `run` will actually be (docs/workspace-tools.md#approvals): its working
    /// directory, the program file it executes (found on the session's PATH from there), the
    /// policy it gets with the session's private cache dir writable in it, and the package
    /// scripts it runs when the program is a package manager.
    fn run_facts(
        &self,
        session: &ToolSessionContext,
        call: &ToolCallContext,
        run: &RunApproval,
    ) -> RunFacts {
        let mut policy = run_policy(&call.sandbox_policy, &self.grant);
        let mut cache = None;
        if policy.mode() == SandboxMode::WorkspaceWrite
            && let Ok(dir) = session.run_cache.dir(&session.session_id, &run_cache_parent(&policy))
        {
            if !policy.writable_roots().iter().any(|root| dir.starts_with(root)) {
                policy = policy.with_grants([PathGrant {
                    path: dir.clone(),
                    access: Access::Write,
                    scope: Scope::Subtree,
                }]);
            }
            cache = Some(dir);
        }
        let mut facts = RunFacts { policy: Some(policy.clone()), cache, ..RunFacts::default() };
        let cwd = match &run.spec.cwd {
            None => Ok(session.working_directory.clone()),
            Some(dir) => {
                let policy = &call.sandbox_policy;
                self.grant
                    .resolve(session, dir, Access::Read, Intent::MustExist, policy)
                    .map_err(|e| e.error.message)
                    .and_then(|checked| {
                        let path = checked.as_path();
                        if path.starts_with(&session.working_directory) && path.is_dir() {
                            Ok(path.to_path_buf())
                        } else {
                            Err(format!("{dir} is not a directory inside the workspace"))
                        }
                    })
            }
        };
        let cwd = match cwd {
            Ok(cwd) => cwd,
            Err(why) => {
                facts.not_found = Some(why);
                return facts;
            }
        };
        let path_var = session.environment.get("PATH").map(String::as_str);
        match find_program(&run.spec.program, &cwd, path_var, &policy) {
            Ok(file) => facts.program = Some(file),
            Err(NotFound(why)) => facts.not_found = Some(why),
        }
        let found = facts.program.as_ref().map(|f| f.path.as_path());
        if let Some(manager) = package_manager(&run.spec.program, found) {
            facts.package = Some(package_scripts(manager, &run.spec.args, &cwd, &policy));
        }
        facts.cwd = cwd;
        facts
    }

    /// Under the operator's `command_whitelist`, the program file found must not lie where
    /// the run or the model can write: a listed name (`git`) found as a file the model
    /// planted (a relative PATH entry, `node_modules/.bin/git`) is not the listed program.
    fn check_program(&self, call: &ToolCallContext, run: &RunApproval) -> Result<(), ToolError> {
        let whitelist = &call.sandbox_policy.shell().command_whitelist;
        let Some(file) = &run.facts.program else { return Ok(()) };
        if whitelist.is_empty()
            || !(run.facts.in_writable(&file.path) || run.facts.in_writable(&file.real))
        {
            return Ok(());
        }
        Err(ToolError::permission_denied(format!(
            "{} is found on PATH as {}, a file in a place the run can write (so the model may have written it); the operator's command_whitelist allows only programs found outside those places; nothing ran",
            toolhost_core::display::quoted(&run.spec.program),
            toolhost_core::display::quoted(&file.path.to_string_lossy())
        )))
    }

    /// What would stop `run` anyway, refused before anyone is asked: a timeout out of range,
    /// a program the operator's `command_whitelist` does not list, what `process.run` refuses,
    /// a question that would not fit a screen ([`RunApproval::check_size`]).
    fn check_run(
        &self,
        session: &ToolSessionContext,
        call: &ToolCallContext,
        run: &RunApproval,
    ) -> Result<(), ToolError> {
        let id = &self.definition.id;
        if run.spec.timeout_ms == 0 || run.spec.timeout_ms > APPROVED_RUN_MAX_TIMEOUT_MS {
            return Err(ToolError::invalid_arguments(format!(
                "the `{id}` run's timeout is {} ms; it must be 1 to {APPROVED_RUN_MAX_TIMEOUT_MS}",
                run.spec.timeout_ms
            )));
        }
        let policy_file = session.data_dir.join(POLICY_FILE);
        let whitelist = &call.sandbox_policy.shell().command_whitelist;
        if !whitelist.is_empty() && !whitelist.contains(&run.spec.program) {
            return Err(ToolError::permission_denied(format!(
                "{} is not in the operator's command_whitelist ({}), which allows only: {}; nothing ran",
                toolhost_core::display::quoted(&run.spec.program),
                policy_file.display(),
                whitelist.join(", ")
            )));
        }
        crate::host::check_approved_run(run, &call.sandbox_policy, &policy_file)
            .map_err(crate::exports::error)?;
        run.check_size().map_err(|e| ToolError::invalid_arguments(e.to_string()))
    }
}
