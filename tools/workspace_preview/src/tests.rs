//! Whole calls against an in-memory host: input checks, each operation, bounds, failures.

use serde_json::json;
use toolhost_sdk::{input_schema, parse_input};

use super::*;
use crate::source::fake::FakeHost;

fn input(v: serde_json::Value) -> PreviewInput {
    parse_input(&v.to_string()).unwrap()
}

fn run(host: &FakeHost, v: serde_json::Value) -> Preview {
    preview(host, &input(v)).unwrap()
}

#[test]
fn the_schema_names_fields_exactly_and_describes_them() {
    let schema = input_schema::<PreviewInput>();
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], json!(["operation"]));
    let props = schema["properties"].as_object().unwrap();
    let names: Vec<&str> = props.keys().map(String::as_str).collect();
    assert_eq!(names, ["content", "max_bytes", "operation", "path"]);
    for (name, p) in props {
        assert!(p["description"].as_str().is_some_and(|d| d.len() > 30), "{name}");
    }
    assert!(!schema.to_string().contains("sandbox_root"));
    // The range is the tool's own check (a structured refusal naming it), not the host's.
    assert!(schema["properties"]["max_bytes"].get("minimum").is_none());
    assert!(schema["properties"]["max_bytes"]["description"].as_str().unwrap().contains("524288"));
    let ops = serde_json::to_string(&schema).unwrap();
    for op in ["\"markdown\"", "\"html\"", "\"artifact_summary\""] {
        assert!(ops.contains(op), "{op}");
    }
}

#[test]
fn the_output_schema_requires_the_three_fields() {
    let schema = WorkspacePreview.output_schema().unwrap();
    let mut required: Vec<&str> =
        schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    required.sort();
    assert_eq!(required, ["operation", "success", "summary"]);
    let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(props.len(), 11, "{props:?}");
}

