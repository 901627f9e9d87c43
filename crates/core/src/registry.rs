//! Registry and toolsets (docs/contract.md#definitions-and-the-toolset): [`ToolRegistryBuilder`]
//! collects the tools this binary knows, [`ToolsetConfig`] names the ones an agent may use, and
//! [`finalize`] binds the two and a session into an immutable [`FinalizedToolset`].

use std::collections::HashSet;
use std::sync::Arc;

use crate::approval::Request;
use crate::context::{ToolCallContext, ToolSessionContext};
use crate::result::{ErrorCode, ToolError, ToolResult, ToolResultContent};
use crate::spill;
use crate::tool::{
    CallInspection, DynTool, NativeTool, ToolAdapter, ToolDefinition, ToolId, ToolRisk,
};
use toolhost_policy::{Access, Actor, EscalationRequest};

/// Collects the tools this binary knows, in registration order.
#[derive(Default)]
pub struct ToolRegistryBuilder {
    tools: Vec<Arc<dyn DynTool>>,
}

impl ToolRegistryBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Register a typed host tool.
    pub fn register<T: NativeTool>(&mut self, tool: T) -> &mut Self {
        self.tools.push(Arc::new(ToolAdapter::new(tool)));
        self
    }

    /// Register an already type-erased tool (a component tool, say).
    pub fn register_dyn(&mut self, tool: Arc<dyn DynTool>) -> &mut Self {
        self.tools.push(tool);
        self
    }

    /// The registry; its problems are reported by [`finalize`].
    pub fn build(&mut self) -> ToolRegistry {
        ToolRegistry { tools: std::mem::take(&mut self.tools) }
    }
}

/// The tools this binary knows. Immutable; select from it with [`finalize`].
#[derive(Clone)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn DynTool>>,
}

impl ToolRegistry {
    /// The registered tool ids, in registration order.
    pub fn ids(&self) -> Vec<ToolId> {
        self.tools.iter().map(|t| t.definition().id.clone()).collect()
    }
}

/// The tool ids an agent may use, in the order the model sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolsetConfig {
    pub tools: Vec<ToolId>,
}

impl ToolsetConfig {
    /// A config selecting `ids` in this order.
    pub fn new<I, S>(ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        ToolsetConfig { tools: ids.into_iter().map(ToolId::new).collect() }
    }
}

/// A configuration [`finalize`] refuses (docs/contract.md#definitions-and-the-toolset).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FinalizeError {
    #[error("a registered tool has a blank id")]
    BlankId,
    #[error("tool `{0}` has a blank description")]
    BlankDescription(ToolId),
    #[error("tool `{0}` is registered more than once")]
    DuplicateRegistration(ToolId),
    #[error("tool `{0}` is selected more than once")]
    DuplicateSelection(ToolId),
    #[error("tool `{0}` is selected but not registered (registered: {1})")]
    NotRegistered(ToolId, String),
}

/// Bind `config` and `session` into a toolset, refusing the five bad configurations
/// (docs/contract.md#definitions-and-the-toolset).
pub fn finalize(
    registry: &ToolRegistry,
    config: &ToolsetConfig,
    session: ToolSessionContext,
) -> Result<FinalizedToolset, FinalizeError> {
    let mut registered = HashSet::new();
    for tool in &registry.tools {
        let def = tool.definition();
        if def.id.as_str().trim().is_empty() {
            return Err(FinalizeError::BlankId);
        }
        if def.description.trim().is_empty() {
            return Err(FinalizeError::BlankDescription(def.id.clone()));
        }
        if !registered.insert(def.id.clone()) {
            return Err(FinalizeError::DuplicateRegistration(def.id.clone()));
        }
    }
    let mut selected = HashSet::new();
    let mut tools = Vec::with_capacity(config.tools.len());
    for id in &config.tools {
        if !selected.insert(id.clone()) {
            return Err(FinalizeError::DuplicateSelection(id.clone()));
        }
        let tool = registry.tools.iter().find(|t| &t.definition().id == id).ok_or_else(|| {
            let known: Vec<String> = registry.ids().iter().map(|i| i.to_string()).collect();
            FinalizeError::NotRegistered(id.clone(), known.join(", "))
        })?;
        tools.push(tool.clone());
    }
    let escalation = session.sandbox_available();
    let definitions = tools
        .iter()
        .map(|t| {
            let mut def = t.definition().clone();
            if escalation && def.risk != ToolRisk::ReadOnly && !t.asks_before_running() {
                add_escalation_parameters(&mut def.input_schema);
            }
            if let Some(note) = &session.reads_note {
                def = with_reads_note(&def, None, note);
            }
            def
        })
        .collect();
    Ok(FinalizedToolset { tools, definitions, session, escalation })
}

