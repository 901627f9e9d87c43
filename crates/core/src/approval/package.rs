//! The package scripts a run of a package manager will execute (`npm test` runs
//! `package.json`'s `scripts.test` through a shell, with `pretest` and `posttest` around it),
//! read by the host from the file the package manager reads, so the question shows the
//! script and not only the two words `npm test`.
//!
//! Which file: the package manager's own rule — the nearest `package.json` from the run's
//! working directory up (npm stops at a directory that has `node_modules` too). Which scripts:
//! every argument that names a script (npm's `t` and `tst` name `test`), each with its
//! `pre…` and `post…` scripts when they exist. That is every script such a command line runs
//! by name: a superset when an argument only looks like a script's name, never less. The
//! file is parsed whole as JSON (the last of duplicate keys wins, as in `JSON.parse`); one that
//! cannot be read, is larger than [`toolhost_limits::APPROVAL_MAX_PACKAGE_JSON_BYTES`] or is
//! not JSON is not guessed at: the question says so.

use std::path::{Path, PathBuf};

use toolhost_policy::{Access, Actor, SandboxPolicy};

/// The programs whose runs execute `package.json` scripts by name.
pub const PACKAGE_MANAGERS: [&str; 4] = ["npm", "pnpm", "yarn", "bun"];

/// What a package manager's run will read for the scripts it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageScripts {
    /// The package manager (`npm`, …).
    pub manager: String,
    /// What was found.
    pub found: PackageJson,
}

/// The `package.json` of a package manager's run, as the host found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackageJson {
    /// No `package.json` from the working directory up (npm: in the first directory with
    /// `node_modules`, which it takes as the package's).
    NoFile {
        /// Where the package manager looks (the working directory, or npm's package dir).
        from: PathBuf,
    },
    /// A `package.json` that could not be read or parsed: why.
    Unreadable {
        /// The file.
        file: PathBuf,
        /// Why not.
        why: String,
    },
    /// The scripts the arguments name, in the order they run (`pre…`, the script, `post…`),
    /// each as `(name, text)`; empty when no argument names one.
    Scripts {
        /// The file.
        file: PathBuf,
        /// The named scripts.
        scripts: Vec<(String, String)>,
    },
}

/// The package manager `program` is (by the name given, or the file found on PATH).
pub fn package_manager(program: &str, found: Option<&Path>) -> Option<&'static str> {
    let name = |p: &Path| p.file_name().and_then(|n| n.to_str()).map(str::to_owned);
    let names = [name(Path::new(program)), found.and_then(name)];
    PACKAGE_MANAGERS.into_iter().find(|m| names.iter().flatten().any(|n| n == m))
}

/// The scripts a run of `manager` with `args` in `cwd` executes by name, read under `policy`
/// (a `package.json` the policy does not let a program read is not read here either).
pub fn package_scripts(
    manager: &str,
    args: &[String],
    cwd: &Path,
    policy: &SandboxPolicy,
) -> PackageScripts {
    let found = match locate(manager, cwd) {
        Err(from) => PackageJson::NoFile { from },
        Ok(file) => match read(&file, policy) {
            Err(why) => PackageJson::Unreadable { file, why },
            Ok(value) => PackageJson::Scripts { scripts: named(&value, args), file },
        },
    };
    PackageScripts { manager: manager.to_owned(), found }
}

/// The `package.json` the package manager reads, or where it looked.
fn locate(manager: &str, cwd: &Path) -> Result<PathBuf, PathBuf> {
    for dir in cwd.ancestors() {
        let file = dir.join("package.json");
        if file.symlink_metadata().is_ok() {
            return Ok(file);
        }
        if manager == "npm" && dir.join("node_modules").is_dir() {
            return Err(dir.to_path_buf());
        }
    }
    Err(cwd.to_path_buf())
}

