//! Cargo: a `Cargo.toml` is a Rust project whose tests run with `cargo test`; one that
//! declares a `[workspace]` runs every member's with `cargo test --workspace`.

use super::sections::has;
use super::{Confidence, Dir, Project, Suggested};

/// The Cargo project in `dir`, if it has a `Cargo.toml`.
pub fn detect(dir: &mut Dir) -> Option<Project> {
    let manifest = dir.text("Cargo.toml")?;
    let mut evidence = Vec::new();
    let mut args = vec!["test".to_owned()];
    if has(&manifest, "workspace", false) {
        evidence.push(dir.evidence(
            "Cargo.toml",
            "declares a [workspace]: `cargo test --workspace` tests every member",
        ));
        args.push("--workspace".into());
    } else if has(&manifest, "package", false) {
        evidence.push(dir.evidence("Cargo.toml", "a Cargo package: tests run with `cargo test`"));
    } else {
        evidence.push(dir.evidence("Cargo.toml", "a Cargo manifest"));
    }
    if dir.has_file("Cargo.lock") {
        evidence.push(dir.evidence("Cargo.lock", "Cargo's lockfile"));
    }
    Some(Project {
        project_type: "rust".into(),
        package_manager: "cargo".into(),
        test_framework: Some("cargo".into()),
        suggested_command: Suggested { command: "cargo".into(), args },
        confidence: Confidence::High,
        evidence,
    })
}

#[cfg(test)]
mod tests {
    use super::super::native::best;
    use super::*;

    #[test]
    fn a_package_and_a_workspace() {
        let p = best(&[("Cargo.toml", "[package]\nname = \"x\"\n"), ("Cargo.lock", "")]);
        assert_eq!(
            p.suggested_command,
            Suggested { command: "cargo".into(), args: vec!["test".into()] }
        );
        assert_eq!(p.confidence, Confidence::High);
        assert_eq!(p.evidence.len(), 2);
        assert_eq!(p.evidence[1].file, "Cargo.lock");
        let w = best(&[("Cargo.toml", "[workspace]\nmembers = [\"a\"]\n")]);
        assert_eq!(w.suggested_command.args, ["test", "--workspace"]);
        assert!(w.evidence[0].reason.contains("[workspace]"));
    }
}
