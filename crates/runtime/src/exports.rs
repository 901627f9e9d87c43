//! What a component exports, whatever WIT version it was built against: a [`Prepared`]
//! component is linked against the version whose `tool` interface it exports (newest
//! first), and its exports answer in the host's terms ([`Described`], [`Output`],
//! `CallInspection`, `ToolError`), so `component_tool` never names a version.

use wasmtime::Store;
use wasmtime::component::InstancePre;

use toolhost_core::result::ToolError;
use toolhost_core::tool::{CallInspection, ToolRisk};

use crate::host::{CallState, code_from_wit};
use crate::wit::{latest, since_v0_1_0, since_v0_2_0};

/// A definition as a component describes it (schemas still JSON text).
pub(crate) struct Described {
    pub id: String,
    pub description: String,
    pub input_schema: String,
    pub output_schema: Option<String>,
    pub risk: ToolRisk,
}

/// What a successful `execute` or `merge` returned.
pub(crate) struct Output {
    pub text: String,
    /// The structured value as JSON text (0.2.0 and later).
    pub structured: Option<String>,
}

/// A component linked and ready to instantiate, as its `tool` world and, when it exports
/// `parallel`, as its `parallel-tool-component` world too.
#[derive(Clone)]
pub(crate) enum Prepared {
    V0_1_0 {
        tool: since_v0_1_0::ToolComponentPre<CallState>,
        parallel: Option<since_v0_1_0::parallel::ParallelToolComponentPre<CallState>>,
    },
    V0_2_0 {
        tool: since_v0_2_0::ToolComponentPre<CallState>,
        parallel: Option<since_v0_2_0::parallel::ParallelToolComponentPre<CallState>>,
    },
    Latest {
        tool: latest::ToolComponentPre<CallState>,
        parallel: Option<latest::parallel::ParallelToolComponentPre<CallState>>,
    },
}

type Answer<T> = wasmtime::Result<Result<T, ToolError>>;

pub(crate) fn error(e: latest::toolhost::tool::types::ToolError) -> ToolError {
    ToolError { code: code_from_wit(e.code), message: e.message, retryable: e.retryable }
}

fn error_v0_2_0(e: since_v0_2_0::toolhost::tool::types::ToolError) -> ToolError {
    error(e.into())
}

fn error_v0_1_0(e: since_v0_1_0::toolhost::tool::types::ToolError) -> ToolError {
    error_v0_2_0(e.into())
}

fn inspection_v0_2_0(i: since_v0_2_0::toolhost::tool::types::Inspection) -> CallInspection {
    inspection(i.into())
}

fn output_v0_2_0(o: since_v0_2_0::toolhost::tool::types::Output) -> Output {
    output(o.into())
}

fn risk(r: latest::toolhost::tool::types::Risk) -> ToolRisk {
    use latest::toolhost::tool::types::Risk;
    match r {
        Risk::ReadOnly => ToolRisk::ReadOnly,
        Risk::WorkspaceMutation => ToolRisk::WorkspaceMutation,
        Risk::ProcessExecution => ToolRisk::ProcessExecution,
    }
}

fn inspection(i: latest::toolhost::tool::types::Inspection) -> CallInspection {
    use latest::toolhost::tool::types::Inspection;
    match i {
        Inspection::ReadOnly => CallInspection::ReadOnly,
        Inspection::Writes(path) => CallInspection::Writes(path),
        Inspection::Runs(command) => CallInspection::Runs(command),
    }
}

fn output(o: latest::toolhost::tool::types::Output) -> Output {
    Output { text: o.text, structured: o.structured }
}

impl Prepared {
    /// Link `pre` as the newest version whose `tool` interface it exports; when it exports
    /// none, the newest version's complaint.
    pub fn new(pre: InstancePre<CallState>) -> wasmtime::Result<Self> {
        match latest::ToolComponentPre::new(pre.clone()) {
            Ok(tool) => {
                let parallel = latest::parallel::ParallelToolComponentPre::new(pre).ok();
                Ok(Prepared::Latest { tool, parallel })
            }
            Err(newest) => {
                if let Ok(tool) = since_v0_2_0::ToolComponentPre::new(pre.clone()) {
                    let parallel = since_v0_2_0::parallel::ParallelToolComponentPre::new(pre).ok();
                    return Ok(Prepared::V0_2_0 { tool, parallel });
                }
                match since_v0_1_0::ToolComponentPre::new(pre.clone()) {
                    Ok(tool) => {
                        let parallel =
                            since_v0_1_0::parallel::ParallelToolComponentPre::new(pre).ok();
                        Ok(Prepared::V0_1_0 { tool, parallel })
                    }
                    Err(_) => Err(newest),
                }
            }
        }
    }

    /// Whether it exports `parallel`.
    pub fn is_parallel(&self) -> bool {
        match self {
            Prepared::V0_1_0 { parallel, .. } => parallel.is_some(),
            Prepared::V0_2_0 { parallel, .. } => parallel.is_some(),
            Prepared::Latest { parallel, .. } => parallel.is_some(),
        }
    }

