//! What the cgroup of one sandboxed call may hold, as `policy.json`'s `limits` sets it (the
//! sandbox's `cgroup` module makes the cgroup).

/// What the cgroup of one sandboxed call may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CgroupLimits {
    /// Most processes and threads at once.
    pub pids: u64,
    /// Most memory, in MiB.
    pub memory_mib: u64,
}

impl Default for CgroupLimits {
    fn default() -> Self {
        CgroupLimits {
            pids: toolhost_limits::BASH_MAX_PIDS,
            memory_mib: toolhost_limits::BASH_MAX_MEMORY_MIB,
        }
    }
}
