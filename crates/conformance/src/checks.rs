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
//!   read-only for a call that then commits a write, and says `runs(...)` for every call that
//!   runs a program; `capabilities.credentials` — a call that
//!   reached for a path the policy refuses (the fake credential) is a `warn`, the credential's
//!   content in a result a `fail`.
//! * `isolation.box` — that every call ran boxed into the scratch workspace
//!   ([`SandboxPolicy::confined_to`] of the user's own policy): always a pass, it states the box.
//! * `isolation.ambient` — what WASI gives a component (nothing: the host links an empty
//!   context), and what its imports show it may try.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::policy::SandboxPolicy;
use toolhost_core::result::{ErrorCode, ToolResult};
use toolhost_core::tool::{CallInspection, DynTool, ToolDefinition};
use toolhost_limits::MAX_RESULT_BYTES;
use toolhost_plugins::rules;
use toolhost_runtime::component_tool::{
    STOPPED_AT_DEADLINE, STOPPED_ON_CANCEL, STRUCTURED_WITHHELD,
};
use toolhost_runtime::validate::InvalidComponent;
use toolhost_runtime::{ComponentRuntime, ComponentTool, MAX_STORE_MEMORY};

use crate::generate::{Rng, input};
use crate::{CannotCheck, Check, Options, Outcome, Report};

/// How long one generated input's call may run.
const CASE_DEADLINE: Duration = Duration::from_secs(2);
/// The short deadline of `deadline.deadline`, and when `deadline.cancel` cancels.
const SHORT_DEADLINE: Duration = Duration::from_millis(50);
const CANCEL_AFTER: Duration = Duration::from_millis(20);
/// Past the deadline (or the cancel) by more than this, a call did not end promptly.
const PROMPT: Duration = Duration::from_secs(1);

fn push(report: &mut Report, name: &str, outcome: Outcome, message: impl Into<String>) {
    report.checks.push(Check { name: name.into(), outcome, message: message.into() });
}

/// The scratch world calls run in: a workspace with a few files, a data dir, a fake HOME with
/// a fake credential whose content must never come back. Calls run boxed into the workspace
/// ([`SandboxPolicy::confined_to`] of the deployment's own policy): nothing outside it — the
/// user's HOME, the data dirs, the temp dir, the fake HOME — is readable or writable, by the
/// component or by a program it runs, and every tier of the user's policy still applies.
struct Scratch {
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
        let session = ToolSessionContext::local(&ws, &data, "conformance");
        Ok(Scratch { _dir: dir, session, policy, marker })
    }

    fn call_context(&self, id: usize, deadline: Duration) -> ToolCallContext {
        ToolCallContext::new(format!("conformance-{id}"), self.policy.clone())
            .with_deadline(Instant::now() + deadline)
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
    push(report, "static.component", Outcome::Pass, "a WebAssembly component");
    push(
        report,
        "static.contract",
        Outcome::Pass,
        format!("targets toolhost:tool@{}", inspected.wit_version),
    );
    let wasi_fs = inspected.imports.iter().any(|i| i.starts_with("wasi:filesystem/"));
    let wasi_net = inspected.imports.iter().any(|i| i.starts_with("wasi:sockets/"));
    match (wasi_fs, wasi_net) {
        (false, false) => {
            push(report, "static.imports", Outcome::Pass, "imports only toolhost:tool and WASI 0.2")
        }
        _ => push(
            report,
            "static.imports",
            Outcome::Warn,
            format!(
                "imports {}, which the host links empty (no preopened directory, no socket allowed): reach files through toolhost:tool/workspace instead",
                [wasi_fs.then_some("wasi:filesystem"), wasi_net.then_some("wasi:sockets")]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
        ),
    }
    let parallel = inspected.exports.iter().any(|e| e.starts_with("toolhost:tool/parallel@"));
    push(
        report,
        "static.exports",
        Outcome::Pass,
        if parallel { "exports tool and parallel" } else { "exports tool" },
    );
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
    let mut rng = Rng::new(options.seed);
    let mut cases = Vec::with_capacity(options.cases);
    for i in 0..options.cases {
        let value = input(&def.input_schema, &mut rng, i);
        let valid = validator.is_valid(&value);
        tool.reset_crashes();
        let result = tool
            .call(&scratch.session, scratch.call_context(i, CASE_DEADLINE), value.clone())
            .await;
        cases.push(Case {
            crashed: tool.crash_streak() > 0,
            refusals: tool.grant().take_refusals(),
            runs: tool.grant().take_runs(),
            input: value,
            valid,
            result,
        });
    }
    tool.reset_crashes();
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
    capability_checks(report, &tool, &def, &scratch, &cases).await;
    report.timings.push(("capabilities".into(), started.elapsed().as_millis()));
    let mut imports: Vec<&str> = inspected
        .imports
        .iter()
        .filter(|i| i.starts_with("wasi:"))
        .map(|i| i.split('/').next().unwrap_or(i))
        .collect();
    imports.dedup();
    push(
        report,
        "isolation.ambient",
        Outcome::Pass,
        format!(
            "WASI is linked with an empty context: no preopened directory, environment, argument or socket, so std::fs, std::env and std::net find nothing (WASI packages imported: {})",
            if imports.is_empty() { "none".to_string() } else { imports.join(", ") }
        ),
    );
    Ok(())
}

fn static_failure(report: &mut Report, e: InvalidComponent) {
    let (name, text) = match &e {
        InvalidComponent::NotWasm | InvalidComponent::CoreModule | InvalidComponent::Compile(_) => {
            ("static.component", e.to_string())
        }
        InvalidComponent::ForeignImport(_) => ("static.imports", e.to_string()),
        InvalidComponent::NoToolExport(_) | InvalidComponent::Link(_) => {
            ("static.exports", e.to_string())
        }
        InvalidComponent::Describe(_) => ("describe.returns", e.to_string()),
        InvalidComponent::Definition(d) => (definition_check(d), e.to_string()),
    };
    for passed in ["static.component", "static.imports", "static.exports", "describe.returns"] {
        if passed == name {
            break;
        }
        push(report, passed, Outcome::Pass, "");
    }
    push(report, name, Outcome::Fail, text);
}

/// The `describe.*` check a definition's refusal belongs to (the runtime checks every
/// definition with [`rules::check_definition`] as soon as `describe` returns).
fn definition_check(e: &rules::DefinitionError) -> &'static str {
    use rules::DefinitionError as E;
    match e {
        E::Id(_) | E::BuiltinId { .. } | E::DuplicateId { .. } => "describe.id",
        E::Description => "describe.description",
        E::Schema(_) => "describe.schema",
        E::OutputSchema(_) | E::Limit(_) => "describe.output-schema",
    }
}

