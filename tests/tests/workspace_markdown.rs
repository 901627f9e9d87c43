//! `workspace_markdown` through the built binary: outlines with GitHub's anchors (duplicates,
//! punctuation, Unicode), on crafted files and on READMEs of real projects (the crate sources
//! under `~/.cargo/registry/src`); format suggestions that the `edit` tool applies as they are,
//! in a session; local link checks across files; and refusals (outside the fence, missing,
//! binary) that never leak what they refused.

use std::path::PathBuf;

use serde_json::{Value, json};
use toolhost_tests::attack::Attack;

fn call(a: &Attack, input: Value) -> Value {
    a.workspace_call("workspace_markdown", input)
}

fn ok(a: &Attack, input: Value) -> Value {
    let r = call(a, input.clone());
    assert_eq!(r["status"], "succeeded", "{input}: {r}");
    r["structuredContent"].clone()
}

#[test]
fn outline_gives_levels_lines_and_githubs_anchors() {
    let a = Attack::new();
    a.put(
        "doc.md",
        "# Hello, World!\n\nintro\n\n## foo.bar\n\n```sh\n# not a heading\n```\n\n## Foo Bar\n\n## Foo Bar\n\n## Foo Bar\n\nSetext Über café\n----------------\n\n### C++ & `code` *em*\n\n## 日本語の見出し\n",
    );
    let s = ok(&a, json!({"operation": "outline", "path": "doc.md"}));
    let outline = s["outline"].as_array().unwrap();
    let got: Vec<(u64, u64, &str)> = outline
        .iter()
        .map(|h| {
            (
                h["level"].as_u64().unwrap(),
                h["line"].as_u64().unwrap(),
                h["anchor"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, 1, "hello-world"),
            (2, 5, "foobar"),
            (2, 11, "foo-bar"),
            (2, 13, "foo-bar-1"),
            (2, 15, "foo-bar-2"),
            (2, 17, "setext-über-café"),
            (3, 20, "c--code-em"),
            (2, 22, "日本語の見出し"),
        ],
        "{s}"
    );
    assert_eq!(outline[6]["text"], "C++ & code em", "{s}");
    assert_eq!(s["path"], "doc.md");
}

/// The outline of real READMEs: every entry sits on a heading line of the file, anchors are
/// unique within a file, and no file makes the tool fail.
#[test]
fn outline_holds_on_the_readmes_of_real_projects() {
    let a = Attack::new();
    let Some(home) = std::env::var_os("HOME") else { return };
    let registry = PathBuf::from(home).join(".cargo/registry/src");
    let mut readmes: Vec<PathBuf> = std::fs::read_dir(&registry)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|index| std::fs::read_dir(index.path()).into_iter().flatten().flatten())
        .map(|krate| krate.path().join("README.md"))
        .filter(|p| p.is_file())
        .collect();
    readmes.sort();
    if readmes.len() < 20 {
        eprintln!("only {} READMEs under {}: skipped", readmes.len(), registry.display());
        return;
    }
    let step = readmes.len() / 20;
    let mut session = a.session(&["--agent", "workspace"]);
    let mut headings = 0;
    for (i, readme) in readmes.iter().step_by(step).take(20).enumerate() {
        let name = format!("r{i}.md");
        let text = std::fs::read(readme).unwrap();
        a.put(&name, &text);
        let r = session.call(
            &format!("o{i}"),
            "workspace_markdown",
            json!({"operation": "outline", "path": name}),
        );
        assert_eq!(r["status"], "succeeded", "{}: {r}", readme.display());
        let lines: Vec<String> =
            String::from_utf8_lossy(&text).lines().map(str::to_owned).collect();
        let outline = r["structuredContent"]["outline"].as_array().unwrap();
        let mut anchors = std::collections::HashSet::new();
        for h in outline {
            headings += 1;
            let line = h["line"].as_u64().unwrap() as usize;
            let at = lines.get(line - 1).map(String::as_str).unwrap_or_default().trim_start();
            let next = lines.get(line).map(String::as_str).unwrap_or_default().trim();
            let setext = !next.is_empty() && next.chars().all(|c| c == '=' || c == '-');
            assert!(
                at.starts_with('#') || setext,
                "{}: line {line} is no heading: {at:?} ({h})",
                readme.display()
            );
            let anchor = h["anchor"].as_str().unwrap();
            assert!(
                anchors.insert(anchor.to_owned()),
                "{}: anchor {anchor} twice",
                readme.display()
            );
            assert_eq!(anchor, anchor.to_lowercase(), "{h}");
            assert!(!anchor.contains(' '), "{h}");
        }
    }
    assert!(headings > 20, "only {headings} headings in 20 READMEs");
}

