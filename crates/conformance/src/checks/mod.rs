//! The checks, group by group. Each pushes [`Check`]s onto the report; a group that cannot
//! run because an earlier one failed (no component, no definition) is not run.
//!
//! * `describe.output-schema` — none, or a valid JSON Schema 2020-12 of an object (0.2.0).
//! * `outputs.structured` — no call's structured result was withheld by the host: a tool
//!   with an output schema returns a matching value on every success, one without returns none.
//! * `bounds.result-size` — every result text ≤ 32,000 bytes (`warn`: the host cuts it; a good
//!   tool bounds itself and says how to continue); `bounds.memory` — no call ran out of the
//!   per-call memory cap.
//! * `deadline.deadline`, `deadline.cancel` — a call with a 50 ms deadline, and one cancelled
//!   after 20 ms, end promptly: `pass` when the tool finishes in time or notices itself,
//!   `warn` when only the host's epoch stopped it, `fail` past a second.
//! * `capabilities.grant` — nothing refused for lack of a grant (a read-only tool that opens a
//!   file for writing fails, naming the call); `capabilities.inspect` — `inspect` never says
//!   read-only for a call that then commits a write, and says `runs(...)` for every call of a
//!   process-execution tool that runs a program (another tool's programs run read-only); `capabilities.credentials` — a call that
//!   reached for a path the policy refuses (the fake credential) is a `warn`, the credential's
//!   content in a result a `fail`.
//! * `isolation.box` — that every call ran boxed into the scratch workspace
//!   ([`SandboxPolicy::confined_to`] of the user's own policy): always a pass, it states the box.
//! * `isolation.ambient` — what WASI gives a component (nothing: the host links an empty
//!   context), and what its imports show it may try.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::result::{ErrorCode, ToolResult};
use toolhost_core::tool::{CallInspection, DynTool, ToolDefinition};
use toolhost_limits::{
    CONFORMANCE_CALLS_BUDGET_MS, CONFORMANCE_INPUTS_BUDGET_MS, CONFORMANCE_MAX_DEADLINE_HITS,
    MAX_RESULT_BYTES,
};
use toolhost_plugins::rules;
use toolhost_policy::SandboxPolicy;
use toolhost_runtime::component_tool::{
    STOPPED_AT_DEADLINE, STOPPED_ON_CANCEL, STRUCTURED_WITHHELD,
};
use toolhost_runtime::input::INPUT_REFUSED_BY_HOST;
use toolhost_runtime::validate::InvalidComponent;
use toolhost_runtime::{Allocation, ComponentRuntime, ComponentTool, MAX_STORE_MEMORY};

use crate::generate::{Rng, input};
use crate::{Check, Options, Outcome, Report};

/// Why a file could not be checked at all (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum CannotCheck {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{} is not WebAssembly (no `\\0asm` header)", path.display())]
    NotWasm { path: PathBuf },
    #[error("cannot start the WebAssembly runtime: {0}")]
    Runtime(String),
    #[error("cannot make the scratch workspace: {0}")]
    Scratch(std::io::Error),
    /// Its definition goes past a limit ([`toolhost_runtime::definition::PastLimit`]): the
    /// host reads it no further, so nothing can be checked (no input generated, no call made).
    #[error("{} cannot be checked: {source}", path.display())]
    Definition { path: PathBuf, source: toolhost_runtime::definition::DefinitionError },
}

/// Check the component at `path`. `policy` is the deployment's policy of a call (its HOME,
/// data dir and `policy.json`): every call of the check runs boxed into a scratch workspace
/// made from it ([`SandboxPolicy::confined_to`]), never under a weaker one.
pub async fn check(
    path: &Path,
    options: &Options,
    policy: &SandboxPolicy,
) -> Result<Report, CannotCheck> {
    let bytes: Arc<[u8]> = std::fs::read(path)
        .map_err(|source| CannotCheck::Read { path: path.to_path_buf(), source })?
        .into();
    if !toolhost_runtime::validate::is_webassembly(&bytes) {
        return Err(CannotCheck::NotWasm { path: path.to_path_buf() });
    }
    let runtime =
        ComponentRuntime::with_allocation(options.cache_dir.clone(), Allocation::OnDemand)
            .map_err(|e| CannotCheck::Runtime(e.to_string()))?;
    if let Some(progress) = options.progress.clone() {
        // A large component compiles for a while before the first check: say so.
        runtime.on_compile(Box::new(move |what, bytes| {
            let _ = progress.send(toolhost_runtime::engine::compiling_text(what, bytes));
        }));
    }
    let mut report = Report {
        component: path.display().to_string(),
        seed: options.seed,
        checks: Vec::new(),
        timings: Vec::new(),
    };
    run_all(&runtime, path, bytes, options, policy, &mut report).await?;
    Ok(report)
}

