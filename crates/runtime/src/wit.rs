//! The `toolhost:tool` packages this host links, one per released version, each in its own
//! directory under `wit/` (`wit/since_v0.1.0/`, …), the way Zed's extension host keeps
//! `since_v0.x`. A released version never changes: its text is pinned here by SHA-256 and a
//! test compares it, so an edit to a released package fails the build's tests instead of
//! silently breaking the components built against it (its comments may be corrected and
//! re-pinned, its types never: [`WitPackage::frozen_sha256`]). `toolhost wit` prints them.
//!
//! Beside the texts, one module of bindings per version, named as Zed's extension host names
//! them: `since_v0_1_0`, `since_v0_2_0`, `since_v0_3_0`, and `latest`, the newest, which the host code
//! (`crate::host`, `crate::exports`) names and nothing else. An older version converts each of
//! its imports into the next version's (`since_v0_1_0` calls `since_v0_2_0`, which calls
//! `since_v0_3_0`), so the host
//! implements only the latest. [`add_to_linker`] links them all side by side.
//!
//! Adding a version (say 0.4.0): its directory under `wit/`, its entry in [`WIT_PACKAGES`]
//! and [`SUPPORTED_WIT_VERSIONS`], a module `since_v0_4_0` here (its `mod`, its line in
//! [`add_to_linker`], and `latest` pointing at it), a variant in `exports::Prepared`, and one
//! conversion: `since_v0_3_0` now converts its imports into 0.4.0's, as `since_v0_2_0`
//! converts into 0.3.0's.

use wasmtime::component::Linker;

use crate::host::CallState;

pub(crate) mod since_v0_1_0;
pub(crate) mod since_v0_2_0;
pub(crate) mod since_v0_3_0;

/// The newest version: the one the host code is written against.
pub(crate) use since_v0_3_0 as latest;

/// Link the imports of every version into `linker`: their interfaces have distinct names
/// (`toolhost:tool/workspace@0.1.0`, `…@0.2.0`), and a component is linked as the version
/// whose `tool` it exports (`exports::Prepared`).
pub(crate) fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    since_v0_1_0::add_to_linker(linker)?;
    since_v0_2_0::add_to_linker(linker)?;
    since_v0_3_0::add_to_linker(linker)
}

/// One released `toolhost:tool` package.
#[derive(Debug, Clone, Copy)]
pub struct WitPackage {
    /// Its version, e.g. `0.1.0`.
    pub version: &'static str,
    /// Its text, as released.
    pub text: &'static str,
    /// SHA-256 of the text when it was released (frozen). A pin covers the text, comments
    /// included: a change of comments only (e.g. a citation) may re-pin it, provided
    /// [`types_sha256`](Self::types_sha256) still holds; a change of any type never may.
    pub frozen_sha256: &'static str,
    /// SHA-256 of the text with its comments cut off ([`without_comments`]): every name, type
    /// and world as released. Frozen for ever, whatever happens to the comments.
    pub types_sha256: &'static str,
    /// The interfaces of the package a component may import.
    pub imports: &'static [&'static str],
}

/// Every version the host links, oldest first.
pub const WIT_PACKAGES: &[WitPackage] = &[
    WitPackage {
        version: "0.1.0",
        text: include_str!("../../../wit/since_v0.1.0/tool.wit"),
        frozen_sha256: "64abfb674cb9062631cbc01adcfe5d355f45942e703f1f30df642d4b91d2ae39",
        types_sha256: "42cd1db0082e32b91ec59218676a30b61bfc14d0e2bfd2af4fc8ffb800675688",
        imports: &["types", "workspace", "call"],
    },
    WitPackage {
        version: "0.2.0",
        text: include_str!("../../../wit/since_v0.2.0/tool.wit"),
        frozen_sha256: "ee1713d1dff2db5efd1e4b98d003e72ae9a88df4cbcd8ca063779ddfb3f6be55",
        types_sha256: "4ee87cc3a0ea47cff71b2b26a474f9cca574820900e61f2d77865d5c101627d8",
        imports: &["types", "workspace", "call", "process"],
    },
    WitPackage {
        version: "0.3.0",
        text: include_str!("../../../wit/since_v0.3.0/tool.wit"),
        frozen_sha256: "65742a454530db266fcb71ec653271e4ac0819179322088b6f08d1371148cb7b",
        types_sha256: "1d80b15dd880fe487e7f1f7b1f98c85fb3707770b5bd89c8353d2ceeefa7baeb",
        imports: &["types", "workspace", "call", "process"],
    },
];

/// The versions the host links, oldest first.
pub const SUPPORTED_WIT_VERSIONS: &[&str] = &["0.1.0", "0.2.0", "0.3.0"];

/// `text` with every `//` comment (doc comments too) cut off its line, lines and the rest of
/// the text kept: what [`WitPackage::types_sha256`] pins.
pub fn without_comments(text: &str) -> String {
    text.split('\n')
        .map(|line| line.find("//").map_or(line, |i| &line[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The newest package.
pub fn newest() -> &'static WitPackage {
    WIT_PACKAGES.last().expect("at least one WIT package")
}

/// The package of `version`, if the host links it.
pub fn package(version: &str) -> Option<&'static WitPackage> {
    WIT_PACKAGES.iter().find(|p| p.version == version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_packages_are_frozen() {
        for p in WIT_PACKAGES {
            assert_eq!(
                toolhost_core::observations::sha256_hex(p.text.as_bytes()),
                p.frozen_sha256,
                "wit/since_v{}/tool.wit changed after its release; a released version never changes: add a new version beside it",
                p.version
            );
            assert_eq!(
                toolhost_core::observations::sha256_hex(without_comments(p.text).as_bytes()),
                p.types_sha256,
                "a name or type of wit/since_v{}/tool.wit changed after its release; a released version never changes: add a new version beside it",
                p.version
            );
            assert!(
                p.text.contains(&format!("package toolhost:tool@{};", p.version)),
                "{} names another version",
                p.version
            );
            for iface in p.imports {
                assert!(
                    p.text.contains(&format!("interface {iface} {{")),
                    "{} has no interface {iface}",
                    p.version
                );
            }
        }
    }

    #[test]
    fn the_version_list_is_the_package_list() {
        let versions: Vec<&str> = WIT_PACKAGES.iter().map(|p| p.version).collect();
        assert_eq!(versions, SUPPORTED_WIT_VERSIONS);
        assert_eq!(newest().version, *SUPPORTED_WIT_VERSIONS.last().unwrap());
        assert!(
            package("0.1.0").is_some() && package("0.2.0").is_some() && package("9.9.9").is_none()
        );
    }
}
