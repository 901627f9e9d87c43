//! Kernel denials in a sandboxed run's output (docs/contract.md#bash): a line with the
//! kernel's words for a refused access ([`DENIAL_SIGNS`]) that names a path the policy forbids
//! is the sandbox's doing, and the run is marked `sandbox_denied`.

use std::path::{Path, PathBuf};

use toolhost_policy::{Access, Actor, Denial, SandboxPolicy, real_path};

/// The kernel's words for a refused access, as tools print them.
pub const DENIAL_SIGNS: &[&str] =
    &["Read-only file system", "Permission denied", "Operation not permitted"];

/// Where a refusal is the kernel's own (pseudo file systems), not the sandbox's.
const KERNEL_FILE_SYSTEMS: &[&str] = &["/proc", "/sys"];

/// Looks for a kernel denial in `output` on a path `policy` forbids (for writing, or for
/// reading). Relative paths are taken from `cwd`. Returns the path and the policy's denial.
pub fn detect_denial(
    output: &str,
    policy: &SandboxPolicy,
    cwd: &Path,
) -> Option<(PathBuf, Denial)> {
    for line in output.lines() {
        if !DENIAL_SIGNS.iter().any(|s| line.contains(s)) {
            continue;
        }
        for cand in path_candidates(line) {
            let p = Path::new(&cand);
            let abs = if p.is_absolute() { p.to_path_buf() } else { cwd.join(p) };
            let real = real_path(&abs);
            // Under the kernel's own file systems a refusal is the kernel's rule for that
            // process or knob (`/proc/1/fd/0` is ptrace's), never the policy's: no grant
            // would change it, so it is not marked or answered with an escalation.
            if KERNEL_FILE_SYSTEMS.iter().any(|k| real.starts_with(k)) {
                continue;
            }
            // With reads confined, a refusal that is not about writing is judged as a read
            // first (a directory outside the roots is unreadable, not unwritable).
            let order = if policy.reads_confined() && !line.contains("Read-only file system") {
                [Access::Read, Access::Write]
            } else {
                [Access::Write, Access::Read]
            };
            for access in order {
                if let Err(d) = policy.check(&real, access, Actor::Bash) {
                    return Some((real, d));
                }
            }
        }
    }
    None
}

/// Path-like words of one error line: quoted strings, then the `: `-separated field just
/// before the kernel's words and its last word (the leading program name is never taken).
fn path_candidates(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [('\'', '\''), ('"', '"'), ('‘', '’'), ('`', '\'')] {
        let mut rest = line;
        while let Some(i) = rest.find(open) {
            let after = &rest[i + open.len_utf8()..];
            let Some(j) = after.find(close) else { break };
            out.push(after[..j].to_string());
            rest = &after[j + close.len_utf8()..];
        }
    }
    let fields: Vec<&str> = line.split(": ").collect();
    if let Some(sign_at) = fields.iter().position(|f| DENIAL_SIGNS.iter().any(|s| f.contains(s)))
        && sign_at >= 2
    {
        let field = fields[sign_at - 1].trim();
        out.push(field.to_string());
        if let Some(last) = field.split_whitespace().last() {
            out.push(last.trim_matches(|c| "'\"‘’`,;()[]".contains(c)).to_string());
        }
    }
    out.retain(|c| !c.is_empty() && c.len() < 4096);
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_policy::{PolicyConfig, SandboxMode};

    #[test]
    fn denials_are_detected_only_on_forbidden_paths() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let ws = base.join("ws");
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(base.join("home/.ssh")).unwrap();
        let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, &ws)
            .home(base.join("home"))
            .config(PolicyConfig { temp_dir: Some(base.join("tmp")), ..Default::default() })
            .build();
        let ssh = base.join("home/.ssh/id").display().to_string();
        let cases: Vec<(String, Option<PathBuf>)> = vec![
            (
                "bash: line 1: .git/hooks/pre-commit: Read-only file system".into(),
                Some(ws.join(".git/hooks/pre-commit")),
            ),
            ("touch: cannot touch '/etc/x': Read-only file system".into(), Some("/etc/x".into())),
            (
                "mkdir: cannot create directory ‘/usr/x’: Read-only file system".into(),
                Some("/usr/x".into()),
            ),
            (format!("cat: {ssh}: Permission denied"), Some(PathBuf::from(&ssh))),
            (
                "PermissionError: [Errno 13] Permission denied: '/etc/y'".into(),
                Some("/etc/y".into()),
            ),
            (
                "ln: failed to create hard link 'l' => '/etc/passwd': Operation not permitted"
                    .into(),
                Some("/etc/passwd".into()),
            ),
            (
                "error: could not lock config file /etc/gitconfig: Permission denied".into(),
                Some("/etc/gitconfig".into()),
            ),
            // Not denials: ordinary failures, or denials on paths the policy allows.
            ("grep: nothing: No such file or directory".into(), None),
            ("bash: ./run.sh: Permission denied".into(), None),
            ("sandbox-denied.txt".into(), None),
            ("exit 1".into(), None),
        ];
        for (line, want) in cases {
            let got = detect_denial(&line, &policy, &ws).map(|(p, _)| p);
            assert_eq!(got, want, "{line}");
        }
    }
}