mod calls;
mod capabilities;
mod deadline;
mod describe;
mod sections;

use calls::{bounds_checks, input_checks, output_checks, shown};
use capabilities::capability_checks;
use deadline::deadline_checks;
use describe::{describe_checks, inspection_name, static_failure};

/// How long one generated input's call may run.
const CASE_DEADLINE: Duration = Duration::from_secs(2);
/// The short deadline of `deadline.deadline`, and when `deadline.cancel` cancels.
const SHORT_DEADLINE: Duration = Duration::from_millis(50);
const CANCEL_AFTER: Duration = Duration::from_millis(20);
/// Past the deadline (or the cancel) by more than this, a call did not end promptly.
const PROMPT: Duration = Duration::from_secs(1);

/// Record a check; a `fail` or `warn` ends with the section of docs/authoring.md that explains
/// it ([`sections::linked`]).
fn push(report: &mut Report, name: &str, outcome: Outcome, message: impl Into<String>) {
    let message = match outcome {
        Outcome::Pass => message.into(),
        Outcome::Fail | Outcome::Warn => sections::linked(name, message.into()),
    };
    report.checks.push(Check { name: name.into(), outcome, message });
}

/// The scratch world calls run in: a workspace with a few files, a data dir, a fake HOME with
/// a fake credential whose content must never come back. Calls run boxed into the workspace
/// ([`SandboxPolicy::confined_to`] of the deployment's own policy): nothing outside it — the
/// user's HOME, the data dirs, the temp dir, the fake HOME — is readable or writable, by the
/// component or by a program it runs, and every tier of the user's policy still applies.
struct Scratch {
    /// When every call must have ended ([`CONFORMANCE_CALLS_BUDGET_MS`] after the first).
    calls_end: Instant,
    _dir: tempfile::TempDir,
    session: ToolSessionContext,
    policy: SandboxPolicy,
    marker: String,
}

impl Scratch {
    fn new(seed: u64, policy: &SandboxPolicy) -> std::io::Result<Self> {
        let dir = tempfile::Builder::new().prefix("toolhost-conformance-").tempdir()?;
        let root = dir.path().canonicalize()?;
        let (ws, home, data) = (root.join("ws"), root.join("home"), root.join("data"));
        for d in [&ws, &home.join(".ssh"), &data, &ws.join("src")] {
            std::fs::create_dir_all(d)?;
        }
        std::fs::write(ws.join("a.txt"), "alpha\nbeta\n")?;
        std::fs::write(ws.join("README.md"), "# scratch\nhello\n")?;
        std::fs::write(ws.join("src/main.rs"), "fn main() {\n    println!(\"hi\");\n}\n")?;
        let marker = format!("FAKE-CREDENTIAL-{seed:x}-{}", std::process::id());
        std::fs::write(home.join(".ssh/id_rsa"), format!("-----BEGIN FAKE KEY-----\n{marker}\n"))?;
        let policy = policy.confined_to(&ws);
        // The platform's sandbox, as a user's session gets it (bubblewrap alone on Linux: no
        // Landlock helper, no remembered self-check).
        let sandbox = toolhost_sandbox::platform_backend(Default::default());
        let session = ToolSessionContext::local(&ws, &data, "conformance", sandbox);
        let calls_end = Instant::now() + Duration::from_millis(CONFORMANCE_CALLS_BUDGET_MS);
        Ok(Scratch { calls_end, _dir: dir, session, policy, marker })
    }

    /// A call's context: its deadline `deadline` from now, cut to the calls' budget.
    fn call_context(&self, id: usize, deadline: Duration) -> ToolCallContext {
        self.call_context_until(id, Instant::now() + deadline)
    }

    /// A call's context: its deadline at `at`, cut to the calls' budget.
    fn call_context_until(&self, id: usize, at: Instant) -> ToolCallContext {
        ToolCallContext::new(format!("conformance-{id}"), self.policy.clone())
            .with_deadline(at.min(self.calls_end))
    }

