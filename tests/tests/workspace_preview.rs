//! `workspace_preview` through the built binary: Markdown becomes HTML with nothing executable
//! left (script, event handlers, `javascript:` and other dangerous URLs, raw HTML that would
//! survive as markup — checked by parsing the output's tags and attributes, not by substring
//! alone); HTML becomes a text summary; a file becomes its metadata; `max_bytes` bounds the
//! preview head + tail with the flag; and refusals leak nothing.

use serde_json::{Value, json};
use toolhost_tests::attack::Attack;

fn call(a: &Attack, input: Value) -> Value {
    a.workspace_call("workspace_preview", input)
}

fn ok(a: &Attack, input: Value) -> Value {
    let r = call(a, input.clone());
    assert_eq!(r["status"], "succeeded", "{input}: {r}");
    r["structuredContent"].clone()
}

/// Every tag of `html` with its lowercased name and attributes (name, value with the common
/// entity escapes decoded): a small tokenizer, enough to see what a browser would see as
/// markup.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let bytes = html.as_bytes();
    let mut i = 0;
    while let Some(start) = html[i..].find('<') {
        let s = i + start + 1;
        let Some(len) = html[s..].find('>') else { break };
        let inner = &html[s..s + len];
        i = s + len + 1;
        if inner.starts_with('!') || inner.starts_with('/') || inner.is_empty() {
            continue;
        }
        let _ = bytes;
        let mut parts = inner.splitn(2, |c: char| c.is_whitespace());
        let name = parts.next().unwrap_or_default().trim_end_matches('/').to_lowercase();
        let mut attrs = Vec::new();
        let rest = parts.next().unwrap_or_default();
        let mut r = rest.trim();
        while !r.is_empty() {
            let end = r.find(|c: char| c == '=' || c.is_whitespace()).unwrap_or(r.len());
            let key = r[..end].trim_end_matches('/').to_lowercase();
            r = r[end..].trim_start();
            let mut value = String::new();
            if let Some(v) = r.strip_prefix('=') {
                let v = v.trim_start();
                let (val, after) = match v.chars().next() {
                    Some(q @ ('"' | '\'')) => {
                        let close = v[1..].find(q).map_or(v.len(), |e| e + 1);
                        (&v[1..close.min(v.len())], &v[(close + 1).min(v.len())..])
                    }
                    _ => {
                        let e = v.find(char::is_whitespace).unwrap_or(v.len());
                        (&v[..e], &v[e..])
                    }
                };
                value = decode(val);
                r = after.trim_start();
            }
            if !key.is_empty() {
                attrs.push((key, value));
            }
        }
        out.push((name, attrs));
    }
    out
}

fn decode(v: &str) -> String {
    let mut s = v
        .replace("&amp;", "&")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'");
    // Numeric references (&#106; &#x6A;) and stripped whitespace, as a URL parser would.
    let mut out = String::new();
    while let Some(p) = s.find("&#") {
        out.push_str(&s[..p]);
        let rest = &s[p + 2..];
        let end = rest.find(';').unwrap_or(rest.len());
        let num = &rest[..end];
        let c = if let Some(h) = num.strip_prefix(['x', 'X']) {
            u32::from_str_radix(h, 16).ok()
        } else {
            num.parse().ok()
        };
        out.extend(c.and_then(char::from_u32));
        s = rest[(end + 1).min(rest.len())..].to_string();
    }
    out.push_str(&s);
    out.chars().filter(|c| !c.is_whitespace() && !c.is_control()).collect::<String>().to_lowercase()
}

const ATTACKS: &[&str] = &[
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<a href=\"javascript:alert(1)\">x</a>",
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](jav&#x09;ascript:alert(1))",
    "<a href=\"jav&#x09;ascript:alert(1)\">t</a>",
    "<a href=\"&#106;avascript:alert(1)\">e</a>",
    "<svg><script>alert(1)</script></svg>",
    "<iframe src=\"https://evil.example\"></iframe>",
    "<math><mi xlink:href=\"javascript:alert(1)\">m</mi></math>",
    "<style>body{background:url(javascript:alert(1))}</style>",
    "<object data=\"x.swf\"></object><embed src=\"x.swf\">",
    "[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<!--[if IE]><script>alert(1)</script><![endif]-->",
    "<scr<script>ipt>alert(1)</script>",
    "[t](https://ok.example \"a\\\" onmouseover=\\\"alert(1)\")",
    "<javascript:alert(1)>",
    "<form action=\"https://evil.example\"><input name=x></form>",
    "<div style=\"background:url(javascript:alert(1))\" onclick=\"alert(1)\">d</div>",
    "<a href=\"vbscript:msgbox(1)\">v</a>",
    "<base href=\"https://evil.example/\"><meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
];

