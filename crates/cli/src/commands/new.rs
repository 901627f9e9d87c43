//! `toolhost new NAME --lang rust|python|javascript [--dir D]`: a tool project that builds
//! with one command and passes `toolhost conformance` as it is, on a machine with only the
//! language's own toolchain and its public registry. The files are the templates under
//! `crates/cli/templates/` (embedded), with the name put in; `wit/tool.wit` is the newest
//! package, as `toolhost wit` prints it. Exit 0 created, 1 not created (the directory is not
//! empty, a write failed), 2 usage (a name no installed tool could have).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::ValueEnum;

use toolhost::display::terminal_line;
use toolhost::plugins::RESERVED_IDS;
use toolhost::plugins::rules::{MAX_ID_CHARS, valid_id};

use crate::commands::EXIT_USAGE;

/// The language of a new tool project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    /// Rust with wit-bindgen, built by cargo for wasm32-wasip2.
    Rust,
    /// Python, built by componentize-py.
    #[value(alias = "py")]
    Python,
    /// JavaScript, built by componentize-js.
    #[value(alias = "js")]
    Javascript,
}

/// One file of a template: its path in the project, its text, whether it is executable.
struct File {
    path: &'static str,
    text: &'static str,
    executable: bool,
}

macro_rules! file {
    ($path:literal, $src:literal) => {
        File {
            path: $path,
            text: include_str!(concat!("../../templates/", $src)),
            executable: false,
        }
    };
    ($path:literal, $src:literal, executable) => {
        File {
            path: $path,
            text: include_str!(concat!("../../templates/", $src)),
            executable: true,
        }
    };
}

const RUST: &[File] = &[
    file!("Cargo.toml", "rust/Cargo.toml"),
    file!("src/lib.rs", "rust/src/lib.rs"),
    file!("rustfmt.toml", "rust/rustfmt.toml"),
    file!(".gitignore", "rust/gitignore"),
];

const PYTHON: &[File] = &[
    file!("app.py", "python/app.py"),
    file!("requirements.txt", "python/requirements.txt"),
    file!("build.sh", "python/build.sh", executable),
    file!(".gitignore", "python/gitignore"),
];

const JAVASCRIPT: &[File] = &[
    file!("package.json", "javascript/package.json"),
    file!("tool.js", "javascript/tool.js"),
    file!(".gitignore", "javascript/gitignore"),
];

/// Every project's README, with the language's build section put in.
const README: &str = include_str!("../../templates/README.md");

impl Lang {
    fn files(self) -> &'static [File] {
        match self {
            Lang::Rust => RUST,
            Lang::Python => PYTHON,
            Lang::Javascript => JAVASCRIPT,
        }
    }

    fn build_section(self) -> &'static str {
        match self {
            Lang::Rust => include_str!("../../templates/rust/BUILD.md"),
            Lang::Python => include_str!("../../templates/python/BUILD.md"),
            Lang::Javascript => include_str!("../../templates/javascript/BUILD.md"),
        }
    }

    fn title(self) -> &'static str {
        match self {
            Lang::Rust => "Rust",
            Lang::Python => "Python",
            Lang::Javascript => "JavaScript",
        }
    }

    /// The one build command, as the README gives it.
    pub fn build_command(self) -> &'static str {
        match self {
            Lang::Rust => "cargo build --release --target wasm32-wasip2",
            Lang::Python => "./build.sh",
            Lang::Javascript => "npm install && npm run build",
        }
    }
}

/// Rust keywords and the crates every Rust build links by name: no package may be called so.
const RUST_RESERVED: &[&str] = &[
    "abstract",
    "alloc",
    "as",
    "async",
    "await",
    "become",
    "box",
    "break",
    "const",
    "continue",
    "core",
    "crate",
    "do",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "final",
    "fn",
    "for",
    "gen",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "macro",
    "match",
    "mod",
    "move",
    "mut",
    "override",
    "priv",
    "proc_macro",
    "pub",
    "ref",
    "return",
    "self",
    "static",
    "std",
    "struct",
    "super",
    "test",
    "trait",
    "true",
    "try",
    "type",
    "typeof",
    "unsafe",
    "unsized",
    "use",
    "virtual",
    "where",
    "while",
    "yield",
];

/// The Rust package name for tool `name`: the name itself when cargo takes it, else
/// `tool-NAME` (a name starting with a digit, `_` or `-`, or a keyword).
pub fn crate_name(name: &str) -> String {
    let starts_with_letter = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    let reserved = RUST_RESERVED.contains(&name.replace('-', "_").to_ascii_lowercase().as_str());
    if starts_with_letter && !reserved { name.to_string() } else { format!("tool-{name}") }
}

/// The npm package name for tool `name`: lower case, not starting with `_` or `-`.
fn npm_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with(['_', '-']) { format!("tool{lower}") } else { lower }
}

/// Where the built component lands, relative to the project.
pub fn component_path(lang: Lang, name: &str) -> String {
    match lang {
        Lang::Rust => {
            format!("target/wasm32-wasip2/release/{}.wasm", crate_name(name).replace('-', "_"))
        }
        Lang::Python | Lang::Javascript => format!("{name}.wasm"),
    }
}