    /// Whether the calls' budget is spent.
    fn spent(&self) -> bool {
        Instant::now() >= self.calls_end
    }
}

/// One generated input's call.
struct Case {
    input: Value,
    valid: bool,
    result: ToolResult,
    crashed: bool,
    refusals: Vec<String>,
    /// Programs the call ran (`process.run`), as `program args…`.
    runs: Vec<String>,
}

pub(crate) async fn run_all(
    runtime: &Arc<ComponentRuntime>,
    path: &Path,
    bytes: Arc<[u8]>,
    options: &Options,
    policy: &SandboxPolicy,
    report: &mut Report,
) -> Result<(), CannotCheck> {
    let started = Instant::now();
    options.note("static: compiling the component");
    let inspected = match runtime.inspect(path, bytes).await {
        Ok(i) => i,
        Err(InvalidComponent::Definition(source)) if source.is_limit() => {
            return Err(CannotCheck::Definition { path: path.to_path_buf(), source });
        }
        Err(e) => {
            static_failure(report, e);
            report.timings.push(("static".into(), started.elapsed().as_millis()));
            return Ok(());
        }
    };
    let ambient = static_checks(report, &inspected);
    report.timings.push(("static".into(), started.elapsed().as_millis()));

    let started = Instant::now();
    let tool = inspected.tool;
    let def = tool.definition().clone();
    let Some(validator) = describe_checks(report, &tool, &def).await else {
        report.timings.push(("describe".into(), started.elapsed().as_millis()));
        return Ok(());
    };
    report.timings.push(("describe".into(), started.elapsed().as_millis()));
    if options.static_and_describe_only {
        return Ok(());
    }

    let started = Instant::now();
    let scratch = Scratch::new(options.seed, policy).map_err(CannotCheck::Scratch)?;
    push(
        report,
        "isolation.box",
        Outcome::Pass,
        format!(
            "every call ran boxed into a scratch workspace ({}): nothing outside it was readable or writable for the component or any program it ran (not HOME, not the data dir, not the temp dir), with no network and no grant",
            scratch.policy.workspace().display()
        ),
    );
    let tool = tool.with_grant(def.risk);
    let cases = input_cases(report, &tool, &def, &validator, &scratch, options, started).await;
    tool.reset_crashes();
    answer_check(report, &cases);
    input_checks(report, &cases, options);
    output_checks(report, &cases, &def, options);
    report.timings.push(("inputs".into(), started.elapsed().as_millis()));

    let started = Instant::now();
    bounds_checks(report, &cases, options);
    report.timings.push(("bounds".into(), started.elapsed().as_millis()));

    let started = Instant::now();
    let sample = cases
        .iter()
        .find(|c| c.valid && !c.crashed)
        .map(|c| c.input.clone())
        .unwrap_or_else(|| serde_json::json!({}));
    deadline_checks(report, &tool, &scratch, &sample).await;
    report.timings.push(("deadline".into(), started.elapsed().as_millis()));

    let started = Instant::now();
    options.note("capabilities");
    capability_checks(report, &tool, &def, &scratch, &cases).await;
    report.timings.push(("capabilities".into(), started.elapsed().as_millis()));
    push(report, "isolation.ambient", Outcome::Pass, ambient);
    Ok(())
}

/// `static.*` of a component that compiled: what it is, which contract it targets, what it
/// imports and exports. Returns `isolation.ambient`'s message (from its WASI imports).
fn static_checks(report: &mut Report, inspected: &toolhost_runtime::loader::Inspected) -> String {
    push(report, "static.component", Outcome::Pass, "a WebAssembly component");
    push(
        report,
        "static.contract",
        Outcome::Pass,
        format!("targets toolhost:tool@{}", inspected.wit_version),
    );
    let wasi = wasi_packages(&inspected.imports);
    push(report, "static.imports", Outcome::Pass, imports_message(&wasi));
    let parallel = inspected.exports.iter().any(|e| e.starts_with("toolhost:tool/parallel@"));
    push(
        report,
        "static.exports",
        Outcome::Pass,
        if parallel { "exports tool and parallel" } else { "exports tool" },
    );
    ambient_message(&wasi)
}

