//! The test toolchains the `workspace_tests` suite runs real projects with, found or fetched
//! once and shared by every test (and every test process: a file lock under
//! `<target>/toolchains/` makes a fetch happen once even when the tests run in parallel).
//!
//! * [`rust`]: the bin dir of the real Rust toolchain (`rustup which cargo`, with the real
//!   HOME), so `cargo` runs under a fake HOME where rustup's proxy would find nothing;
//! * [`pytest`]: a virtualenv with pytest, `<target>/toolchains/pytest-venv` (PyPI);
//! * [`provider_sdks`]: a virtualenv with the `openai` and `anthropic` packages,
//!   `<target>/toolchains/sdk-venv` (PyPI), whose types the provider-shaped tools are
//!   checked against;
//! * [`js`]: `<target>/toolchains/js/node_modules` with vitest and jest (npm), for a project
//!   to link or copy as its own `node_modules`;
//! * [`go`]: the bin dir holding `go` on PATH (`.ci/run` installs golang-go).
//!
//! Each takes the test's name and gives `None` after a `SKIPPED` line when the toolchain
//! cannot be had, or panics when [`REQUIRE_VAR`] is 1 (`.ci/run` sets it).

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::authoring::REQUIRE_VAR;
use crate::profile_dir;

/// The vitest and jest `js` installs (major versions that run on Node.js 20).
pub const JS_PACKAGES: &[(&str, &str)] = &[("vitest", "^4"), ("jest", "^30")];

/// `<target>/toolchains`.
pub fn toolchains_dir() -> PathBuf {
    profile_dir().parent().expect("target dir").join("toolchains")
}

/// The bin dir of the Rust toolchain this repository builds with, or `None` (after a
/// `SKIPPED` line naming `test`).
pub fn rust(test: &str) -> Option<PathBuf> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    or_skip(FOUND.get_or_init(find_rust), "Rust (cargo)", test)
}

/// The bin dir of a virtualenv with pytest (`python`, `pytest`), fetched on first use, or
/// `None` (after a `SKIPPED` line naming `test`).
pub fn pytest(test: &str) -> Option<PathBuf> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    or_skip(FOUND.get_or_init(|| locked(install_pytest)), "pytest", test)
}

/// The bin dir of a virtualenv with the providers' own SDKs (`openai`, `anthropic`), fetched
/// on first use, or `None` (after a `SKIPPED` line naming `test`).
pub fn provider_sdks(test: &str) -> Option<PathBuf> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    or_skip(FOUND.get_or_init(|| locked(install_sdks)), "openai and anthropic (PyPI)", test)
}

/// The provider SDK versions checked against: ones whose types have the client tools
/// (`apply_patch`, `shell`, `text_editor_20250728`, `bash_20250124`).
pub const PROVIDER_SDKS: &[&str] = &["openai>=2.8,<4", "anthropic>=0.60,<3"];

/// A `node_modules` with vitest and jest (its `.bin` holds both), fetched on first use, or
/// `None` (after a `SKIPPED` line naming `test`). `node` itself comes from PATH.
pub fn js(test: &str) -> Option<PathBuf> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    or_skip(FOUND.get_or_init(|| locked(install_js)), "vitest and jest (npm)", test)
}

/// The dir holding `go` on PATH, or `None` (after a `SKIPPED` line naming `test`).
pub fn go(test: &str) -> Option<PathBuf> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    or_skip(FOUND.get_or_init(find_go), "Go", test)
}

/// `dirs` first, then the test's own PATH: the PATH a toolhost run gets.
pub fn path_with(dirs: &[&Path]) -> std::ffi::OsString {
    let own = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    let mut all: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    all.extend(std::env::split_paths(&own));
    std::env::join_paths(all).expect("PATH entries without ':'")
}

fn or_skip(found: &Result<PathBuf, String>, toolchain: &str, test: &str) -> Option<PathBuf> {
    match found {
        Ok(dir) => Some(dir.clone()),
        Err(why) if std::env::var(REQUIRE_VAR).as_deref() == Ok("1") => {
            panic!("{test}: the {toolchain} toolchain cannot be had ({REQUIRE_VAR}=1): {why}")
        }
        Err(why) => {
            eprintln!(
                "\n*** SKIPPED {test}: the {toolchain} toolchain cannot be had here ({REQUIRE_VAR}=1 makes this fail):\n{why}\n"
            );
            None
        }
    }
}

