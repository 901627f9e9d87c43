//! `workspace_tests` through the built binary (docs/workspace-tools.md#workspace_tests), over a
//! fake HOME full of secrets, with real projects made in the workspace and real toolchains
//! (`toolhost_tests::toolchains`: cargo, pytest in a virtualenv, vitest and jest from npm,
//! go): `detect` names each toolchain with its suggested command, confidence and evidence,
//! read-only and without asking; an approved `run` of that command reports the exact passed
//! and failed counts and names the failing test with its file and line; `cwd` picks a
//! package of a monorepo; a run nobody approved runs nothing (a build script's and a
//! conftest's marker never appear); a run past its timeout is killed and keeps the counts
//! so far; invalid inputs are refused before anyone is asked.

use std::path::Path;

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, promise};
use toolhost_tests::toolchains::{self, path_with};

const TESTS: &[&str] = &["--tools", "workspace_tests"];
const APPROVING: &[&str] = &["--tools", "workspace_tests", "--allow-escalation"];

const CARGO_TOML: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
/// A crate with one passing test and one failing at line 8.
const CARGO_LIB: &str = r#"#[cfg(test)]
mod tests {
    #[test]
    fn works() {}

    #[test]
    fn breaks() {
        assert_eq!(1 + 1, 3, "one and one are not three");
    }
}
"#;

/// Two pytest tests, the second failing at line 6.
const PYTEST_FILE: &str = r#"def test_works():
    assert 1 + 1 == 2


def test_breaks():
    assert 1 + 1 == 3, "one and one are not three"
"#;

/// Two vitest tests, the second failing at line 8.
const VITEST_FILE: &str = r#"import { test, expect } from 'vitest'

test('adds', () => {
  expect(1 + 1).toBe(2)
})

test('breaks', () => {
  expect(1 + 1).toBe(3)
})
"#;

/// Two jest tests, the second failing at line 6.
const JEST_FILE: &str = r#"test('adds', () => {
  expect(1 + 1).toBe(2);
});

test('breaks', () => {
  expect(1 + 1).toBe(3);
});
"#;

const GO_MOD: &str = "module example.com/demo\n\ngo 1.18\n";
const GO_LIB: &str = "package demo\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n";
/// Two Go tests, the second failing at line 13.
const GO_TEST: &str = r#"package demo

import "testing"

func TestWorks(t *testing.T) {
	if Add(1, 1) != 2 {
		t.Fatal("one and one are two")
	}
}

func TestBreaks(t *testing.T) {
	if Add(1, 1) != 3 {
		t.Errorf("one and one are not three: got %d", Add(1, 1))
	}
}
"#;

/// `toolhost <global> call workspace_tests INPUT --json`: the ToolResult.
fn call(a: &Attack, global: &[&str], input: Value) -> Value {
    let out = a.call_with(global, "workspace_tests", input);
    let result = out.json();
    assert!(result.is_object(), "not a ToolResult: {}", out.all());
    result
}

/// `detect` in `cwd`, with nobody to ask: the structured value (it must succeed).
fn detect(a: &Attack, cwd: Option<&str>) -> Value {
    let mut input = json!({"operation": "detect"});
    if let Some(cwd) = cwd {
        input["cwd"] = cwd.into();
    }
    let r = call(a, TESTS, input);
    assert_eq!(r["status"], "succeeded", "{r}");
    assert_eq!(r["structuredContent"]["success"], true, "{r}");
    r["structuredContent"].clone()
}

/// An approved `run` of `command args` in `cwd`: the ToolResult.
fn run(a: &Attack, command: &str, args: &[&str], cwd: Option<&str>) -> Value {
    let mut input = json!({"operation": "run", "command": command, "args": args});
    if let Some(cwd) = cwd {
        input["cwd"] = cwd.into();
    }
    call(a, APPROVING, input)
}