/// The built-in tools whose descriptions say what is readable when the operator confined reads
/// (docs/security.md#reads-confined-to-roots): those that read files or run programs.
pub const READS_NOTED_TOOLS: [&str; 5] = ["read", "grep", "glob", "list", "bash"];

/// `def` with its description ending in `note` (what is readable) instead of `old` (the note
/// it ends with now, if any), when it is one of [`READS_NOTED_TOOLS`]; any other is unchanged.
/// An MCP client's roots change the note for its session.
pub fn with_reads_note(def: &ToolDefinition, old: Option<&str>, note: &str) -> ToolDefinition {
    let mut def = def.clone();
    if !READS_NOTED_TOOLS.contains(&def.id.as_str()) {
        return def;
    }
    if let Some(base) = old.and_then(|o| def.description.strip_suffix(&format!("\n\n{o}"))) {
        def.description = base.to_string();
    }
    def.description = format!("{}\n\n{note}", def.description);
    def
}

/// What the host knows about a call before it runs (`PreparedCall`,
/// docs/contract.md#before-a-call-runs-inspect).
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedCall {
    /// What the tool reported.
    pub inspection: CallInspection,
    /// For a write: the rule's denial text when the target is hard-protected.
    pub protected_target: Option<String>,
    /// For a command, when the sandbox is available: what makes it dangerous.
    pub danger: Option<String>,
    /// The normalised escalation the call asks for; always `None` without a sandbox.
    pub escalation: Option<toolhost_policy::Escalation>,
}

/// The names of the escalation parameters (docs/contract.md#escalation-parameters).
pub const ESCALATION_PARAMETERS: [&str; 2] = ["sandboxPermissions", "justification"];

/// Add `sandboxPermissions` and `justification` (and the types only they use) to a tool's
/// schema. Only done when the sandbox is available (docs/contract.md#escalation-parameters;
/// docs/acceptance.md 10f): otherwise they are absent.
fn add_escalation_parameters(schema: &mut serde_json::Value) {
    let extra = crate::tool::input_schema::<EscalationRequest>();
    let Some(target) = schema.as_object_mut() else { return };
    if let Some(props) = extra.get("properties").and_then(|p| p.as_object()) {
        let entry = target.entry("properties").or_insert_with(|| serde_json::json!({}));
        if let Some(t) = entry.as_object_mut() {
            for (k, v) in props {
                t.insert(k.clone(), v.clone());
            }
        }
    }
    if let Some(defs) = extra.get("$defs").and_then(|d| d.as_object()) {
        let entry = target.entry("$defs").or_insert_with(|| serde_json::json!({}));
        if let Some(t) = entry.as_object_mut() {
            for (k, v) in defs {
                t.insert(k.clone(), v.clone());
            }
        }
    }
}

/// A denial's advice to retry with `sandboxPermissions`, in the result of a tool whose schema
/// takes none, becomes [`toolhost_policy::messages::NO_GRANT_HINT`]: a refusal advises only what the tool can
/// take.
fn advise_no_grant(result: &mut ToolResult) {
    use toolhost_policy::messages::without_grant_hints;
    if let Some(error) = result.error.as_mut()
        && let Some(plain) = without_grant_hints(&error.message)
    {
        error.message = plain;
    }
    for content in &mut result.content {
        let ToolResultContent::Text { text } = content;
        if let Some(plain) = without_grant_hints(text) {
            *text = plain;
        }
    }
}

/// What a call may have to ask a person before it runs ([`FinalizedToolset::asks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asks {
    /// The extra access its escalation parameters ask for.
    Escalation,
    /// The one run its tool will make.
    Run,
}

/// The tools one agent may call, bound to one session
/// (docs/contract.md#definitions-and-the-toolset).
///
/// It has no mutating methods and private fields: after [`finalize`], no tool can be
/// added, removed or replaced. Definitions and dispatch come from the same selection.
///
/// ```compile_fail
/// # fn f(t: &mut toolhost_core::FinalizedToolset, r: toolhost_core::ToolRegistry) {
/// t.tools.clear(); // private field: does not compile
/// # }
/// ```
pub struct FinalizedToolset {
    tools: Vec<Arc<dyn DynTool>>,
    definitions: Vec<ToolDefinition>,
    session: ToolSessionContext,
    /// Escalation parameters are offered (the sandbox is available).
    escalation: bool,
}

impl FinalizedToolset {
    /// The definitions advertised to the model, in config order.
    pub fn definitions(&self) -> &[ToolDefinition] {
        &self.definitions
    }