/// Every suggested edit is one the `edit` tool takes as it is: applied one by one in a
/// session (read, then edit), each succeeds, and the file ends with none left to suggest.
#[test]
fn format_suggestions_are_edits_the_edit_tool_applies() {
    let a = Attack::new();
    a.put("messy.md", "#Title\n\nSome text   \nMore text\n\n\n\n## Section ##\nbody\n- item\t\n");
    let before = std::fs::read_to_string(a.ws.join("messy.md")).unwrap();
    let mut session = a.session(&["--agent", "workspace"]);
    let mut applied = 0;
    for round in 0..20 {
        let r = session.call(
            &format!("s{round}"),
            "workspace_markdown",
            json!({"operation": "format_suggestions", "path": "messy.md"}),
        );
        assert_eq!(r["status"], "succeeded", "{r}");
        let edits = r["structuredContent"]["suggested_edits"].as_array().unwrap().clone();
        if edits.is_empty() {
            break;
        }
        // The tool wrote nothing.
        let r = session.call(&format!("r{round}"), "read", json!({"path": "messy.md"}));
        assert_eq!(r["status"], "succeeded", "{r}");
        let e = &edits[0];
        let input = json!({"filePath": e["filePath"], "oldString": e["oldString"], "newString": e["newString"]});
        let r = session.call(&format!("e{round}"), "edit", input.clone());
        assert_eq!(r["status"], "succeeded", "the edit tool refused a suggestion: {input}: {r}");
        applied += 1;
    }
    assert!(applied >= 3, "only {applied} suggestions for a messy file");
    let after = std::fs::read_to_string(a.ws.join("messy.md")).unwrap();
    assert_ne!(after, before);
    assert!(after.starts_with("# Title\n"), "{after}");
    assert!(!after.contains("text   \n"), "{after}");
    assert!(!after.contains("\n\n\n"), "{after}");
}

#[test]
fn diagnostics_and_local_links_across_files() {
    let a = Attack::new();
    a.put(
        "README.md",
        "# Top\n\n### Jump\n\n# Top\n\n[empty]()\n\n[ok](docs/guide.md#setup) [bad anchor](docs/guide.md#nope) [gone](missing.md) [self](#jump) [self bad](#nowhere) [dir](docs) [web](https://example.com/x.md)\n",
    );
    a.put("docs/guide.md", "# Guide\n\n## Setup\n");
    let s = ok(&a, json!({"operation": "diagnostics", "path": "README.md"}));
    let kinds: Vec<&str> =
        s["diagnostics"].as_array().unwrap().iter().map(|d| d["kind"].as_str().unwrap()).collect();
    let all = s["diagnostics"].to_string();
    assert!(kinds.len() >= 3, "{s}");
    assert!(
        all.contains("\"line\":3") || all.contains("\"line\": 3"),
        "the level jump on line 3: {s}"
    );
    assert!(
        all.contains("\"line\":5") || all.contains("\"line\": 5"),
        "the duplicate heading on line 5: {s}"
    );
    assert!(
        all.contains("\"line\":7") || all.contains("\"line\": 7"),
        "the empty link on line 7: {s}"
    );

    let s = ok(&a, json!({"operation": "link_check_local", "path": "README.md"}));
    let broken: Vec<String> = s["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["target"].as_str().unwrap_or_default().to_owned())
        .collect();
    let mut broken_sorted = broken.clone();
    broken_sorted.sort();
    assert_eq!(broken_sorted, ["#nowhere", "docs/guide.md#nope", "missing.md"], "{s}");
}

#[test]
fn refusals_name_their_kind_and_leak_nothing() {
    let a = Attack::new();
    let secret = a.secrets[0].clone();
    let r = call(&a, json!({"operation": "outline", "path": secret.path.to_str().unwrap()}));
    assert_ne!(r["status"], "succeeded", "{r}");
    assert!(!r.to_string().contains(&secret.marker), "a secret leaked: {r}");
    let r = call(&a, json!({"operation": "outline", "path": "nope.md"}));
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["structuredContent"]["error_kind"], "LOCAL_EXECUTOR_NOT_FOUND", "{r}");
    assert_eq!(r["structuredContent"]["success"], false, "{r}");
    a.put("bin.md", [0u8, 159, 146, 150, 0, 1, 2]);
    let r = call(&a, json!({"operation": "outline", "path": "bin.md"}));
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["structuredContent"]["error_kind"], "LOCAL_EXECUTOR_UNSUPPORTED_CONTENT", "{r}");
    let r = call(&a, json!({"operation": "render", "path": "x.md"}));
    assert_eq!(r["error"]["code"], "invalid_arguments", "{r}");
}

