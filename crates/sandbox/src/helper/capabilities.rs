//! The helper's last step before exec: no capability left for the command or anything it
//! execs.

use super::HelperError;

/// Inside bash's sandbox, right before the command: empties the capability bounding set
/// (this needs `CAP_SETPCAP`, which bubblewrap keeps for the helper alone) and then clears
/// every capability set, so nothing the command execs can ever hold a capability. Without
/// `CAP_SETPCAP` (a helper run without it) the bounding set is left as it is.
#[cfg(target_os = "linux")]
pub fn drop_every_capability() -> Result<(), HelperError> {
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
            return Err(HelperError::Capabilities(format!(
                "dropping capability {cap} from the bounding set: {e}"
            )));
        }
    }
    // SAFETY: as above; SETPCAP last, since dropping it ends our right to drop.
    unsafe { libc::prctl(libc::PR_CAPBSET_DROP, CAP_SETPCAP as libc::c_ulong, 0, 0, 0) };
    crate::caps::set(&[crate::caps::Data::default(); 2])
        .map_err(|e| HelperError::Capabilities(format!("clearing the capability sets: {e}")))?;
    Ok(())
}

/// Not Linux: no capabilities to drop.
#[cfg(not(target_os = "linux"))]
pub fn drop_every_capability() -> Result<(), HelperError> {
    Ok(())
}