    /// The definitions of the tools not disabled for the rest of the session (see
    /// [`DynTool::disabled`]), in config order: what a client that follows changes lists.
    pub fn available_definitions(&self) -> Vec<ToolDefinition> {
        self.tools
            .iter()
            .zip(&self.definitions)
            .filter(|(tool, _)| tool.disabled().is_none())
            .map(|(_, def)| def.clone())
            .collect()
    }

    /// The ids of [`Self::available_definitions`], in the same order, without cloning the
    /// definitions (what a per-call "did the list change?" check needs).
    pub fn available_ids(&self) -> Vec<&str> {
        self.tools
            .iter()
            .zip(&self.definitions)
            .filter(|(tool, _)| tool.disabled().is_none())
            .map(|(_, def)| def.id.as_str())
            .collect()
    }

    /// The definition of available tool `id`, if it is one.
    pub fn available_definition(&self, id: &str) -> Option<&ToolDefinition> {
        self.tools
            .iter()
            .zip(&self.definitions)
            .find(|(tool, def)| def.id.as_str() == id && tool.disabled().is_none())
            .map(|(_, def)| def)
    }

    /// The session this toolset is bound to.
    pub fn session(&self) -> &ToolSessionContext {
        &self.session
    }

    /// Whether `tool` takes the escalation parameters (docs/contract.md#escalation-parameters).
    fn escalates(&self, tool: &Arc<dyn DynTool>) -> bool {
        self.escalation
            && tool.definition().risk != ToolRisk::ReadOnly
            && !tool.asks_before_running()
    }

    /// What a call of `tool` with `input` may have to ask a person before it runs: a run,
    /// when the tool asks before every run; an escalation, when the toolset offers the tool
    /// the escalation parameters and `input` carries them. The approval stage starts here.
    fn asks(&self, tool: &Arc<dyn DynTool>, input: &serde_json::Value) -> Option<Asks> {
        if tool.asks_before_running() {
            return Some(Asks::Run);
        }
        let carries = input
            .as_object()
            .is_some_and(|o| ESCALATION_PARAMETERS.iter().any(|k| o.contains_key(*k)));
        (carries && self.escalates(tool)).then_some(Asks::Escalation)
    }

    /// Whether the call of tool `id` with `input` may need a person's decision before it
    /// runs (the same rule [`Self::call`]'s approval stage starts from): the MCP server asks
    /// this before it chooses how to run the call; whether a person is actually asked is the
    /// call's own decision (`crate::approval::decide`).
    pub fn may_ask(&self, id: &str, input: &serde_json::Value) -> bool {
        self.find(id).is_some_and(|tool| self.asks(tool, input).is_some())
    }

    fn find(&self, name: &str) -> Option<&Arc<dyn DynTool>> {
        self.tools.iter().find(|t| t.definition().id.as_str() == name)
    }

    fn not_found(&self, name: &str) -> ToolError {
        let ids: Vec<&str> = self.definitions.iter().map(|d| d.id.as_str()).collect();
        ToolError::new(
            ErrorCode::ToolNotFound,
            format!("tool `{name}` is not available; available tools: {}", ids.join(", ")),
        )
    }

    /// Facts about a call before it runs (docs/contract.md#before-a-call-runs-inspect), for the
    /// caller to decide whether to ask the user. It infers nothing about what a command will touch:
    /// the kernel judges that.
    pub async fn prepare(
        &self,
        name: &str,
        input: &serde_json::Value,
        call: ToolCallContext,
    ) -> Result<PreparedCall, ToolError> {
        let Some(tool) = self.find(name) else { return Err(self.not_found(name)) };
        let escalation = if self.escalates(tool) {
            let mut request = serde_json::Map::new();
            for key in ESCALATION_PARAMETERS {
                if let Some(value) = input.get(key) {
                    request.insert(key.into(), value.clone());
                }
            }
            let request: EscalationRequest =
                crate::input_error::parse_at(&serde_json::Value::Object(request), &[])?;
            request
                .validate(&self.session.working_directory)
                .map_err(|e| ToolError::invalid_arguments(e.to_string()))?
        } else {
            None
        };
        let mut stripped = input.clone();
        if let Some(obj) = stripped.as_object_mut() {
            for key in ESCALATION_PARAMETERS {
                obj.remove(key);
            }
        }
        let policy = call.sandbox_policy.clone();
        let inspection = tool.inspect(&self.session, call, &stripped).await?;
        let mut prepared = PreparedCall {
            inspection: inspection.clone(),
            protected_target: None,
            danger: None,
            escalation,
        };
        match &inspection {
            CallInspection::Writes(target) => {
                // The rule text when the target is hard-protected (no grant can unlock it).
                if let Ok(path) = crate::fence::resolve_lexically(&self.session, target) {
                    let real = toolhost_policy::real_path(&path);
                    if let Err(denial) = policy.check(&real, Access::Write, Actor::FileTool)
                        && !denial.sandbox_denied
                    {
                        prepared.protected_target = Some(denial.message);
                    }
                }
            }
            CallInspection::Runs(command) if self.escalation => {
                prepared.danger = toolhost_policy::danger::detect_danger(
                    command,
                    &self.session.working_directory,
                );
            }
            _ => {}
        }
        Ok(prepared)
    }

