//! The program file a run will execute, found by the host before anyone is asked
//! ([`find_program`]), so the question names the file that runs and the run executes exactly
//! that file ([`ProgramFile::path`]), never a name looked up again later.
//!
//! The lookup is `execvp`'s (the one the sandbox helper would otherwise make): a name with a
//! `/` is a path from the run's working directory; a bare name is tried in each `PATH` entry
//! in order, an empty entry meaning the working directory and a relative one (`node_modules/.bin`)
//! taken from the working directory; the first regular file with an execute bit wins. A file
//! the run's sandbox hides (a credential location) is skipped, as the sandbox would skip it.

use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use toolhost_policy::{Access, Actor, SandboxPolicy};

/// `execvp`'s search path when `PATH` is unset (glibc's `_CS_PATH`).
pub const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// One program file a run will execute, and what identifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramFile {
    /// The absolute path executed (as found: a symlink is not resolved, so a program that
    /// looks at its own name, like a busybox or rustup link, still sees it).
    pub path: PathBuf,
    /// The file it is (symlinks resolved).
    pub real: PathBuf,
    /// The file's first line when it is a script (`#!…`), at most
    /// [`toolhost_limits::APPROVAL_SCRIPT_HEADER_BYTES`] read.
    pub header: Option<String>,
    identity: Identity,
}

/// What tells one version of a file from another: device, inode, size, modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: i64,
    mtime_nsec: i64,
}

impl Identity {
    fn of(meta: &std::fs::Metadata) -> Self {
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
        }
    }
}

impl ProgramFile {
    /// Whether `path` still leads to the same file, unchanged, as when it was found (checked
    /// again right before the run).
    pub fn unchanged(&self) -> bool {
        std::fs::metadata(&self.path).is_ok_and(|m| Identity::of(&m) == self.identity)
            && std::fs::canonicalize(&self.path).is_ok_and(|r| r == self.real)
    }
}

/// Why no program file was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotFound(pub String);

/// The file `program` names for a run starting in `cwd` with `PATH` = `path_var`, under the
/// run's `policy` (a file it hides is skipped). See the module doc.
pub fn find_program(
    program: &str,
    cwd: &Path,
    path_var: Option<&str>,
    policy: &SandboxPolicy,
) -> Result<ProgramFile, NotFound> {
    let shown = crate::display::quoted(program);
    if program.is_empty() {
        return Err(NotFound("no program was named".into()));
    }
    if program.contains('/') {
        let path = without_dots(&cwd.join(program));
        return candidate(&path, policy)
            .ok_or_else(|| NotFound(format!("{shown} is not an executable file the run can see")));
    }
    let search = path_var.unwrap_or(DEFAULT_PATH);
    for entry in search.split(':') {
        let dir = if entry.is_empty() { cwd.to_path_buf() } else { cwd.join(entry) };
        if let Some(found) = candidate(&without_dots(&dir.join(program)), policy) {
            return Ok(found);
        }
    }
    Err(NotFound(format!(
        "no executable file named {shown} in PATH ({})",
        crate::display::quoted(search)
    )))
}

/// `path` without its `.` components (a `..` stays: only the kernel knows where it leads
/// through a symlink).
fn without_dots(path: &Path) -> PathBuf {
    path.components().filter(|c| *c != Component::CurDir).collect()
}

/// `path` as the program file, when it is a regular file with an execute bit that `policy`
/// lets a program read.
fn candidate(path: &Path, policy: &SandboxPolicy) -> Option<ProgramFile> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.mode() & 0o111 == 0 {
        return None;
    }
    let real = std::fs::canonicalize(path).ok()?;
    policy.check(&real, Access::Read, Actor::Bash).ok()?;
    Some(ProgramFile {
        path: path.to_path_buf(),
        header: header(&real),
        real,
        identity: Identity::of(&meta),
    })
}

/// The first line of the file at `path` when it starts with `#!`.
fn header(path: &Path) -> Option<String> {
    use std::io::Read;
    let file = crate::open::open_regular(path).ok()?.0;
    let mut start = Vec::new();
    file.take(toolhost_limits::APPROVAL_SCRIPT_HEADER_BYTES as u64).read_to_end(&mut start).ok()?;
    if !start.starts_with(b"#!") {
        return None;
    }
    let line = start.split(|b| *b == b'\n').next().unwrap_or_default();
    Some(String::from_utf8_lossy(line).trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use toolhost_policy::SandboxMode;

    fn executable(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn the_lookup_is_execvp_s_with_relative_entries_from_the_working_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let ws = root.join("ws");
        let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, &ws).home(&root).build();
        executable(&root.join("bin/tool"), "#!/bin/sh\necho system\n");
        executable(&ws.join("node_modules/.bin/tool"), "#!/usr/bin/env node\nplanted\n");
        std::fs::write(root.join("bin/plain"), "not executable").unwrap();
        std::fs::create_dir_all(root.join("bin/dir")).unwrap();
        let system = root.join("bin");
        let path = format!("node_modules/.bin:{}", system.display());
        let found = find_program("tool", &ws, Some(&path), &policy).unwrap();
        assert_eq!(found.path, ws.join("node_modules/.bin/tool"));
        assert_eq!(found.header.as_deref(), Some("#!/usr/bin/env node"));
        let found = find_program("tool", &ws, Some(&format!("{}:.", system.display())), &policy);
        assert_eq!(found.unwrap().path, root.join("bin/tool"));
        // An empty entry is the working directory; `./x` is a path from it.
        executable(&ws.join("gradlew"), "#!/bin/sh\n");
        assert_eq!(
            find_program("gradlew", &ws, Some(":/nowhere"), &policy).unwrap().path,
            ws.join("gradlew")
        );
        assert_eq!(find_program("./gradlew", &ws, None, &policy).unwrap().path, ws.join("gradlew"));
        // Not executable, a directory, missing: skipped, then not found.
        for name in ["plain", "dir", "missing"] {
            let e = find_program(name, &ws, Some(&system.display().to_string()), &policy);
            assert!(e.unwrap_err().0.contains(&format!("\"{name}\"")));
        }
        // The file is followed through a link, and a change of it is seen.
        std::os::unix::fs::symlink(root.join("bin/tool"), ws.join("link")).unwrap();
        let found = find_program("./link", &ws, None, &policy).unwrap();
        assert_eq!(
            (found.path.clone(), found.real.clone()),
            (ws.join("link"), root.join("bin/tool"))
        );
        assert!(found.unchanged());
        executable(&root.join("bin/tool"), "#!/bin/sh\necho changed, and longer\n");
        assert!(!found.unchanged());
    }

    #[test]
    fn a_file_the_sandbox_hides_is_not_the_program() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().canonicalize().unwrap();
        let ws = home.join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, &ws).home(&home).build();
        executable(&home.join(".ssh/tool"), "x");
        executable(&home.join("bin/tool"), "x");
        let path = format!("{}:{}", home.join(".ssh").display(), home.join("bin").display());
        assert_eq!(
            find_program("tool", &ws, Some(&path), &policy).unwrap().path,
            home.join("bin/tool")
        );
    }
}