/// The `describe.*` checks; the schema's validator when the schema is one.
async fn describe_checks(
    report: &mut Report,
    tool: &ComponentTool,
    def: &ToolDefinition,
) -> Option<jsonschema::Validator> {
    push(report, "describe.returns", Outcome::Pass, format!("describes `{}`", def.id));
    match (tool.describe_again().await, tool.describe_again().await) {
        (Ok(a), Ok(b)) if &a == def && &b == def => {
            push(report, "describe.stable", Outcome::Pass, "the same on every fresh instance")
        }
        (Err(e), _) | (_, Err(e)) => {
            push(report, "describe.stable", Outcome::Fail, format!("a second describe failed: {e}"))
        }
        _ => push(
            report,
            "describe.stable",
            Outcome::Fail,
            "a fresh instance describes the tool differently; describe must return a constant",
        ),
    }
    let id = def.id.as_str();
    if !rules::valid_id(id) {
        push(
            report,
            "describe.id",
            Outcome::Fail,
            rules::DefinitionError::Id(id.into()).to_string(),
        );
    } else if rules::RESERVED_IDS.iter().any(|b| b.eq_ignore_ascii_case(id)) {
        push(
            report,
            "describe.id",
            Outcome::Warn,
            format!(
                "`{id}` is a built-in tool's id: `tool add` refuses it, give a third-party tool another"
            ),
        );
    } else {
        push(report, "describe.id", Outcome::Pass, format!("`{id}`"));
    }
    if def.description.trim().is_empty() {
        push(
            report,
            "describe.description",
            Outcome::Fail,
            rules::DefinitionError::Description.to_string(),
        );
    } else {
        push(report, "describe.description", Outcome::Pass, "");
    }
    push(report, "describe.risk", Outcome::Pass, def.risk.name());
    let schema = &def.input_schema;
    let validator = match rules::check_schema(schema).map_err(|e| e.to_string()).and_then(|()| {
        toolhost_runtime::definition::compile_schema(schema)
            .map_err(|e| format!("its input schema does not compile as JSON Schema 2020-12: {e}"))
    }) {
        Ok(v) => {
            push(
                report,
                "describe.schema",
                Outcome::Pass,
                "a valid JSON Schema (2020-12) of an object",
            );
            Some(v)
        }
        Err(e) => {
            push(report, "describe.schema", Outcome::Fail, e);
            None
        }
    };
    output_schema_check(report, def);
    let undocumented = undocumented_properties(schema);
    if undocumented.is_empty() {
        push(
            report,
            "describe.property-descriptions",
            Outcome::Pass,
            "every property has a description",
        );
    } else {
        push(
            report,
            "describe.property-descriptions",
            Outcome::Warn,
            format!(
                "properties without a description (the model reads them): {}; add a doc comment or \"description\"",
                undocumented.join(", ")
            ),
        );
    }
    validator
}