    /// Run one call. A tool outside the set gives a `tool_not_found` result; nothing fails.
    pub async fn call(
        &self,
        name: &str,
        input: serde_json::Value,
        call: ToolCallContext,
    ) -> ToolResult {
        let call_id = call.call_id.0.clone();
        let Some(tool) = self.find(name) else {
            return ToolResult::from_error(self.not_found(name));
        };
        // The approval stage: what the call asks, decided (and awaited) in one place.
        let (input, request) = match self.request(tool, input, &call).await {
            Ok(pair) => pair,
            Err(result) => return result,
        };
        let approver = &*self.session.approver;
        let call = match crate::approval::decide(approver, name, request, call).await {
            Ok(call) => call,
            Err(refused) => return refused,
        };
        let mut result = tool.call(&self.session, call, input).await;
        if !self.escalates(tool) {
            advise_no_grant(&mut result);
        }
        self.bound(&mut result, &call_id);
        result
    }

    /// What the call of `tool` with `input` asks a person to allow ([`Self::asks`]): the
    /// escalation its parameters carry (taken out of `input`, validated), or the one run the
    /// tool will make ([`DynTool::planned_run`]); its result when that is refused before
    /// anyone is asked.
    async fn request(
        &self,
        tool: &Arc<dyn DynTool>,
        mut input: serde_json::Value,
        call: &ToolCallContext,
    ) -> Result<(serde_json::Value, Request), ToolResult> {
        match self.asks(tool, &input) {
            None => Ok((input, Request::Nothing)),
            Some(Asks::Run) => {
                let run = tool
                    .planned_run(&self.session, call.clone(), &input)
                    .await
                    .map_err(ToolResult::from_error)?;
                Ok((input, Request::Run(run.map(Box::new))))
            }
            Some(Asks::Escalation) => {
                let escalation = self.escalation(&mut input).map_err(ToolResult::from_error)?;
                Ok((input, escalation.map_or(Request::Nothing, Request::Escalation)))
            }
        }
    }

    /// The escalation parameters taken out of `input`, validated (docs/security.md,
    /// docs/contract.md#escalation-parameters); none when they ask for nothing.
    fn escalation(
        &self,
        input: &mut serde_json::Value,
    ) -> Result<Option<toolhost_policy::Escalation>, ToolError> {
        let Some(obj) = input.as_object_mut() else { return Ok(None) };
        let request = EscalationRequest {
            sandbox_permissions: match obj.remove("sandboxPermissions") {
                Some(v) => Some(crate::input_error::parse_at(
                    &v,
                    &[crate::input_error::Step::Key("sandboxPermissions".into())],
                )?),
                None => None,
            },
            justification: obj.remove("justification").and_then(|v| v.as_str().map(str::to_string)),
        };
        request
            .validate(&self.session.working_directory)
            .map_err(|e| ToolError::invalid_arguments(e.to_string()))
    }

    /// The fallback cut (docs/contract.md#spill-files): every result leaves here with at most
    /// 32,000 bytes of text; the whole text is saved to the call's spill file.
    fn bound(&self, result: &mut ToolResult, call_id: &str) {
        let text = result.text();
        let cut = spill::fallback_cut(&text, |whole| {
            let mut path =
                spill::spill_path(&self.session.data_dir, &self.session.session_id, call_id);
            if path.exists() {
                // The tool already saved its own list under the call id.
                path = spill::spill_path(
                    &self.session.data_dir,
                    &self.session.session_id,
                    &format!("{call_id}-result"),
                );
            }
            let mut writer = spill::SpillWriter::new(path);
            writer.append(whole.as_bytes());
            writer.finish().map(|s| s.path)
        });
        if let Some(cut) = cut {
            if let Some(error) = result.error.as_mut() {
                error.message = cut.clone();
            }
            result.content = vec![ToolResultContent::Text { text: cut }];
        }
    }
}
