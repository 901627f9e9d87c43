//! `sandboxPermissions` + `justification` (docs/contract.md#escalation-parameters): the request as
//! the model writes it, its validation, and the grants it becomes.

use std::path::Path;

use toolhost_limits::MAX_ESCALATION_PATHS;

use super::{Access, PathGrant, Scope, real_path};

/// `sandboxPermissions`: only `paths`, unknown fields rejected
/// (docs/contract.md#escalation-parameters).
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SandboxPermissionsInput {
    /// Paths this one call needs beyond the sandbox (up to 16 entries; at least one unless
    /// `network` is asked for).
    #[serde(default)]
    pub paths: Vec<PathPermission>,
    /// bash only: this one call needs the network (the sandbox has none by default).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub network: bool,
}

/// One requested path.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PathPermission {
    /// Absolute, or relative to the working directory.
    pub path: String,
    /// `read` or `write` (write includes read).
    pub access: Access,
    /// `exact` (this path only) or `subtree` (the path and everything below it).
    pub scope: Scope,
}

/// The escalation parameters of `write`, `edit` and `bash`
/// (docs/contract.md#escalation-parameters).
#[derive(
    Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EscalationRequest {
    /// Extra paths this one call needs; the user approves or refuses them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_permissions: Option<SandboxPermissionsInput>,
    /// One sentence for the user: why this call needs those paths. Required with
    /// `sandboxPermissions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub justification: Option<String>,
}

/// Why an escalation request is malformed (model-facing text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EscalationError {
    #[error("sandboxPermissions.paths must list 1 to {max} paths (or none with \"network\": true); got {0}", max = MAX_ESCALATION_PATHS)]
    PathCount(usize),
    #[error(
        "sandboxPermissions.paths[{0}].path is empty; give an absolute path or one relative to the working directory"
    )]
    EmptyPath(usize),
    #[error("justification must be a non-empty sentence when sandboxPermissions is given")]
    MissingJustification,
}

/// A validated escalation: normalized grants and the justification to show the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escalation {
    pub grants: Vec<PathGrant>,
    /// The call asks for the network.
    pub network: bool,
    pub justification: String,
}

impl EscalationRequest {
    /// Validates the request; relative paths are resolved against `cwd` and made real.
    /// `Ok(None)` when no permissions were asked for.
    pub fn validate(&self, cwd: &Path) -> Result<Option<Escalation>, EscalationError> {
        let Some(perms) = &self.sandbox_permissions else {
            return Ok(None);
        };
        let n = perms.paths.len();
        if (n == 0 && !perms.network) || n > MAX_ESCALATION_PATHS {
            return Err(EscalationError::PathCount(n));
        }
        let justification = self.justification.as_deref().map(str::trim).unwrap_or("");
        if justification.is_empty() {
            return Err(EscalationError::MissingJustification);
        }
        let mut grants = Vec::with_capacity(n);
        for (i, p) in perms.paths.iter().enumerate() {
            if p.path.trim().is_empty() {
                return Err(EscalationError::EmptyPath(i));
            }
            let path = Path::new(&p.path);
            let abs = if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) };
            grants.push(PathGrant { path: real_path(&abs), access: p.access, scope: p.scope });
        }
        Ok(Some(Escalation {
            grants,
            network: perms.network,
            justification: justification.to_string(),
        }))
    }
}
