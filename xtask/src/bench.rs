//! `cargo xtask bench NAME`: benchmarks that print figures and ratios against a peer
//! measured in the same run. They never fail on time.

use std::process::Command;

use anyhow::{Result, bail};

/// Benchmarks and the release binaries (in the `toolhost-tests` package) that run them.
const BENCHES: &[(&str, &str)] = &[
    ("call", "bench_call"),
    ("read", "bench_read"),
    ("search", "bench_search"),
    ("bash", "bench_bash"),
    ("session", "bench_session"),
    ("tools", "bench_tools"),
    ("journey", "bench_journey"),
    ("patch", "bench_patch"),
    ("store", "bench_store"),
    ("edits", "bench_edits"),
];

/// Run the named benchmark.
pub fn run(args: &[String]) -> Result<()> {
    let names: Vec<&str> = BENCHES.iter().map(|(n, _)| *n).collect();
    let Some(name) = args.first() else { bail!("usage: cargo xtask bench {}", names.join("|")) };
    let Some((_, bin)) = BENCHES.iter().find(|(n, _)| n == name) else {
        bail!("unknown benchmark `{name}`; available: {}", names.join(", "))
    };
    let mut extra: Vec<String> = args[1..].to_vec();
    if name == "search" {
        ensure_peers()?;
        let tree = crate::target_dir().join("bench-tree");
        eprintln!("xtask: generating the search tree at {} (once)", tree.display());
        crate::tree::generate(&tree)?;
        let mut trees = vec![format!("generated={}", tree.display())];
        // A real tree: the crate sources in this machine's cargo registry (code nobody here
        // wrote), when there are any.
        match registry_sources() {
            Some(real) => trees.push(format!("registry={}", real.display())),
            None => eprintln!("xtask: no cargo registry sources found; the real tree is skipped"),
        }
        for (i, tree) in trees.into_iter().enumerate() {
            extra.splice(2 * i..2 * i, ["--tree".to_owned(), tree]);
        }
    }
    if name == "tools" {
        extra.insert(0, third_party_grep()?.display().to_string());
    }
    if name == "edits" {
        ensure_edit_peers();
    }
    bench_bin(bin, &extra)?;
    if name == "tools" {
        // Then the authoring journey per language (also alone: `bench journey`).
        bench_bin("bench_journey", &[])?;
    }
    Ok(())
}

/// Run the benchmark binary `bin` of the `toolhost-tests` package with `args`.
fn bench_bin(bin: &str, args: &[String]) -> Result<()> {
    crate::run(
        // The built components embedded as they are, not built again by the build script.
        crate::host_cargo()
            .current_dir(crate::root())
            .args(["run", "--release", "--quiet", "-p", "toolhost-tests", "--bin", bin, "--"])
            .args(args),
    )
}

/// The grep component built once more with the id `grep3p` (`TOOLHOST_GREP_ID`), in a target
/// dir of its own so the built-in's build is untouched: `bench tools` installs it as a
/// third-party tool.
fn third_party_grep() -> Result<std::path::PathBuf> {
    let target = crate::target_dir().join("bench-third-party");
    crate::run(
        // The built components embedded as they are, not built again by the build script.
        crate::host_cargo()
            .current_dir(crate::root())
            .env("TOOLHOST_GREP_ID", "grep3p")
            .args([
                "build",
                "--release",
                "--quiet",
                "--target",
                crate::WASM_TARGET,
                "-p",
                "toolhost-tool-grep",
                "--target-dir",
            ])
            .arg(&target),
    )?;
    Ok(target.join(crate::WASM_TARGET).join("release").join("toolhost_tool_grep.wasm"))
}

/// `$CARGO_HOME/registry/src` (default `~/.cargo`), when it exists.
fn registry_sources() -> Option<std::path::PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cargo")))?;
    let src = home.join("registry/src");
    src.is_dir().then_some(src)
}

/// ripgrep and fd are the peers of `bench search`; install them from Debian when missing.
fn ensure_peers() -> Result<()> {
    let has = |b: &str| Command::new(b).arg("--version").output().is_ok();
    if has("rg") && (has("fd") || has("fdfind")) {
        return Ok(());
    }
    crate::run(Command::new("apt-get").args(["install", "-y", "-qq", "ripgrep", "fd-find"]))
}

/// aider-chat, whose SEARCH/REPLACE matcher `bench edits` runs (`tests/mcp/edits_aider.py`).
const AIDER_VERSION: &str = "0.86.2";
/// @openai/codex, whose native binary's `apply_patch` `bench edits` runs.
const CODEX_VERSION: &str = "0.171.0";

/// The peers of `bench edits`, installed once into `target/bench-peers`: aider-chat from PyPI
/// into a venv (`aider-venv`), @openai/codex from npm (`codex/node_modules`). A peer that
/// cannot be installed is reported and left out; this never fails.
fn ensure_edit_peers() {
    let dir = crate::target_dir().join("bench-peers");
    let _ = std::fs::create_dir_all(&dir);
    let venv = dir.join("aider-venv");
    let python = venv.join("bin").join("python");
    let has_aider = || {
        Command::new(&python)
            .args([
                "-c",
                &format!(
                    "import importlib.metadata as m, aider.coders.editblock_coder; assert m.version('aider-chat') == '{AIDER_VERSION}'"
                ),
            ])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !has_aider() {
        let installed = (python.exists()
            || crate::run(Command::new("python3").args(["-m", "venv"]).arg(&venv)).is_ok())
            && crate::run(Command::new(venv.join("bin").join("pip")).args([
                "install",
                "-q",
                "--disable-pip-version-check",
                &format!("aider-chat=={AIDER_VERSION}"),
            ]))
            .is_ok();
        if !installed || !has_aider() {
            eprintln!(
                "xtask: aider-chat {AIDER_VERSION} could not be installed; bench edits goes on without it"
            );
        }
    }
    let codex = dir.join("codex");
    let manifest = codex.join("node_modules/@openai/codex/package.json");
    let has_codex = || {
        std::fs::read_to_string(&manifest)
            .is_ok_and(|m| m.contains(&format!("\"version\": \"{CODEX_VERSION}\"")))
    };
    if !has_codex() {
        let installed = crate::run(
            Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--prefix"])
                .arg(&codex)
                .arg(format!("@openai/codex@{CODEX_VERSION}")),
        )
        .is_ok();
        if !installed || !has_codex() {
            eprintln!(
                "xtask: @openai/codex {CODEX_VERSION} could not be installed; bench edits goes on without it"
            );
        }
    }
}
