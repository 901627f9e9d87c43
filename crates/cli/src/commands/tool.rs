//! `toolhost tool add|list|show|remove`: the installed third-party tools (contract in
//! docs/cli.md and docs/extending.md). `add` checks the component (the rules, and conformance's
//! static and describe checks), shows the user what it is and what its risk lets it do, asks on a
//! terminal (default no; `--yes` for scripts, a non-terminal without it is refused), then records
//! it pinned by its SHA-256. Exit codes: 0 done, 1 refused or no such tool (the reason on stderr),
//! 2 usage.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use toolhost::display::{terminal_line, terminal_text};
use toolhost::plugins::rules::{risk_meaning, risk_rank};
use toolhost::plugins::{Candidate, InstalledSet, InstalledTool, Taken, installed::now_rfc3339};
use toolhost::runtime::Allocation;

use crate::setup::Setup;

/// What `toolhost tool` does.
#[derive(Subcommand)]
pub enum Action {
    /// Install a tool component (or upgrade the installed one with its id).
    Add {
        /// The component (`.wasm`).
        file: PathBuf,
        /// Install without asking (for scripts).
        #[arg(long)]
        yes: bool,
    },
    /// List the installed tools.
    List {
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one installed tool, with its definition.
    Show {
        /// The tool id.
        id: String,
        /// Print it as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Uninstall a tool.
    Remove {
        /// The tool id.
        id: String,
    },
}

/// Run `action` over the data dir of `setup`.
pub async fn run(setup: &Setup, action: &Action) -> Result<ExitCode> {
    let store = setup.installed_set();
    match action {
        Action::Add { file, yes } => add(setup, &store, file, *yes).await,
        Action::List { json } => list(&store, *json),
        Action::Show { id, json } => show(setup, &store, id, *json).await,
        Action::Remove { id } => remove(&store, id),
    }
}

fn refuse(message: &str) -> ExitCode {
    eprintln!("toolhost: {}", terminal_text(message));
    ExitCode::FAILURE
}

async fn add(
    setup: &Setup,
    store: &InstalledSet,
    file: &std::path::Path,
    yes: bool,
) -> Result<ExitCode> {
    let runtime = setup.runtime(Allocation::OnDemand)?;
    let source = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    // Its id must differ, ignoring case, from every built-in's and installed one's (but the
    // one it upgrades, spelt exactly the same).
    let installed: Vec<String> = store.list()?.into_iter().map(|t| t.id).collect();
    let mut taken: Vec<Taken<'_>> =
        toolhost::builtins::DEFAULT_TOOLSET.iter().map(|id| Taken::Builtin(id)).collect();
    taken.extend(installed.iter().map(|id| Taken::Upgradable(id)));
    // Compiling a large component takes seconds (a CPython one, ~10 s): say so on a terminal.
    // It is compiled once: the checks below and every later call use the compiled cache.
    if std::io::stderr().is_terminal() {
        let size = std::fs::metadata(&source).map(|m| m.len()).unwrap_or(0);
        eprintln!(
            "toolhost: checking {} ({:.1} MB): validating, compiling and describing it…",
            terminal_text(&source.display().to_string()),
            size as f64 / 1e6
        );
    }
    let candidate = match toolhost::plugins::check_component(&runtime, &source, &taken).await {
        Ok(c) => c,
        Err(e) => return Ok(refuse(&format!("not installed: {e}"))),
    };
    // The conformance suite's static and describe checks too (`--yes` bypasses none).
    let options = toolhost_conformance::Options {
        cache_dir: Some(setup.data_dir.join("cache").join("components")),
        static_and_describe_only: true,
        ..Default::default()
    };
    if let Ok(report) = toolhost_conformance::check(&source, &options, &setup.policy).await {
        let failed: Vec<String> = report
            .checks
            .iter()
            .filter(|c| c.outcome == toolhost_conformance::Outcome::Fail)
            .map(|c| format!("{} ({})", c.name, c.message))
            .collect();
        if !failed.is_empty() {
            return Ok(refuse(&format!(
                "not installed: {} fails conformance: {}",
                source.display(),
                failed.join("; ")
            )));
        }
    }
    let def = candidate.definition();
    let id = def.id.to_string();
    let previous = store.get(&id)?;
    out!("{}", summary(&candidate, previous.as_ref()));
    if !yes {
        if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
            return Ok(refuse(
                "not installed: nobody was asked (not a terminal); pass --yes to install without asking",
            ));
        }
        let question = if previous.is_some() {
            format!("Upgrade `{id}`? [y/N] ")
        } else {
            format!("Install `{id}`? [y/N] ")
        };
        let asked =
            tokio::task::spawn_blocking(move || toolhost::approval::ask_on_terminal(&question))
                .await
                .unwrap_or(false);
        if !asked {
            return Ok(refuse(&format!("not installed: `{id}` was not approved")));
        }
    }
    let record = InstalledTool {
        id: id.clone(),
        sha256: candidate.sha256.clone(),
        risk: def.risk,
        size: candidate.bytes.len() as u64,
        source: source.display().to_string(),
        added: now_rfc3339(),
        wit: candidate.wit_version.clone(),
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

/// What the user is asked to approve: every field the component wrote made safe for a
/// terminal (its description cannot redraw the prompt).
fn summary(candidate: &Candidate, previous: Option<&InstalledTool>) -> String {
    let def = candidate.definition();
    let mut out = format!(
        "tool component {}\n  id:          {}\n  description: {}\n  risk:        {} — {}\n  size:        {} bytes\n  sha256:      {}\n  contract:    toolhost:tool@{}\n",
        terminal_line(&candidate.path.display().to_string()),
        def.id,
        terminal_line(def.description.trim()),
        def.risk.name(),
        risk_meaning(def.risk),
        candidate.bytes.len(),
        candidate.sha256,
        candidate.wit_version,
    );
    if let Some(old) = previous {
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

/// `tool list`: one line per installed tool (id, granted risk, sha256, source, added), and
/// whether its file still matches its pin.
fn list(store: &InstalledSet, json: bool) -> Result<ExitCode> {
    let tools = store.list()?;
    if json {
        let rows: Vec<serde_json::Value> = tools.iter().map(|t| record_json(store, t)).collect();
        outln!("{}", toolhost::display::json_text(&serde_json::to_string_pretty(&rows)?));
        return Ok(ExitCode::SUCCESS);
    }
    for t in &tools {
        let status = match store.verified_bytes(t) {
            Ok(_) => String::new(),
            Err(why) => format!("\tNOT LOADED: {why}"),
        };
        outln!(
            "{}\t{}\t{}\t{}\t{}{}",
            t.id,
            t.risk.name(),
            t.sha256,
            terminal_line(&t.source),
            t.added,
            terminal_text(&status)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// An installed tool as JSON: its record, plus `loaded` and, when not, `notLoaded` (why).
fn record_json(store: &InstalledSet, t: &InstalledTool) -> serde_json::Value {
    let mut v = serde_json::to_value(t).unwrap_or_default();
    if let Some(obj) = v.as_object_mut() {
        match store.verified_bytes(t) {
            Ok(_) => {
                obj.insert("loaded".into(), true.into());
            }
            Err(why) => {
                obj.insert("loaded".into(), false.into());
                obj.insert("notLoaded".into(), why.to_string().into());
            }
        }
    }
    v
}

/// `tool show ID`: the record and the definition the component gives.
async fn show(setup: &Setup, store: &InstalledSet, id: &str, json: bool) -> Result<ExitCode> {
    let Some(t) = store.get(id)? else {
        return Ok(refuse(&format!("no installed tool `{id}` (see `toolhost tool list`)")));
    };
    let definition = match store.verified_bytes(&t) {
        Ok(bytes) => {
            let runtime = setup.runtime(Allocation::OnDemand)?;
            match runtime.load_pinned(&store.file_of(&t), bytes, &t.sha256).await {
                Ok(tool) => Ok(toolhost::DynTool::definition(&tool).clone()),
                Err(e) => Err(e.to_string()),
            }
        }
        Err(why) => Err(why.to_string()),
    };
    if json {
        let mut v = record_json(store, &t);
        if let (Some(obj), Ok(def)) = (v.as_object_mut(), &definition) {
            obj.insert("definition".into(), serde_json::to_value(def)?);
        }
        outln!("{}", toolhost::display::json_text(&serde_json::to_string_pretty(&v)?));
    } else {
        outln!("id:          {}", t.id);
        outln!("risk:        {} (granted) — {}", t.risk.name(), risk_meaning(t.risk));
        outln!("sha256:      {}", t.sha256);
        outln!("size:        {} bytes", t.size);
        outln!("source:      {}", terminal_line(&t.source));
        outln!("added:       {}", t.added);
        outln!("contract:    toolhost:tool@{}", t.wit);
        match &definition {
            Ok(def) => {
                // One escaped line: a description cannot print a field of its own under these.
                outln!("description: {}", terminal_line(def.description.trim()));
                outln!(
                    "input schema:\n{}",
                    toolhost::display::json_text(&serde_json::to_string_pretty(&def.input_schema)?)
                );
            }
            Err(why) => outln!("NOT LOADED:  {}", terminal_line(why)),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn remove(store: &InstalledSet, id: &str) -> Result<ExitCode> {
    let lock = store.lock()?;
    if !store.remove(&lock, id)? {
        return Ok(refuse(&format!("no installed tool `{id}` (see `toolhost tool list`)")));
    }
    outln!("removed `{id}`");
    Ok(ExitCode::SUCCESS)
}