/// How an inspection is named in a report.
fn inspection_name(i: &CallInspection) -> String {
    match i {
        CallInspection::ReadOnly => "read-only".into(),
        CallInspection::Writes(path) => format!("writes({path:?})"),
        CallInspection::Runs(command) => format!("runs({command:?})"),
    }
}

/// `describe.output-schema`: none (text results only), or a valid JSON Schema 2020-12 of an
/// object (toolhost:tool 0.2.0).
fn output_schema_check(report: &mut Report, def: &ToolDefinition) {
    let Some(schema) = &def.output_schema else {
        push(report, "describe.output-schema", Outcome::Pass, "none: the tool returns text only");
        return;
    };
    let checked = rules::check_output_schema(schema).map_err(|e| e.to_string());
    match checked {
        Ok(_) => push(
            report,
            "describe.output-schema",
            Outcome::Pass,
            "a valid JSON Schema (2020-12) of an object",
        ),
        Err(e) => push(report, "describe.output-schema", Outcome::Fail, e),
    }
}

/// `outputs.structured`: no call's structured result was withheld by the host (it broke the
/// output schema, or was missing, or came without one).
fn output_checks(report: &mut Report, cases: &[Case], def: &ToolDefinition, options: &Options) {
    let withheld = |c: &&Case| {
        c.result.error.as_ref().is_some_and(|e| e.message.ends_with(STRUCTURED_WITHHELD))
    };
    let broken: Vec<&Case> = cases.iter().filter(withheld).collect();
    match smallest(broken.iter().copied()) {
        None => {
            let structured = cases.iter().filter(|c| c.result.structured.is_some()).count();
            let message = match &def.output_schema {
                None => "text only, as its definition says".to_string(),
                Some(_) => {
                    format!("{structured} structured results, each matching the output schema")
                }
            };
            push(report, "outputs.structured", Outcome::Pass, message);
        }
        Some(c) => push(
            report,
            "outputs.structured",
            Outcome::Fail,
            format!(
                "{} calls returned a structured result the host withheld, e.g. {} → {}; return a value that matches the output schema, or fix the schema (replay with --seed {} --cases {})",
                broken.len(),
                shown(&c.input),
                c.result.text().chars().take(300).collect::<String>(),
                options.seed,
                options.cases
            ),
        ),
    }
}

/// Top-level (and variant) properties with no `description`, after local `$ref`s.
fn undocumented_properties(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut objects = vec![schema];
    for key in ["oneOf", "anyOf"] {
        if let Some(vs) = schema.get(key).and_then(Value::as_array) {
            objects.extend(vs);
        }
    }
    for obj in objects {
        let Some(props) = obj.get("properties").and_then(Value::as_object) else { continue };
        for (name, p) in props {
            let p = crate::generate::resolve(schema, p);
            let described =
                p.get("description").and_then(Value::as_str).is_some_and(|d| !d.trim().is_empty())
                    || p.get("const").is_some();
            if !described && !out.contains(name) {
                out.push(name.clone());
            }
        }
    }
    out
}

/// The smallest input (as JSON text) of `cases`, shown in a failure.
fn smallest<'a>(cases: impl Iterator<Item = &'a Case>) -> Option<&'a Case> {
    cases.min_by_key(|c| c.input.to_string().len())
}

fn shown(v: &Value) -> String {
    let text = v.to_string();
    if text.len() > 300 {
        format!("{}… ({} bytes)", &text[..text.floor_char_boundary(300)], text.len())
    } else {
        text
    }
}

