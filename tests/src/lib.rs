//! Fixtures shared by the cross-crate suites in `tests/tests/`: where the built binary and
//! components are, a temporary workspace, and a host with the built-in and test tools.
//!
//! Run the suites with `cargo xtask test`, which builds the components first.

pub mod attack;
pub mod authoring;
pub mod confined;
pub mod http;
pub mod http_load;
pub mod jsonl;
pub mod mcp;
pub mod postgres;
pub mod registry;
pub mod toolchains;
pub mod watchdog;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use toolhost::registry::{ToolRegistry, ToolRegistryBuilder};
use toolhost::runtime::ComponentRuntime;
use toolhost::{
    FinalizedToolset, SandboxPolicy, ToolCallContext, ToolResult, ToolSessionContext,
    ToolsetConfig, finalize,
};

/// `target/<profile>`: test binaries run from `target/<profile>/deps`, bench binaries from
/// `target/<profile>`.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe.parent().expect("binary directory");
    if dir.ends_with("deps") {
        dir.parent().unwrap_or(dir).to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

/// Where the binaries under test are: `$TOOLHOST_TEST_BIN_DIR` (a dir holding `toolhost`,
/// `toolhost-sandbox-exec` and `components/`, e.g. an older build to run the suites
/// against), else [`profile_dir`].
pub fn bin_dir() -> PathBuf {
    match std::env::var_os("TOOLHOST_TEST_BIN_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => profile_dir(),
    }
}

/// The `toolhost` binary built by `cargo xtask build` (or the one in [`bin_dir`]).
pub fn toolhost_bin() -> PathBuf {
    bin_dir().join("toolhost")
}

/// The built-in components (beside [`toolhost_bin`]).
pub fn components_dir() -> PathBuf {
    bin_dir().join("components")
}

/// The test-only components (misbehave); under `TOOLHOST_TEST_CONFINE`, where the confined
/// user reaches them ([`confined::reachable_dir`]).
pub fn test_components_dir() -> PathBuf {
    let dir = profile_dir().join("test-components");
    match confined::from_env() {
        Some(mode) => confined::reachable_dir(mode, &dir),
        None => dir,
    }
}

/// A component cache shared by the suites, so each component compiles once per build.
pub fn shared_cache_dir() -> PathBuf {
    profile_dir().join("test-component-cache")
}

/// A temporary workspace and data dir, and a private temp dir as the CLI makes one.
pub struct Fixture {
    pub workspace: tempfile::TempDir,
    pub data: tempfile::TempDir,
    /// The policy's temp dir (writable, bash's `TMPDIR`), as `toolhost` makes one per process.
    pub temp: toolhost_sandbox::temp_dir::PrivateTempDir,
}

impl Fixture {
    /// An empty workspace.
    pub fn new() -> Self {
        let fx = Fixture {
            workspace: tempfile::tempdir().unwrap(),
            data: tempfile::tempdir().unwrap(),
            temp: toolhost_sandbox::temp_dir::PrivateTempDir::create().unwrap(),
        };
        postgres::register(fx.data.path());
        fx
    }

    /// The workspace root (canonical).
    pub fn root(&self) -> PathBuf {
        self.workspace.path().canonicalize().unwrap()
    }

    /// Write a file (creating parents) relative to the workspace.
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, contents).unwrap();
        p
    }

    /// A session over this workspace; bash's sandbox uses the built `toolhost` binary as
    /// its Landlock helper.
    pub fn session(&self) -> ToolSessionContext {
        let sandbox = toolhost_sandbox::platform_backend(toolhost_sandbox::PlatformOptions {
            landlock_helper: Some(toolhost_bin()),
            ..Default::default()
        });
        ToolSessionContext::local(self.root(), self.data.path(), "test-session", sandbox)
    }

    /// This fixture's policy: workspace-write, the data dir hard-protected, its private temp
    /// dir the temp dir (as the CLI's).
    pub fn policy(&self) -> SandboxPolicy {
        SandboxPolicy::builder(toolhost::SandboxMode::WorkspaceWrite, self.root())
            .data_dir(self.data.path())
            .private_temp_dir(self.temp.path())
            .build()
    }

    /// A workspace-write call context with a generous deadline.
    pub fn call(&self, id: &str) -> ToolCallContext {
        ToolCallContext::new(id, self.policy())
            .with_deadline(Instant::now() + Duration::from_secs(60))
    }
}

