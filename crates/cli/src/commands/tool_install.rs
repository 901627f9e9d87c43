//! Installing one component file as a third-party tool (docs/extending.md): the checks, the
//! summary the user approves (every field made safe for a terminal, the registry pin and what
//! an upgrade changes), the question, and the pinned record. `tool add FILE` comes here
//! directly ([`super::tool`]), `tool add oci://…` once it has pulled the file
//! ([`super::tool_oci`]).

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Result;

use toolhost::display::{terminal_line, terminal_text};
use toolhost::plugins::rules::{risk_meaning, risk_rank};
use toolhost::plugins::{
    Candidate, InstalledSet, InstalledTool, OciPin, Taken, installed::now_rfc3339,
};
use toolhost::runtime::Allocation;

use crate::setup::Setup;

/// Where a component being added came from, beyond its file.
#[derive(Default)]
pub(crate) struct Origin {
    /// How it is shown and recorded as `source` (the file, or the `oci://` reference).
    pub shown: String,
    /// Its registry pin, when pulled from one.
    pub oci: Option<OciPin>,
    /// The SHA-256 (hex) its bytes must have (the pulled layer's digest).
    pub sha256: Option<String>,
}

pub(crate) fn refuse(message: &str) -> ExitCode {
    eprintln!("toolhost: {}", terminal_text(message));
    ExitCode::FAILURE
}

/// Check, show, ask about and install the component in `source` (from `origin`).
pub(crate) async fn add(
    setup: &Setup,
    store: &InstalledSet,
    source: &std::path::Path,
    yes: bool,
    origin: Origin,
) -> Result<ExitCode> {
    let runtime = setup.runtime(Allocation::OnDemand)?;
    // Its id must differ, ignoring case, from every built-in's and installed one's (but the
    // one it upgrades, spelt exactly the same).
    let installed: Vec<String> = store.list()?.into_iter().map(|t| t.id).collect();
    let mut taken: Vec<Taken<'_>> =
        toolhost::builtins::DEFAULT_TOOLSET.iter().map(|id| Taken::Builtin(id)).collect();
    taken.extend(installed.iter().map(|id| Taken::Upgradable(id)));
    // Compiling a large component takes seconds (a CPython one, ~10 s): say so on a terminal.
    // It is compiled once: the checks below and every later call use the compiled cache.
    if std::io::stderr().is_terminal() {
        let size = std::fs::metadata(source).map(|m| m.len()).unwrap_or(0);
        eprintln!(
            "toolhost: checking {} ({:.1} MB): validating, compiling and describing it…",
            terminal_text(&origin.shown),
            size as f64 / 1e6
        );
    }
    let candidate = match toolhost::plugins::check_component(&runtime, source, &taken).await {
        Ok(c) => c,
        Err(e) => return Ok(refuse(&format!("not installed: {e}"))),
    };
    if let Some(expected) = origin.sha256.as_ref().filter(|e| **e != candidate.sha256) {
        return Ok(refuse(&format!(
            "not installed: the downloaded component changed before it was checked (sha256 {} is not the pulled {expected})",
            candidate.sha256
        )));
    }
    if let Some(failed) = conformance_failures(setup, source).await {
        return Ok(refuse(&format!("not installed: {} fails conformance: {failed}", origin.shown)));
    }
    let def = candidate.definition();
    let id = def.id.to_string();
    let previous = store.get(&id)?;
    out!("{}", summary(&candidate, &origin, previous.as_ref()));
    if !yes && let Some(refusal) = not_approved(&id, previous.is_some()).await {
        return Ok(refuse(&refusal));
    }
    let record = InstalledTool {
        id: id.clone(),
        sha256: candidate.sha256.clone(),
        risk: def.risk,
        size: candidate.bytes.len() as u64,
        source: origin.shown.clone(),
        added: now_rfc3339(),
        wit: candidate.wit_version.clone(),
        oci: origin.oci.clone(),
    };
    let lock = store.lock()?;
    store.install(&lock, record, &candidate.bytes)?;
    outln!(
        "{} `{id}` ({})",
        if previous.is_some() { "upgraded" } else { "installed" },
        def.risk.name()
    );
    Ok(ExitCode::SUCCESS)
}