fn input_checks(report: &mut Report, cases: &[Case], options: &Options) {
    let valid = cases.iter().filter(|c| c.valid).count();
    let replay = format!("replay with --seed {} --cases {}", options.seed, options.cases);
    match smallest(cases.iter().filter(|c| c.crashed)) {
        None => push(
            report,
            "inputs.no-trap",
            Outcome::Pass,
            format!(
                "{} inputs ({valid} valid, {} invalid), none trapped",
                cases.len(),
                cases.len() - valid
            ),
        ),
        Some(c) => push(
            report,
            "inputs.no-trap",
            Outcome::Fail,
            format!(
                "{} of {} inputs trapped or ran out of memory, e.g. {} → {}; return a tool error instead ({replay})",
                cases.iter().filter(|c| c.crashed).count(),
                cases.len(),
                shown(&c.input),
                c.result.text()
            ),
        ),
    }
    let refused_right = |c: &Case| {
        c.result.error.as_ref().is_some_and(|e| {
            e.code == ErrorCode::InvalidArguments
                && e.message.starts_with(toolhost_core::tool::INVALID_INPUT_PREFIX)
        })
    };
    let wrong: Vec<&Case> =
        cases.iter().filter(|c| !c.valid && !c.crashed && !refused_right(c)).collect();
    match smallest(wrong.iter().copied()) {
        None => push(
            report,
            "inputs.invalid-refused",
            Outcome::Pass,
            "every input that breaks the schema is invalid_arguments starting `invalid tool input: `",
        ),
        Some(c) => push(
            report,
            "inputs.invalid-refused",
            Outcome::Fail,
            format!(
                "{} inputs that break the schema were not refused as invalid_arguments starting `invalid tool input: `, e.g. {} → {:?}: {}; parse the input against the schema first ({replay})",
                wrong.len(),
                shown(&c.input),
                c.result.status,
                c.result.text().chars().take(200).collect::<String>()
            ),
        ),
    }
}

fn bounds_checks(report: &mut Report, cases: &[Case], options: &Options) {
    match smallest(cases.iter().filter(|c| c.result.text().len() > MAX_RESULT_BYTES)) {
        None => push(
            report,
            "bounds.result-size",
            Outcome::Pass,
            format!("every result ≤ {MAX_RESULT_BYTES} bytes"),
        ),
        Some(c) => push(
            report,
            "bounds.result-size",
            Outcome::Warn,
            format!(
                "a result of {} bytes (input {}): the host cuts it at {MAX_RESULT_BYTES} and saves the rest; bound it yourself and tell the model how to ask for more (--seed {})",
                c.result.text().len(),
                shown(&c.input),
                options.seed
            ),
        ),
    }
    let hoarded = |c: &Case| {
        c.result.usage.is_some_and(|u| u.peak_memory_bytes as usize >= MAX_STORE_MEMORY)
            || c.result.text().contains("ran out of memory")
    };
    match smallest(cases.iter().filter(|c| hoarded(c))) {
        None => {
            let peak = cases
                .iter()
                .filter_map(|c| c.result.usage)
                .map(|u| u.peak_memory_bytes)
                .max()
                .unwrap_or(0);
            push(
                report,
                "bounds.memory",
                Outcome::Pass,
                format!(
                    "peak memory {:.1} MiB of the {} MiB cap",
                    peak as f64 / (1 << 20) as f64,
                    MAX_STORE_MEMORY >> 20
                ),
            );
        }
        Some(c) => push(
            report,
            "bounds.memory",
            Outcome::Fail,
            format!(
                "input {} reached the {} MiB memory cap: {}",
                shown(&c.input),
                MAX_STORE_MEMORY >> 20,
                c.result.text()
            ),
        ),
    }
}

async fn deadline_checks(
    report: &mut Report,
    tool: &ComponentTool,
    scratch: &Scratch,
    sample: &Value,
) {
    let t = Instant::now();
    let r = tool
        .call(
            &scratch.session,
            scratch.call_context(usize::MAX - 1, SHORT_DEADLINE),
            sample.clone(),
        )
        .await;
    let took = t.elapsed();
    judge_stop(
        report,
        "deadline.deadline",
        &r,
        took,
        SHORT_DEADLINE,
        ErrorCode::Timeout,
        STOPPED_AT_DEADLINE,
    );

    let ctx = scratch.call_context(usize::MAX, CASE_DEADLINE);
    let cancel = ctx.cancel.clone();
    let t = Instant::now();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(CANCEL_AFTER).await;
        cancel.cancel();
    });
    let r = tool.call(&scratch.session, ctx, sample.clone()).await;
    let took = t.elapsed();
    canceller.abort();
    judge_stop(
        report,
        "deadline.cancel",
        &r,
        took,
        CANCEL_AFTER,
        ErrorCode::Cancelled,
        STOPPED_ON_CANCEL,
    );
    tool.reset_crashes();
}