    /// `tool.describe` on a fresh instance in `store`.
    pub async fn describe(&self, store: &mut Store<CallState>) -> wasmtime::Result<Described> {
        let d: latest::toolhost::tool::types::Definition = match self {
            Prepared::V0_1_0 { tool, .. } => {
                let d: since_v0_2_0::toolhost::tool::types::Definition = tool
                    .instantiate_async(&mut *store)
                    .await?
                    .toolhost_tool_tool()
                    .call_describe(store)
                    .await?
                    .into();
                d.into()
            }
            Prepared::V0_2_0 { tool, .. } => tool
                .instantiate_async(&mut *store)
                .await?
                .toolhost_tool_tool()
                .call_describe(store)
                .await?
                .into(),
            Prepared::Latest { tool, .. } => {
                tool.instantiate_async(&mut *store)
                    .await?
                    .toolhost_tool_tool()
                    .call_describe(store)
                    .await?
            }
        };
        Ok(Described {
            id: d.id,
            description: d.description,
            input_schema: d.input_schema,
            output_schema: d.output_schema,
            risk: risk(d.risk),
        })
    }

    /// `tool.inspect` on a fresh instance in `store`.
    pub async fn inspect(
        &self,
        store: &mut Store<CallState>,
        input: &str,
    ) -> Answer<CallInspection> {
        Ok(match self {
            Prepared::V0_1_0 { tool, .. } => {
                let r = tool
                    .instantiate_async(&mut *store)
                    .await?
                    .toolhost_tool_tool()
                    .call_inspect(store, input)
                    .await?;
                r.map(|i| inspection_v0_2_0(i.into())).map_err(error_v0_1_0)
            }
            Prepared::V0_2_0 { tool, .. } => {
                let r = tool
                    .instantiate_async(&mut *store)
                    .await?
                    .toolhost_tool_tool()
                    .call_inspect(store, input)
                    .await?;
                r.map(inspection_v0_2_0).map_err(error_v0_2_0)
            }
            Prepared::Latest { tool, .. } => {
                let r = tool
                    .instantiate_async(&mut *store)
                    .await?
                    .toolhost_tool_tool()
                    .call_inspect(store, input)
                    .await?;
                r.map(inspection).map_err(error)
            }
        })
    }

    /// `tool.execute` on a fresh instance in `store`.
    pub async fn execute(&self, store: &mut Store<CallState>, input: &str) -> Answer<Output> {
        Ok(match self {
            Prepared::V0_1_0 { tool, .. } => {
                let r = tool
                    .instantiate_async(&mut *store)
                    .await?
                    .toolhost_tool_tool()
                    .call_execute(store, input)
                    .await?;
                r.map(|text| Output { text, structured: None }).map_err(error_v0_1_0)
            }
            Prepared::V0_2_0 { tool, .. } => {
                let r = tool
                    .instantiate_async(&mut *store)
                    .await?
                    .toolhost_tool_tool()
                    .call_execute(store, input)
                    .await?;
                r.map(output_v0_2_0).map_err(error_v0_2_0)
            }
            Prepared::Latest { tool, .. } => {
                let r = tool
                    .instantiate_async(&mut *store)
                    .await?
                    .toolhost_tool_tool()
                    .call_execute(store, input)
                    .await?;
                r.map(output).map_err(error)
            }
        })
    }

    /// `parallel.execute-part` on a fresh instance in `store` (it exports `parallel`).
    pub async fn execute_part(
        &self,
        store: &mut Store<CallState>,
        input: &str,
        index: u32,
        count: u32,
    ) -> Answer<Vec<u8>> {
        let missing = || wasmtime::format_err!("the component does not export `parallel`");
        Ok(match self {
            Prepared::V0_1_0 { parallel, .. } => {
                let p =
                    parallel.as_ref().ok_or_else(missing)?.instantiate_async(&mut *store).await?;
                p.toolhost_tool_parallel()
                    .call_execute_part(store, input, index, count)
                    .await?
                    .map_err(error_v0_1_0)
            }
            Prepared::V0_2_0 { parallel, .. } => {
                let p =
                    parallel.as_ref().ok_or_else(missing)?.instantiate_async(&mut *store).await?;
                p.toolhost_tool_parallel()
                    .call_execute_part(store, input, index, count)
                    .await?
                    .map_err(error_v0_2_0)
            }
            Prepared::Latest { parallel, .. } => {
                let p =
                    parallel.as_ref().ok_or_else(missing)?.instantiate_async(&mut *store).await?;
                p.toolhost_tool_parallel()
                    .call_execute_part(store, input, index, count)
                    .await?
                    .map_err(error)
            }
        })
    }

    /// `parallel.merge` on a fresh instance in `store` (it exports `parallel`).
    pub async fn merge(
        &self,
        store: &mut Store<CallState>,
        input: &str,
        parts: &[Vec<u8>],
    ) -> Answer<Output> {
        let missing = || wasmtime::format_err!("the component does not export `parallel`");
        Ok(match self {
            Prepared::V0_1_0 { parallel, .. } => {
                let p =
                    parallel.as_ref().ok_or_else(missing)?.instantiate_async(&mut *store).await?;
                let r = p.toolhost_tool_parallel().call_merge(store, input, parts).await?;
                r.map(|text| Output { text, structured: None }).map_err(error_v0_1_0)
            }
            Prepared::V0_2_0 { parallel, .. } => {
                let p =
                    parallel.as_ref().ok_or_else(missing)?.instantiate_async(&mut *store).await?;
                p.toolhost_tool_parallel()
                    .call_merge(store, input, parts)
                    .await?
                    .map(output_v0_2_0)
                    .map_err(error_v0_2_0)
            }
            Prepared::Latest { parallel, .. } => {
                let p =
                    parallel.as_ref().ok_or_else(missing)?.instantiate_async(&mut *store).await?;
                p.toolhost_tool_parallel()
                    .call_merge(store, input, parts)
                    .await?
                    .map(output)
                    .map_err(error)
            }
        })
    }
}