/// The conformance suite's static and describe checks on `source` (`--yes` bypasses none):
/// the failed ones, `name (message)` joined by `; `, if any failed.
async fn conformance_failures(setup: &Setup, source: &std::path::Path) -> Option<String> {
    let options = toolhost_conformance::Options {
        cache_dir: Some(setup.data_dir.join("cache").join("components")),
        static_and_describe_only: true,
        ..Default::default()
    };
    let report = toolhost_conformance::check(source, &options, &setup.policy).await.ok()?;
    let failed: Vec<String> = report
        .checks
        .iter()
        .filter(|c| c.outcome == toolhost_conformance::Outcome::Fail)
        .map(|c| format!("{} ({})", c.name, c.message))
        .collect();
    (!failed.is_empty()).then(|| failed.join("; "))
}

/// Asks on the terminal whether to install (or, `upgrade`, upgrade) the tool `id`: why not,
/// when nobody said yes (no terminal, or not approved).
async fn not_approved(id: &str, upgrade: bool) -> Option<String> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Some(
            "not installed: nobody was asked (not a terminal); pass --yes to install without asking"
                .into(),
        );
    }
    let question =
        if upgrade { format!("Upgrade `{id}`? [y/N] ") } else { format!("Install `{id}`? [y/N] ") };
    let asked = tokio::task::spawn_blocking(move || toolhost::approval::ask_on_terminal(&question))
        .await
        .unwrap_or(false);
    (!asked).then(|| format!("not installed: `{id}` was not approved"))
}

/// What the user is asked to approve: every field the component wrote made safe for a
/// terminal (its description cannot redraw the prompt).
fn summary(candidate: &Candidate, origin: &Origin, previous: Option<&InstalledTool>) -> String {
    let def = candidate.definition();
    let mut out = format!(
        "tool component {}\n  id:          {}\n  description: {}\n  risk:        {} — {}\n  size:        {} bytes\n  sha256:      {}\n  contract:    toolhost:tool@{}\n",
        terminal_line(&origin.shown),
        def.id,
        terminal_line(def.description.trim()),
        def.risk.name(),
        risk_meaning(def.risk),
        candidate.bytes.len(),
        candidate.sha256,
        candidate.wit_version,
    );
    if let Some(pin) = &origin.oci {
        out.push_str(&pin_lines(pin, "  "));
    }
    if let Some(old) = previous {
        if let Some(old_pin) = &old.oci {
            out.push_str(&changed_lines(old_pin, origin.oci.as_ref()));
        }
        out.push_str(&format!(
            "  upgrades:    `{}` installed {} (sha256 {}, granted {})\n",
            old.id,
            old.added,
            old.sha256,
            old.risk.name()
        ));
        if risk_rank(def.risk) > risk_rank(old.risk) {
            out.push_str(&format!(
                "  HIGHER RISK: it now asks for {}, more than the {} it was granted\n",
                def.risk.name(),
                old.risk.name()
            ));
        }
    }
    out
}

/// The pin's lines of a summary or `tool show`, each prefixed by `indent`.
pub(crate) fn pin_lines(pin: &OciPin, indent: &str) -> String {
    let mut out = format!(
        "{indent}reference:   {}\n{indent}manifest:    {}\n",
        terminal_line(&pin.reference),
        pin.manifest_digest
    );
    let signed = if pin.signed_by.is_empty() {
        "not verified (no key required)".to_string()
    } else {
        pin.signed_by.iter().map(|k| terminal_line(k)).collect::<Vec<_>>().join(", ")
    };
    out.push_str(&format!("{indent}signed by:   {signed}\n"));
    out
}

/// What a re-add changes of the installed pin `old`.
pub(crate) fn changed_lines(old: &OciPin, new: Option<&OciPin>) -> String {
    let mut out = String::new();
    match new {
        Some(new) if new.manifest_digest == old.manifest_digest => {
            out.push_str("  manifest:    the same as installed\n");
        }
        _ => out.push_str(&format!(
            "  was:         {} at manifest {}\n",
            terminal_line(&old.reference),
            old.manifest_digest
        )),
    }
    if !old.signed_by.is_empty() && new.is_none_or(|n| n.signed_by.is_empty()) {
        out.push_str("  UNSIGNED:    the installed one was verified by a key; this one is not\n");
    }
    out
}
