//! Bindings for `toolhost:tool@0.3.0` (`wit/since_v0.3.0/tool.wit`), today `latest`: the
//! host side of its imports is in `crate::host`, written against these types; the older
//! versions (`super::since_v0_2_0`, and `super::since_v0_1_0` through it) convert into it. The
//! handle types are mapped to host structs with `with`.

use wasmtime::component::{HasSelf, Linker};

use crate::host::CallState;

wasmtime::component::bindgen!({
    path: "../../wit/since_v0.3.0",
    world: "tool-component",
    imports: { default: async | trappable },
    exports: { default: async },
    // A host function returns `Result<T, HostError>`: a `tool-error` or a trap.
    trappable_error_type: { "toolhost:tool/types.tool-error" => crate::wit::since_v0_3_0::HostError },
    with: {
        "toolhost:tool/workspace.file": crate::host::FileHandle,
        "toolhost:tool/workspace.dir": crate::host::DirHandle,
        "toolhost:tool/workspace.walker": crate::host::WalkerHandle,
        "toolhost:tool/workspace.draft": crate::host::DraftHandle,
        "toolhost:tool/call.spill": crate::host::SpillHandle,
    },
});

/// What this version's host functions fail with: its `tool-error`, or a trap.
pub type HostError = crate::host::TrappableError<toolhost::tool::types::ToolError>;

/// Link this version's imports (the host implements them on [`CallState`]).
pub fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    ToolComponent::add_to_linker::<CallState, HasSelf<CallState>>(linker, |state| state)
}

/// World `parallel-tool-component`: `tool` plus the `parallel` export, with the imports above.
pub mod parallel {
    wasmtime::component::bindgen!({
        path: "../../wit/since_v0.3.0",
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