/// The detected project says `project_type`, `framework`, `command args`, `confidence`, and
/// names `evidence` among its files.
fn assert_detected(
    s: &Value,
    project_type: &str,
    framework: &str,
    command: &[&str],
    confidence: &str,
    evidence: &str,
) {
    let p = &s["detected_project"];
    assert_eq!(p["project_type"], project_type, "{s}");
    assert_eq!(p["test_framework"], framework, "{s}");
    assert_eq!(p["suggested_command"]["command"], command[0], "{s}");
    assert_eq!(p["suggested_command"]["args"], json!(command[1..]), "{s}");
    assert_eq!(p["confidence"], confidence, "{s}");
    let files: Vec<&str> =
        p["evidence"].as_array().unwrap().iter().filter_map(|e| e["file"].as_str()).collect();
    assert!(files.contains(&evidence), "{evidence} not among the evidence: {s}");
}

/// The run ended with one test passed and one failed, `name` failing at `file:line`; the
/// call failed (a failing test is a failed command), not terminally.
fn assert_one_of_two_failed(r: &Value, name: &str, file: &str, line: u64) {
    assert_eq!(r["status"], "failed", "{r}");
    let s = &r["structuredContent"];
    assert_eq!(s["operation"], "run", "{r}");
    assert_eq!(s["success"], false, "{r}");
    assert_eq!(s["termination"], "exited", "{r}");
    assert_eq!(s["error_kind"], "LOCAL_EXECUTOR_COMMAND_FAILED", "{r}");
    assert_eq!(s["terminal"], false, "{r}");
    assert_eq!(s["passed"], 1, "{r}");
    assert_eq!(s["failed"], 1, "{r}");
    let failures = s["failure_summary"].as_array().unwrap_or_else(|| panic!("{r}"));
    assert_eq!(failures.len(), 1, "{r}");
    assert_eq!(failures[0]["name"], name, "{r}");
    assert_eq!(failures[0]["file"], file, "{r}");
    assert_eq!(failures[0]["line"], line, "{r}");
}

/// A fake HOME and workspace whose runs find `bins` first on PATH; None (the test skips)
/// when bash's sandbox is unavailable here.
fn setup(test: &str, bins: &[&Path]) -> Option<Attack> {
    let mut a = Attack::new();
    if !a.sandbox_or_skip(test) {
        return None;
    }
    a.path_var = path_with(bins);
    Some(a)
}

/// Makes `dir/node_modules` (in the workspace) the suite's vitest and jest: a link to it.
fn link_node_modules(a: &Attack, dir: &str, modules: &Path) {
    std::os::unix::fs::symlink(modules, a.ws.join(dir).join("node_modules")).unwrap();
}

fn absent(path: &Path, what: &str) {
    promise(!path.exists(), || format!("{what}: {} exists, so the program ran", path.display()));
}

#[test]
fn a_cargo_crate_is_detected_and_its_run_names_the_failing_test() {
    const TEST: &str = "a_cargo_crate_is_detected_and_its_run_names_the_failing_test";
    let Some(rust) = toolchains::rust(TEST) else { return };
    let Some(a) = setup(TEST, &[&rust]) else { return };
    a.put("Cargo.toml", CARGO_TOML);
    a.put("src/lib.rs", CARGO_LIB);

    let s = detect(&a, None);
    assert_detected(&s, "rust", "cargo", &["cargo", "test"], "high", "Cargo.toml");
    assert_eq!(s["detected_project"]["package_manager"], "cargo", "{s}");

    let r = run(&a, "cargo", &["test"], None);
    assert_one_of_two_failed(&r, "tests::breaks", "src/lib.rs", 8);
    let s = &r["structuredContent"];
    assert_eq!(s["command_display"], "cargo test", "{r}");
    let failure = &s["failure_summary"][0];
    assert!(failure["message"].as_str().unwrap().contains("one and one are not three"), "{r}");
    assert!(s["stdout"].as_str().unwrap().contains("test tests::works ... ok"), "{r}");
}

