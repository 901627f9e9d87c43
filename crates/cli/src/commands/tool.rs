//! `toolhost tool add|publish|list|show|remove`: the installed third-party tools (contract in
//! docs/cli.md and docs/extending.md). `add` checks the component (the rules, and conformance's
//! static and describe checks), shows the user what it is and what its risk lets it do, asks on a
//! terminal (default no; `--yes` for scripts, a non-terminal without it is refused), then records
//! it pinned by its SHA-256. An `oci://` reference is first pulled into a temp file
//! ([`super::tool_oci`]) and then added the same way, its pin also naming the reference and
//! manifest digest. Exit codes: 0 done, 1 refused or no such tool (the reason on stderr), 2 usage.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use toolhost::display::{terminal_line, terminal_text};
use toolhost::plugins::rules::risk_meaning;
use toolhost::plugins::{InstalledSet, InstalledTool};
use toolhost::runtime::Allocation;

use super::tool_install::{Origin, add, refuse};
use crate::setup::Setup;

/// What `toolhost tool` does.
#[derive(Subcommand)]
pub enum ToolAction {
    /// Install a tool component (or upgrade the installed one with its id), from a file or
    /// an OCI registry (`oci://HOST[:PORT]/REPOSITORY:TAG` or `…@sha256:DIGEST`).
    Add {
        /// The component (`.wasm`) or its `oci://` reference.
        file: PathBuf,
        /// Install without asking (for scripts).
        #[arg(long)]
        yes: bool,
        /// An `oci://` component must carry a cosign signature by this public key (PEM; may be
        /// repeated; policy.json's `registries.keys` may require more).
        #[arg(long, value_name = "KEY.pub")]
        key: Vec<PathBuf>,
        /// Reach a registry that is not on loopback in plain HTTP (no TLS).
        #[arg(long)]
        insecure_http: bool,
    },
    /// Push a tool component to an OCI registry (`oci://HOST[:PORT]/REPOSITORY:TAG`), signed
    /// with a cosign key when `--key` is given.
    Publish {
        /// The component (`.wasm`).
        file: PathBuf,
        /// Where to push it: `oci://HOST[:PORT]/REPOSITORY:TAG`.
        reference: String,
        /// Sign it with this private key: cosign's encrypted format (password in
        /// COSIGN_PASSWORD) or an unencrypted PKCS#8 PEM, ECDSA P-256.
        #[arg(long, value_name = "cosign.key")]
        key: Option<PathBuf>,
        /// Reach a registry that is not on loopback in plain HTTP (no TLS).
        #[arg(long)]
        insecure_http: bool,
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
pub async fn run(setup: &Setup, action: &ToolAction) -> Result<ExitCode> {
    let store = setup.installed_set();
    match action {
        ToolAction::Add { file, yes, key, insecure_http } => {
            match file.to_str().filter(|f| f.starts_with(super::tool_oci::SCHEME)) {
                Some(reference) => {
                    let how = super::tool_oci::How { keys: key, insecure_http: *insecure_http };
                    super::tool_oci::add(setup, &store, reference, *yes, how).await
                }
                None if !key.is_empty() || *insecure_http => Ok(refuse(
                    "--key and --insecure-http apply to an oci:// reference, not to a file",
                )),
                None => {
                    let source = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
                    let origin =
                        Origin { shown: source.display().to_string(), ..Origin::default() };
                    add(setup, &store, &source, *yes, origin).await
                }
            }
        }
        ToolAction::Publish { file, reference, key, insecure_http } => {
            super::tool_oci::publish(setup, file, reference, key.as_deref(), *insecure_http).await
        }
        ToolAction::List { json } => list(&store, *json),
        ToolAction::Show { id, json } => show(setup, &store, id, *json).await,
        ToolAction::Remove { id } => remove(&store, id),
    }
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
        if let Some(pin) = &t.oci {
            out!("{}", super::tool_install::pin_lines(pin, ""));
        }
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
