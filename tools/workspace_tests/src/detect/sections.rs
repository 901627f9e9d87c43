//! The section headers of TOML and INI files (`[workspace]`, `[tool.pytest.ini_options]`,
//! `[tool:pytest]`), read line by line: detection needs only whether a section is there and,
//! for a few, one key of it, not a full parser.

/// The name of the section a `[name]` line opens (not `[[array]]` tables), spaces trimmed.
pub fn header(line: &str) -> Option<&str> {
    let line = line.trim();
    let line = line.split_once('#').map_or(line, |(before, _)| before).trim_end();
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    (!inner.starts_with('[')).then(|| inner.trim())
}

/// Whether `text` has a section `name` (or, with `dotted`, one of its subtables `name.x`).
pub fn has(text: &str, name: &str, dotted: bool) -> bool {
    text.lines().filter_map(header).any(|h| {
        h == name || (dotted && h.strip_prefix(name).is_some_and(|rest| rest.starts_with('.')))
    })
}

/// Whether a line inside section `section` (or its dotted subtables, or an inline table)
/// mentions `word` — e.g. `pytest` among a pyproject's dependencies.
pub fn mentions(text: &str, section: &str, word: &str) -> bool {
    let mut inside = false;
    for line in text.lines() {
        if let Some(h) = header(line) {
            inside = h == section || h.strip_prefix(section).is_some_and(|r| r.starts_with('.'));
            continue;
        }
        if inside && words(line).any(|w| w == word) {
            return true;
        }
    }
    false
}

/// The package-name-like words of a line (`pytest>=7` → `pytest`).
pub fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_sections() {
        assert_eq!(header(" [workspace] # the root"), Some("workspace"));
        assert_eq!(header("[tool:pytest]"), Some("tool:pytest"));
        assert_eq!(header("[[bin]]"), None);
        assert_eq!(header("name = \"[x]\""), None);
        let toml = "[package]\nname = \"x\"\n\n[workspace.dependencies]\nserde = \"1\"\n";
        assert!(has(toml, "workspace", true));
        assert!(!has(toml, "workspace", false));
        assert!(!has("[workspaces]\n", "workspace", true));
    }

    #[test]
    fn mentions_look_inside_one_section() {
        let py = "[project]\ndependencies = [\"requests\"]\n\n[project.optional-dependencies]\ntest = [\"pytest>=7\", \"pytest-cov\"]\n[tool.black]\nline = \"pytest\"\n";
        assert!(mentions(py, "project", "pytest"));
        assert!(!mentions(py, "tool.ruff", "pytest"));
        assert!(!mentions("[project]\ndependencies = [\"pytest-cov\"]\n", "project", "pytest"));
    }
}