impl Default for Fixture {
    fn default() -> Self {
        Self::new()
    }
}

/// One runtime per test process.
pub fn runtime() -> Arc<ComponentRuntime> {
    static RUNTIME: std::sync::OnceLock<Arc<ComponentRuntime>> = std::sync::OnceLock::new();
    RUNTIME
        .get_or_init(|| ComponentRuntime::new(Some(shared_cache_dir())).expect("runtime"))
        .clone()
}

/// A registry with every built-in tool plus the test components.
pub async fn registry_with_test_tools() -> ToolRegistry {
    let rt = runtime();
    let mut builder = ToolRegistryBuilder::new();
    for id in toolhost::builtins::BUILTIN_COMPONENTS {
        let tool = rt
            .load(&components_dir().join(format!("{id}.wasm")))
            .await
            .expect("built-in component (run `cargo xtask build`)")
            .record_reads(toolhost::builtins::READING_TOOLS.contains(id))
            .parses_own_input();
        builder.register_dyn(Arc::new(tool));
    }
    let misbehave =
        rt.load(&test_components_dir().join("misbehave.wasm")).await.expect("misbehave component");
    builder.register_dyn(Arc::new(misbehave));
    builder.register(toolhost::bash::Bash);
    builder.build()
}

/// A toolset of `ids` over the fixture.
pub async fn toolset(fixture: &Fixture, ids: &[&str]) -> FinalizedToolset {
    let registry = registry_with_test_tools().await;
    finalize(&registry, &ToolsetConfig::new(ids), fixture.session()).expect("finalize")
}

/// Call `tool` with `input` and return the result.
pub async fn call(
    toolset: &FinalizedToolset,
    fixture: &Fixture,
    tool: &str,
    input: serde_json::Value,
) -> ToolResult {
    toolset.call(tool, input, fixture.call("c1")).await
}

/// What one whole-process run cost: wall time, CPU time and peak resident memory.
#[derive(Debug, Clone, Copy)]
pub struct ProcessCost {
    pub wall: Duration,
    /// User and system CPU time (from the same rusage).
    pub cpu: Duration,
    /// Peak RSS in KiB (from `wait4`'s rusage of that very child).
    pub max_rss_kib: i64,
}

/// Run `cmd` to completion with stdout/stderr discarded, measuring it with `wait4`.
pub fn measure(cmd: &mut std::process::Command) -> ProcessCost {
    use std::process::Stdio;
    let start = Instant::now();
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not yet reaped (we never call wait on `child`).
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(rc, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed (status {status})"
    );
    std::mem::forget(child);
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    let cpu = time(usage.ru_utime) + time(usage.ru_stime);
    ProcessCost { wall, cpu, max_rss_kib: usage.ru_maxrss }
}

/// The median of `runs` measurements of `cmd`.
pub fn median_cost(cmd: &mut std::process::Command, runs: usize) -> ProcessCost {
    let mut costs: Vec<ProcessCost> = (0..runs).map(|_| measure(cmd)).collect();
    costs.sort_by_key(|c| c.wall);
    let mut m = costs[costs.len() / 2];
    m.max_rss_kib = costs.iter().map(|c| c.max_rss_kib).max().unwrap_or(0);
    m
}

/// `a` and `b` measured `runs` times each, alternately (a, b, a, b, …), so that both see the
/// same phases of a busy machine; `between` runs before each measurement, untimed. The
/// medians of each.
pub fn median_pair(
    a: &mut std::process::Command,
    b: &mut std::process::Command,
    runs: usize,
    mut between: impl FnMut(),
) -> (ProcessCost, ProcessCost) {
    let (mut xs, mut ys) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        between();
        xs.push(measure(a));
        between();
        ys.push(measure(b));
    }
    let median = |mut costs: Vec<ProcessCost>| {
        costs.sort_by_key(|c| c.wall);
        let mut m = costs[costs.len() / 2];
        m.max_rss_kib = costs.iter().map(|c| c.max_rss_kib).max().unwrap_or(0);
        m
    };
    (median(xs), median(ys))
}

/// A `toolhost` command over `fx` (workspace and data dir set).
pub fn toolhost_command(fx: &Fixture) -> std::process::Command {
    let mut cmd = std::process::Command::new(toolhost_bin());
    cmd.arg("--workspace").arg(fx.root()).arg("--data-dir").arg(fx.data.path());
    postgres::store_env(&mut cmd, fx.data.path());
    cmd
}

/// Milliseconds, for printing.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
