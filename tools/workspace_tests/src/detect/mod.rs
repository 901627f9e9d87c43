//! `detect`: which toolchain a directory's tests run with, read-only and without running
//! anything. The directory is listed once and a few small files read ([`Tree`]: the SDK's
//! workspace handles in the component, `std::fs` in the tests); each toolchain has its module
//! ([`rust`]: Cargo, [`node`]: npm, pnpm or yarn with jest or vitest, [`python`]: pytest,
//! [`go`]), which answers a [`Project`] with its evidence when it finds one. The best match
//! (highest [`Confidence`], then in that module order) is the result; the others are its
//! `candidates`. A directory with none names the subdirectories that have one ([`DirFindings`]).

pub mod go;
pub mod node;
pub mod python;
pub mod rust;
pub mod sections;

use schemars::JsonSchema;
use serde::Serialize;
use toolhost_sdk::error_kinds::ErrorKind;

use crate::failure::Failure;

/// Most bytes of one file read for detection (larger files are read this far).
pub const MAX_READ_BYTES: usize = 1 << 20;
/// Most subdirectories looked into when the directory itself holds no project.
pub const MAX_SUBDIRS: usize = 50;

/// What is at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeEntry {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Anything else (a device, a socket, a symlink that is not followed).
    Other,
}

/// Read-only access to the workspace, paths relative to its root.
pub trait Tree {
    /// What is at `path`, or none.
    fn kind(&mut self, path: &str) -> Result<Option<TreeEntry>, Failure>;
    /// The entries of the directory `path`, names and kinds.
    fn list(&mut self, path: &str) -> Result<Vec<(String, TreeEntry)>, Failure>;
    /// The first [`MAX_READ_BYTES`] of the file `path`.
    fn read(&mut self, path: &str) -> Result<Vec<u8>, Failure>;
}

/// How sure a detection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Only weak hints (test files without configuration, a manifest without a test setup).
    Low,
    /// The toolchain is clear, the test framework or command partly guessed.
    Medium,
    /// The manifest or configuration names the toolchain and the test command.
    High,
}

impl Confidence {
    /// The word the value and the text use.
    pub fn name(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }
}

/// One file that said something, and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Evidence {
    /// The file (or directory), relative to the workspace root.
    pub file: String,
    /// What it says.
    pub reason: String,
}

/// A command line: the program and its arguments (what `run` takes as `command` and
/// `args`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Suggested {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
}

/// A toolchain found in the directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Project {
    /// rust, node, python or go.
    pub project_type: String,
    /// cargo; npm, pnpm or yarn; pip, poetry, uv or pipenv; go.
    pub package_manager: String,
    /// The test framework when known: cargo, jest, vitest, pytest, go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_framework: Option<String>,
    /// The command that runs the tests (give it to `run`; it is never run by `detect`).
    pub suggested_command: Suggested,
    /// How sure this is: high, medium or low.
    pub confidence: Confidence,
    /// The files that said so.
    pub evidence: Vec<Evidence>,
}

/// `detected_project`: the best match, and the other toolchains found in the same directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Detected {
    /// The best match.
    #[serde(flatten)]
    pub project: Project,
    /// The other toolchains found in the directory (a monorepo root), best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Project>,
}

/// What `detect` found in a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirFindings {
    /// The directory looked at, relative to the workspace (`.` for the root).
    pub dir: String,
    /// The best match and the other candidates, or none.
    pub detected: Option<Detected>,
    /// With nothing found: subdirectories that hold a project manifest, with its name.
    pub subprojects: Vec<(String, String)>,
}

/// One directory's listing, for the toolchain modules.
pub struct Dir<'a> {
    tree: &'a mut dyn Tree,
    /// The directory, relative to the workspace (none: the root).
    pub path: Option<String>,
    entries: Vec<(String, TreeEntry)>,
}

