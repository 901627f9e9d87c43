//! Embeds the built-in components (the file tools and the workspace tools) in the crate (and so in the `toolhost` binary), with the
//! SHA-256 of each, so a copied or `cargo install`ed binary is self-contained.
//!
//! Where the `.wasm` files come from:
//! * `TOOLHOST_BUILTIN_WASM_DIR` (set by `cargo xtask build|test`): `<dir>/<id>.wasm`, already
//!   built for `wasm32-wasip2`.
//! * otherwise (`cargo install --path crates/cli`, a plain `cargo build`): this script builds
//!   the guest crates itself with a nested `cargo build --target wasm32-wasip2` into its own
//!   target dir under `OUT_DIR`, as wasmtime's `test-programs` crate does.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

include!("src/components.rs");

const WASM_TARGET: &str = "wasm32-wasip2";

fn main() {
    println!("cargo:rerun-if-env-changed=TOOLHOST_BUILTIN_WASM_DIR");
    println!("cargo:rerun-if-changed=src/components.rs");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let files: Vec<(&str, PathBuf)> = match std::env::var_os("TOOLHOST_BUILTIN_WASM_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            embedded_crates().map(|(_, id)| (*id, dir.join(format!("{id}.wasm")))).collect()
        }
        None => build_components(&out_dir),
    };
    let mut code = String::from(
        "/// The embedded built-in components: (tool id, bytes, SHA-256 in hex).\npub static EMBEDDED: &[(&str, &[u8], &str)] = &[\n",
    );
    for (id, path) in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let bytes = std::fs::read(path).unwrap_or_else(|e| {
            panic!("cannot read the built-in component {id} at {}: {e} (build it with `cargo xtask build`)", path.display())
        });
        let digest = hex::encode(Sha256::digest(&bytes));
        writeln!(
            code,
            "    ({id:?}, include_bytes!({:?}), {digest:?}),",
            path.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    std::fs::write(out_dir.join("embedded.rs"), code).expect("writing embedded.rs");
}

/// Every component embedded: the file tools', the workspace tools', then the on-demand file
/// tools'.
fn embedded_crates() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    BUILTIN_COMPONENT_CRATES
        .iter()
        .chain(WORKSPACE_COMPONENT_CRATES)
        .chain(ON_DEMAND_FILE_TOOL_CRATES)
        .chain(AGENT_ONLY_CRATES)
}

/// Build every guest crate of [`embedded_crates`] for wasm32-wasip2 in a target dir
/// of this script's own (a nested cargo on the outer target dir would wait for its lock).
fn build_components(out_dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let manifest_dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let root = manifest_dir.join("../..");
    // The guest crates and every crate of the repository they depend on.
    for dir in ["tools", "wit", "limits", "error-kinds", "run-spec"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    let target_dir = out_dir.join("wasm-target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args(["build", "--release", "--target", WASM_TARGET])
        .arg("--target-dir")
        .arg(&target_dir)
        // The outer build's flags are for the host, not for the guests.
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CARGO_MAKEFLAGS");
    for (krate, _) in embedded_crates() {
        cmd.args(["-p", krate]);
    }
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo to build the built-in components: {e}"));
    if !status.success() {
        panic!(
            "building the built-in components for {WASM_TARGET} failed ({status}); is the target installed? \
             `rustup target add {WASM_TARGET}`"
        );
    }
    let release = target_dir.join(WASM_TARGET).join("release");
    embedded_crates()
        .map(|(krate, id)| (*id, release.join(format!("{}.wasm", krate.replace('-', "_")))))
        .collect()
}
