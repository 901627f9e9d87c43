//! Per-call limits for bash: every call runs in a cgroup of its own, with a process limit
//! (`pids.max`) and a memory limit, so a fork bomb or a runaway allocation ends that call and
//! leaves the host serving the next one.
//!
//! [`detect`] finds where this process may make child cgroups: cgroup v2 (one unified
//! hierarchy with `pids` and `memory`), else cgroup v1 (the `pids` and `memory` hierarchies),
//! as root or where a cgroup is delegated to this user. [`CallCgroup::create`] makes one per
//! call; the sandbox runner joins it between fork and exec ([`CallCgroup::procs_files`]), so
//! every descendant is inside from its first instruction. Dropping it kills what is left and
//! removes it. Where neither works, bash runs without these limits and `doctor` says why.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use toolhost_policy::CgroupLimits;

/// Where per-call cgroups can be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// cgroup v2: children of this directory.
    V2(PathBuf),
    /// cgroup v1: children of these `pids` and `memory` directories.
    V1 { pids: PathBuf, memory: PathBuf },
    /// Neither: why.
    Unavailable(String),
}

/// Where per-call cgroups can be made here (probed once: a child is made and removed).
pub fn detect() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(probe)
}

fn own_cgroups() -> Vec<(String, String)> {
    std::fs::read_to_string("/proc/self/cgroup")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            let _id = parts.next()?;
            Some((parts.next()?.to_string(), parts.next()?.to_string()))
        })
        .collect()
}

fn probe() -> Support {
    if !cfg!(target_os = "linux") {
        return Support::Unavailable("cgroups exist only on Linux".into());
    }
    let own = own_cgroups();
    let root = Path::new("/sys/fs/cgroup");
    let v2 = if root.join("cgroup.controllers").exists() {
        own.iter().find(|(c, _)| c.is_empty()).and_then(|(_, p)| locate(root, p))
    } else {
        None
    };
    let candidate =
        match v2 {
            Some(base) => Support::V2(base),
            None => {
                let find = |name: &str| {
                    let (_, path) = own.iter().find(|(c, _)| c.split(',').any(|x| x == name))?;
                    locate(&root.join(name), path)
                };
                match (find("pids"), find("memory")) {
                    (Some(pids), Some(memory)) => Support::V1 { pids, memory },
                    _ => return Support::Unavailable(
                        "no cgroup v2, and no cgroup v1 pids and memory hierarchies are mounted"
                            .into(),
                    ),
                }
            }
        };
    // Probed by looking, not by making one: a mkdir + rmdir of a memory cgroup costs
    // milliseconds on every `toolhost call`. A call whose cgroup cannot be made runs without
    // limits; `doctor` makes one to be sure ([`verify`]).
    let dirs: Vec<&PathBuf> = match &candidate {
        Support::V2(base) => vec![base],
        Support::V1 { pids, memory } => vec![pids, memory],
        Support::Unavailable(_) => vec![],
    };
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    let root = euid == 0;
    let ours = |d: &PathBuf| {
        std::fs::metadata(d).is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == euid)
    };
    if root || dirs.iter().all(|d| ours(d)) {
        candidate
    } else {
        Support::Unavailable(
            "this process's cgroup is neither delegated to this user nor is toolhost root".into(),
        )
    }
}

/// Why a call cgroup could not be made (the text `doctor` shows).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CgroupError {
    /// [`detect`] found no place to make one; why.
    #[error("{0}")]
    Unsupported(String),
    /// Its directory could not be made.
    #[error("mkdir {dir}: {error}")]
    Mkdir { dir: String, error: String },
    /// A control file could not be written.
    #[error("writing {file}: {error}")]
    Write { file: String, error: String },
}

/// Makes and removes one call cgroup, to prove [`detect`]'s answer (for `doctor`).
pub fn verify() -> Result<(), CgroupError> {
    CallCgroup::create(CgroupLimits::default()).map(drop)
}

/// The directory of this process's cgroup `path` under the hierarchy mounted at `mount`. In a
/// container the mount may show only a subtree (its root is the container's cgroup), so the
/// longest suffix of `path` whose directory lists this process is taken.
fn locate(mount: &Path, path: &str) -> Option<PathBuf> {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let me = std::process::id().to_string();
    (0..=parts.len()).find_map(|skip| {
        let dir = parts[skip..].iter().fold(mount.to_path_buf(), |d, p| d.join(p));
        let procs = std::fs::read_to_string(dir.join("cgroup.procs")).ok()?;
        procs.lines().any(|l| l.trim() == me).then_some(dir)
    })
}

/// The control files to write in each cgroup directory a call gets.
type CgroupPlan<'a> = (PathBuf, Vec<(&'a str, &'a str)>);

/// One call's cgroup (one directory per hierarchy), removed on drop.
#[derive(Debug)]
pub struct CallCgroup {
    dirs: Vec<PathBuf>,
    procs: Vec<PathBuf>,
    limits: CgroupLimits,
    v2: bool,
}