/// The generated inputs' calls, each with a deadline cut to the inputs' share of the run
/// (which began at `started`); stopped early, with an `inputs.bounded` warning, when too many
/// ran past their deadline or the share is spent.
async fn input_cases(
    report: &mut Report,
    tool: &ComponentTool,
    def: &ToolDefinition,
    validator: &jsonschema::Validator,
    scratch: &Scratch,
    options: &Options,
    started: Instant,
) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    let mut cases = Vec::with_capacity(options.cases);
    let inputs_end = started + Duration::from_millis(CONFORMANCE_INPUTS_BUDGET_MS);
    let mut past_deadline = 0;
    let mut stopped = None;
    for i in 0..options.cases {
        if past_deadline >= CONFORMANCE_MAX_DEADLINE_HITS {
            stopped = Some(format!(
                "{past_deadline} calls ran past their {} s deadline",
                CASE_DEADLINE.as_secs()
            ));
        } else if Instant::now() >= inputs_end {
            stopped = Some(format!(
                "the inputs' {} s share of the run was spent",
                CONFORMANCE_INPUTS_BUDGET_MS / 1000
            ));
        }
        if stopped.is_some() {
            break;
        }
        options.note(format!("inputs: {}/{}", i + 1, options.cases));
        let value = input(&def.input_schema, &mut rng, i);
        let valid = validator.is_valid(&value);
        tool.reset_crashes();
        // Its deadline, cut to the inputs' share (but never below the short deadline).
        let now = Instant::now();
        let ctx = scratch
            .call_context_until(i, (now + CASE_DEADLINE).min(inputs_end.max(now + SHORT_DEADLINE)));
        let result = tool.call(&scratch.session, ctx, value.clone()).await;
        if result.error.as_ref().is_some_and(|e| e.message.ends_with(STOPPED_AT_DEADLINE)) {
            past_deadline += 1;
        }
        cases.push(Case {
            crashed: tool.crash_streak() > 0,
            refusals: tool.grant().take_refusals(),
            runs: tool.grant().take_runs(),
            input: value,
            valid,
            result,
        });
    }
    if let Some(why) = stopped {
        push(
            report,
            "inputs.bounded",
            Outcome::Warn,
            format!(
                "stopped after {} of {} generated inputs: {why} (a run of conformance makes its calls within {} s); answer within the call's deadline and check cancelled() in long loops",
                cases.len(),
                options.cases,
                CONFORMANCE_CALLS_BUDGET_MS / 1000
            ),
        );
    }
    cases
}

/// `inputs.answers`: a tool that answers none of the calls that reached it (each ran past its
/// deadline and the host stopped it) is not conformant — it fails. One that answered some
/// and ran past the deadline on others gets a warning naming one such input; calls the host
/// refused itself (their arguments broke the schema) never reached the tool and do not count.
fn answer_check(report: &mut Report, cases: &[Case]) {
    let reached: Vec<&Case> = cases
        .iter()
        .filter(|c| {
            !c.result.error.as_ref().is_some_and(|e| e.message.ends_with(INPUT_REFUSED_BY_HOST))
        })
        .collect();
    let late: Vec<&&Case> = reached
        .iter()
        .filter(|c| {
            c.result.error.as_ref().is_some_and(|e| e.message.ends_with(STOPPED_AT_DEADLINE))
        })
        .collect();
    let deadline = CASE_DEADLINE.as_secs();
    let (outcome, message) = match (reached.len(), late.len()) {
        (0, _) => (
            Outcome::Pass,
            "no generated input reached the tool (the host refused every one against the schema)"
                .to_string(),
        ),
        (n, 0) => (Outcome::Pass, format!("the tool answered all {n} calls that reached it")),
        (n, k) if k == n => (
            Outcome::Fail,
            format!(
                "the tool answered none of the {n} calls that reached it: each ran past its {deadline} s deadline and the host stopped it (e.g. {}); a tool that never answers is not conformant: return a result (or an error) within the call's deadline and check cancelled() in long loops",
                shown(&late[0].input)
            ),
        ),
        (n, k) => (
            Outcome::Warn,
            format!(
                "{k} of the {n} calls that reached the tool ran past their {deadline} s deadline and the host stopped them (e.g. {}); the rest answered",
                shown(&late[0].input)
            ),
        ),
    };
    push(report, "inputs.answers", outcome, message);
}

/// The WASI packages among `imports` (`wasi:filesystem`, …), each once, in the order first
/// imported.
fn wasi_packages(imports: &[String]) -> Vec<&str> {
    let mut packages: Vec<&str> = Vec::new();
    for import in imports.iter().filter(|i| i.starts_with("wasi:")) {
        let package = import.split('/').next().unwrap_or(import);
        if !packages.contains(&package) {
            packages.push(package);
        }
    }
    packages
}

