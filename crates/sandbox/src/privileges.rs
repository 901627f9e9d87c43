//! Running as root: the file tools read and write only what bash could.
//!
//! bash runs with every capability dropped, so as root it is refused other users' `0600`
//! files. The host process itself has `CAP_DAC_OVERRIDE` and `CAP_DAC_READ_SEARCH`, with
//! which the file tools would read them anyway. [`drop_file_access_overrides`] removes both
//! from the effective and inheritable sets at start, before any thread exists, so every later
//! open is judged by the file's mode bits as bash's would be. They stay permitted for one
//! use: [`with_file_access_overrides`] raises them on the calling thread alone (capabilities
//! are per thread) around the host's own cgroup bookkeeping (`/sys/fs/cgroup` directories
//! are mode 0555), and lowers them again. The
//! system credential files root owns itself (`/etc/shadow`, …) are the policy's credential
//! tier instead (`toolhost_policy::SYSTEM_CREDENTIAL_PATHS`).

/// `CAP_DAC_OVERRIDE`: bypass file read, write and execute permission checks.
#[cfg(target_os = "linux")]
const CAP_DAC_OVERRIDE: u32 = 1;
/// `CAP_DAC_READ_SEARCH`: bypass file read and directory search permission checks.
#[cfg(target_os = "linux")]
const CAP_DAC_READ_SEARCH: u32 = 2;

/// What [`drop_file_access_overrides`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dropped {
    /// The process had neither capability (not root, or already without them).
    NotHeld,
    /// Both were removed.
    Removed,
    /// The kernel refused; the reason.
    Failed(String),
}

/// Removes `CAP_DAC_OVERRIDE` and `CAP_DAC_READ_SEARCH` from the calling thread, which must be
/// the only thread (call it first in `main`; threads started later inherit the sets).
#[cfg(target_os = "linux")]
pub fn drop_file_access_overrides() -> Dropped {
    let mut data = match crate::caps::get() {
        Ok(d) => d,
        Err(e) => return Dropped::Failed(e.to_string()),
    };
    let mask = (1u32 << CAP_DAC_OVERRIDE) | (1u32 << CAP_DAC_READ_SEARCH);
    if (data[0].effective | data[0].permitted) & mask == 0 {
        return Dropped::NotHeld;
    }
    for set in [&mut data[0].effective, &mut data[0].inheritable] {
        *set &= !mask;
    }
    match crate::caps::set(&data) {
        Ok(()) => Dropped::Removed,
        Err(e) => Dropped::Failed(e.to_string()),
    }
}

/// Runs `f` with `CAP_DAC_OVERRIDE` raised on this thread if it is permitted, then lowers
/// it. `f` must not await or hand work to other threads (it runs on this one alone).
#[cfg(target_os = "linux")]
pub fn with_file_access_overrides<R>(f: impl FnOnce() -> R) -> R {
    let raised = set_effective(true);
    let out = f();
    if raised {
        set_effective(false);
    }
    out
}

#[cfg(target_os = "linux")]
fn set_effective(on: bool) -> bool {
    let Ok(mut data) = crate::caps::get() else { return false };
    let bit = 1u32 << CAP_DAC_OVERRIDE;
    if data[0].permitted & bit == 0 || (data[0].effective & bit != 0) == on {
        return false;
    }
    if on {
        data[0].effective |= bit;
    } else {
        data[0].effective &= !bit;
    }
    crate::caps::set(&data).is_ok()
}

/// Not Linux: `f` as it is.
#[cfg(not(target_os = "linux"))]
pub fn with_file_access_overrides<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Not Linux: nothing to drop here (macOS has no such capabilities; root stays root).
#[cfg(not(target_os = "linux"))]
pub fn drop_file_access_overrides() -> Dropped {
    Dropped::NotHeld
}
