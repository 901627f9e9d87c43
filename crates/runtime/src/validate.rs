//! What a component is, before it is trusted with a call: a component (not a core module) of
//! a `toolhost:tool` version this host links, importing nothing beyond that world and the
//! WASI 0.2 interfaces the host links empty, and exporting `tool`: [`InvalidComponent`] says
//! why not. `ComponentRuntime::inspect` (in `loader`) compiles it once (into the cache, so
//! loading it later is warm), checks it here, and asks it to describe itself.

use wasmtime::component::Component;

pub use crate::wit::SUPPORTED_WIT_VERSIONS;

/// The WASI 0.2 packages the host links (with an empty context: no preopens, no env, no
/// sockets allowed), which a component built by a standard toolchain imports.
const WASI_PACKAGES: &[&str] = &["io", "clocks", "random", "filesystem", "sockets", "cli"];

/// Why a file is not a tool component this host can run; the text says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidComponent {
    #[error("it is not WebAssembly (no `\\0asm` header)")]
    NotWasm,
    #[error(
        "it is a core WebAssembly module, not a component; build it for wasm32-wasip2 (or wrap it with `wasm-tools component new`)"
    )]
    CoreModule,
    #[error("it does not compile as a component: {0}")]
    Compile(String),
    #[error(
        "it imports `{0}`, which toolhost does not provide: a tool may import only the interfaces of toolhost:tool@{versions} (types, workspace, call; process since 0.2.0) and the WASI 0.2 packages {wasi} (linked with nothing behind them: no directory, environment or socket){fix}; see docs/authoring.md#what-the-host-refuses",
        versions = SUPPORTED_WIT_VERSIONS.join(", "),
        wasi = WASI_PACKAGES.iter().map(|p| format!("wasi:{p}")).collect::<Vec<_>>().join(", "),
        fix = foreign_import_fix(.0)
    )]
    ForeignImport(String),
    #[error(
        "it does not export `toolhost:tool/tool` at a supported version ({versions}); it exports: {0}. Build the world `tool-component` of the package `toolhost wit` prints; see docs/authoring.md#what-the-host-refuses",
        versions = SUPPORTED_WIT_VERSIONS.join(", ")
    )]
    NoToolExport(String),
    #[error("it cannot be linked: {0}")]
    Link(String),
    #[error("its `describe` failed: {0}")]
    Describe(String),
    /// What `describe` returned breaks a rule or goes past a limit
    /// ([`crate::definition::check_definition`]).
    #[error("{0}")]
    Definition(crate::definition::DefinitionError),
}

/// What to do about a foreign import a toolchain adds on its own, when we know.
fn foreign_import_fix(import: &str) -> &'static str {
    if import.starts_with("wasi:http/") {
        ". A tool makes no HTTP requests, so wasi:http is not linked: componentize-js adds it by default, build with `-d http fetch-event` to leave it out"
    } else {
        ""
    }
}

/// `toolhost:tool/<interface>@<version>` split, when `name` is one.
fn tool_interface(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("toolhost:tool/")?;
    rest.split_once('@')
}

/// Whether `name` is an import the host links.
fn import_allowed(name: &str) -> bool {
    if let Some((iface, version)) = tool_interface(name) {
        return crate::wit::package(version).is_some_and(|p| p.imports.contains(&iface));
    }
    let Some(rest) = name.strip_prefix("wasi:") else { return false };
    let Some((package, version)) =
        rest.split_once('/').and_then(|(p, r)| Some((p, r.split_once('@')?.1)))
    else {
        return false;
    };
    WASI_PACKAGES.contains(&package) && version.starts_with("0.2.")
}

/// Whether `bytes` start with the WebAssembly header (`\0asm` and a version): a module or a
/// component.
pub fn is_webassembly(bytes: &[u8]) -> bool {
    bytes.len() >= 8 && &bytes[..4] == b"\0asm"
}

/// Checks the header: WebAssembly, and a component rather than a core module.
pub(crate) fn check_header(bytes: &[u8]) -> Result<(), InvalidComponent> {
    if !is_webassembly(bytes) {
        return Err(InvalidComponent::NotWasm);
    }
    // Bytes 6..8 are the layer: 0 for a core module, 1 for a component.
    if bytes[6..8] == [0, 0] {
        return Err(InvalidComponent::CoreModule);
    }
    Ok(())
}

/// What a compiled component imports and exports, by name, and the `toolhost:tool` version
/// whose `tool` it exports — or why it is not a tool this host can run.
pub(crate) struct Facts {
    pub(crate) imports: Vec<String>,
    pub(crate) exports: Vec<String>,
    pub(crate) wit_version: String,
}

/// The facts of `component`, compiled by `engine`: it imports nothing the host does not
/// link and exports `tool` at a supported version.
pub(crate) fn check_component(
    engine: &wasmtime::Engine,
    component: &Component,
) -> Result<Facts, InvalidComponent> {
    let ty = component.component_type();
    let imports: Vec<String> = ty.imports(engine).map(|(name, _)| name.to_string()).collect();
    let exports: Vec<String> = ty.exports(engine).map(|(name, _)| name.to_string()).collect();
    if let Some(foreign) = imports.iter().find(|name| !import_allowed(name)) {
        return Err(InvalidComponent::ForeignImport(foreign.clone()));
    }
    let wit_version = exports
        .iter()
        .filter_map(|name| tool_interface(name))
        .find(|(iface, version)| *iface == "tool" && SUPPORTED_WIT_VERSIONS.contains(version))
        .map(|(_, version)| version.to_string())
        .ok_or_else(|| {
            InvalidComponent::NoToolExport(if exports.is_empty() {
                "nothing".into()
            } else {
                exports.join(", ")
            })
        })?;
    Ok(Facts { imports, exports, wit_version })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_allowed_by_package_and_version() {
        assert!(import_allowed("toolhost:tool/workspace@0.1.0"));
        assert!(import_allowed("wasi:io/streams@0.2.6"));
        assert!(import_allowed("wasi:cli/environment@0.2.0"));
        assert!(!import_allowed("toolhost:tool/workspace@0.9.0"));
        assert!(!import_allowed("toolhost:tool/secrets@0.1.0"));
        assert!(import_allowed("toolhost:tool/process@0.2.0"));
        assert!(!import_allowed("toolhost:tool/process@0.1.0"), "process is new in 0.2.0");
        assert!(!import_allowed("wasi:http/outgoing-handler@0.2.0"));
        assert!(!import_allowed("wasi:io/streams@0.3.0"));
        assert!(!import_allowed("acme:evil/net"));
    }

    #[test]
    fn headers_tell_components_from_modules() {
        assert_eq!(check_header(b"hello"), Err(InvalidComponent::NotWasm));
        assert_eq!(check_header(b"\0asm\x01\0\0\0"), Err(InvalidComponent::CoreModule));
        assert_eq!(check_header(b"\0asm\x0d\0\x01\0"), Ok(()));
    }
}