/// Every `path` is relative to the workspace root (docs/workspace-tools.md): an absolute path (even one
/// inside the workspace), `..` above the root and a symlink out are refused before anything
/// is read, naming the field, and what lies outside never shows.
#[test]
fn paths_outside_the_workspace_are_refused_naming_the_field() {
    let a = Attack::new();
    let mut cases = a.paths_outside_the_workspace();
    cases.push("docs/../../outside/secret.md".to_owned());
    for path in &cases {
        for op in ["outline", "diagnostics", "link_check_local"] {
            a.assert_path_refused("workspace_markdown", op, path);
        }
    }
    // Relative paths inside, `..` that stays inside and a symlink that stays inside work.
    std::os::unix::fs::symlink("docs", a.ws.join("alias")).unwrap();
    for path in ["docs/in.md", "docs/../docs/in.md", "alias/in.md"] {
        let s = ok(&a, json!({"operation": "outline", "path": path}));
        assert_eq!(s["outline"][0]["text"], "Inside", "{path}: {s}");
    }
    // A link out of the workspace is not followed either: not checked, said so.
    a.put("docs/links.md", "# L\n\n[out](../../outside/secret.md#outside-marker-7f3a)\n");
    let s = ok(&a, json!({"operation": "link_check_local", "path": "docs/links.md"}));
    let d = &s["diagnostics"][0];
    assert_eq!(d["kind"], "unchecked_link", "{s}");
    assert!(d["message"].as_str().unwrap().contains("outside the workspace"), "{s}");
}

/// An email autolink (`<help@crates.io>`, as cargo's docs write it) and a `mailto:` link are
/// addresses, not local files: no broken link.
#[test]
fn email_autolinks_are_not_local_links() {
    let a = Attack::new();
    a.put(
        "SECURITY.md",
        "# Security\n\nMail <security@rust-lang.org> or <help@crates.io>, or [us](mailto:a@b.c).\n\n[gone](missing.md)\n",
    );
    let s = ok(&a, json!({"operation": "link_check_local", "path": "SECURITY.md"}));
    let found: Vec<(&str, &str)> = s["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["kind"].as_str().unwrap(), d["target"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(found, [("broken_link", "missing.md")], "{s}");
    assert!(s["summary"].as_str().unwrap().contains("3 external links"), "{s}");
}

/// A duplicate heading under the same parent is a warning citing that sibling, even when an
/// earlier copy sits under another parent (a changelog's `### Added`, which alone is info).
#[test]
fn a_duplicate_heading_among_siblings_is_a_warning_citing_the_sibling() {
    let a = Attack::new();
    a.put(
        "CHANGELOG.md",
        "# Changelog\n\n## 1.1\n\n### Added\n\n## 1.0\n\n### Added\n\n### Fixed\n\n### Added\n",
    );
    let s = ok(&a, json!({"operation": "diagnostics", "path": "CHANGELOG.md"}));
    let found: Vec<(u64, &str, &str)> = s["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["line"].as_u64().unwrap(),
                d["severity"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(found.len(), 2, "{s}");
    assert_eq!((found[0].0, found[0].1), (9, "info"), "{s}");
    assert!(found[0].2.contains("as line 5)"), "{s}");
    assert_eq!((found[1].0, found[1].1), (13, "warning"), "{s}");
    assert!(found[1].2.contains("as line 9, under the same parent"), "{s}");
}
