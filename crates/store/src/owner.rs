//! Who holds a pending change or a claim: the process that wrote it, named so that another
//! toolhost can tell whether it is still alive. On Linux `BOOT/PIDNS/PID/START` (the boot id,
//! the PID namespace, the process id and its start time since boot): a process on the same
//! boot and in the same PID namespace is checked in `/proc` directly, so a process that died
//! is known at once, and a PID reused by another process is told apart by its start time.
//! Any other owner (another machine or container, another system) cannot be checked from
//! here, and counts as gone once its record is [`STORE_PENDING_ABANDONED_MS`] old.

use toolhost_limits::STORE_PENDING_ABANDONED_MS;

/// This process, as an owner.
pub fn current() -> String {
    let pid = std::process::id();
    match (boot_and_namespace(), start_time(pid)) {
        (Some(here), Some(start)) => format!("{here}/{pid}/{start}"),
        _ => format!("pid/{pid}"),
    }
}

/// Whether the process `owner` names is gone, for a record it made at `made_ms` (Unix
/// milliseconds), the time now being `now_ms`.
pub fn is_gone(owner: &str, made_ms: i64, now_ms: i64) -> bool {
    if owner == current() {
        return false;
    }
    if let Some(here) = boot_and_namespace()
        && let Some(rest) = owner.strip_prefix(&format!("{here}/"))
        && let Some((pid, start)) = rest.split_once('/')
        && let Ok(pid) = pid.parse::<u32>()
    {
        return start_time(pid).is_none_or(|now| now != start);
    }
    now_ms.saturating_sub(made_ms) >= STORE_PENDING_ABANDONED_MS as i64
}

/// `BOOT/PIDNS` of this process, where `/proc` tells them.
fn boot_and_namespace() -> Option<String> {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let ns = std::fs::read_link("/proc/self/ns/pid").ok()?;
    let ns = ns.to_string_lossy();
    let ns = ns.trim_start_matches("pid:[").trim_end_matches(']');
    Some(format!("{}/{ns}", boot.trim()))
}

/// The start time (field 22 of `/proc/PID/stat`, clock ticks since boot) of process `pid`.
fn start_time(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold anything: count from after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_dead_one_is_gone_at_once() {
        let now = 1_000_000_000;
        assert!(!is_gone(&current(), now, now));
        if boot_and_namespace().is_none() {
            return;
        }
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let start = start_time(pid);
        child.wait().unwrap();
        let owner =
            format!("{}/{pid}/{}", boot_and_namespace().unwrap(), start.unwrap_or_default());
        assert!(is_gone(&owner, now, now), "a reaped child is gone, however recent");
        let reused = format!("{}/{}/1", boot_and_namespace().unwrap(), std::process::id());
        assert!(is_gone(&reused, now, now), "same PID, other start time: another process");
    }

    #[test]
    fn an_owner_that_cannot_be_checked_is_gone_only_when_old() {
        let owner = "other-machine/4026531836/42/1234";
        let made = 1_000_000_000;
        assert!(!is_gone(owner, made, made + 1_000));
        assert!(is_gone(owner, made, made + STORE_PENDING_ABANDONED_MS as i64));
    }
}
