//! Tests of the tool as a whole: its schemas, and [`analyze`] over a fake workspace.

use serde_json::{Value, json};
use toolhost_sdk::{input_schema, parse_input};

use super::*;
use crate::test_support::Fake;

fn input(op: &str, path: &str) -> MarkdownInput {
    parse_input(&json!({"operation": op, "path": path}).to_string()).unwrap()
}

fn run(op: &str, path: &str, ws: &mut Fake) -> Value {
    let report = analyze(&input(op, path), ws, &|| false).unwrap();
    serde_json::to_value(report).unwrap()
}

const GUIDE: &str = "\
# Guide

```md
# not a heading
```

## Install ##
Run it.  

#Usage

## Install

[api](api.md#calls) [gone](gone.md) [self](#install-1) [x]()
";

fn workspace() -> Fake {
    Fake::with(&[("docs/guide.md", GUIDE), ("docs/api.md", "# API\n\n## Calls\n")], &["docs"])
}

#[test]
fn input_schema_is_operation_and_path_only() {
    let schema = input_schema::<MarkdownInput>();
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], json!(["operation", "path"]));
    let props = schema["properties"].as_object().unwrap();
    assert_eq!(props.keys().collect::<Vec<_>>(), ["operation", "path"]);
    for field in ["operation", "path"] {
        assert!(props[field]["description"].as_str().is_some_and(|d| d.len() > 40), "{field}");
    }
    let text = schema.to_string();
    for op in ["outline", "diagnostics", "format_suggestions", "link_check_local"] {
        assert!(text.contains(&format!("\"{op}\"")), "{op}");
    }
    assert!(!text.contains("sandbox_root"));
    assert!(parse_input::<MarkdownInput>(r#"{"operation":"outline"}"#).is_err());
    assert!(parse_input::<MarkdownInput>(r#"{"operation":"lint","path":"a.md"}"#).is_err());
    let extra = r#"{"operation":"outline","path":"a.md","sandbox_root":"/"}"#;
    assert!(parse_input::<MarkdownInput>(extra).is_err());
}

#[test]
fn output_schema_has_exactly_the_result_fields() {
    let schema = WorkspaceMarkdown.output_schema().unwrap();
    assert_eq!(schema["type"], "object");
    let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    let want = [
        "operation",
        "path",
        "success",
        "summary",
        "outline",
        "diagnostics",
        "suggested_edits",
        "error_kind",
        "terminal",
        "error",
    ];
    let mut sorted_want = want.to_vec();
    sorted_want.sort();
    let mut sorted_props: Vec<&str> = props.iter().map(|s| s.as_str()).collect();
    sorted_props.sort();
    assert_eq!(sorted_props, sorted_want);
    assert_eq!(schema["required"], json!(["operation", "path", "success", "summary"]));
    let text = schema.to_string();
    for field in ["filePath", "oldString", "newString", "anchor", "severity", "target"] {
        assert!(text.contains(field), "{field}");
    }
}

#[test]
fn definition() {
    let tool = WorkspaceMarkdown;
    assert_eq!(tool.id(), "workspace_markdown");
    assert_eq!(tool.risk(), Risk::ReadOnly);
    assert!(matches!(tool.inspect(&input("outline", "a.md")), toolhost_sdk::Inspection::ReadOnly));
}

#[test]
fn outline_operation() {
    let v = run("outline", "docs/guide.md", &mut workspace());
    assert_eq!(v["success"], true);
    assert_eq!(v["operation"], "outline");
    assert_eq!(v["path"], "docs/guide.md");
    assert_eq!(v["summary"], "3 headings in docs/guide.md");
    assert_eq!(
        v["outline"],
        json!([
            {"level": 1, "text": "Guide", "line": 1, "anchor": "guide"},
            {"level": 2, "text": "Install", "line": 7, "anchor": "install"},
            {"level": 2, "text": "Install", "line": 12, "anchor": "install-1"},
        ])
    );
    assert!(v.get("diagnostics").is_none() && v.get("error_kind").is_none());
}

#[test]
fn diagnostics_operation() {
    let v = run("diagnostics", "docs/guide.md", &mut workspace());
    let kinds: Vec<(u64, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["line"].as_u64().unwrap(), d["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [(10, "missing_heading_space"), (12, "duplicate_heading"), (14, "empty_link")]
    );
    assert_eq!(v["summary"], "3 findings in docs/guide.md (3 warnings)");
}

#[test]
fn format_suggestions_operation() {
    let v = run("format_suggestions", "docs/guide.md", &mut workspace());
    let edits: Vec<report::SuggestedEdit> = v["suggested_edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| report::SuggestedEdit {
            file_path: e["filePath"].as_str().unwrap().into(),
            old_string: e["oldString"].as_str().unwrap().into(),
            new_string: e["newString"].as_str().unwrap().into(),
            line: e["line"].as_u64().unwrap() as usize,
            reason: e["reason"].as_str().unwrap().into(),
        })
        .collect();
    assert!(edits.iter().all(|e| e.file_path == "docs/guide.md"));
    let fixed = crate::suggest::tests::apply(GUIDE, &edits);
    assert!(
        fixed.contains("\n## Install\n\nRun it.  \n\n# Usage\n\n## Install\n\n[api]"),
        "{fixed}"
    );
    let summary = v["summary"].as_str().unwrap();
    assert!(summary.starts_with("2 suggested edits for docs/guide.md"), "{summary}");
}

#[test]
fn link_check_operation() {
    let v = run("link_check_local", "docs/guide.md", &mut workspace());
    let kinds: Vec<&str> =
        v["diagnostics"].as_array().unwrap().iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["broken_link"]);
    assert_eq!(
        v["summary"],
        "Checked 3 local links in docs/guide.md: 1 broken link, 0 missing anchors; 0 external links not checked"
    );
}

#[test]
fn failures_are_structured() {
    let mut ws = workspace();
    ws.denied.push("secret.md".into());
    ws.raw.insert("bin.md".into(), vec![0xff, 0xfe]);
    ws.files.insert("big.md".into(), "x".repeat(MARKDOWN_MAX + 1));
    let cases = [
        ("missing.md", "LOCAL_EXECUTOR_NOT_FOUND"),
        ("secret.md", "LOCAL_EXECUTOR_PATH_DENIED"),
        ("bin.md", "LOCAL_EXECUTOR_UNSUPPORTED_CONTENT"),
        ("big.md", "LOCAL_EXECUTOR_UNSUPPORTED_CONTENT"),
        ("docs", "LOCAL_EXECUTOR_INVALID_INPUT"),
    ];
    for (path, kind) in cases {
        let report = analyze(&input("outline", path), &mut ws, &|| false).unwrap();
        let v = serde_json::to_value(&report).unwrap();
        assert_eq!(v["success"], false, "{path}");
        assert_eq!(v["error_kind"], kind, "{path}");
        assert_eq!(v["terminal"], true, "{path}");
        assert_eq!(v["path"], path);
        let error = v["error"].as_str().unwrap();
        assert!(error.contains(path), "{error}");
        assert_eq!(v["summary"], error);
        assert!(render::render(&report)[0].starts_with(error));
        assert!(v.get("outline").is_none());
    }
}

const MARKDOWN_MAX: usize = toolhost_sdk::limits::MARKDOWN_MAX_FILE_BYTES as usize;

#[test]
fn cancellation_is_a_tool_error_not_a_report() {
    assert_eq!(
        analyze(&input("outline", "docs/guide.md"), &mut workspace(), &|| true).unwrap_err(),
        SuggestCancelled
    );
}

#[test]
fn plurals() {
    assert_eq!(plural(1, "fix"), "1 fix");
    assert_eq!(plural(2, "fix"), "2 fixes");
    assert_eq!(plural(0, "heading"), "0 headings");
}

#[test]
fn schemas_and_description_are_within_the_host_bounds() {
    use toolhost_sdk::limits::{MAX_DESCRIPTION_BYTES, MAX_SCHEMA_BYTES};
    let input = input_schema::<MarkdownInput>().to_string();
    let output = WorkspaceMarkdown.output_schema().unwrap().to_string();
    if std::env::var_os("MARKDOWN_PRINT_SCHEMAS").is_some() {
        eprintln!("{input}\n{output}");
    }
    assert!(input.len() < MAX_SCHEMA_BYTES && output.len() < MAX_SCHEMA_BYTES);
    assert!(WorkspaceMarkdown.description().len() < MAX_DESCRIPTION_BYTES);
}
