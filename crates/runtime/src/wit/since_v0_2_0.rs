//! Bindings for `toolhost:tool@0.2.0` (`wit/since_v0.2.0/tool.wit`), frozen. Its imports are
//! served by the next version's (`super::since_v0_3_0`, today `latest`, which `crate::host`
//! implements): each function here converts its arguments, calls the 0.3.0 function of the
//! same name and converts the answer back, so a 0.2.0 component sees exactly what it always
//! saw. 0.3.0 only adds (`workspace.commit-all`, `change-kind.deleted`), so every conversion
//! is one to one. The handle types are the same host structs in every version.

use wasmtime::component::{HasSelf, Linker, Resource};

use super::since_v0_3_0::toolhost::tool as new;
use crate::host::{CallState, DirHandle, DraftHandle, FileHandle, SpillHandle, WalkerHandle};

wasmtime::component::bindgen!({
    path: "../../wit/since_v0.2.0",
    world: "tool-component",
    imports: { default: async | trappable },
    exports: { default: async },
    // A host function returns `Result<T, HostError>`: a `tool-error` or a trap.
    trappable_error_type: { "toolhost:tool/types.tool-error" => crate::wit::since_v0_2_0::HostError },
    with: {
        "toolhost:tool/workspace.file": crate::host::FileHandle,
        "toolhost:tool/workspace.dir": crate::host::DirHandle,
        "toolhost:tool/workspace.walker": crate::host::WalkerHandle,
        "toolhost:tool/workspace.draft": crate::host::DraftHandle,
        "toolhost:tool/call.spill": crate::host::SpillHandle,
    },
});

use toolhost::tool::{call, process, types, workspace};

/// What this version's host functions fail with: its `tool-error`, or a trap.
pub type HostError = crate::host::TrappableError<types::ToolError>;

/// Link this version's imports.
pub fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    ToolComponent::add_to_linker::<CallState, HasSelf<CallState>>(linker, |state| state)
}

/// World `parallel-tool-component`: `tool` plus the `parallel` export, with the imports above.
pub mod parallel {
    wasmtime::component::bindgen!({
        path: "../../wit/since_v0.2.0",
        world: "parallel-tool-component",
        imports: { default: async | trappable },
        exports: { default: async },
        with: {
            "toolhost:tool/types": super::toolhost::tool::types,
            "toolhost:tool/workspace": super::toolhost::tool::workspace,
            "toolhost:tool/call": super::toolhost::tool::call,
            "toolhost:tool/process": super::toolhost::tool::process,
        },
    });
}

/// `From` between two generated enums whose cases have the same names.
macro_rules! same_cases {
    ($from:ty => $to:ty { $($case:ident),* $(,)? }) => {
        impl From<$from> for $to {
            fn from(value: $from) -> Self {
                match value { $(<$from>::$case => <$to>::$case),* }
            }
        }
    };
}

same_cases!(new::types::ErrorCode => types::ErrorCode {
    InvalidArguments, PermissionDenied, Cancelled, Timeout, ExecutionFailed, OutcomeUnknown, SandboxUnavailable,
});
same_cases!(types::ErrorCode => new::types::ErrorCode {
    InvalidArguments, PermissionDenied, Cancelled, Timeout, ExecutionFailed, OutcomeUnknown, SandboxUnavailable,
});
same_cases!(types::Risk => new::types::Risk { ReadOnly, WorkspaceMutation, ProcessExecution });
same_cases!(new::workspace::EntryKind => workspace::EntryKind { File, Directory, Symlink, Other });
same_cases!(new::process::Termination => process::Termination {
    Exited, TimedOut, Cancelled, Signalled, SpawnFailed,
});

/// A 0.3.0 change kind as 0.2.0 knows it: `commit`, the one way a 0.2.0 component commits,
/// never deletes.
impl From<new::workspace::ChangeKind> for workspace::ChangeKind {
    fn from(kind: new::workspace::ChangeKind) -> Self {
        match kind {
            new::workspace::ChangeKind::Created => workspace::ChangeKind::Created,
            new::workspace::ChangeKind::Modified => workspace::ChangeKind::Modified,
            new::workspace::ChangeKind::Unchanged | new::workspace::ChangeKind::Deleted => {
                workspace::ChangeKind::Unchanged
            }
        }
    }
}