impl Dir<'_> {
    /// `name` inside the directory, relative to the workspace.
    pub fn join(&self, name: &str) -> String {
        match &self.path {
            Some(dir) => format!("{dir}/{name}"),
            None => name.to_owned(),
        }
    }

    /// Whether the directory has a file `name`.
    pub fn has_file(&self, name: &str) -> bool {
        self.entries.iter().any(|(n, k)| n == name && *k == TreeEntry::File)
    }

    /// Whether the directory has a subdirectory `name`.
    pub fn has_dir(&self, name: &str) -> bool {
        self.entries.iter().any(|(n, k)| n == name && *k == TreeEntry::Dir)
    }

    /// The names of the files whose name satisfies `keep`, sorted.
    pub fn files_where(&self, keep: impl Fn(&str) -> bool) -> Vec<String> {
        let mut names: Vec<String> = self
            .entries
            .iter()
            .filter(|(n, k)| *k == TreeEntry::File && keep(n))
            .map(|(n, _)| n.clone())
            .collect();
        names.sort();
        names
    }

    /// The text of the file `name` (lossy UTF-8), when it is there and readable.
    pub fn text(&mut self, name: &str) -> Option<String> {
        if !self.has_file(name) {
            return None;
        }
        let path = self.join(name);
        self.tree.read(&path).ok().map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// The file names of the subdirectory `name` (empty when it cannot be listed).
    pub fn files_in(&mut self, name: &str) -> Vec<String> {
        let path = self.join(name);
        let mut names: Vec<String> = self
            .tree
            .list(&path)
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, k)| *k == TreeEntry::File)
            .map(|(n, _)| n)
            .collect();
        names.sort();
        names
    }

    /// Evidence that `name` (in this directory) says `reason`.
    pub fn evidence(&self, name: &str, reason: impl Into<String>) -> Evidence {
        Evidence { file: self.join(name), reason: reason.into() }
    }
}

/// The files whose presence marks a project, for the hint about subdirectories.
const MANIFESTS: [&str; 7] = [
    "Cargo.toml",
    "package.json",
    "go.mod",
    "pyproject.toml",
    "pytest.ini",
    "setup.py",
    "setup.cfg",
];

/// Subdirectories never worth naming (dependencies, build output, hidden ones).
fn skipped_subdir(name: &str) -> bool {
    name.starts_with('.')
        || matches!(name, "node_modules" | "target" | "vendor" | "dist" | "build" | "__pycache__")
}

/// Detects the project in `cwd` (none is the root). The host holds every path to the
/// workspace; its refusal of `cwd` names the field.
pub fn detect(tree: &mut dyn Tree, cwd: Option<&str>) -> Result<DirFindings, Failure> {
    let shown = cwd.unwrap_or(".").to_owned();
    let found = tree.kind(cwd.unwrap_or(".")).map_err(|f| match f.kind {
        ErrorKind::PathDenied => Failure::new(f.kind, format!("`cwd`: {}", f.message)),
        _ => f,
    })?;
    match found {
        Some(TreeEntry::Dir) => {}
        None => {
            return Err(Failure::new(
                ErrorKind::NotFound,
                format!("`cwd` {shown:?} does not exist; give a directory inside the workspace"),
            ));
        }
        Some(_) => {
            return Err(Failure::new(
                ErrorKind::InvalidInput,
                format!("`cwd` {shown:?} is not a directory"),
            ));
        }
    }
    let entries = tree.list(cwd.unwrap_or("."))?;
    let mut dir = Dir { tree, path: cwd.map(str::to_owned), entries };
    let mut found: Vec<Project> = [rust::detect, go::detect, node::detect, python::detect]
        .iter()
        .filter_map(|detect| detect(&mut dir))
        .collect();
    // Stable: equal confidence keeps the module order.
    found.sort_by_key(|p| std::cmp::Reverse(p.confidence));
    if found.is_empty() {
        let subprojects = subprojects(&mut dir);
        return Ok(DirFindings { dir: shown, detected: None, subprojects });
    }
    let project = found.remove(0);
    Ok(DirFindings {
        dir: shown,
        detected: Some(Detected { project, candidates: found }),
        subprojects: vec![],
    })
}

