//! Tool projects built the way a third-party author builds them: `toolhost new`, the one build
//! command its README gives, with only the language's own toolchain from its public registry.
//! Shared by `tests/tests/authoring.rs` and the journey benchmark (`cargo xtask bench tools`).
//!
//! The toolchains live under `<target>/authoring/`, fetched on first use and reused after:
//! a virtualenv with the pinned componentize-py (put first on PATH, which the Python
//! project's `build.sh` prefers to a `.venv` of its own), npm's cache (every JavaScript
//! project's `npm install` reads it), and a cargo target dir the Rust builds may share.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::profile_dir;

/// The componentize-py the Python template pins (`requirements.txt`).
pub const COMPONENTIZE_PY: &str = "0.25.1";

/// Set (to 1) where a toolchain that cannot be fetched must fail the test instead of
/// skipping it: `.ci/run` sets it.
pub const REQUIRE_VAR: &str = "TOOLHOST_REQUIRE_TOOLCHAINS";

/// A language `toolhost new` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateLang {
    Rust,
    Python,
    Javascript,
}

impl TemplateLang {
    /// All three.
    pub const ALL: [TemplateLang; 3] =
        [TemplateLang::Rust, TemplateLang::Python, TemplateLang::Javascript];

    /// The `--lang` value, also the example's directory name.
    pub fn arg(self) -> &'static str {
        match self {
            TemplateLang::Rust => "rust",
            TemplateLang::Python => "python",
            TemplateLang::Javascript => "javascript",
        }
    }

    /// The one build command the project's README gives.
    pub fn build_command(self) -> &'static str {
        match self {
            TemplateLang::Rust => "cargo build --release --target wasm32-wasip2",
            TemplateLang::Python => "./build.sh",
            TemplateLang::Javascript => "npm install && npm run build",
        }
    }
}

/// `<target>/authoring`.
pub fn authoring_dir() -> PathBuf {
    profile_dir().parent().expect("target dir").join("authoring")
}

/// `examples/word_count/<lang>` in this repository.
pub fn example_dir(lang: TemplateLang) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/word_count").join(lang.arg())
}

/// A language's toolchain, ready: the environment its build command runs in.
#[derive(Debug, Clone)]
pub struct Toolchain {
    /// The language.
    pub lang: TemplateLang,
    /// Variables to set for the build command.
    pub env: Vec<(String, String)>,
}

impl Toolchain {
    /// Runs the project's build command in `project` (`sh -c`); with a cargo target dir of
    /// its own for Rust when `shared_rust_target` is false. The output and how long it took.
    pub fn build(&self, project: &Path, shared_rust_target: bool) -> (Output, Duration) {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(self.lang.build_command()).current_dir(project);
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        if self.lang == TemplateLang::Rust && !shared_rust_target {
            cmd.env_remove("CARGO_TARGET_DIR");
        }
        let t = Instant::now();
        let out = cmd.output().expect("run sh");
        (out, t.elapsed())
    }

    /// Where the component of tool `name` (a name cargo takes as it is) lands when built in
    /// `project` as [`build`](Self::build) with `shared_rust_target` builds it.
    pub fn component(&self, project: &Path, name: &str, shared_rust_target: bool) -> PathBuf {
        match self.lang {
            TemplateLang::Rust => {
                let target = match self.env.iter().find(|(k, _)| k == "CARGO_TARGET_DIR") {
                    Some((_, dir)) if shared_rust_target => PathBuf::from(dir),
                    _ => project.join("target"),
                };
                target.join(format!("wasm32-wasip2/release/{}.wasm", name.replace('-', "_")))
            }
            TemplateLang::Python | TemplateLang::Javascript => project.join(format!("{name}.wasm")),
        }
    }
}

fn run(cmd: &mut Command) -> Result<Output, String> {
    let out = cmd.output().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "{cmd:?} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The toolchain of `lang`, fetched into [`authoring_dir`] when missing; why not when it
/// cannot be had (no network, no npm, …).
pub fn toolchain(lang: TemplateLang) -> Result<Toolchain, String> {
    let dir = authoring_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = std::env::var("PATH").unwrap_or_default();
    let env = match lang {
        TemplateLang::Rust => {
            let installed = run(Command::new("rustup").args(["target", "list", "--installed"]))?;
            if !String::from_utf8_lossy(&installed.stdout).lines().any(|l| l == "wasm32-wasip2") {
                return Err(
                    "rustup has no wasm32-wasip2 target (`rustup target add wasm32-wasip2`)".into(),
                );
            }
            vec![("CARGO_TARGET_DIR".into(), dir.join("cargo-target").display().to_string())]
        }
        TemplateLang::Python => {
            let venv = dir.join("py-venv");
            let bin = venv.join("bin");
            let want = format!("componentize-py {COMPONENTIZE_PY}");
            let has = |bin: &Path| {
                Command::new(bin.join("componentize-py"))
                    .arg("--version")
                    .output()
                    .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == want)
            };
            if !has(&bin) {
                run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
                run(Command::new(bin.join("pip")).args([
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    &format!("componentize-py=={COMPONENTIZE_PY}"),
                ]))?;
            }
            vec![("PATH".into(), format!("{}:{path}", bin.display()))]
        }
        TemplateLang::Javascript => {
            run(Command::new("npm").arg("--version"))?;
            run(Command::new("node").arg("--version"))?;
            vec![
                ("npm_config_cache".into(), dir.join("npm-cache").display().to_string()),
                ("npm_config_prefer_offline".into(), "true".into()),
                ("npm_config_audit".into(), "false".into()),
                ("npm_config_fund".into(), "false".into()),
                ("npm_config_update_notifier".into(), "false".into()),
            ]
        }
    };
    Ok(Toolchain { lang, env })
}

/// [`toolchain`], or `None` after a loud message when it cannot be had and
/// [`REQUIRE_VAR`] is not 1 (then it panics).
pub fn toolchain_or_skip(lang: TemplateLang, what: &str) -> Option<Toolchain> {
    match toolchain(lang) {
        Ok(t) => Some(t),
        Err(why) if std::env::var(REQUIRE_VAR).as_deref() != Ok("1") => {
            eprintln!(
                "\n*** SKIPPED {what}: the {} toolchain cannot be had here ({REQUIRE_VAR}=1 makes this fail):\n{why}\n",
                lang.arg()
            );
            None
        }
        Err(why) => {
            panic!("{what}: the {} toolchain cannot be had ({REQUIRE_VAR}=1): {why}", lang.arg())
        }
    }
}

/// Copies the project `from` to `to` (created), leaving out what a build leaves behind
/// (`target/`, `node_modules/`, `.venv/`, `__pycache__/`, `*.wasm`): a project as a checkout
/// holds it.
pub fn copy_project(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if ["target", "node_modules", ".venv", "__pycache__"].contains(&name.as_ref())
            || name.ends_with(".wasm")
        {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&*name));
        if entry.file_type()?.is_dir() {
            copy_project(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}
