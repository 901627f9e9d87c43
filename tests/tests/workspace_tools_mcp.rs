//! The workspace tools through `toolhost --agent workspace mcp` and a real MCP client (the
//! official Python SDK, `tests/mcp/workspace_client.py`), which checks every structured
//! result against the tool's `outputSchema`: each tool is listed with its input and output
//! schemas (no `sandbox_root`), read-only; successful calls pass the SDK's check; a failed one
//! is `isError` and still carries its `error_kind`.

use serde_json::{Value, json};
use toolhost_tests::attack::Attack;
use toolhost_tests::toolhost_bin;

#[test]
fn a_real_mcp_client_lists_and_calls_the_workspace_tools() {
    let a = Attack::new();
    if !a.sandbox_or_skip("workspace tools over MCP") {
        return;
    }
    let ws = a.ws.as_path();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .current_dir(ws)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args([
                "-c",
                "user.name=T",
                "-c",
                "user.email=t@example.com",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    a.put(
        "README.md",
        "# Title\n\n## Usage\n\nSee [the guide](docs/guide.md#setup) and [gone](missing.md).\n",
    );
    a.put("docs/guide.md", "# Guide\n\n## Setup\n\ntext\n");
    a.put("page.html", "<html><head><title>T</title></head><body><h1>Hello</h1><script>evil()</script><p>world</p></body></html>");
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "one"]);
    a.put("README.md", "# Title\n\n## Usage\n\nchanged\n");
    let calls = json!([
        ["git_status", "workspace_git", {"operation": "status"}],
        ["git_log", "workspace_git", {"operation": "log"}],
        ["git_diff", "workspace_git", {"operation": "diff"}],
        ["git_branch", "workspace_git", {"operation": "branch"}],
        ["git_bad_revision", "workspace_git", {"operation": "show", "revision": "HEAD@{1}"}],
        ["md_outline", "workspace_markdown", {"operation": "outline", "path": "docs/guide.md"}],
        ["md_diagnostics", "workspace_markdown", {"operation": "diagnostics", "path": "README.md"}],
        ["md_suggestions", "workspace_markdown", {"operation": "format_suggestions", "path": "README.md"}],
        ["md_links", "workspace_markdown", {"operation": "link_check_local", "path": "docs/guide.md"}],
        ["md_missing", "workspace_markdown", {"operation": "outline", "path": "nope.md"}],
        ["preview_md", "workspace_preview", {"operation": "markdown", "content": "# Hi\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) [safe](https://example.com)"}],
        ["preview_html", "workspace_preview", {"operation": "html", "path": "page.html"}],
        ["preview_meta", "workspace_preview", {"operation": "artifact_summary", "path": "page.html"}]
    ]);
    let args = [
        toolhost_bin().into_os_string(),
        a.ws.clone().into_os_string(),
        a.data.clone().into_os_string(),
        calls.to_string().into(),
    ];
    let (report, _) = toolhost_tests::mcp::run_client_script(
        "workspace_client.py",
        &args.each_ref().map(|a| a.as_os_str()),
        Some(&a.home),
    );
    let tools = &report["tools"];
    for id in ["workspace_git", "workspace_markdown", "workspace_preview"] {
        let t = &tools[id];
        assert_eq!(t["inputSchema"]["type"], "object", "{id}: {t}");
        assert_eq!(t["outputSchema"]["type"], "object", "{id}: {t}");
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{id}: {t}");
        assert!(!t.to_string().contains("sandbox_root"), "{id}: {t}");
    }
    let calls = &report["calls"];
    let succeeded = |label: &str| -> &Value {
        let c = &calls[label];
        assert!(c.get("raised").is_none(), "{label}: the SDK refused the result: {c}");
        assert_eq!(c["isError"], false, "{label}: {c}");
        assert_eq!(c["structuredContent"]["success"], true, "{label}: {c}");
        &c["structuredContent"]
    };
    let s = succeeded("git_status");
    assert!(s["files"].to_string().contains("README.md"), "{s}");
    assert_eq!(succeeded("git_log")["commits"][0]["subject"], "one");
    assert!(succeeded("git_diff")["stdout"].as_str().unwrap().contains("+changed"));
    assert_eq!(succeeded("git_branch")["current_branch"], "main");
    let outline = succeeded("md_outline")["outline"].clone();
    assert_eq!(outline[1]["anchor"], "setup", "{outline}");
    succeeded("md_diagnostics");
    succeeded("md_suggestions");
    succeeded("md_links");
    let html = succeeded("preview_md")["preview"].as_str().unwrap().to_lowercase();
    assert!(!html.contains("<script") && !html.contains("href=\"javascript"), "{html}");
    assert!(html.contains("<a") && html.contains("safe</a>"), "{html}");
    let text = succeeded("preview_html")["preview"].as_str().unwrap().to_string();
    assert!(text.contains("Hello") && text.contains("world") && !text.contains("evil()"), "{text}");
    succeeded("preview_meta");
    for label in ["git_bad_revision", "md_missing"] {
        let c = &calls[label];
        assert_eq!(c["isError"], true, "{label}: {c}");
        let kind = c["structuredContent"]["error_kind"].as_str().unwrap_or_default();
        assert!(kind.starts_with("LOCAL_EXECUTOR_"), "{label}: {c}");
    }
}
