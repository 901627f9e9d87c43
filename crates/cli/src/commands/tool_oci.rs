//! `toolhost tool add oci://…` and `toolhost tool publish` (docs/extending.md, docs/cli.md).
//! An add pulls the reference once by its manifest digest into a temp file in the data dir
//! (`toolhost_oci::pull`: every blob digest-checked, size and time bounded, the cosign
//! signature by each required key verified first) and then goes through the same checks,
//! summary, question and install as a file ([`super::tool_install::add`]), its pin recording the
//! reference and manifest digest. Keys come from `--key` and policy.json's `registries.keys`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use toolhost::display::terminal_line;
use toolhost::plugins::{InstalledSet, OciPin};
use toolhost::runtime::Allocation;
use toolhost_oci::{OciReference, PublicKey, PullOptions, SigningKey, Transport};

use super::tool_install::{Origin, refuse};
use crate::setup::Setup;

/// The prefix that makes `tool add`'s argument a registry reference.
pub const SCHEME: &str = toolhost_oci::reference::SCHEME;

/// Where pulled components wait to be checked, inside the (hard-protected) data dir.
const PULL_DIR: &str = "cache/oci-pull";

/// How an `oci://` add reaches and trusts the registry.
pub struct How<'a> {
    /// Public keys given with `--key`.
    pub keys: &'a [PathBuf],
    /// `--insecure-http`.
    pub insecure_http: bool,
}

/// `tool add oci://…`.
pub async fn add(
    setup: &Setup,
    store: &InstalledSet,
    reference: &str,
    yes: bool,
    how: How<'_>,
) -> Result<ExitCode> {
    let reference = match OciReference::parse(reference) {
        Ok(r) => r,
        Err(e) => return Ok(refuse(&format!("not installed: {e}"))),
    };
    let mut key_files = how.keys.to_vec();
    key_files.extend(setup.registries.keys_for(&reference.repository_path()));
    // Recorded as `signed by`: absolute, so the pin names the file wherever it is shown.
    let mut key_files: Vec<PathBuf> =
        key_files.iter().map(|k| std::path::absolute(k).unwrap_or_else(|_| k.clone())).collect();
    key_files.sort();
    key_files.dedup();
    let mut keys = Vec::new();
    for file in &key_files {
        match PublicKey::load(file) {
            Ok(k) => keys.push(k),
            Err(e) => return Ok(refuse(&format!("not installed: {e}"))),
        }
    }
    let temp_dir = setup.data_dir.join(PULL_DIR);
    std::fs::create_dir_all(&temp_dir)?;
    remove_stale_pulls(&temp_dir);
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        eprintln!("toolhost: pulling {}…", terminal_line(reference.as_str()));
    }
    let options =
        PullOptions { transport: Transport { insecure_http: how.insecure_http }, keys, temp_dir };
    let pulled = match toolhost_oci::pull(&reference, &options).await {
        Ok(p) => p,
        Err(e) => return Ok(refuse(&format!("not installed: {e}"))),
    };
    let origin = Origin {
        shown: reference.to_string(),
        sha256: pulled.layer_digest.strip_prefix("sha256:").map(str::to_string),
        oci: Some(OciPin {
            reference: reference.to_string(),
            manifest_digest: pulled.manifest_digest.clone(),
            signed_by: pulled.signed_by.clone(),
        }),
    };
    // The temp file is removed when `pulled` drops, after the install copied it.
    super::tool_install::add(setup, store, pulled.file.path(), yes, origin).await
}

/// Remove what a killed add left in `dir`: downloads older than twice the longest transfer.
fn remove_stale_pulls(dir: &Path) {
    let stale = std::time::Duration::from_millis(2 * toolhost_limits::OCI_TRANSFER_TIMEOUT_MS);
    toolhost::expire::remove_older_than(dir, stale, |name| {
        name.to_string_lossy().starts_with(".oci-")
    });
}

/// `tool publish FILE oci://… [--key cosign.key]`.
pub async fn publish(
    setup: &Setup,
    file: &Path,
    reference: &str,
    key: Option<&Path>,
    insecure_http: bool,
) -> Result<ExitCode> {
    let reference = match OciReference::parse(reference) {
        Ok(r) => r,
        Err(e) => return Ok(refuse(&format!("not published: {e}"))),
    };
    let signing = match key {
        Some(path) => {
            let password = std::env::var(toolhost_oci::keys::PASSWORD_ENV).ok();
            match SigningKey::load(path, password.as_deref().map(str::as_bytes)) {
                Ok(k) => Some(k),
                Err(e) => return Ok(refuse(&format!("not published: {e}"))),
            }
        }
        None => None,
    };
    // Only a component that would install is pushed.
    let runtime = setup.runtime(Allocation::OnDemand)?;
    let candidate = match toolhost::plugins::check_component(&runtime, file, &[]).await {
        Ok(c) => c,
        Err(e) => return Ok(refuse(&format!("not published: {e}"))),
    };
    let exports = vec![format!("toolhost:tool/tool@{}", candidate.wit_version)];
    let transport = Transport { insecure_http };
    let published = match toolhost_oci::publish(
        &candidate.bytes,
        &exports,
        &reference,
        &transport,
        signing.as_ref(),
    )
    .await
    {
        Ok(p) => p,
        Err(e) => return Ok(refuse(&format!("not published: {e}"))),
    };
    outln!("published {}", terminal_line(reference.as_str()));
    outln!("  manifest:    {}", published.manifest_digest);
    outln!("  component:   sha256:{}", candidate.sha256);
    match &published.signature_tag {
        Some(tag) => outln!("  signature:   {tag} (cosign, key-based)"),
        None => outln!("  signature:   none (pass --key to sign)"),
    }
    outln!(
        "install it pinned: toolhost tool add oci://{}@{}",
        reference.repository_path(),
        published.manifest_digest
    );
    Ok(ExitCode::SUCCESS)
}
