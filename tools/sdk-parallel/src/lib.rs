//! Export a [`ParallelTool`](toolhost_sdk::ParallelTool) as world
//! `parallel-tool-component` of `wit/since_v0.2.0/tool.wit`: the `tool` interface plus `parallel`, so the
//! host may run one call as several parts at once and merge them.
//!
//! A crate of its own because wit-bindgen names its hidden export macros after the exported
//! interface: `toolhost-sdk`'s bindings (world `tool-component`) and these (which export
//! `tool` too) cannot live in one crate. The imports are `toolhost-sdk`'s, so handles and
//! types are the same Rust types.

/// Bindings for world `parallel-tool-component`; its imports are `toolhost_sdk::bindings`'.
pub mod bindings {
    wit_bindgen::generate!({
        world: "parallel-tool-component",
        path: "../../wit/since_v0.2.0",
        pub_export_macro: true,
        export_macro_name: "export",
        default_bindings_module: "::toolhost_sdk_parallel::bindings",
        with: {
            "toolhost:tool/types@0.2.0": toolhost_sdk::bindings::toolhost::tool::types,
            "toolhost:tool/workspace@0.2.0": toolhost_sdk::bindings::toolhost::tool::workspace,
            "toolhost:tool/call@0.2.0": toolhost_sdk::bindings::toolhost::tool::call,
            "toolhost:tool/process@0.2.0": toolhost_sdk::bindings::toolhost::tool::process,
        },
    });
}

/// Export a [`ParallelTool`](toolhost_sdk::ParallelTool) as this component's `tool` and `parallel`
/// interfaces (world `parallel-tool-component`).
///
/// ```ignore
/// toolhost_sdk_parallel::export_parallel_tool!(MyTool);
/// ```
#[rustfmt::skip]
#[macro_export]
macro_rules! export_parallel_tool {
    ($tool:ty) => {
        const _: () = {
            #[doc(hidden)]
            struct __ToolhostExport;

            impl $crate::bindings::exports::toolhost::tool::tool::Guest for __ToolhostExport {
                fn describe() -> ::toolhost_sdk::Definition {
                    ::toolhost_sdk::__private::describe::<$tool>()
                }

                fn inspect(
                    input: ::std::string::String,
                ) -> ::std::result::Result<::toolhost_sdk::Inspection, ::toolhost_sdk::ToolError> {
                    ::toolhost_sdk::__private::inspect::<$tool>(&input)
                }

                fn execute(
                    input: ::std::string::String,
                ) -> ::std::result::Result<::toolhost_sdk::bindings::toolhost::tool::types::Output, ::toolhost_sdk::ToolError> {
                    ::toolhost_sdk::__private::execute::<$tool>(&input)
                }
            }

            impl $crate::bindings::exports::toolhost::tool::parallel::Guest for __ToolhostExport {
                fn execute_part(
                    input: ::std::string::String,
                    index: u32,
                    count: u32,
                ) -> ::std::result::Result<::std::vec::Vec<u8>, ::toolhost_sdk::ToolError> {
                    ::toolhost_sdk::__private::execute_part::<$tool>(&input, index, count)
                }

                fn merge(
                    input: ::std::string::String,
                    parts: ::std::vec::Vec<::std::vec::Vec<u8>>,
                ) -> ::std::result::Result<::toolhost_sdk::bindings::toolhost::tool::types::Output, ::toolhost_sdk::ToolError> {
                    ::toolhost_sdk::__private::merge::<$tool>(&input, parts)
                }
            }

            $crate::bindings::export!(__ToolhostExport with_types_in $crate::bindings);
        };
    };
}