impl From<new::types::ToolError> for types::ToolError {
    fn from(e: new::types::ToolError) -> Self {
        types::ToolError { code: e.code.into(), message: e.message, retryable: e.retryable }
    }
}

impl From<types::ToolError> for new::types::ToolError {
    fn from(e: types::ToolError) -> Self {
        new::types::ToolError { code: e.code.into(), message: e.message, retryable: e.retryable }
    }
}

impl From<types::Inspection> for new::types::Inspection {
    fn from(i: types::Inspection) -> Self {
        match i {
            types::Inspection::ReadOnly => new::types::Inspection::ReadOnly,
            types::Inspection::Writes(p) => new::types::Inspection::Writes(p),
            types::Inspection::Runs(c) => new::types::Inspection::Runs(c),
        }
    }
}

impl From<types::Definition> for new::types::Definition {
    fn from(d: types::Definition) -> Self {
        new::types::Definition {
            id: d.id,
            description: d.description,
            input_schema: d.input_schema,
            output_schema: d.output_schema,
            risk: d.risk.into(),
        }
    }
}

impl From<types::Output> for new::types::Output {
    fn from(o: types::Output) -> Self {
        new::types::Output { text: o.text, structured: o.structured }
    }
}

impl From<new::process::Captured> for process::Captured {
    fn from(c: new::process::Captured) -> Self {
        process::Captured { text: c.text, total_bytes: c.total_bytes, spill_path: c.spill_path }
    }
}

/// A 0.3.0 answer as the 0.2.0 one (the value converted by `f`): its `tool-error` converted,
/// a trap still a trap.
fn back<T, U>(
    r: Result<T, super::since_v0_3_0::HostError>,
    f: impl FnOnce(T) -> U,
) -> Result<U, HostError> {
    r.map(f).map_err(|e| e.map(Into::into))
}

impl types::Host for CallState {
    fn convert_tool_error(&mut self, e: HostError) -> wasmtime::Result<types::ToolError> {
        e.into_wit()
    }
}

impl workspace::Host for CallState {
    async fn stat(&mut self, path: String) -> Result<Option<workspace::PathStat>, HostError> {
        back(new::workspace::Host::stat(self, path).await, |s| {
            s.map(|s| workspace::PathStat {
                kind: s.kind.into(),
                size: s.size,
                modified_ms: s.modified_ms,
            })
        })
    }

    async fn open_file(&mut self, path: String) -> Result<Resource<FileHandle>, HostError> {
        back(new::workspace::Host::open_file(self, path).await, |h| h)
    }

    async fn open_dir(&mut self, path: String) -> Result<Resource<DirHandle>, HostError> {
        back(new::workspace::Host::open_dir(self, path).await, |h| h)
    }

    async fn open_for_write(&mut self, path: String) -> Result<Resource<DraftHandle>, HostError> {
        back(new::workspace::Host::open_for_write(self, path).await, |h| h)
    }
}

impl workspace::HostFile for CallState {
    async fn display_path(&mut self, this: Resource<FileHandle>) -> wasmtime::Result<String> {
        new::workspace::HostFile::display_path(self, this).await
    }

    async fn size(&mut self, this: Resource<FileHandle>) -> wasmtime::Result<u64> {
        new::workspace::HostFile::size(self, this).await
    }

    async fn read(&mut self, this: Resource<FileHandle>, max: u32) -> Result<Vec<u8>, HostError> {
        back(new::workspace::HostFile::read(self, this, max).await, |b| b)
    }

    async fn drop(&mut self, this: Resource<FileHandle>) -> wasmtime::Result<()> {
        new::workspace::HostFile::drop(self, this).await
    }
}

impl workspace::HostDir for CallState {
    async fn display_path(&mut self, this: Resource<DirHandle>) -> wasmtime::Result<String> {
        new::workspace::HostDir::display_path(self, this).await
    }

    async fn entries(
        &mut self,
        this: Resource<DirHandle>,
    ) -> Result<Vec<workspace::DirEntry>, HostError> {
        back(new::workspace::HostDir::entries(self, this).await, |entries| {
            entries
                .into_iter()
                .map(|e| workspace::DirEntry { name: e.name, kind: e.kind.into() })
                .collect()
        })
    }

