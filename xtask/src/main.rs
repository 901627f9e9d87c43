//! `cargo xtask build | test | run | bench NAME`: the project's tasks, with nothing assumed
//! installed beyond rustup and cargo.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

mod bench;
mod tree;

/// The guest target every component is built for.
pub const WASM_TARGET: &str = "wasm32-wasip2";

// Built-in tool components: (crate, id), the one list (crates/builtins/src/components.rs).
// Each lands in `target/release/components/<id>.wasm`, which the host build embeds.
include!("../../crates/builtins/src/components.rs");

/// Every component the binary embeds: the file tools', then the workspace tools'.
fn embedded_components() -> Vec<(&'static str, &'static str)> {
    BUILTIN_COMPONENT_CRATES
        .iter()
        .chain(WORKSPACE_COMPONENT_CRATES)
        .chain(ON_DEMAND_FILE_TOOL_CRATES)
        .chain(AGENT_ONLY_CRATES)
        .copied()
        .collect()
}

/// The environment variable that tells the builtins crate's build script where the built
/// components are (so it embeds them instead of building them itself).
const EMBED_DIR_VAR: &str = "TOOLHOST_BUILTIN_WASM_DIR";

/// Components used only by tests; they land in `target/release/test-components/<id>.wasm`.
const TEST_COMPONENTS: &[(&str, &str)] = &[
    ("toolhost-tool-misbehave", "misbehave"),
    ("toolhost-tool-scribe", "scribe"),
    ("toolhost-tool-stall", "stall"),
    ("toolhost-tool-runner", "runner"),
    ("toolhost-tool-lenient", "lenient"),
    ("toolhost-tool-liar", "liar"),
    ("toolhost-tool-unstable", "unstable"),
    ("toolhost-tool-legacy", "legacy"),
    ("toolhost-tool-legacy02", "legacy02"),
    ("toolhost-tool-shapeless", "shapeless"),
    ("toolhost-tool-sly", "sly"),
    ("toolhost-tool-badid", "badid"),
    ("toolhost-tool-blankdesc", "blankdesc"),
    ("toolhost-tool-badschema", "badschema"),
    ("toolhost-tool-badoutput", "badoutput"),
    ("toolhost-tool-describetrap", "describetrap"),
    ("toolhost-tool-foreign", "foreign"),
    ("toolhost-tool-noexport", "noexport"),
    ("toolhost-tool-snoop", "snoop"),
    ("toolhost-tool-refloop", "refloop"),
    ("toolhost-tool-deepanyof", "deepanyof"),
    ("toolhost-tool-selfref", "selfref"),
    ("toolhost-tool-hugedesc", "hugedesc"),
    ("toolhost-tool-bashid", "bashid"),
    ("toolhost-tool-backtrack", "backtrack"),
    ("toolhost-tool-hoarder", "hoarder"),
    ("toolhost-tool-forger", "forger"),
    ("toolhost-tool-stuck", "stuck"),
    ("toolhost-tool-bulky", "bulky"),
    ("toolhost-tool-runtimewasi", "runtimewasi"),
    ("toolhost-tool-runtimefs", "runtimefs"),
    ("toolhost-tool-switcher", "switcher"),
    ("toolhost-tool-fixture-greet", "greet"),
    ("toolhost-tool-fixture-slow-compute", "slow_compute"),
    ("toolhost-tool-fixture-failing-job", "failing_job"),
    ("toolhost-tool-fixture-simple-text", "test_simple_text"),
    ("toolhost-tool-fixture-error-handling", "test_error_handling"),
    ("toolhost-tool-fixture-progress", "test_tool_with_progress"),
    ("toolhost-tool-fixture-json-schema", "json_schema_2020_12_tool"),
];

/// Guest crates whose own unit tests run natively.
const GUEST_CRATES_WITH_TESTS: &[&str] = &[
    "toolhost-sdk",
    "toolhost-tool-read",
    "toolhost-tool-write",
    "toolhost-tool-edit",
    "toolhost-tool-apply-patch",
    "toolhost-tool-multi-edit",
    "toolhost-tool-text-editor",
    "toolhost-tool-openai-apply-patch",
    "toolhost-tool-list",
    "toolhost-tool-grep",
    "toolhost-tool-glob",
    "toolhost-tool-workspace-git",
    "toolhost-tool-workspace-markdown",
    "toolhost-tool-workspace-preview",
    "toolhost-workspace-run",
    "toolhost-tool-workspace-shell",
    "toolhost-tool-workspace-tests",
];

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("build") => build(Fixtures::Too),
        Some("test") => test(&args[1..]),
        Some("run") => {
            // The main job builds what ships: the host and the components it embeds, not the
            // test suites' fixture components.
            build(Fixtures::Skip)?;
            let bin = target_dir().join("release/toolhost");
            // `cargo xtask run -- call …`: the `--` separates cargo's arguments from ours.
            let rest = match args.get(1).map(String::as_str) {
                Some("--") => &args[2..],
                _ => &args[1..],
            };
            let status = Command::new(bin).args(rest).status()?;
            std::process::exit(status.code().unwrap_or(1));
        }
        Some("bench") => {
            build(Fixtures::Too)?;
            bench::run(&args[1..])
        }
        _ => bail!(
            "usage: cargo xtask build | test [filter] | run [toolhost args…] | bench call|read|search|bash|session|tools|journey|patch|store|edits"
        ),
    }
}

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// The cargo target dir.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"))
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