/// The file parsed whole as JSON, or why not.
fn read(file: &Path, policy: &SandboxPolicy) -> Result<serde_json::Value, String> {
    use std::io::Read;
    let max = toolhost_limits::APPROVAL_MAX_PACKAGE_JSON_BYTES;
    let real = std::fs::canonicalize(file).map_err(|e| e.to_string())?;
    policy.check(&real, Access::Read, Actor::Bash).map_err(|d| d.message)?;
    let (f, meta) = crate::open::open_regular(&real).map_err(|e| e.to_string())?;
    if meta.len() > max {
        return Err(format!("it is {} bytes, more than the {max} the host reads", meta.len()));
    }
    let mut bytes = Vec::new();
    f.take(max + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max {
        return Err(format!("it is more than the {max} bytes the host reads"));
    }
    let text = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    serde_json::from_slice(text).map_err(|e| format!("it is not valid JSON ({e})"))
}

/// The scripts of `package` the arguments name, with their `pre`/`post` scripts.
fn named(package: &serde_json::Value, args: &[String]) -> Vec<(String, String)> {
    let Some(scripts) = package.get("scripts").and_then(|s| s.as_object()) else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for arg in args {
        let name = match arg.as_str() {
            "t" | "tst" => "test",
            other => other,
        };
        if !scripts.contains_key(name) {
            continue;
        }
        for full in [format!("pre{name}"), name.to_owned(), format!("post{name}")] {
            if let Some(script) = scripts.get(&full)
                && !out.iter().any(|(n, _)| *n == full)
            {
                let text = script.as_str().map_or_else(|| script.to_string(), str::to_owned);
                out.push((full, text));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_policy::SandboxMode;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn the_scripts_named_are_read_from_the_nearest_package_json() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().canonicalize().unwrap();
        let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, &ws).home(&ws).build();
        std::fs::create_dir_all(ws.join("pkg/src")).unwrap();
        // Duplicate keys: the last one wins, as in JSON.parse; a BOM is skipped, as npm does.
        std::fs::write(
            ws.join("pkg/package.json"),
            "\u{feff}{\"scripts\": {\"test\": \"jest\", \"pretest\": \"node a.js\", \
             \"test\": \"node evil.js\", \"posttest\": \"echo done\", \"lint\": \"eslint\"}}",
        )
        .unwrap();
        let got = package_scripts("npm", &args(&["t"]), &ws.join("pkg/src"), &policy);
        let PackageJson::Scripts { file, scripts } = got.found else { panic!("{got:?}") };
        assert_eq!(file, ws.join("pkg/package.json"));
        assert_eq!(
            scripts,
            [("pretest", "node a.js"), ("test", "node evil.js"), ("posttest", "echo done")]
                .map(|(n, s)| (n.to_owned(), s.to_owned()))
        );
        let got = package_scripts("yarn", &args(&["lint", "--fix"]), &ws.join("pkg"), &policy);
        assert!(
            matches!(got.found, PackageJson::Scripts { ref scripts, .. } if scripts.len() == 1)
        );
        let got = package_scripts("npm", &args(&["install"]), &ws.join("pkg"), &policy);
        assert!(
            matches!(got.found, PackageJson::Scripts { ref scripts, .. } if scripts.is_empty())
        );
        // npm takes a directory with node_modules as the package's.
        std::fs::create_dir_all(ws.join("pkg/src/node_modules")).unwrap();
        let got = package_scripts("npm", &args(&["test"]), &ws.join("pkg/src"), &policy);
        assert_eq!(got.found, PackageJson::NoFile { from: ws.join("pkg/src") });
        // Not JSON, too large: said, not guessed.
        std::fs::write(ws.join("pkg/package.json"), "{\"scripts\": {\"test\": ").unwrap();
        let got = package_scripts("pnpm", &args(&["test"]), &ws.join("pkg"), &policy);
        assert!(
            matches!(got.found, PackageJson::Unreadable { ref why, .. } if why.contains("not valid JSON"))
        );
        let big = format!("{{\"x\": \"{}\"}}", "a".repeat(2 << 20));
        std::fs::write(ws.join("pkg/package.json"), big).unwrap();
        let got = package_scripts("npm", &args(&["test"]), &ws.join("pkg"), &policy);
        assert!(
            matches!(got.found, PackageJson::Unreadable { ref why, .. } if why.contains("bytes"))
        );
        assert_eq!(package_manager("npm", None), Some("npm"));
        assert_eq!(package_manager("x", Some(Path::new("/usr/bin/pnpm"))), Some("pnpm"));
        assert_eq!(package_manager("cargo", Some(Path::new("/usr/bin/cargo"))), None);
    }
}