#[test]
fn a_pytest_project_in_a_subdirectory_is_detected_and_its_run_names_the_failing_test() {
    const TEST: &str =
        "a_pytest_project_in_a_subdirectory_is_detected_and_its_run_names_the_failing_test";
    let Some(venv) = toolchains::pytest(TEST) else { return };
    let Some(a) = setup(TEST, &[&venv]) else { return };
    a.put("py/pytest.ini", "[pytest]\n");
    a.put("py/tests/test_demo.py", PYTEST_FILE);

    let s = detect(&a, Some("py"));
    assert_detected(&s, "python", "pytest", &["python3", "-m", "pytest"], "high", "py/pytest.ini");

    // The suggested command, as detect gave it, in the package's directory.
    let r = run(&a, "python3", &["-m", "pytest"], Some("py"));
    assert_one_of_two_failed(&r, "test_breaks", "tests/test_demo.py", 6);
    let failure = &r["structuredContent"]["failure_summary"][0];
    assert!(failure["message"].as_str().unwrap().contains("one and one are not three"), "{r}");

    // The run is sandboxed: a test that reads a credential gets nothing of it.
    let secret = a.secret(".ssh/id_rsa");
    a.put(
        "py/tests/test_secret.py",
        format!("def test_reads_a_key():\n    print(open({:?}).read())\n", secret.path),
    );
    let r = run(&a, "python3", &["-m", "pytest", "-s", "tests/test_secret.py"], Some("py"));
    assert_eq!(r["structuredContent"]["failed"], 1, "{r}");
    assert!(!r.to_string().contains(&secret.marker), "the test read {}: {r}", secret.rel);
}