fn run(cmd: &mut Command) -> Result<()> {
    eprintln!("xtask: {cmd:?}");
    let status = cmd.status().with_context(|| format!("running {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

/// Install the wasm target when rustup lacks it (RUSTUP_AUTO_INSTALL=0 on these machines).
fn ensure_wasm_target() -> Result<()> {
    let out =
        Command::new("rustup").args(["target", "list", "--installed"]).current_dir(root()).output();
    match out {
        Ok(out)
            if String::from_utf8_lossy(&out.stdout).lines().any(|l| l.trim() == WASM_TARGET) =>
        {
            Ok(())
        }
        Ok(_) => {
            run(Command::new("rustup").args(["target", "add", WASM_TARGET]).current_dir(root()))
                .or_else(|_| {
                    // A toolchain made with `rustup toolchain link` takes no components; the stable
                    // toolchain it points at does.
                    run(Command::new("rustup")
                        .args(["target", "add", "--toolchain", "stable", WASM_TARGET])
                        .current_dir(root()))
                })
        }
        Err(e) => bail!("rustup is needed to install the {WASM_TARGET} target: {e}"),
    }
}

/// Whether a build includes the test suites' fixture components.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fixtures {
    /// Build them too (`build`, `test`, `bench`).
    Too,
    /// Only what ships (`run`).
    Skip,
}

/// Build the components for wasm32-wasip2 (the fixtures too when asked) and the host, and put
/// the components where the host and the suites find them.
fn build(fixtures: Fixtures) -> Result<()> {
    ensure_wasm_target()?;
    let mut cmd = cargo();
    cmd.args(["build", "--release", "--target", WASM_TARGET]);
    let embedded = embedded_components();
    let test_components = if fixtures == Fixtures::Too { TEST_COMPONENTS } else { &[] };
    for (krate, _) in embedded.iter().chain(test_components) {
        cmd.args(["-p", krate]);
    }
    run(&mut cmd)?;
    let wasm_dir = target_dir().join(WASM_TARGET).join("release");
    for (dir, set) in [("components", &embedded[..]), ("test-components", test_components)] {
        let dest = target_dir().join("release").join(dir);
        std::fs::create_dir_all(&dest)?;
        for (krate, id) in set {
            let built = wasm_dir.join(format!("{}.wasm", krate.replace('-', "_")));
            let to = dest.join(format!("{id}.wasm"));
            // Copy only when changed, so the host's component cache keys stay stable.
            let same = std::fs::read(&to).ok()
                == Some(
                    std::fs::read(&built)
                        .with_context(|| format!("reading {}", built.display()))?,
                );
            if !same {
                std::fs::copy(&built, &to)
                    .with_context(|| format!("copying {} to {}", built.display(), to.display()))?;
            }
        }
    }
    // The host (with the components embedded), and the small Landlock helper it runs
    // inside bubblewrap.
    run(host_cargo().args([
        "build",
        "--release",
        "-p",
        "toolhost",
        "-p",
        "toolhost-sandbox",
        "--bins",
    ]))
}

/// cargo for the host: its build embeds the components `build` copied.
pub(crate) fn host_cargo() -> Command {
    let mut cmd = cargo();
    cmd.env(EMBED_DIR_VAR, target_dir().join("release").join("components"));
    cmd
}

/// Build, then run every test: the native workspace, the guest crates' unit tests, and the
/// cross-crate suites in `tests/`.
fn test(filter: &[String]) -> Result<()> {
    build(Fixtures::Too)?;
    let mut cmd = host_cargo();
    cmd.args(["test", "--release", "--workspace"]);
    for (krate, _) in embedded_components().iter().chain(TEST_COMPONENTS) {
        if !GUEST_CRATES_WITH_TESTS.contains(krate) {
            cmd.args(["--exclude", krate]);
        }
    }
    cmd.arg("--").args(filter);
    run(&mut cmd)?;
    if std::env::var_os(FALLBACK_TIER_VAR).is_none_or(|v| v != "0") {
        test_without_user_namespaces(filter)?;
    }
    Ok(())
}

/// [`CONFINED_SUITES`] run a second time where user namespaces are refused, so bash meets the
/// Landlock tier; set to 0 to skip that run.
const FALLBACK_TIER_VAR: &str = "TOOLHOST_TEST_FALLBACK_TIER";

/// The suites that attack bash through the built binary (`tests/src/attack.rs`), run again
/// under `TOOLHOST_TEST_CONFINE=no-userns` so that bash meets the sandbox tier that needs no
/// namespaces.
const CONFINED_SUITES: &[&str] = &[
    "attack_bash_isolation",
    "attack_credentials",
    "attack_git",
    "attack_git_discovery",
    "attack_data_dir",
    "attack_other_data_dirs",
];

/// The bash attack suites again, each `toolhost` run confined where user namespaces are
/// refused (`tests/src/confined.rs`); that needs root, so elsewhere it is skipped with a note
/// (a failure under `TOOLHOST_REQUIRE_SANDBOX=1`).
fn test_without_user_namespaces(filter: &[String]) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let root = std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false);
    if !root {
        if std::env::var_os("TOOLHOST_REQUIRE_SANDBOX").is_some_and(|v| v == "1") {
            bail!("{FALLBACK_TIER_VAR}=1 needs root (to refuse user namespaces to the binary)");
        }
        eprintln!("SKIPPED the suites without user namespaces: they need root");
        return Ok(());
    }
    let start = std::time::Instant::now();
    let mut cmd = host_cargo();
    cmd.env("TOOLHOST_TEST_CONFINE", "no-userns");
    cmd.args(["test", "--release", "-p", "toolhost-tests"]);
    for suite in CONFINED_SUITES {
        cmd.args(["--test", suite]);
    }
    cmd.arg("--").args(filter);
    let result = run(&mut cmd);
    eprintln!(
        "the bash attack suites without user namespaces took {:.1} s",
        start.elapsed().as_secs_f64()
    );
    result
}