/// Why `name` cannot be a tool's id, if it cannot.
pub fn refuse_name(name: &str) -> Option<String> {
    if !valid_id(name) {
        return Some(format!(
            "`{}` cannot be a tool id: an id is 1 to {MAX_ID_CHARS} characters of A-Z, a-z, 0-9, `_` and `-` (e.g. word_count); choose such a name",
            terminal_line(name)
        ));
    }
    if let Some(b) = RESERVED_IDS.iter().find(|b| b.eq_ignore_ascii_case(name)) {
        return Some(format!(
            "`{name}` is the id of the built-in tool `{b}` (ids are compared ignoring case), so no installed tool may have it; choose another name"
        ));
    }
    None
}

/// The project's files (path, text, executable), the name put in.
fn render(lang: Lang, name: &str) -> Vec<(PathBuf, String, bool)> {
    let wit = crate::commands::wit::text(None).expect("the newest package");
    let fill = |text: &str| {
        text.replace("{{build_section}}", lang.build_section())
            .replace("{{lang}}", lang.title())
            .replace("{{wit_version}}", wit.0)
            .replace("{{wasm}}", &component_path(lang, name))
            .replace("{{crate}}", &crate_name(name))
            .replace("{{npm_name}}", &npm_name(name))
            .replace("{{name}}", name)
    };
    let mut files: Vec<(PathBuf, String, bool)> =
        lang.files().iter().map(|f| (PathBuf::from(f.path), fill(f.text), f.executable)).collect();
    files.push(("README.md".into(), fill(README), false));
    files.push((
        "wit/tool.wit".into(),
        format!("{}{}", crate::commands::wit::header(wit.0), wit.1),
        false,
    ));
    files
}

/// Whether `dir` may be written: it does not exist, or it is an empty directory.
fn refuse_dir(dir: &Path) -> Option<String> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_some().then(|| {
            format!(
                "{} exists and is not empty; nothing was written. Give another directory with --dir, or remove that one first",
                terminal_line(&dir.display().to_string())
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(_) if dir.exists() => Some(format!(
            "{} exists and is not a directory this command can fill; give another with --dir",
            terminal_line(&dir.display().to_string())
        )),
        Err(_) => None,
    }
}

fn write(dir: &Path, files: &[(PathBuf, String, bool)]) -> Result<()> {
    for (path, text, executable) in files {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        #[cfg(unix)]
        if *executable {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .with_context(|| format!("cannot make {} executable", path.display()))?;
        }
    }
    Ok(())
}

/// Create the project of tool `name` in `lang` at `dir` (default `./NAME`).
pub fn run(name: &str, lang: Lang, dir: Option<&Path>) -> Result<ExitCode> {
    if let Some(why) = refuse_name(name) {
        eprintln!("toolhost: {why}");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let dir = dir.map_or_else(|| PathBuf::from(name), Path::to_path_buf);
    if let Some(why) = refuse_dir(&dir) {
        eprintln!("toolhost: {why}");
        return Ok(ExitCode::FAILURE);
    }
    write(&dir, &render(lang, name))?;
    let shown = dir.display().to_string();
    let shown = terminal_line(&shown);
    outln!("Created {shown}: the {} tool `{name}`. Next:", lang.title());
    outln!("  cd {shown}");
    outln!("  {}", lang.build_command());
    let wasm = component_path(lang, name);
    outln!("  toolhost conformance {wasm}");
    outln!("  toolhost tool add {wasm}");
    outln!("  toolhost call {name} '{{\"path\": \"README.md\"}}'");
    outln!("README.md says more; the contract is in toolhost's docs/authoring.md.");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_tool_id_rule() {
        assert!(refuse_name("word_count").is_none());
        assert!(refuse_name("Word-Count2").is_none());
        for bad in ["", "a b", "a.b", "ü", &"x".repeat(MAX_ID_CHARS + 1)] {
            assert!(refuse_name(bad).unwrap().contains("cannot be a tool id"), "{bad:?}");
        }
        assert!(refuse_name("Read").unwrap().contains("built-in tool `read`"));
    }

    #[test]
    fn crate_names_are_ones_cargo_takes() {
        assert_eq!(crate_name("word_count"), "word_count");
        assert_eq!(crate_name("2fa"), "tool-2fa");
        assert_eq!(crate_name("_x"), "tool-_x");
        assert_eq!(crate_name("fn"), "tool-fn");
        assert_eq!(crate_name("Test"), "tool-Test");
        assert_eq!(component_path(Lang::Rust, "2fa"), "target/wasm32-wasip2/release/tool_2fa.wasm");
        assert_eq!(npm_name("_Ab"), "tool_ab");
    }

    #[test]
    fn every_placeholder_is_filled() {
        for lang in [Lang::Rust, Lang::Python, Lang::Javascript] {
            let files = render(lang, "demo_1");
            assert!(files.iter().any(|(p, _, _)| p == Path::new("wit/tool.wit")));
            for (path, text, _) in files {
                assert!(!text.contains("{{"), "{lang:?} {}: {text}", path.display());
            }
        }
    }

    #[test]
    fn a_non_empty_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(refuse_dir(dir.path()).is_none());
        assert!(refuse_dir(&dir.path().join("new")).is_none());
        std::fs::write(dir.path().join("x"), "").unwrap();
        assert!(refuse_dir(dir.path()).unwrap().contains("not empty"));
    }
}
