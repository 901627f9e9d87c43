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
//! tier instead (`toolhost_sandbox::policy::SYSTEM_CREDENTIAL_PATHS`).

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
    let mut data = match caps::get() {
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
    match caps::set(&data) {
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
    let Ok(mut data) = caps::get() else { return false };
    let bit = 1u32 << CAP_DAC_OVERRIDE;
    if data[0].permitted & bit == 0 || (data[0].effective & bit != 0) == on {
        return false;
    }
    if on {
        data[0].effective |= bit;
    } else {
        data[0].effective &= !bit;
    }
    caps::set(&data).is_ok()
}

/// Not Linux: `f` as it is.
#[cfg(not(target_os = "linux"))]
pub fn with_file_access_overrides<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Inside bash's sandbox, right before the command: empties the capability bounding set
/// (this needs `CAP_SETPCAP`, which bubblewrap keeps for the helper alone) and then clears
/// every capability set, so nothing the command execs can ever hold a capability. Without
/// `CAP_SETPCAP` (a helper run without it) the bounding set is left as it is.
#[cfg(target_os = "linux")]
pub fn drop_every_capability() -> Result<(), String> {
    const CAP_SETPCAP: u32 = 8;
    let last = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|t| t.trim().parse::<u32>().ok())
        .unwrap_or(40);
    for cap in 0..=last {
        if cap == CAP_SETPCAP {
            continue;
        }
        // SAFETY: prctl(PR_CAPBSET_DROP) only lowers this thread's bounding set.
        if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) } != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EPERM) {
                break;
            }
            return Err(format!("dropping capability {cap} from the bounding set: {e}"));
        }
    }
    // SAFETY: as above; SETPCAP last, since dropping it ends our right to drop.
    unsafe { libc::prctl(libc::PR_CAPBSET_DROP, CAP_SETPCAP as libc::c_ulong, 0, 0, 0) };
    caps::set(&[caps::Data::default(); 2])
        .map_err(|e| format!("clearing the capability sets: {e}"))?;
    Ok(())
}

/// Not Linux: no capabilities to drop.
#[cfg(not(target_os = "linux"))]
pub fn drop_every_capability() -> Result<(), String> {
    Ok(())
}

/// Not Linux: nothing to drop here (macOS has no such capabilities; root stays root).
#[cfg(not(target_os = "linux"))]
pub fn drop_file_access_overrides() -> Dropped {
    Dropped::NotHeld
}

/// `capget`/`capset` of the calling thread (ABI version 3: two 32-bit words per set).
#[cfg(target_os = "linux")]
mod caps {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }

    /// One 32-bit word of each set.
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    pub struct Data {
        pub effective: u32,
        pub permitted: u32,
        pub inheritable: u32,
    }

    const VERSION_3: u32 = 0x2008_0522;

    /// This thread's sets.
    pub fn get() -> std::io::Result<[Data; 2]> {
        let mut header = Header { version: VERSION_3, pid: 0 };
        let mut data = [Data::default(); 2];
        // SAFETY: capget with a v3 header and room for two data structs, as the ABI requires.
        if unsafe { libc::syscall(libc::SYS_capget, &mut header as *mut Header, data.as_mut_ptr()) }
            != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        Ok(data)
    }

    /// Sets this thread's sets (the kernel refuses any raise beyond what is permitted).
    pub fn set(data: &[Data; 2]) -> std::io::Result<()> {
        let mut header = Header { version: VERSION_3, pid: 0 };
        // SAFETY: capset with a v3 header and two data structs.
        if unsafe { libc::syscall(libc::SYS_capset, &mut header as *mut Header, data.as_ptr()) }
            != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}
