//! A third party writes a tool in Rust, Python or JavaScript with nothing but the built
//! `toolhost` and the language's own toolchain: for each language, `toolhost new`
//! makes a project that builds with the one command its README gives and passes
//! `toolhost conformance` unchanged; the example `examples/word_count/<lang>` (copied out of
//! the repository, so it cannot lean on it) builds, passes conformance, installs with
//! `tool add`, and answers `toolhost call` and an MCP `tools/call` with its text and
//! structured result.
//!
//! The toolchains are fetched into `target/authoring/` on first use (`toolhost_tests::
//! authoring`); a toolchain that cannot be had skips its test loudly, or fails it under
//! `TOOLHOST_REQUIRE_TOOLCHAINS=1` (as `.ci/run` runs).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};
use toolhost_tests::attack::McpStdio;
use toolhost_tests::authoring::{
    TemplateLang, Toolchain, copy_project, example_dir, toolchain_or_skip,
};
use toolhost_tests::{Fixture, toolhost_command};

const TEXT: &str = "one two three\nfour five\n\nsix\n";

fn all(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn toolhost(fx: &Fixture, args: &[&str]) -> Output {
    toolhost_command(fx).args(args).output().expect("run toolhost")
}

fn build(tc: &Toolchain, project: &Path, name: &str) -> std::path::PathBuf {
    let (out, took) = tc.build(project, true);
    assert!(
        out.status.success(),
        "`{}` failed in {}:\n{}",
        tc.lang.build_command(),
        project.display(),
        all(&out)
    );
    let wasm = tc.component(project, name, true);
    assert!(wasm.is_file(), "`{}` built no {}", tc.lang.build_command(), wasm.display());
    eprintln!("{:?}: `{}` built {} in {took:.1?}", tc.lang, tc.lang.build_command(), name);
    wasm
}

fn conformance(fx: &Fixture, wasm: &Path) {
    let out = toolhost(fx, &["conformance", wasm.to_str().unwrap()]);
    assert!(out.status.success(), "conformance of {} failed:\n{}", wasm.display(), all(&out));
}

fn journey(lang: TemplateLang) {
    let Some(tc) = toolchain_or_skip(lang, &format!("the {} authoring journey", lang.arg())) else {
        return;
    };
    let fx = Fixture::new();
    fx.write("notes.txt", TEXT);
    let base = tempfile::tempdir().unwrap();

    // `toolhost new`: a project that builds and passes conformance unchanged.
    let name = format!("new_{}", lang.arg());
    let project = base.path().join("new");
    let out = Command::new(toolhost_tests::toolhost_bin())
        .args(["new", &name, "--lang", lang.arg(), "--dir"])
        .arg(&project)
        .output()
        .unwrap();
    assert!(out.status.success(), "toolhost new: {}", all(&out));
    for f in ["README.md", "wit/tool.wit"] {
        assert!(project.join(f).is_file(), "toolhost new wrote no {f}");
    }
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    assert!(readme.contains(lang.build_command()), "the README gives another build command");
    let again = Command::new(toolhost_tests::toolhost_bin())
        .args(["new", &name, "--lang", lang.arg(), "--dir"])
        .arg(&project)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1), "a non-empty dir was not refused: {}", all(&again));
    assert!(all(&again).contains("not empty"), "{}", all(&again));
    let wasm = build(&tc, &project, &name);
    conformance(&fx, &wasm);
    let out = toolhost_command(&fx)
        .arg("--tool")
        .arg(&wasm)
        .args(["call", &name, r#"{"path": "notes.txt"}"#])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", all(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "notes.txt: 4 lines, 29 bytes");

    // The example, copied out of the repository.
    let example = base.path().join("word_count");
    copy_project(&example_dir(lang), &example).unwrap();
    let wasm = build(&tc, &example, "word_count");
    conformance(&fx, &wasm);
    let out = toolhost(&fx, &["tool", "add", wasm.to_str().unwrap(), "--yes"]);
    assert!(out.status.success(), "tool add: {}", all(&out));
    let expect = json!({"path": "notes.txt", "lines": 4, "words": 6, "bytes": 29});

    let out = toolhost(&fx, &["call", "word_count", r#"{"path": "notes.txt"}"#, "--json"]);
    assert!(out.status.success(), "toolhost call: {}", all(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(text, "notes.txt: 4 lines, 6 words, 29 bytes", "{result}");
    assert_eq!(result["structuredContent"], expect, "{result}");

    let bad = toolhost(&fx, &["call", "word_count", r#"{"path": "notes.txt", "x": 1}"#]);
    assert_eq!(bad.status.code(), Some(1), "{}", all(&bad));
    assert!(all(&bad).contains("invalid tool input: "), "{}", all(&bad));

    let mut cmd = toolhost_command(&fx);
    cmd.arg("mcp");
    let mut mcp = McpStdio::start(cmd);
    let listed = mcp.request("tools/list", json!({}));
    let tool = listed["result"]["tools"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["name"] == "word_count"))
        .unwrap_or_else(|| panic!("MCP lists no word_count: {listed}"));
    assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
    let called = mcp.call_tool("word_count", json!({"path": "notes.txt"}));
    let result = &called["result"];
    assert_eq!(result["isError"], false, "{called}");
    assert_eq!(result["structuredContent"], expect, "{called}");
    assert!(
        result["content"][0]["text"].as_str().unwrap_or_default().contains("6 words"),
        "{called}"
    );
}

#[test]
fn rust_new_project_and_example_build_pass_conformance_and_answer_over_mcp() {
    journey(TemplateLang::Rust);
}

#[test]
fn python_new_project_and_example_build_pass_conformance_and_answer_over_mcp() {
    journey(TemplateLang::Python);
}

#[test]
fn javascript_new_project_and_example_build_pass_conformance_and_answer_over_mcp() {
    journey(TemplateLang::Javascript);
}

#[test]
fn new_refuses_a_name_no_tool_may_have() {
    let dir = tempfile::tempdir().unwrap();
    for (name, says) in [("read", "built-in tool"), ("two words", "cannot be a tool id")] {
        let out = Command::new(toolhost_tests::toolhost_bin())
            .args(["new", name, "--lang", "rust", "--dir"])
            .arg(dir.path().join("x"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}: {}", all(&out));
        assert!(all(&out).contains(says), "{name}: {}", all(&out));
        assert!(!dir.path().join("x").exists(), "{name}: something was written");
    }
}
