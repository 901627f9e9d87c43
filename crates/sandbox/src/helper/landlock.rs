//! Landlock inside bubblewrap: the ruleset the helper applies before it execs the command
//! (writes only under the writable roots and `/dev`; abstract sockets and signals scoped from
//! ABI 6), and the ABI the kernel offers, for `doctor`.

use std::path::PathBuf;

use super::HelperError;
use toolhost_policy::SandboxPolicy;

/// What [`apply_landlock`] achieved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LandlockStatus {
    /// Every requested restriction is enforced.
    FullyEnforced,
    /// The kernel supports only part of the ruleset (older ABI).
    PartiallyEnforced,
    /// The kernel has no Landlock; bubblewrap alone protects.
    NotEnforced,
}

/// Restricts the calling thread (and what it execs) with Landlock: read and execute
/// everywhere, write only under `writable` and `/dev`, abstract unix sockets and signals
/// scoped to the sandbox (ABI ≥ 6); sets `no_new_privs`.
#[cfg(target_os = "linux")]
pub fn apply_landlock(writable: &[PathBuf]) -> Result<LandlockStatus, HelperError> {
    use landlock::{
        ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, Scope, path_beneath_rules,
    };
    let abi = ABI::V5;
    let err = |e: &dyn std::fmt::Display| HelperError::Landlock(e.to_string());
    let all = AccessFs::from_all(abi);
    let read = AccessFs::from_read(abi);
    let mut rw_paths: Vec<&std::path::Path> = writable.iter().map(|p| p.as_path()).collect();
    rw_paths.push(std::path::Path::new("/dev"));
    let status = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(|e| err(&e))?
        // ABI 6: no abstract unix socket and no signal reaches a process outside the sandbox
        // (best effort: older kernels leave this to the network and PID namespaces).
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(|e| err(&e))?
        .create()
        .map_err(|e| err(&e))?
        .add_rules(path_beneath_rules(["/"], read))
        .map_err(|e| err(&e))?
        .add_rules(path_beneath_rules(rw_paths, all))
        .map_err(|e| err(&e))?
        .restrict_self()
        .map_err(|e| err(&e))?;
    Ok(match status.ruleset {
        RulesetStatus::FullyEnforced => LandlockStatus::FullyEnforced,
        RulesetStatus::PartiallyEnforced => LandlockStatus::PartiallyEnforced,
        RulesetStatus::NotEnforced => LandlockStatus::NotEnforced,
    })
}

/// The Landlock tier's ruleset ([`crate::landlock_tier`]): read and execute only beneath
/// `read`, everything beneath `writable`, read and write of the [`DEVICES`] files, no TCP bind
/// or connect unless `network` (ABI ≥ 4), abstract unix sockets and signals scoped (ABI ≥ 6).
/// Restricts the calling thread and what it execs.
///
/// [`DEVICES`]: crate::landlock_tier::plan::DEVICES
#[cfg(target_os = "linux")]
pub fn apply_tier(
    read: &[PathBuf],
    writable: &[PathBuf],
    network: bool,
) -> Result<LandlockStatus, HelperError> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
        RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
    };
    let abi = ABI::V6;
    let err = |e: &dyn std::fmt::Display| HelperError::Landlock(e.to_string());
    let all = AccessFs::from_all(abi);
    let read_access = AccessFs::from_read(abi);
    let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::IoctlDev;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(|e| err(&e))?;
    if !network {
        // Handled with no rule: every TCP bind and connect is refused.
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(|e| err(&e))?;
    }
    let status = ruleset
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(|e| err(&e))?
        .create()
        .map_err(|e| err(&e))?
        .add_rules(path_beneath_rules(read, read_access))
        .map_err(|e| err(&e))?
        .add_rules(path_beneath_rules(writable, all))
        .map_err(|e| err(&e))?
        .add_rules(path_beneath_rules(crate::landlock_tier::plan::DEVICES, device))
        .map_err(|e| err(&e))?
        .restrict_self()
        .map_err(|e| err(&e))?;
    Ok(match status.ruleset {
        RulesetStatus::FullyEnforced => LandlockStatus::FullyEnforced,
        RulesetStatus::PartiallyEnforced => LandlockStatus::PartiallyEnforced,
        RulesetStatus::NotEnforced => LandlockStatus::NotEnforced,
    })
}

/// Landlock exists only on Linux.
#[cfg(not(target_os = "linux"))]
pub fn apply_tier(
    _read: &[PathBuf],
    _writable: &[PathBuf],
    _network: bool,
) -> Result<LandlockStatus, HelperError> {
    Ok(LandlockStatus::NotEnforced)
}

/// The Landlock ABI version the kernel offers (0: none), for `doctor`.
#[cfg(target_os = "linux")]
pub fn landlock_abi() -> i64 {
    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns the ABI version.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    v.max(0)
}

/// Landlock exists only on Linux.
#[cfg(not(target_os = "linux"))]
pub fn landlock_abi() -> i64 {
    0
}

/// Landlock exists only on Linux.
#[cfg(not(target_os = "linux"))]
pub fn apply_landlock(_writable: &[PathBuf]) -> Result<LandlockStatus, HelperError> {
    Ok(LandlockStatus::NotEnforced)
}

/// [`apply_landlock`] with the writable roots of `policy`.
pub fn apply_landlock_for(policy: &SandboxPolicy) -> Result<LandlockStatus, HelperError> {
    apply_landlock(&policy.writable_roots())
}
