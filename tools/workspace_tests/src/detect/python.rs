//! Python with pytest. pytest's configuration — `pytest.ini`, `[tool.pytest.ini_options]` in
//! `pyproject.toml`, `[tool:pytest]` in `setup.cfg`, `[pytest]` in `tox.ini` — is high
//! confidence; `conftest.py` or pytest among the dependencies medium; test files alone
//! (`test_*.py` / `*_test.py` here or in `tests/`) low, as is a Python manifest without any.
//! The package manager is the lockfile's (`uv.lock` uv, `poetry.lock` or `[tool.poetry]`
//! poetry, `Pipfile` pipenv; else pip), and the command runs pytest through it
//! (`uv run pytest`, `poetry run pytest`, `pipenv run pytest`, `python3 -m pytest`).

use super::sections::{has, mentions, words};
use super::{Confidence, Dir, Evidence, Project, Suggested};

/// Files that make a directory a Python project even without tests.
const MANIFESTS: [&str; 4] = ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"];

/// The pytest project in `dir`, if there are signs of one.
pub fn detect(dir: &mut Dir) -> Option<Project> {
    let mut evidence = Vec::new();
    let mut confidence = None;
    let raise = |confidence: &mut Option<Confidence>, to| *confidence = (*confidence).max(Some(to));

    if dir.has_file("pytest.ini") {
        evidence.push(dir.evidence("pytest.ini", "pytest's configuration"));
        raise(&mut confidence, Confidence::High);
    }
    let pyproject = dir.text("pyproject.toml");
    if let Some(text) = &pyproject {
        if has(text, "tool.pytest", true) {
            evidence
                .push(dir.evidence("pyproject.toml", "has a [tool.pytest.ini_options] section"));
            raise(&mut confidence, Confidence::High);
        } else if mentions(text, "project", "pytest")
            || mentions(text, "tool.poetry", "pytest")
            || mentions(text, "dependency-groups", "pytest")
        {
            evidence.push(dir.evidence("pyproject.toml", "pytest is among the dependencies"));
            raise(&mut confidence, Confidence::Medium);
        }
    }
    for (file, section) in [("setup.cfg", "tool:pytest"), ("tox.ini", "pytest")] {
        if dir.text(file).is_some_and(|t| has(&t, section, false)) {
            evidence.push(dir.evidence(file, format!("has a [{section}] section")));
            raise(&mut confidence, Confidence::High);
        }
    }
    if dir.has_file("conftest.py") {
        evidence.push(dir.evidence("conftest.py", "pytest's fixtures file"));
        raise(&mut confidence, Confidence::Medium);
    }
    let requirements = dir.files_where(|n| n.starts_with("requirements") && n.ends_with(".txt"));
    for file in requirements {
        if dir.text(&file).is_some_and(|t| t.lines().any(|l| words(l).next() == Some("pytest"))) {
            evidence.push(dir.evidence(&file, "lists pytest"));
            raise(&mut confidence, Confidence::Medium);
        }
    }
    if let Some(found) = test_files(dir) {
        evidence.push(found);
        raise(&mut confidence, Confidence::Low);
    }
    let framework = confidence.is_some();
    if !framework {
        let manifest = MANIFESTS.iter().find(|m| dir.has_file(m))?;
        evidence
            .push(dir.evidence(manifest, "a Python project without a pytest setup or test files"));
        raise(&mut confidence, Confidence::Low);
    }
    let manager = package_manager(dir, pyproject.as_deref(), &mut evidence);
    let suggested_command = match manager {
        "pip" => Suggested { command: "python3".into(), args: vec!["-m".into(), "pytest".into()] },
        other => Suggested { command: other.into(), args: vec!["run".into(), "pytest".into()] },
    };
    Some(Project {
        project_type: "python".into(),
        package_manager: manager.into(),
        test_framework: framework.then(|| "pytest".into()),
        suggested_command,
        confidence: confidence.unwrap_or(Confidence::Low),
        evidence,
    })
}

/// Whether `name` is a file pytest collects by default.
fn is_test_file(name: &str) -> bool {
    name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
}

