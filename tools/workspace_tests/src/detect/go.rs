//! Go: a `go.mod` is a module whose tests run with `go test -v ./...` (`-v` so that the
//! output lists passing tests too, which `run` counts).

use super::{Confidence, Dir, Project, Suggested};

/// The Go module in `dir`, if it has a `go.mod`.
pub fn detect(dir: &mut Dir) -> Option<Project> {
    let module = dir.text("go.mod")?;
    let name = module.lines().find_map(|l| l.trim().strip_prefix("module ")).map(str::trim);
    let reason = match name {
        Some(name) => format!("the Go module {name}"),
        None => "a Go module".to_owned(),
    };
    let mut evidence = vec![dir.evidence("go.mod", reason)];
    if dir.has_file("go.work") {
        evidence
            .push(dir.evidence("go.work", "a Go workspace: other modules may need their own run"));
    }
    Some(Project {
        project_type: "go".into(),
        package_manager: "go".into(),
        test_framework: Some("go".into()),
        suggested_command: Suggested {
            command: "go".into(),
            args: vec!["test".into(), "-v".into(), "./...".into()],
        },
        confidence: Confidence::High,
        evidence,
    })
}

#[cfg(test)]
mod tests {
    use super::super::native::best;
    use super::*;

    #[test]
    fn a_module() {
        let p = best(&[("go.mod", "module example.com/m\n\ngo 1.22\n"), ("m_test.go", "")]);
        assert_eq!(p.project_type, "go");
        assert_eq!(p.suggested_command.args, ["test", "-v", "./..."]);
        assert_eq!(p.evidence[0].reason, "the Go module example.com/m");
        assert_eq!(p.confidence, Confidence::High);
    }
}