/// What the host links behind a WASI package: nothing, for those that could reach out.
fn behind(package: &str) -> Option<&'static str> {
    match package {
        "wasi:filesystem" => Some("no preopened directory"),
        "wasi:sockets" => Some("no address a socket may connect to or listen on"),
        "wasi:cli" => Some("no environment, no arguments, stdout and stderr discarded"),
        _ => None,
    }
}

/// `static.imports` of a component that passed validation: it imports only `toolhost:tool`
/// and the WASI 0.2 packages the host links; those a language runtime imports are named, with
/// what is behind them (nothing).
fn imports_message(wasi: &[&str]) -> String {
    let reaching: Vec<&str> =
        wasi.iter().copied().filter(|p| matches!(*p, "wasi:filesystem" | "wasi:sockets")).collect();
    let allowed = "imports only toolhost:tool and the WASI 0.2 packages the host links";
    let (is, them) = match reaching.len() {
        0 => return allowed.into(),
        1 => ("is", "it"),
        _ => ("are", "them"),
    };
    format!(
        "{allowed}; {}, which a language runtime imports, {is} linked with nothing behind {them} ({}): the tool reaches files only through toolhost:tool/workspace (docs/authoring.md#wasi-a-language-runtime-imports)",
        reaching.join(" and "),
        reaching.iter().filter_map(|p| behind(p)).collect::<Vec<_>>().join(", "),
    )
}

/// `isolation.ambient`: what each WASI package the component imports finds (nothing that
/// reaches out), naming only those it imports, each once.
fn ambient_message(wasi: &[&str]) -> String {
    if wasi.is_empty() {
        return "imports no WASI package: it reaches nothing but the toolhost:tool capabilities"
            .into();
    }
    let each: Vec<String> = wasi
        .iter()
        .map(|p| match behind(p) {
            Some(nothing) => format!("{p} ({nothing})"),
            None => p.to_string(),
        })
        .collect();
    format!(
        "WASI is linked with an empty context; the WASI packages it imports, {}, reach nothing outside the toolhost:tool capabilities",
        each.join(", ")
    )
}

#[cfg(test)]
mod answer_tests {
    use super::*;
    use toolhost_core::result::ToolError;

    fn case(result: ToolResult) -> Case {
        Case {
            input: serde_json::json!({"path": "a"}),
            valid: true,
            result,
            crashed: false,
            refusals: Vec::new(),
            runs: Vec::new(),
        }
    }

    fn late() -> Case {
        case(ToolResult::from_error(ToolError::new(ErrorCode::Timeout, STOPPED_AT_DEADLINE)))
    }

    fn answered() -> Case {
        case(ToolResult::from_error(ToolError::invalid_arguments("no such file")))
    }

    fn refused_by_host() -> Case {
        let text = format!("invalid tool input: `path` is missing; {INPUT_REFUSED_BY_HOST}");
        case(ToolResult::from_error(ToolError::invalid_arguments(text)))
    }

    fn judged(cases: &[Case]) -> Check {
        let mut report =
            Report { component: "x".into(), seed: 1, checks: Vec::new(), timings: Vec::new() };
        answer_check(&mut report, cases);
        report.checks.pop().unwrap()
    }

    #[test]
    fn a_tool_that_never_answers_fails_and_one_slow_call_among_answers_warns() {
        // Every call that reached it ran past its deadline (the host's own refusals do not
        // count): not conformant.
        let never = judged(&[late(), refused_by_host(), late()]);
        assert_eq!(never.outcome, Outcome::Fail, "{}", never.message);
        assert!(never.message.contains("answered none of the 2 calls"), "{}", never.message);
        assert!(never.message.contains("2 s deadline"), "{}", never.message);
        // One slow call among answers: a warning naming it, not a failure.
        let once = judged(&[answered(), late(), answered()]);
        assert_eq!(once.outcome, Outcome::Warn, "{}", once.message);
        assert!(once.message.starts_with("1 of the 3 calls"), "{}", once.message);
        assert_eq!(judged(&[answered(), refused_by_host()]).outcome, Outcome::Pass);
        assert_eq!(judged(&[refused_by_host()]).outcome, Outcome::Pass);
    }
}
