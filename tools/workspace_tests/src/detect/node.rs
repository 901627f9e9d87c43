//! Node: a `package.json`. The package manager is the lockfile's (`pnpm-lock.yaml` pnpm,
//! `yarn.lock` yarn, `package-lock.json` npm; else the `packageManager` field; else npm);
//! the framework is vitest or jest, named by the `test` script, a dependency or a config
//! file (`vitest.config.*`, `jest.config.*`, a `jest` key). A real `test` script (not npm's
//! placeholder) runs as `<manager> test`; without one, the framework's own command.

use serde_json::Value;

use super::{Confidence, Dir, Evidence, Project, Suggested};

/// npm's placeholder script of `npm init`, which runs no test.
const PLACEHOLDER: &str = "no test specified";

/// The test frameworks recognised, in the order they are preferred.
const FRAMEWORKS: [&str; 2] = ["vitest", "jest"];

/// The Node project in `dir`, if it has a `package.json`.
pub fn detect(dir: &mut Dir) -> Option<Project> {
    let text = dir.text("package.json")?;
    let mut evidence = Vec::new();
    let manifest: Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => {
            evidence.push(dir.evidence("package.json", format!("could not be parsed: {e}")));
            Value::Null
        }
    };
    let manager = package_manager(dir, &manifest, &mut evidence);
    let script = manifest["scripts"]["test"].as_str().filter(|s| !s.contains(PLACEHOLDER));
    match (script, manifest["scripts"]["test"].as_str()) {
        (Some(script), _) => {
            evidence.push(dir.evidence("package.json", format!("scripts.test is {script:?}")))
        }
        (None, Some(_)) => evidence.push(
            dir.evidence("package.json", "scripts.test is npm's placeholder, which runs no test"),
        ),
        (None, None) => {
            evidence.push(dir.evidence("package.json", "a Node package without a test script"))
        }
    }
    if !manifest["workspaces"].is_null() {
        evidence.push(dir.evidence("package.json", "declares workspaces (a monorepo root)"));
    }
    let framework = framework(dir, &manifest, script, &mut evidence);
    let suggested_command = match (script, framework) {
        (Some(_), _) | (None, None) => {
            Suggested { command: manager.into(), args: vec!["test".into()] }
        }
        (None, Some(framework)) => direct(manager, framework),
    };
    let confidence = match (script, framework) {
        (Some(_), Some(_)) => Confidence::High,
        (Some(_), None) | (None, Some(_)) => Confidence::Medium,
        (None, None) => Confidence::Low,
    };
    Some(Project {
        project_type: "node".into(),
        package_manager: manager.into(),
        test_framework: framework.map(str::to_owned),
        suggested_command,
        confidence,
        evidence,
    })
}

/// The package manager, from the lockfile or the `packageManager` field.
fn package_manager(dir: &Dir, manifest: &Value, evidence: &mut Vec<Evidence>) -> &'static str {
    for (lockfile, manager) in
        [("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("package-lock.json", "npm")]
    {
        if dir.has_file(lockfile) {
            evidence.push(dir.evidence(lockfile, format!("{manager}'s lockfile")));
            return manager;
        }
    }
    if dir.has_file("pnpm-workspace.yaml") {
        evidence.push(dir.evidence("pnpm-workspace.yaml", "a pnpm workspace root"));
        return "pnpm";
    }
    if let Some(field) = manifest["packageManager"].as_str() {
        let name = field.split('@').next().unwrap_or(field);
        if let Some(manager) = ["pnpm", "yarn", "npm"].into_iter().find(|m| *m == name) {
            evidence.push(dir.evidence("package.json", format!("packageManager is {field:?}")));
            return manager;
        }
    }
    "npm"
}

/// The framework the test script, the dependencies or a config file name.
fn framework(
    dir: &Dir,
    manifest: &Value,
    script: Option<&str>,
    evidence: &mut Vec<Evidence>,
) -> Option<&'static str> {
    if let Some(script) = script
        && let Some(named) = FRAMEWORKS.into_iter().find(|f| script.contains(f))
    {
        return Some(named);
    }
    for framework in FRAMEWORKS {
        for section in ["devDependencies", "dependencies"] {
            if !manifest[section][framework].is_null() {
                evidence.push(dir.evidence("package.json", format!("{framework} is in {section}")));
                return Some(framework);
            }
        }
        let prefix = format!("{framework}.config.");
        let configs = dir.files_where(|n| n.starts_with(&prefix));
        if let Some(config) = configs.first() {
            evidence.push(dir.evidence(config, format!("{framework}'s configuration")));
            return Some(framework);
        }
    }
    if manifest["jest"].is_object() {
        evidence.push(dir.evidence("package.json", "has a jest configuration key"));
        return Some("jest");
    }
    None
}