#[test]
fn markdown_becomes_html_with_nothing_executable() {
    let a = Attack::new();
    let doc = format!(
        "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n```rust\nfn main() {{}}\n```\n\n[safe](https://example.com/page) [rel](docs/x.md)\n\n{}",
        ATTACKS.join("\n\n")
    );
    let s = ok(&a, json!({"operation": "markdown", "content": doc}));
    assert_eq!(s["format"], "html", "{s}");
    let html = s["preview"].as_str().unwrap();
    for (name, attrs) in tags(html) {
        assert!(
            ![
                "script", "iframe", "object", "embed", "style", "form", "input", "base", "meta",
                "svg", "math"
            ]
            .contains(&name.as_str()),
            "<{name}> survived: {html}"
        );
        for (key, value) in attrs {
            assert!(!key.starts_with("on") && key != "style", "<{name} {key}> survived: {html}");
            for scheme in ["javascript:", "vbscript:", "data:"] {
                assert!(!value.starts_with(scheme), "<{name} {key}={value}> survived: {html}");
            }
        }
    }
    let lower = html.to_lowercase();
    assert!(!lower.contains("<script"), "{html}");
    // What is safe is kept.
    assert!(
        html.contains("<h1>Title</h1>")
            && html.contains("<table>")
            && html.contains("https://example.com/page"),
        "{html}"
    );
    assert!(html.contains("docs/x.md"), "{html}");
    assert!(html.contains("fn main()"), "{html}");
}

#[test]
fn html_becomes_text_and_a_file_its_metadata() {
    let a = Attack::new();
    a.put(
        "page.html",
        "<html><head><title>The Page</title><style>.x{}</style></head><body><h1>Heading One</h1><p>Visible <b>words</b> here.</p><script>var hidden = 1;</script><a href=\"https://example.com\">link</a></body></html>",
    );
    let s = ok(&a, json!({"operation": "html", "path": "page.html"}));
    assert_eq!(s["format"], "text", "{s}");
    assert_eq!(s["source_path"], "page.html", "{s}");
    let text = s["preview"].as_str().unwrap();
    assert!(
        text.contains("The Page")
            && text.contains("Heading One")
            && text.contains("Visible words here."),
        "{text}"
    );
    assert!(!text.contains("var hidden") && !text.contains(".x{}"), "{text}");

    // A PNG's metadata: kind, size and dimensions.
    let mut png =
        vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, b'I', b'H', b'D', b'R'];
    png.extend(640u32.to_be_bytes());
    png.extend(480u32.to_be_bytes());
    png.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    a.put("img.png", &png);
    let s = ok(&a, json!({"operation": "artifact_summary", "path": "img.png"}));
    assert_eq!(s["format"], "metadata", "{s}");
    assert_eq!(s["source_bytes"], png.len(), "{s}");
    let meta = s["preview"].as_str().unwrap().to_lowercase();
    assert!(meta.contains("png") && meta.contains("640") && meta.contains("480"), "{meta}");
}

#[test]
fn max_bytes_bounds_the_preview_head_and_tail() {
    let a = Attack::new();
    let body: String = (0..5000).map(|i| format!("paragraph number {i}\n\n")).collect();
    a.put("long.md", &body);
    let s = ok(&a, json!({"operation": "markdown", "path": "long.md", "max_bytes": 2000}));
    assert_eq!(s["preview_truncated"], true, "{s}");
    let html = s["preview"].as_str().unwrap();
    assert!(html.len() <= 2000 + 256, "{}", html.len());
    assert!(
        html.contains("paragraph number 0") && html.contains("paragraph number 4999"),
        "{html}"
    );
    assert_eq!(s["source_bytes"], body.len());
    let s = ok(&a, json!({"operation": "markdown", "path": "long.md"}));
    assert_eq!(s["preview_truncated"], false, "{s}");
    for bad in [0, 524_289] {
        let r = call(&a, json!({"operation": "markdown", "path": "long.md", "max_bytes": bad}));
        assert_eq!(r["status"], "failed", "{bad}: {r}");
        assert!(
            r["content"][0]["text"].as_str().unwrap().contains("524288")
                || r["content"][0]["text"].as_str().unwrap().contains("524,288"),
            "{r}"
        );
    }
}

#[test]
fn refusals_leak_nothing() {
    let a = Attack::new();
    for s in &a.secrets {
        for op in ["markdown", "html", "artifact_summary"] {
            let r = call(&a, json!({"operation": op, "path": s.path.to_str().unwrap()}));
            assert_ne!(r["status"], "succeeded", "{op} {}: {r}", s.rel);
            assert!(!r.to_string().contains(&s.marker), "{op} leaked {}: {r}", s.rel);
        }
    }
    let r = call(&a, json!({"operation": "markdown"}));
    assert_eq!(r["status"], "failed", "{r}");
    let r = call(&a, json!({"operation": "html", "path": "missing.html"}));
    assert_eq!(r["structuredContent"]["error_kind"], "LOCAL_EXECUTOR_NOT_FOUND", "{r}");
}

/// Every `path` is relative to the workspace root (docs/workspace-tools.md): an absolute path (even one
/// inside the workspace), `..` above the root and a symlink out are refused before anything
/// is read, naming the field, and what lies outside never shows.
#[test]
fn paths_outside_the_workspace_are_refused_naming_the_field() {
    let a = Attack::new();
    let mut cases = a.paths_outside_the_workspace();
    cases.push("link".to_owned());
    for path in &cases {
        for op in ["markdown", "html", "artifact_summary"] {
            a.assert_path_refused("workspace_preview", op, path);
        }
    }
    let s = ok(&a, json!({"operation": "markdown", "path": "docs/../docs/in.md"}));
    assert!(s["preview"].as_str().unwrap().contains("Inside"), "{s}");
    assert_eq!(s["source_path"], "docs/in.md", "{s}");
}