#[test]
fn a_monorepo_package_is_picked_with_cwd_and_its_vitest_run_names_the_failing_test() {
    const TEST: &str =
        "a_monorepo_package_is_picked_with_cwd_and_its_vitest_run_names_the_failing_test";
    let Some(modules) = toolchains::js(TEST) else { return };
    let Some(a) = setup(TEST, &[&modules.join(".bin")]) else { return };
    // A Cargo workspace at the root, a vitest package in web/.
    a.put("Cargo.toml", CARGO_TOML);
    a.put("src/lib.rs", CARGO_LIB);
    a.put(
        "web/package.json",
        json!({"name": "web", "private": true, "type": "module",
               "scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "^4"}})
        .to_string(),
    );
    a.put("web/sum.test.js", VITEST_FILE);
    link_node_modules(&a, "web", &modules);

    let s = detect(&a, None);
    assert_detected(&s, "rust", "cargo", &["cargo", "test"], "high", "Cargo.toml");
    let s = detect(&a, Some("web"));
    assert_detected(&s, "node", "vitest", &["npm", "test"], "high", "web/package.json");
    assert_eq!(s["detected_project"]["package_manager"], "npm", "{s}");

    let r = run(&a, "npx", &["vitest", "run"], Some("web"));
    assert_one_of_two_failed(&r, "breaks", "sum.test.js", 8);
    assert_eq!(r["structuredContent"]["command_display"], "npx vitest run", "{r}");
    // Only web's tests ran: nothing was built at the root.
    absent(&a.ws.join("target"), "a vitest run in web/");
}

#[test]
fn a_jest_project_is_detected_and_its_npm_test_run_names_the_failing_test() {
    const TEST: &str = "a_jest_project_is_detected_and_its_npm_test_run_names_the_failing_test";
    let Some(modules) = toolchains::js(TEST) else { return };
    let Some(a) = setup(TEST, &[&modules.join(".bin")]) else { return };
    a.put(
        "package.json",
        json!({"name": "demo", "private": true, "scripts": {"test": "jest"},
               "devDependencies": {"jest": "^30"}})
        .to_string(),
    );
    a.put("sum.test.js", JEST_FILE);
    link_node_modules(&a, ".", &modules);

    let s = detect(&a, None);
    assert_detected(&s, "node", "jest", &["npm", "test"], "high", "package.json");

    let r = run(&a, "npm", &["test"], None);
    assert_one_of_two_failed(&r, "breaks", "sum.test.js", 6);
}

#[test]
fn a_go_module_is_detected_and_its_run_names_the_failing_test() {
    const TEST: &str = "a_go_module_is_detected_and_its_run_names_the_failing_test";
    let Some(go) = toolchains::go(TEST) else { return };
    let Some(a) = setup(TEST, &[&go]) else { return };
    a.put("svc/go.mod", GO_MOD);
    a.put("svc/demo.go", GO_LIB);
    a.put("svc/demo_test.go", GO_TEST);

    let s = detect(&a, Some("svc"));
    assert_detected(&s, "go", "go", &["go", "test", "-v", "./..."], "high", "svc/go.mod");

    let r = run(&a, "go", &["test", "-v", "./..."], Some("svc"));
    assert_one_of_two_failed(&r, "TestBreaks", "demo_test.go", 13);
    let failure = &r["structuredContent"]["failure_summary"][0];
    assert!(failure["message"].as_str().unwrap().contains("one and one are not three"), "{r}");
}

#[test]
fn detect_reads_without_asking_and_names_the_subprojects_when_the_root_has_none() {
    let a = Attack::new();
    a.put("web/package.json", r#"{"name":"web","scripts":{"test":"vitest run"}}"#);
    a.put("svc/go.mod", GO_MOD);
    a.put("notes/readme.txt", "no project here\n");
    let s = detect(&a, None);
    assert_eq!(s["detected_project"], Value::Null, "{s}");
    let summary = s["summary"].as_str().unwrap();
    for sub in ["web (package.json)", "svc (go.mod)"] {
        assert!(summary.contains(sub), "{sub}: {s}");
    }
    assert!(!summary.contains("notes"), "{s}");
    // A directory with nothing in it is a success too.
    let s = detect(&a, Some("notes"));
    assert_eq!(s["detected_project"], Value::Null, "{s}");
    // Several toolchains in one directory: the best, with the others as candidates.
    a.put("Cargo.toml", CARGO_TOML);
    a.put("package.json", r#"{"name":"root","scripts":{"test":"jest"}}"#);
    let s = detect(&a, None);
    assert_eq!(s["detected_project"]["project_type"], "rust", "{s}");
    let candidates = s["detected_project"]["candidates"].as_array().unwrap();
    assert_eq!(candidates[0]["project_type"], "node", "{s}");
}

#[test]
fn nothing_runs_without_an_approval_and_detect_runs_nothing() {
    const TEST: &str = "nothing_runs_without_an_approval_and_detect_runs_nothing";
    let Some(rust) = toolchains::rust(TEST) else { return };
    let Some(a) = setup(TEST, &[&rust]) else { return };
    // A build script and a conftest that each leave a marker when anything runs them.
    a.put("Cargo.toml", CARGO_TOML);
    a.put("src/lib.rs", CARGO_LIB);
    a.put(
        "build.rs",
        "fn main() {\n    let dir = std::env::var(\"CARGO_MANIFEST_DIR\").unwrap();\n    std::fs::write(format!(\"{dir}/cargo-marker\"), \"ran\").unwrap();\n}\n",
    );
    a.put("py/pytest.ini", "[pytest]\n");
    a.put("py/conftest.py", "open('pytest-marker', 'w').write('ran')\n");
    a.put("py/test_demo.py", PYTEST_FILE);
    let cargo_marker = a.ws.join("cargo-marker");
    let pytest_marker = a.ws.join("py/pytest-marker");

    // detect reads, asks nobody and runs nothing.
    detect(&a, None);
    detect(&a, Some("py"));
    absent(&cargo_marker, "detect");
    absent(&pytest_marker, "detect in py");

    // `call` with no terminal to ask and no --allow-escalation: denied, nothing ran.
    for (command, args, cwd) in
        [("cargo", vec!["test"], None), ("python3", vec!["-m", "pytest"], Some("py"))]
    {
        let mut input = json!({"operation": "run", "command": command, "args": args});
        if let Some(cwd) = cwd {
            input["cwd"] = json!(cwd);
        }
        let r = call(&a, TESTS, input);
        assert_eq!(r["status"], "denied", "{r}");
        assert_eq!(r["error"]["code"], "permission_denied", "{r}");
        let shown = format!("`{command} {}`", args.join(" "));
        assert!(r["error"]["message"].as_str().unwrap().contains(&shown), "{shown}: {r}");
    }
    absent(&cargo_marker, "cargo test without approval");
    absent(&pytest_marker, "pytest without approval");
    absent(&a.ws.join("target"), "cargo test without approval");

    // The markers do work: the approved run leaves one.
    let r = run(&a, "cargo", &["test"], None);
    assert_eq!(r["structuredContent"]["failed"], 1, "{r}");
    assert!(cargo_marker.exists(), "the approved run ran no build script: {r}");
}

#[test]
fn a_run_past_its_timeout_is_killed_and_keeps_the_counts_so_far() {
    const TEST: &str = "a_run_past_its_timeout_is_killed_and_keeps_the_counts_so_far";
    let Some(venv) = toolchains::pytest(TEST) else { return };
    let Some(a) = setup(TEST, &[&venv]) else { return };
    a.put("pytest.ini", "[pytest]\n");
    a.put(
        "test_slow.py",
        "import time\n\n\ndef test_first():\n    pass\n\n\ndef test_hangs():\n    time.sleep(600)\n",
    );
    let r = call(
        &a,
        APPROVING,
        json!({"operation": "run", "command": "python3", "args": ["-u", "-m", "pytest", "-v"],
               "timeout_ms": 15_000}),
    );
    let s = &r["structuredContent"];
    assert_eq!(s["termination"], "timed_out", "{r}");
    assert_eq!(s["error_kind"], "LOCAL_EXECUTOR_TIMEOUT", "{r}");
    assert_eq!(s["success"], false, "{r}");
    assert_eq!(s["passed"], 1, "{r}");
    assert!(s["stdout"].as_str().unwrap().contains("test_first PASSED"), "{r}");
}

#[test]
fn invalid_inputs_are_refused_before_anyone_is_asked() {
    let a = Attack::new();
    a.put("sub/x.txt", "x\n");
    let marker = a.ws.join("marker");
    let cases = [
        (json!({"operation": "run"}), "LOCAL_EXECUTOR_INVALID_INPUT", "needs `command`"),
        (json!({"operation": "run", "command": ""}), "LOCAL_EXECUTOR_INVALID_INPUT", "command"),
        (
            json!({"operation": "run", "command": "touch marker"}),
            "LOCAL_EXECUTOR_INVALID_INPUT",
            "`args`",
        ),
        (
            json!({"operation": "detect", "command": "touch", "args": ["marker"]}),
            "LOCAL_EXECUTOR_INVALID_INPUT",
            "`command` is not used by `detect`",
        ),
        (
            json!({"operation": "detect", "timeout_ms": 5}),
            "LOCAL_EXECUTOR_INVALID_INPUT",
            "`timeout_ms`",
        ),
        (
            json!({"operation": "run", "command": "touch", "args": ["marker"], "timeout_ms": 0}),
            "LOCAL_EXECUTOR_INVALID_INPUT",
            "1 to 600000",
        ),
        (
            json!({"operation": "run", "command": "touch", "args": ["marker"], "timeout_ms": 600_001}),
            "LOCAL_EXECUTOR_INVALID_INPUT",
            "1 to 600000",
        ),
        (
            json!({"operation": "run", "command": "touch", "args": ["marker"], "cwd": "../x"}),
            "LOCAL_EXECUTOR_PATH_DENIED",
            "",
        ),
        (
            json!({"operation": "run", "command": "touch", "args": ["marker"], "cwd": "/tmp"}),
            "LOCAL_EXECUTOR_PATH_DENIED",
            "",
        ),
        (json!({"operation": "detect", "cwd": "sub/x.txt"}), "LOCAL_EXECUTOR_INVALID_INPUT", ""),
    ];
    // Refused the same with nobody to ask and with every run approved: the input is
    // checked before any question, and nothing runs.
    for global in [TESTS, APPROVING] {
        for (input, kind, says) in &cases {
            let r = call(&a, global, input.clone());
            assert_eq!(r["status"], "failed", "{input}: {r}");
            let s = &r["structuredContent"];
            assert_eq!(s["error_kind"], *kind, "{input}: {r}");
            assert_eq!(s["success"], false, "{input}: {r}");
            assert_eq!(s["terminal"], true, "{input}: {r}");
            assert!(s["error"].as_str().unwrap().contains(says), "{says:?} in {input}: {r}");
            absent(&marker, &input.to_string());
        }
    }
    // Fields no operation takes are refused by the schema.
    for input in [
        json!({"operation": "run", "command": "touch", "args": ["marker"], "env": {"A": "1"}}),
        json!({"operation": "test"}),
    ] {
        let r = call(&a, APPROVING, input.clone());
        assert_ne!(r["status"], "succeeded", "{input}: {r}");
        absent(&marker, &input.to_string());
    }
}

/// `cwd` is relative to the workspace root (docs/workspace-tools.md): `..` above the root, an absolute path
/// and a symlink out are refused for `detect` (nothing outside is read) and for `run`
/// (nothing runs), naming the field.
#[test]
fn a_cwd_outside_the_workspace_is_refused_naming_the_field() {
    let a = Attack::new();
    let outside = a.outside_dir("outside");
    std::fs::write(outside.join("package.json"), r#"{"scripts":{"test":"jest-7f3a"}}"#).unwrap();
    std::fs::write(outside.join("Cargo.toml"), CARGO_TOML).unwrap();
    std::os::unix::fs::symlink(&outside, a.ws.join("link")).unwrap();
    let marker = a.ws.join("marker");
    let absolute = outside.display().to_string();
    for cwd in ["..", "../outside", absolute.as_str(), "link"] {
        for (global, input) in [
            (TESTS, json!({"operation": "detect", "cwd": cwd})),
            (
                APPROVING,
                json!({"operation": "run", "command": "touch", "args": ["marker"], "cwd": cwd}),
            ),
        ] {
            let r = call(&a, global, input.clone());
            assert_eq!(r["status"], "failed", "{input}: {r}");
            let s = &r["structuredContent"];
            assert_eq!(s["error_kind"], "LOCAL_EXECUTOR_PATH_DENIED", "{input}: {r}");
            assert!(s["error"].as_str().unwrap().starts_with("`cwd`: "), "{input}: {r}");
            assert!(!r.to_string().contains("7f3a"), "{input} read outside: {r}");
            absent(&marker, &input.to_string());
            absent(&outside.join("marker"), &input.to_string());
        }
    }
}

/// A test command killed by a signal is `signalled` (docs/workspace-tools.md), not `exited` with 128 + N;
/// one that exits 137 by itself stays `exited`.
#[test]
fn a_run_killed_by_a_signal_is_signalled() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_run_killed_by_a_signal_is_signalled") {
        return;
    }
    for (script, termination) in
        [("kill -KILL $$", "signalled"), ("kill -ABRT $$", "signalled"), ("exit 137", "exited")]
    {
        let r = run(&a, "sh", &["-c", script], None);
        let s = &r["structuredContent"];
        assert_eq!(s["termination"], termination, "{script}: {r}");
        assert_eq!(s["error_kind"], "LOCAL_EXECUTOR_COMMAND_FAILED", "{script}: {r}");
        assert_eq!(s["success"], false, "{script}: {r}");
    }
}