    async fn walk(
        &mut self,
        this: Resource<DirHandle>,
        options: workspace::WalkOptions,
    ) -> Result<Resource<WalkerHandle>, HostError> {
        let options = new::workspace::WalkOptions {
            globs: options.globs,
            with_contents: options.with_contents,
        };
        back(new::workspace::HostDir::walk(self, this, options).await, |h| h)
    }

    async fn drop(&mut self, this: Resource<DirHandle>) -> wasmtime::Result<()> {
        new::workspace::HostDir::drop(self, this).await
    }
}

impl workspace::HostWalker for CallState {
    async fn next_batch(
        &mut self,
        this: Resource<WalkerHandle>,
    ) -> wasmtime::Result<Vec<workspace::WalkedFile>> {
        let batch = new::workspace::HostWalker::next_batch(self, this).await?;
        Ok(batch
            .into_iter()
            .map(|f| workspace::WalkedFile {
                path: f.path,
                modified_ms: f.modified_ms,
                contents: f.contents,
            })
            .collect())
    }

    async fn drop(&mut self, this: Resource<WalkerHandle>) -> wasmtime::Result<()> {
        new::workspace::HostWalker::drop(self, this).await
    }
}

impl workspace::HostDraft for CallState {
    async fn display_path(&mut self, this: Resource<DraftHandle>) -> wasmtime::Result<String> {
        new::workspace::HostDraft::display_path(self, this).await
    }

    async fn current(&mut self, this: Resource<DraftHandle>) -> Result<Option<String>, HostError> {
        back(new::workspace::HostDraft::current(self, this).await, |t| t)
    }

    async fn commit(
        &mut self,
        this: Resource<DraftHandle>,
        text: String,
    ) -> Result<workspace::Committed, HostError> {
        back(new::workspace::HostDraft::commit(self, this, text).await, |c| workspace::Committed {
            kind: c.kind.into(),
            additions: c.additions,
            deletions: c.deletions,
        })
    }

    async fn drop(&mut self, this: Resource<DraftHandle>) -> wasmtime::Result<()> {
        new::workspace::HostDraft::drop(self, this).await
    }
}

impl call::Host for CallState {
    async fn cancelled(&mut self) -> wasmtime::Result<bool> {
        new::call::Host::cancelled(self).await
    }

    async fn scan_timeout_ms(&mut self) -> wasmtime::Result<u64> {
        new::call::Host::scan_timeout_ms(self).await
    }

    async fn elapsed_ms(&mut self) -> wasmtime::Result<u64> {
        new::call::Host::elapsed_ms(self).await
    }

    async fn report_progress(
        &mut self,
        message: String,
        fraction: Option<f64>,
    ) -> wasmtime::Result<()> {
        new::call::Host::report_progress(self, message, fraction).await
    }
}

impl call::HostSpill for CallState {
    async fn new(&mut self) -> wasmtime::Result<Resource<SpillHandle>> {
        new::call::HostSpill::new(self).await
    }

    async fn append(&mut self, this: Resource<SpillHandle>, line: String) -> wasmtime::Result<()> {
        new::call::HostSpill::append(self, this, line).await
    }

    async fn finish(
        &mut self,
        this: Resource<SpillHandle>,
    ) -> wasmtime::Result<Option<call::Spilled>> {
        let spilled = new::call::HostSpill::finish(self, this).await?;
        Ok(spilled.map(|s| call::Spilled { path: s.path, capped: s.capped }))
    }

    async fn drop(&mut self, this: Resource<SpillHandle>) -> wasmtime::Result<()> {
        new::call::HostSpill::drop(self, this).await
    }
}

impl process::Host for CallState {
    async fn run(&mut self, command: process::Command) -> Result<process::Finished, HostError> {
        let command = new::process::Command {
            program: command.program,
            args: command.args,
            cwd: command.cwd,
            env: command.env,
            timeout_ms: command.timeout_ms,
        };
        back(new::process::Host::run(self, command).await, |f| process::Finished {
            termination: f.termination.into(),
            exit_code: f.exit_code,
            signal: f.signal,
            stdout: f.stdout.into(),
            stderr: f.stderr.into(),
            duration_ms: f.duration_ms,
        })
    }
}
