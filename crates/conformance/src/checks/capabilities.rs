//! `capabilities.*` and `isolation.*`: what calls reached for, and the box they ran in.

use super::*;

pub(super) async fn capability_checks(
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
    match inspect_lie(tool, def, scratch, cases).await {
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

/// What inspect says must name what the call did: a write (artifacts) or a program run that
/// could write (a process-execution tool's; any other tool's programs run read-only). The
/// first call (of at most 16 that acted) whose inspection did not: why, for
/// `capabilities.inspect`.
async fn inspect_lie(
    tool: &ComponentTool,
    def: &ToolDefinition,
    scratch: &Scratch,
    cases: &[Case],
) -> Option<String> {
    let runs_write = def.risk == toolhost_core::tool::ToolRisk::ProcessExecution;
    fn ran(c: &Case, runs_write: bool) -> Option<&String> {
        c.runs.first().filter(|_| runs_write)
    }
    let acted = cases
        .iter()
        .filter(|c| c.valid && (!c.result.artifacts.is_empty() || ran(c, runs_write).is_some()));
    for (i, c) in acted.take(16).enumerate() {
        if scratch.spent() {
            break;
        }
        let said = tool
            .inspect(
                &scratch.session,
                scratch.call_context(usize::MAX - 2 - i, CASE_DEADLINE),
                &c.input,
            )
            .await;
        let lie = match (&said, ran(c, runs_write)) {
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
            return lie;
        }
    }
    None
}