/// Evidence of test files in the directory or its `tests/` (or `test/`) subdirectory.
fn test_files(dir: &mut Dir) -> Option<Evidence> {
    let here = dir.files_where(is_test_file);
    if let Some(first) = here.first() {
        return Some(dir.evidence(first, format!("{} test file(s) like this one", here.len())));
    }
    for sub in ["tests", "test"] {
        if !dir.has_dir(sub) {
            continue;
        }
        let files: Vec<String> =
            dir.files_in(sub).into_iter().filter(|n| is_test_file(n)).collect();
        if !files.is_empty() {
            return Some(
                dir.evidence(sub, format!("holds {} test file(s) ({}, …)", files.len(), files[0])),
            );
        }
    }
    None
}

/// The package manager, from its lockfile or pyproject section; pip otherwise.
fn package_manager(
    dir: &Dir,
    pyproject: Option<&str>,
    evidence: &mut Vec<Evidence>,
) -> &'static str {
    for (file, manager) in [("uv.lock", "uv"), ("poetry.lock", "poetry"), ("Pipfile", "pipenv")] {
        if dir.has_file(file) {
            evidence.push(dir.evidence(file, format!("{manager} manages the environment")));
            return manager;
        }
    }
    if pyproject.is_some_and(|t| has(t, "tool.poetry", false)) {
        evidence.push(dir.evidence("pyproject.toml", "has a [tool.poetry] section"));
        return "poetry";
    }
    "pip"
}

#[cfg(test)]
mod tests {
    use super::super::native::{best, found};
    use super::*;

    fn confidence(files: &[(&str, &str)]) -> Confidence {
        best(files).confidence
    }

    #[test]
    fn configuration_is_high_confidence() {
        assert_eq!(confidence(&[("pytest.ini", "[pytest]\n")]), Confidence::High);
        assert_eq!(
            confidence(&[(
                "pyproject.toml",
                "[project]\nname='x'\n[tool.pytest.ini_options]\naddopts='-q'\n"
            )]),
            Confidence::High
        );
        assert_eq!(confidence(&[("setup.cfg", "[metadata]\n[tool:pytest]\n")]), Confidence::High);
        assert_eq!(
            confidence(&[("tox.ini", "[tox]\n[pytest]\nminversion = 6\n")]),
            Confidence::High
        );
        let p = best(&[("pytest.ini", "")]);
        assert_eq!(p.test_framework.as_deref(), Some("pytest"));
        assert_eq!(p.suggested_command.command, "python3");
        assert_eq!(p.suggested_command.args, ["-m", "pytest"]);
    }

    #[test]
    fn weaker_signs() {
        assert_eq!(confidence(&[("conftest.py", "")]), Confidence::Medium);
        assert_eq!(confidence(&[("requirements-dev.txt", "pytest==8.0\n")]), Confidence::Medium);
        assert_eq!(
            confidence(&[("pyproject.toml", "[project]\ndependencies = [\"pytest>=7\"]\n")]),
            Confidence::Medium
        );
        let p = best(&[("tests/test_a.py", ""), ("tests/helpers.py", "")]);
        assert_eq!((p.confidence, p.evidence[0].file.as_str()), (Confidence::Low, "tests"));
        assert_eq!(confidence(&[("calc_test.py", "")]), Confidence::Low);
        let bare = best(&[("setup.py", "")]);
        assert_eq!((bare.test_framework, bare.confidence), (None, Confidence::Low));
        // Neither a pytest sign nor a manifest: no Python project.
        assert!(found(&[("tox.ini", "[tox]\n"), ("helpers.py", "")], None).detected.is_none());
    }

    #[test]
    fn the_manager_runs_pytest() {
        let p = best(&[("pytest.ini", ""), ("uv.lock", "")]);
        assert_eq!(
            (p.package_manager.as_str(), p.suggested_command.command.as_str()),
            ("uv", "uv")
        );
        assert_eq!(p.suggested_command.args, ["run", "pytest"]);
        let p = best(&[("pyproject.toml", "[tool.poetry]\nname='x'\n[tool.pytest.ini_options]\n")]);
        assert_eq!(p.package_manager, "poetry");
        assert_eq!(best(&[("conftest.py", ""), ("Pipfile", "")]).package_manager, "pipenv");
    }
}