#[test]
fn unknown_fields_and_operations_are_refused_by_the_parser() {
    assert!(parse_input::<PreviewInput>(r#"{"operation":"markdown","sandbox_root":"/"}"#).is_err());
    assert!(parse_input::<PreviewInput>(r#"{"operation":"pdf","content":"x"}"#).is_err());
    assert!(parse_input::<PreviewInput>(r#"{"content":"x"}"#).is_err());
    assert!(parse_input::<PreviewInput>(r#"{"operation":"html","maxBytes":3}"#).is_err());
}

#[test]
fn invalid_combinations_are_structured_failures() {
    let host = FakeHost::default();
    for (v, says) in [
        (json!({"operation": "markdown"}), "needs path (a workspace file) or content"),
        (json!({"operation": "artifact_summary", "content": "x"}), "artifact_summary needs path"),
        (
            json!({"operation": "html", "content": "x", "max_bytes": 0}),
            "between 1 and 524288, not 0",
        ),
        (json!({"operation": "html", "content": "x", "max_bytes": -5}), "not -5"),
        (json!({"operation": "html", "content": "x", "max_bytes": 524289}), "not 524289"),
        (json!({"operation": "html", "path": " "}), "path is empty"),
    ] {
        let p = run(&host, v.clone());
        assert!(!p.success, "{v}");
        assert_eq!(p.error_kind.as_deref(), Some("LOCAL_EXECUTOR_INVALID_INPUT"), "{v}");
        assert_eq!(p.terminal, Some(true));
        assert!(p.error.as_deref().unwrap().contains(says), "{v}: {:?}", p.error);
    }
    assert!(run(&host, json!({"operation": "html", "content": "x", "max_bytes": 524288})).success);
}

#[test]
fn markdown_from_a_file_and_inline() {
    let host = FakeHost::with("docs/README.md", b"# Hello\n\n[site](https://e.com)\n");
    let p = run(
        &host,
        json!({"operation": "markdown", "path": "docs/README.md", "content": "ignored"}),
    );
    assert!(p.success);
    assert_eq!(p.format.as_deref(), Some("html"));
    assert_eq!(p.source_path.as_deref(), Some("docs/README.md"));
    assert_eq!(p.source_bytes, Some("# Hello\n\n[site](https://e.com)\n".len() as u64));
    assert_eq!(
        p.preview.as_deref(),
        Some(
            "<h1>Hello</h1>\n<p><a href=\"https://e.com\" rel=\"noopener noreferrer\">site</a></p>\n"
        )
    );
    assert!(p.summary.contains("first heading \"Hello\""), "{}", p.summary);
    let p = run(&host, json!({"operation": "markdown", "content": "*x*"}));
    assert_eq!((p.preview.as_deref(), p.source_path), (Some("<p><em>x</em></p>\n"), None));
}

#[test]
fn html_summary_of_a_file() {
    let page = "<title>T</title><h1>A</h1><p>b <a href=x>c</a></p><script>evil()</script>";
    let host = FakeHost::with("p.html", page.as_bytes());
    let p = run(&host, json!({"operation": "html", "path": "p.html"}));
    assert_eq!(p.format.as_deref(), Some("text"));
    assert_eq!(
        p.preview.as_deref(),
        Some("Title: T\nHeadings: 1\n# A\nLinks: 1\n- x\nText:\nA\nb c")
    );
    assert_eq!(
        p.summary,
        format!(
            "p.html: HTML page \"T\" ({} bytes): 1 headings, 1 links, 5 bytes of visible text",
            page.len()
        )
    );
}

#[test]
fn artifact_summary_is_metadata() {
    let host = FakeHost::with("a.gif", b"GIF89a\x02\0\x03\0rest");
    let p =
        run(&host, json!({"operation": "artifact_summary", "path": "a.gif", "max_bytes": 1000}));
    assert!(p.success);
    assert_eq!(p.format.as_deref(), Some("metadata"));
    assert!(p.preview.as_deref().unwrap().contains("dimensions: 2x3"));
    assert_eq!(p.preview_truncated, Some(false));
}

#[test]
fn file_failures_carry_their_kinds() {
    let mut host = FakeHost::with("bin.md", b"\x7fELF\0\0");
    host.denied.push("/etc/passwd".into());
    for (v, kind) in [
        (json!({"operation": "markdown", "path": "missing.md"}), "LOCAL_EXECUTOR_NOT_FOUND"),
        (json!({"operation": "artifact_summary", "path": "missing"}), "LOCAL_EXECUTOR_NOT_FOUND"),
        (json!({"operation": "html", "path": "/etc/passwd"}), "LOCAL_EXECUTOR_PATH_DENIED"),
        (json!({"operation": "markdown", "path": "bin.md"}), "LOCAL_EXECUTOR_UNSUPPORTED_CONTENT"),
    ] {
        let p = run(&host, v.clone());
        assert!(!p.success && p.preview.is_none(), "{v}");
        assert_eq!(p.error_kind.as_deref(), Some(kind), "{v}");
        let text = report::rendering(&p);
        assert!(text.starts_with(p.error.as_deref().unwrap()), "{text}");
    }
}

#[test]
fn cancellation_ends_the_call() {
    let host = FakeHost::with("a.md", b"# x");
    host.cancel.set(true);
    let e = preview(&host, &input(json!({"operation": "markdown", "path": "a.md"}))).unwrap_err();
    assert_eq!(e.code, toolhost_sdk::ErrorCode::Cancelled);
}

#[test]
fn max_bytes_bounds_every_format() {
    let md: String = (0..3000)
        .map(|i| format!("Paragraph **{i}** with [a link](https://e.com/{i}).\n\n"))
        .collect();
    let host = FakeHost::with("big.md", md.as_bytes());
    let p = run(&host, json!({"operation": "markdown", "path": "big.md", "max_bytes": 5000}));
    let html = p.preview.unwrap();
    assert!(html.len() <= 5000 && p.preview_truncated == Some(true));
    assert!(
        html.contains("Paragraph <strong>0</strong>") && html.contains("<strong>2999</strong>"),
        "{html}"
    );
    assert!(p.summary.contains("preview cut to"), "{}", p.summary);
    let page: String = (0..3000).map(|i| format!("<p>para {i}</p>")).collect();
    let p = run(&host, json!({"operation": "html", "content": page, "max_bytes": 777}));
    assert!(p.preview.as_ref().unwrap().len() <= 777 && p.preview_truncated == Some(true));
    assert!(p.preview.unwrap().ends_with("para 2999"));
}

#[test]
fn the_structured_value_stays_under_its_bound() {
    // Control characters escape to six bytes each in JSON.
    let text = "\u{1}".repeat(500_000);
    let p = run(&FakeHost::default(), json!({"operation": "html", "content": text}));
    let json = serde_json::to_string(&p).unwrap();
    assert!(json.len() <= MAX_STRUCTURED_JSON_BYTES, "{}", json.len());
}