fn judge_stop(
    report: &mut Report,
    name: &str,
    r: &ToolResult,
    took: Duration,
    at: Duration,
    code: ErrorCode,
    host_text: &str,
) {
    let ms = took.as_secs_f64() * 1e3;
    let stopped = r.error.as_ref().filter(|e| e.code == code);
    if took > at + PROMPT {
        push(
            report,
            name,
            Outcome::Fail,
            format!(
                "the call ended {ms:.0} ms after it started, more than a second past the {} ms mark; check call.cancelled() in long loops",
                at.as_millis()
            ),
        );
    } else if stopped.is_some_and(|e| e.message == host_text) {
        push(
            report,
            name,
            Outcome::Warn,
            format!(
                "only the host stopped it ({ms:.0} ms); a tool that checks call.cancelled() can stop cleanly and say what it did"
            ),
        );
    } else if stopped.is_some() {
        push(
            report,
            name,
            Outcome::Pass,
            format!("the tool noticed and stopped itself in {ms:.0} ms"),
        );
    } else {
        push(report, name, Outcome::Pass, format!("finished in {ms:.0} ms"));
    }
}

async fn capability_checks(
    report: &mut Report,
    tool: &ComponentTool,
    def: &ToolDefinition,
    scratch: &Scratch,
    cases: &[Case],
) {
    match cases.iter().find(|c| !c.refusals.is_empty()) {
        None => push(
            report,
            "capabilities.grant",
            Outcome::Pass,
            format!("stayed within {}", def.risk.name()),
        ),
        Some(c) => push(
            report,
            "capabilities.grant",
            Outcome::Fail,
            format!(
                "declared {} but called {} (input {}); declare the risk it needs, or do not write",
                def.risk.name(),
                c.refusals.join(", "),
                shown(&c.input)
            ),
        ),
    }
    // What inspect says must name what the call did: a write (artifacts) or a program run.
    let mut lied = None;
    let acted =
        cases.iter().filter(|c| c.valid && (!c.result.artifacts.is_empty() || !c.runs.is_empty()));
    for (i, c) in acted.take(16).enumerate() {
        let said = tool
            .inspect(
                &scratch.session,
                scratch.call_context(usize::MAX - 2 - i, CASE_DEADLINE),
                &c.input,
            )
            .await;
        let lie = match (&said, c.runs.first()) {
            (Ok(CallInspection::Runs(_)), Some(_)) => None,
            (Ok(other), Some(ran)) => Some(format!(
                "inspect said {} for {}, which ran `{ran}`; return runs(\"program args…\") for it, so an approver sees what will run",
                inspection_name(other),
                shown(&c.input)
            )),
            (Ok(CallInspection::ReadOnly), None) => Some(format!(
                "inspect said read-only for {}, which committed a write; return writes(path) for it",
                shown(&c.input)
            )),
            _ => None,
        };
        if lie.is_some() {
            lied = lie;
            break;
        }
    }
    match lied {
        None => push(
            report,
            "capabilities.inspect",
            Outcome::Pass,
            "inspect names every call that writes or runs a program",
        ),
        Some(why) => push(report, "capabilities.inspect", Outcome::Fail, why),
    }
    if let Some(c) = cases.iter().find(|c| c.result.text().contains(&scratch.marker)) {
        push(
            report,
            "capabilities.credentials",
            Outcome::Fail,
            format!("the fake credential's content came back for input {}", shown(&c.input)),
        );
    } else if let Some(c) = cases.iter().find(|c| c.result.sandbox_denied) {
        push(
            report,
            "capabilities.credentials",
            Outcome::Warn,
            format!(
                "it reached for a path the policy refuses (input {}); the host refused it, but a tool should not ask",
                shown(&c.input)
            ),
        );
    } else {
        push(report, "capabilities.credentials", Outcome::Pass, "never reached for a refused path");
    }
}
