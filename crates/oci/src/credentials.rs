//! Registry credentials from the docker config (`$DOCKER_CONFIG/config.json`, else
//! `~/.docker/config.json`): the `auths` entry for the registry (`auth` = base64 of
//! `user:password`, or `username` and `password`). Credential helpers (`credsStore`,
//! `credHelpers`) are not run. Credentials are handed to the client and never printed: no
//! error here names more than the file.

use std::collections::BTreeMap;
use std::path::PathBuf;

use base64::Engine;
use oci_client::secrets::RegistryAuth;

use crate::error::OciError;

#[derive(serde::Deserialize, Default)]
struct DockerConfig {
    #[serde(default)]
    auths: BTreeMap<String, AuthEntry>,
}

#[derive(serde::Deserialize, Default)]
struct AuthEntry {
    #[serde(default)]
    auth: Option<String>,
    #[serde(default)]
    username: Option<String>,
    #[serde(default)]
    password: Option<String>,
}

/// The docker config file in use, if any is named by the environment.
pub fn docker_config_path() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("DOCKER_CONFIG").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("config.json"));
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(PathBuf::from(home).join(".docker").join("config.json"))
}

/// The credentials for `registry` (`HOST[:PORT]`): anonymous when there is no docker config
/// or no entry for it.
pub fn for_registry(registry: &str) -> Result<RegistryAuth, OciError> {
    let Some(path) = docker_config_path() else { return Ok(RegistryAuth::Anonymous) };
    let shown = path.display().to_string();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(RegistryAuth::Anonymous),
        Err(e) => return Err(OciError::Credentials { path: shown, why: e.to_string() }),
    };
    // serde's message names a line and column, never the values.
    let config: DockerConfig =
        serde_json::from_slice(&bytes).map_err(|e| OciError::Credentials {
            path: shown.clone(),
            why: format!("not valid JSON ({})", e.classify_name()),
        })?;
    let wanted =
        [registry.to_string(), format!("https://{registry}"), format!("http://{registry}")];
    let entry = config.auths.iter().find(|(key, _)| {
        let key = key.trim_end_matches('/');
        wanted
            .iter()
            .any(|w| key == w || key.strip_prefix(w.as_str()).is_some_and(|r| r.starts_with('/')))
    });
    let Some((_, entry)) = entry else { return Ok(RegistryAuth::Anonymous) };
    if let Some(auth) = entry.auth.as_deref().filter(|a| !a.is_empty()) {
        let bad = || OciError::Credentials {
            path: shown.clone(),
            why: format!("the `auth` of {registry} is not base64 of user:password"),
        };
        let decoded = base64::engine::general_purpose::STANDARD.decode(auth).map_err(|_| bad())?;
        let text = String::from_utf8(decoded).map_err(|_| bad())?;
        let (user, password) = text.split_once(':').ok_or_else(bad)?;
        return Ok(RegistryAuth::Basic(user.into(), password.into()));
    }
    match (&entry.username, &entry.password) {
        (Some(user), Some(password)) => Ok(RegistryAuth::Basic(user.clone(), password.clone())),
        _ => Ok(RegistryAuth::Anonymous),
    }
}

trait Classify {
    fn classify_name(&self) -> &'static str;
}

impl Classify for serde_json::Error {
    fn classify_name(&self) -> &'static str {
        match self.classify() {
            serde_json::error::Category::Io => "unreadable",
            serde_json::error::Category::Syntax => "syntax error",
            serde_json::error::Category::Data => "unexpected shape",
            serde_json::error::Category::Eof => "cut short",
        }
    }
}
