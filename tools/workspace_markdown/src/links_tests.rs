//! Tests of [`super::check_links`] over a fake workspace.

use super::*;
use crate::test_support::Fake;

fn check(text: &str, ws: &mut Fake) -> LinkCheck {
    check_links(&Document::parse(text), "docs/guide.md", ws, &|| false).unwrap()
}

fn found(c: &LinkCheck) -> Vec<(usize, &'static str, Option<&str>)> {
    c.diagnostics.iter().map(|d| (d.line, d.kind.name(), d.target.as_deref())).collect()
}

#[test]
fn targets_must_exist() {
    let mut ws = Fake::with(&[("docs/api.md", "# API\n"), ("README.md", "")], &["docs/img"]);
    let text = "# Guide\n\n[api](api.md) [root](../README.md) [dir](img/) [abs](/README.md)\n\n[gone](missing.md) ![pic](img/x.png) [web](https://x.org) <https://y.org> [mail](mailto:a@b.c)\n";
    let c = check(text, &mut ws);
    assert_eq!(
        found(&c),
        [(5, "broken_link", Some("missing.md")), (5, "broken_link", Some("img/x.png"))]
    );
    assert_eq!((c.checked, c.broken, c.external, c.missing_anchors), (6, 2, 3, 0));
    // README.md was stat'ed once for two links.
    assert_eq!(ws.stats, 5);
}

#[test]
fn email_autolinks_and_mailto_are_addresses_not_files() {
    let mut ws = Fake::with(&[], &[]);
    let text = "# Help\n\nWrite to <help@crates.io>, <mailto:security@rust-lang.org>, [us](mailto:a@b.c) or <ops+x@example.org>.\n\n[gone](missing.md)\n";
    let c = check(text, &mut ws);
    assert_eq!(found(&c), [(5, "broken_link", Some("missing.md"))]);
    assert_eq!((c.checked, c.broken, c.external), (1, 1, 4));
    assert_eq!(ws.stats, 1, "no address was looked up as a file");
}

#[test]
fn anchors_here_and_in_other_files() {
    let mut ws = Fake::with(
        &[("docs/api.md", "# API\n\n## Calls\n\n<a name=\"raw\"></a>\n"), ("docs/x.txt", "")],
        &[],
    );
    let text = "# Guide\n\n## Set up\n\n[a](#set-up) [b](#nope) [c](#Set-Up) [d](#) [e](guide.md#guide)\n[f](api.md#calls) [g](api.md#raw) [h](api.md#missing) [i](api.md#calls) [j](x.txt#L3)\n[k](#user-content-guide) [l](#set%20up)\n";
    let c = check(text, &mut ws);
    assert_eq!(
        found(&c),
        [
            (5, "missing_anchor", Some("#nope")),
            (6, "missing_anchor", Some("api.md#missing")),
            (7, "missing_anchor", Some("#set%20up")),
        ]
    );
    assert!(c.diagnostics[2].message.contains("did you mean #set-up?"));
    assert!(c.diagnostics[1].message.contains("docs/api.md"));
    assert_eq!(ws.loads, 1, "api.md is parsed once");
    assert_eq!((c.checked, c.missing_anchors), (12, 3));
}

#[test]
fn refusals_are_reported_not_fatal_and_empty_links_left_to_diagnostics() {
    let mut ws = Fake::with(&[], &[]);
    ws.denied.push("docs/.env".into());
    let c = check("[a](.env) [b]()\n", &mut ws);
    assert_eq!(found(&c), [(1, "unchecked_link", Some(".env"))]);
    assert_eq!((c.unchecked, c.checked), (1, 1));
}

#[test]
fn at_most_200_other_files_are_read() {
    let mut files: Vec<(String, String)> =
        (0..=MAX_OTHER_FILES).map(|i| (format!("docs/f{i}.md"), "# T\n".to_owned())).collect();
    files.push(("docs/f0.md".into(), "# T\n".into()));
    let refs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let mut ws = Fake::with(&refs, &[]);
    let text: String = (0..=MAX_OTHER_FILES).map(|i| format!("[x](f{i}.md#t)\n")).collect();
    let c = check(&text, &mut ws);
    assert_eq!(ws.loads, MAX_OTHER_FILES);
    assert_eq!(found(&c), [(MAX_OTHER_FILES + 1, "unchecked_link", Some("f200.md#t"))]);
}

#[test]
fn cancellation_stops_the_check() {
    let mut ws = Fake::default();
    let r = check_links(&Document::parse("[a](b.md)\n"), "a.md", &mut ws, &|| true);
    assert_eq!(r.unwrap_err().kind, ErrorKind::Cancelled);
}

#[test]
fn a_file_outside_the_workspace_links_to_itself_and_its_siblings() {
    let mut ws = Fake::with(&[("/abs/b.md", "# B\n")], &[]);
    let text = "# T\n\n[self](a.md#t) [sib](b.md#b) [bad](./a.md#nope)\n";
    let c = check_links(&Document::parse(text), "/abs/a.md", &mut ws, &|| false).unwrap();
    assert_eq!(found(&c), [(3, "missing_anchor", Some("./a.md#nope"))]);
    assert_eq!((ws.stats, ws.loads), (1, 1));
}

#[test]
fn each_other_file_is_read_once_within_the_byte_bound() {
    let files = [("docs/a.md", "# A\n"), ("docs/b.md", "# B\n")];
    let text = "[1](a.md#a) [2](b.md#b) [3](a.md#nope)\n[4](b.md#b)\n";
    let doc = Document::parse(text);
    let mut ws = Fake::with(&files, &[]);
    let c = super::check(&doc, "docs/guide.md", &mut ws, &|| false, 1000).unwrap();
    assert_eq!(ws.loads, 2);
    assert_eq!(found(&c), [(1, "missing_anchor", Some("a.md#nope"))]);
    // Room for a.md's 4 bytes only: b.md's fragments are not checked, and said so.
    let mut ws = Fake::with(&files, &[]);
    let c = super::check(&doc, "docs/guide.md", &mut ws, &|| false, 4).unwrap();
    assert_eq!(ws.loads, 1);
    assert_eq!(
        found(&c),
        [
            (1, "missing_anchor", Some("a.md#nope")),
            (1, "unchecked_link", Some("b.md#b")),
            (2, "unchecked_link", Some("b.md#b")),
        ]
    );
    assert!(c.diagnostics[1].message.contains("at most 4 bytes of other files"));
}