/// Runs `cmd`; its stdout, or why it failed (with both streams).
fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{cmd:?} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Runs `install` holding an exclusive lock on `<target>/toolchains/.lock`, so concurrent
/// test processes fetch one at a time and find the other's work done.
fn locked(install: fn(&Path) -> Result<PathBuf, String>) -> Result<PathBuf, String> {
    let dir = toolchains_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let lock = std::fs::File::create(dir.join(".lock"))
        .map_err(|e| format!("cannot create {}/.lock: {e}", dir.display()))?;
    // SAFETY: flock(2) on a descriptor we own; released when `lock` is closed.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(format!(
            "cannot lock {}/.lock: {}",
            dir.display(),
            std::io::Error::last_os_error()
        ));
    }
    let result = install(&dir);
    drop(lock);
    result
}

fn find_rust() -> Result<PathBuf, String> {
    // From the repository, so rust-toolchain.toml picks the toolchain the host builds with.
    let cargo = run(Command::new("rustup")
        .args(["which", "cargo"])
        .current_dir(env!("CARGO_MANIFEST_DIR")))?;
    let cargo = PathBuf::from(cargo.trim());
    let bin = cargo.parent().ok_or_else(|| format!("`rustup which cargo` said {cargo:?}"))?;
    if !bin.join("rustc").exists() {
        return Err(format!("{} holds no rustc", bin.display()));
    }
    Ok(bin.to_path_buf())
}

fn find_go() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dir = std::env::split_paths(&path)
        .find(|d| d.join("go").is_file())
        .ok_or("no `go` on PATH (apt-get install golang-go)")?;
    run(Command::new(dir.join("go")).arg("version"))?;
    Ok(dir)
}

fn install_pytest(dir: &Path) -> Result<PathBuf, String> {
    let venv = dir.join("pytest-venv");
    let bin = venv.join("bin");
    let has = |bin: &Path| {
        run(Command::new(bin.join("python")).args(["-m", "pytest", "--version"])).is_ok()
    };
    if has(&bin) {
        return Ok(bin);
    }
    let python = crate::attack::python3().ok_or("no python3")?;
    if !bin.join("python").exists() {
        run(Command::new(python).args(["-m", "venv"]).arg(&venv))
            .map_err(|e| format!("{e}\n(apt-get install python3-venv?)"))?;
    }
    run(Command::new(bin.join("pip")).args([
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "pytest",
    ]))
    .map_err(|e| format!("{e}\n(is PyPI reachable?)"))?;
    if !has(&bin) {
        return Err(format!("pytest is not importable from {} after pip install", bin.display()));
    }
    Ok(bin)
}

fn install_sdks(dir: &Path) -> Result<PathBuf, String> {
    let venv = dir.join("sdk-venv");
    let bin = venv.join("bin");
    let has = |bin: &Path| {
        run(Command::new(bin.join("python")).args(["-c", "import openai, anthropic"])).is_ok()
    };
    if has(&bin) {
        return Ok(bin);
    }
    let python = crate::attack::python3().ok_or("no python3")?;
    if !bin.join("python").exists() {
        run(Command::new(python).args(["-m", "venv"]).arg(&venv))
            .map_err(|e| format!("{e}\n(apt-get install python3-venv?)"))?;
    }
    run(Command::new(bin.join("pip"))
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(PROVIDER_SDKS))
    .map_err(|e| format!("{e}\n(is PyPI reachable?)"))?;
    if !has(&bin) {
        return Err(format!("openai and anthropic are not importable from {}", bin.display()));
    }
    Ok(bin)
}

fn install_js(dir: &Path) -> Result<PathBuf, String> {
    let js = dir.join("js");
    let modules = js.join("node_modules");
    let has = |modules: &Path| {
        JS_PACKAGES.iter().all(|(name, _)| modules.join(".bin").join(name).exists())
    };
    if has(&modules) {
        return Ok(modules);
    }
    std::fs::create_dir_all(&js).map_err(|e| format!("cannot create {}: {e}", js.display()))?;
    let deps: serde_json::Map<String, serde_json::Value> =
        JS_PACKAGES.iter().map(|(n, v)| (n.to_string(), (*v).into())).collect();
    let manifest = serde_json::json!({"private": true, "devDependencies": deps});
    std::fs::write(js.join("package.json"), manifest.to_string())
        .map_err(|e| format!("cannot write {}/package.json: {e}", js.display()))?;
    run(Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error"])
        .current_dir(&js))
    .map_err(|e| format!("{e}\n(is the npm registry reachable?)"))?;
    if !has(&modules) {
        return Err(format!("{} lacks vitest or jest after npm install", modules.display()));
    }
    Ok(modules)
}