impl CallCgroup {
    /// A new cgroup with `limits`, where [`detect`] found support.
    pub fn create(limits: CgroupLimits) -> Result<CallCgroup, CgroupError> {
        match detect() {
            Support::Unavailable(why) => Err(CgroupError::Unsupported(why.clone())),
            s => crate::privileges::with_file_access_overrides(|| CallCgroup::create_in(s, limits)),
        }
    }

    fn create_in(support: &Support, limits: CgroupLimits) -> Result<CallCgroup, CgroupError> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let name =
            format!("toolhost-{}-{}", std::process::id(), SEQ.fetch_add(1, Ordering::Relaxed));
        let memory = (limits.memory_mib.max(16) * 1024 * 1024).to_string();
        let pids = limits.pids.max(8).to_string();
        let (plan, v2): (Vec<CgroupPlan>, bool) = match support {
            Support::V2(base) => (
                vec![(
                    base.join(&name),
                    vec![("pids.max", &pids), ("memory.max", &memory), ("memory.swap.max", "0")],
                )],
                true,
            ),
            Support::V1 { pids: p, memory: m } => (
                vec![
                    (p.join(&name), vec![("pids.max", &pids)]),
                    (m.join(&name), vec![("memory.limit_in_bytes", &memory)]),
                ],
                false,
            ),
            Support::Unavailable(why) => return Err(CgroupError::Unsupported(why.clone())),
        };
        let mut cg = CallCgroup { dirs: Vec::new(), procs: Vec::new(), limits, v2 };
        for (dir, settings) in plan {
            std::fs::create_dir(&dir).map_err(|e| CgroupError::Mkdir {
                dir: dir.display().to_string(),
                error: e.to_string(),
            })?;
            cg.dirs.push(dir.clone());
            for (file, value) in settings {
                // memory.swap.max is absent without swap accounting: not an error.
                if let Err(e) = std::fs::write(dir.join(file), value)
                    && file != "memory.swap.max"
                {
                    return Err(CgroupError::Write {
                        file: dir.join(file).display().to_string(),
                        error: e.to_string(),
                    });
                }
            }
            cg.procs.push(dir.join("cgroup.procs"));
        }
        Ok(cg)
    }

    /// The `cgroup.procs` files the sandbox runner writes `0` to between fork and exec.
    pub fn procs_files(&self) -> &[PathBuf] {
        &self.procs
    }

    /// What the call ran into, as a status line for the model (none when no limit was hit).
    pub fn limit_hit(&self) -> Option<String> {
        let read =
            |dir: &PathBuf, file: &str| std::fs::read_to_string(dir.join(file)).unwrap_or_default();
        let count = |text: &str, key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key).and_then(|v| v.trim().parse::<u64>().ok()))
                .unwrap_or(0)
        };
        let pids_dir = &self.dirs[0];
        let memory_dir = self.dirs.last()?;
        let pids_hit = count(&read(pids_dir, "pids.events"), "max ") > 0;
        let oom = if self.v2 {
            count(&read(memory_dir, "memory.events"), "oom_kill ") > 0
        } else {
            count(&read(memory_dir, "memory.oom_control"), "oom_kill ") > 0
                || read(memory_dir, "memory.failcnt").trim() != "0"
        };
        match (pids_hit, oom) {
            (false, false) => None,
            (true, _) if !oom => Some(format!(
                "[limit: the call reached its process limit ({} processes and threads); further forks failed]",
                self.limits.pids
            )),
            _ => Some(format!(
                "[limit: the call reached its memory limit ({} MiB); the kernel killed a process of the call]",
                self.limits.memory_mib
            )),
        }
    }
}

impl Drop for CallCgroup {
    fn drop(&mut self) {
        crate::privileges::with_file_access_overrides(|| self.remove());
    }
}

impl CallCgroup {
    fn remove(&self) {
        for dir in &self.dirs {
            // Whatever is left (the sandbox normally took it all with it) is killed first.
            for _ in 0..1000 {
                let procs = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
                let pids: Vec<i32> = procs.lines().filter_map(|l| l.trim().parse().ok()).collect();
                if pids.is_empty() {
                    break;
                }
                for pid in pids {
                    // SAFETY: kill has no memory-safety preconditions.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let _ = std::fs::remove_dir(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where cgroups can be made (root here), a call's cgroup caps its processes.
    #[test]
    #[allow(clippy::print_stderr)]
    fn a_call_cgroup_caps_processes_where_supported() {
        let support = detect();
        eprintln!("cgroup support: {support:?}");
        let Ok(cg) = CallCgroup::create(CgroupLimits { pids: 8, memory_mib: 64 }) else { return };
        assert_eq!(cg.procs_files().len(), if matches!(support, Support::V2(_)) { 1 } else { 2 });
        assert!(cg.limit_hit().is_none());
    }
}
