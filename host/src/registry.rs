//! Registry and toolsets (seed 000 §3): [`ToolRegistryBuilder`] collects the tools this
//! binary knows, [`ToolsetConfig`] names the ones an agent may use, and [`finalize`] binds
//! the two and a session into an immutable [`FinalizedToolset`].

use std::collections::HashSet;
use std::sync::Arc;

use crate::context::{ToolCallContext, ToolSessionContext};
use crate::result::{ErrorCode, ToolError, ToolResult, ToolResultContent};
use crate::spill;
use crate::tool::{CallInspection, DynTool, Tool, ToolAdapter, ToolDefinition, ToolId};

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
    pub fn register<T: Tool>(&mut self, tool: T) -> &mut Self {
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

/// A configuration [`finalize`] refuses (§3).
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

/// Bind `config` and `session` into a toolset, refusing the five bad configurations of §3.
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
        let tool = registry
            .tools
            .iter()
            .find(|t| &t.definition().id == id)
            .ok_or_else(|| {
                let known: Vec<String> = registry.ids().iter().map(|i| i.to_string()).collect();
                FinalizeError::NotRegistered(id.clone(), known.join(", "))
            })?;
        tools.push(tool.clone());
    }
    let definitions = tools.iter().map(|t| t.definition().clone()).collect();
    Ok(FinalizedToolset { tools, definitions, session })
}

/// The tools one agent may call, bound to one session (§3).
///
/// It has no mutating methods and private fields: after [`finalize`], no tool can be
/// added, removed or replaced. Definitions and dispatch come from the same selection.
///
/// ```compile_fail
/// # fn f(t: &mut toolhost::FinalizedToolset, r: toolhost::ToolRegistry) {
/// t.tools.clear(); // private field: does not compile
/// # }
/// ```
pub struct FinalizedToolset {
    tools: Vec<Arc<dyn DynTool>>,
    definitions: Vec<ToolDefinition>,
    session: ToolSessionContext,
}

impl FinalizedToolset {
    /// The definitions advertised to the model, in config order.
    pub fn definitions(&self) -> &[ToolDefinition] {
        &self.definitions
    }

    /// The session this toolset is bound to.
    pub fn session(&self) -> &ToolSessionContext {
        &self.session
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

    /// Facts about a call before it runs (§6.1).
    pub async fn prepare(
        &self,
        name: &str,
        input: &serde_json::Value,
        call: ToolCallContext,
    ) -> Result<CallInspection, ToolError> {
        match self.find(name) {
            Some(tool) => tool.inspect(&self.session, call, input).await,
            None => Err(self.not_found(name)),
        }
    }

    /// Run one call. A tool outside the set gives a `tool_not_found` result; nothing fails.
    pub async fn call(
        &self,
        name: &str,
        input: serde_json::Value,
        call: ToolCallContext,
    ) -> ToolResult {
        let call_id = call.call_id.0.clone();
        let mut result = match self.find(name) {
            Some(tool) => tool.call(&self.session, call, input).await,
            None => return ToolResult::from_error(self.not_found(name)),
        };
        self.bound(&mut result, &call_id);
        result
    }

    /// The fallback cut (§8.2): every result leaves here with at most 32,000 bytes of text;
    /// the whole text is saved to the call's spill file.
    fn bound(&self, result: &mut ToolResult, call_id: &str) {
        let text = result.text();
        let cut = spill::fallback_cut(&text, |whole| {
            let mut path = spill::spill_path(&self.session.data_dir, &self.session.session_id, call_id);
            if path.exists() {
                // The tool already saved its own list under the call id.
                path = spill::spill_path(&self.session.data_dir, &self.session.session_id, &format!("{call_id}-result"));
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