/// Subdirectories (at most [`MAX_SUBDIRS`], by name) holding a manifest: the path and the
/// first manifest's name.
fn subprojects(dir: &mut Dir) -> Vec<(String, String)> {
    let mut names: Vec<String> = dir
        .entries
        .iter()
        .filter(|(n, k)| *k == TreeEntry::Dir && !skipped_subdir(n))
        .map(|(n, _)| n.clone())
        .collect();
    names.sort();
    names.truncate(MAX_SUBDIRS);
    let mut out = Vec::new();
    for name in names {
        let files = dir.files_in(&name);
        if let Some(manifest) = MANIFESTS.iter().find(|m| files.iter().any(|f| f == *m)) {
            out.push((dir.join(&name), (*manifest).to_owned()));
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod native {
    //! [`Tree`] over `std::fs` for the tests: the workspace is a temporary directory.

    use std::io::Read;
    use std::path::PathBuf;

    use super::*;

    /// A workspace on disk.
    pub struct NativeTree(pub PathBuf);

    impl NativeTree {
        fn path(&self, path: &str) -> PathBuf {
            self.0.join(path)
        }
    }

    fn kind_of(meta: &std::fs::Metadata) -> TreeEntry {
        if meta.is_dir() {
            TreeEntry::Dir
        } else if meta.is_file() {
            TreeEntry::File
        } else {
            TreeEntry::Other
        }
    }

    fn io(e: std::io::Error) -> Failure {
        Failure::new(ErrorKind::Internal, e.to_string())
    }

    impl Tree for NativeTree {
        fn kind(&mut self, path: &str) -> Result<Option<TreeEntry>, Failure> {
            match std::fs::metadata(self.path(path)) {
                Ok(meta) => Ok(Some(kind_of(&meta))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(io(e)),
            }
        }

        fn list(&mut self, path: &str) -> Result<Vec<(String, TreeEntry)>, Failure> {
            let mut out = Vec::new();
            for entry in std::fs::read_dir(self.path(path)).map_err(io)? {
                let entry = entry.map_err(io)?;
                let meta = std::fs::symlink_metadata(entry.path()).map_err(io)?;
                out.push((entry.file_name().to_string_lossy().into_owned(), kind_of(&meta)));
            }
            Ok(out)
        }

        fn read(&mut self, path: &str) -> Result<Vec<u8>, Failure> {
            let mut bytes = Vec::new();
            std::fs::File::open(self.path(path))
                .map_err(io)?
                .take(MAX_READ_BYTES as u64)
                .read_to_end(&mut bytes)
                .map_err(io)?;
            Ok(bytes)
        }
    }

    /// A workspace with `files` (path, contents; a path ending in `/` is a directory).
    pub fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, NativeTree) {
        let dir = tempfile::tempdir().unwrap();
        for (path, contents) in files {
            let full = dir.path().join(path);
            if path.ends_with('/') {
                std::fs::create_dir_all(&full).unwrap();
                continue;
            }
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, contents).unwrap();
        }
        let tree = NativeTree(dir.path().to_owned());
        (dir, tree)
    }

    /// What `detect` finds in `files` at `cwd`.
    pub fn found(files: &[(&str, &str)], cwd: Option<&str>) -> DirFindings {
        let (_dir, mut tree) = workspace(files);
        detect(&mut tree, cwd).unwrap()
    }

    /// The best match in `files` at the root.
    pub fn best(files: &[(&str, &str)]) -> Project {
        found(files, None).detected.expect("a project").project
    }
}

#[cfg(test)]
mod tests {
    use super::native::*;
    use super::*;

    #[test]
    fn a_monorepo_root_lists_every_toolchain_best_first() {
        let found = found(
            &[
                ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
                ("package.json", r#"{"name":"web","scripts":{"lint":"eslint ."}}"#),
                ("tests/test_smoke.py", "def test_x(): pass\n"),
            ],
            None,
        );
        let detected = found.detected.unwrap();
        assert_eq!(detected.project.project_type, "rust");
        let others: Vec<_> = detected.candidates.iter().map(|p| p.project_type.as_str()).collect();
        assert_eq!(others, ["node", "python"]);
        let json = serde_json::to_value(&detected).unwrap();
        assert_eq!(json["project_type"], "rust");
        assert_eq!(json["candidates"][0]["project_type"], "node");
    }

    #[test]
    fn higher_confidence_wins_over_module_order() {
        let best = best(&[
            ("package.json", r#"{"name":"tooling","devDependencies":{"prettier":"3"}}"#),
            ("pytest.ini", "[pytest]\n"),
        ]);
        assert_eq!(best.project_type, "python");
    }

    #[test]
    fn nothing_found_names_subdirectories_with_projects() {
        let found = found(
            &[
                ("README.md", "hi"),
                ("web/package.json", "{}"),
                ("api/go.mod", "module x\n"),
                ("docs/", ""),
                ("node_modules/x/package.json", "{}"),
                (".hidden/Cargo.toml", ""),
            ],
            None,
        );
        assert_eq!(found.detected, None);
        assert_eq!(
            found.subprojects,
            [("api".into(), "go.mod".into()), ("web".into(), "package.json".into())]
        );
        // The same through `cwd`.
        let web = super::native::found(&[("web/package.json", "{}")], Some("web"));
        assert_eq!(web.detected.unwrap().project.evidence[0].file, "web/package.json");
        assert_eq!(web.dir, "web");
    }

    #[test]
    fn cwd_must_be_a_directory_that_exists() {
        let (_d, mut tree) = workspace(&[("file.txt", "x")]);
        assert_eq!(detect(&mut tree, Some("nope")).unwrap_err().kind, ErrorKind::NotFound);
        assert_eq!(detect(&mut tree, Some("file.txt")).unwrap_err().kind, ErrorKind::InvalidInput);
        let empty = detect(&mut tree, None).unwrap();
        assert!(empty.detected.is_none() && empty.subprojects.is_empty());
    }
}