/// The framework's own command through `manager`, when no test script wraps it.
fn direct(manager: &str, framework: &str) -> Suggested {
    let mut args: Vec<String> = match manager {
        "pnpm" => vec!["exec".into(), framework.into()],
        _ => vec![framework.into()],
    };
    if framework == "vitest" {
        args.push("run".into());
    }
    let command = if manager == "npm" { "npx" } else { manager };
    Suggested { command: command.into(), args }
}

#[cfg(test)]
mod tests {
    use super::super::native::best;
    use super::*;

    fn suggested(p: &Project) -> String {
        format!("{} {}", p.suggested_command.command, p.suggested_command.args.join(" "))
    }

    #[test]
    fn the_lockfile_picks_the_manager() {
        let pkg = r#"{"scripts":{"test":"vitest run"},"devDependencies":{"vitest":"^2"}}"#;
        for (lockfile, manager) in
            [("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("package-lock.json", "npm")]
        {
            let p = best(&[("package.json", pkg), (lockfile, "")]);
            assert_eq!(p.package_manager, manager);
            assert_eq!(suggested(&p), format!("{manager} test"));
            assert_eq!(p.test_framework.as_deref(), Some("vitest"));
            assert_eq!(p.confidence, Confidence::High);
            assert!(p.evidence.iter().any(|e| e.file == lockfile), "{:?}", p.evidence);
        }
        let p = best(&[("package.json", r#"{"packageManager":"yarn@4.1.0"}"#)]);
        assert_eq!(p.package_manager, "yarn");
        assert_eq!(best(&[("package.json", "{}")]).package_manager, "npm");
    }

    #[test]
    fn frameworks_from_dependencies_and_config_files() {
        let p = best(&[("package.json", r#"{"devDependencies":{"jest":"^29"}}"#)]);
        assert_eq!((p.test_framework.as_deref(), p.confidence), (Some("jest"), Confidence::Medium));
        assert_eq!(suggested(&p), "npx jest");
        let p = best(&[("package.json", "{}"), ("vitest.config.ts", ""), ("pnpm-lock.yaml", "")]);
        assert_eq!(p.test_framework.as_deref(), Some("vitest"));
        assert_eq!(suggested(&p), "pnpm exec vitest run");
        assert!(p.evidence.iter().any(|e| e.file == "vitest.config.ts"));
        let p = best(&[("package.json", "{}"), ("jest.config.js", ""), ("yarn.lock", "")]);
        assert_eq!(suggested(&p), "yarn jest");
        let p = best(&[("package.json", r#"{"scripts":{"test":"jest --ci"},"jest":{}}"#)]);
        assert_eq!(
            (p.test_framework.as_deref(), suggested(&p).as_str()),
            (Some("jest"), "npm test")
        );
    }

    #[test]
    fn placeholder_scripts_and_broken_manifests() {
        let p = best(&[(
            "package.json",
            r#"{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}"#,
        )]);
        assert_eq!((p.test_framework, p.confidence), (None, Confidence::Low));
        assert!(p.evidence.iter().any(|e| e.reason.contains("placeholder")));
        let p = best(&[("package.json", r#"{"scripts":{"test":"mocha"}}"#)]);
        assert_eq!((p.test_framework, p.confidence), (None, Confidence::Medium));
        let p = best(&[("package.json", "{ not json")]);
        assert!(p.evidence[0].reason.starts_with("could not be parsed"));
        assert_eq!(p.confidence, Confidence::Low);
    }
}
