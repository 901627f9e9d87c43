//! `toolhost conformance FILE.wasm` through the built binary: every built-in component and
//! the well-behaved test component pass (no check fails), the misbehaving ones fail with
//! exactly the checks they break, and the outputs (text, `--json`, `--junit`) and exit codes
//! are the contract's.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use toolhost_tests::attack::Attack;
use toolhost_tests::{components_dir, test_components_dir};

/// A fixed seed, so which generated inputs hit which behaviour is the same on every run.
const SEED: &str = "1";

fn conformance(a: &Attack, file: &Path, extra: &[&str]) -> toolhost_tests::attack::Out {
    let mut args = vec!["conformance", file.to_str().unwrap(), "--seed", SEED];
    args.extend_from_slice(extra);
    a.run(&[], &args)
}

fn failed_checks(report: &Value) -> BTreeSet<String> {
    report["checks"]
        .as_array()
        .unwrap_or_else(|| panic!("no checks: {report}"))
        .iter()
        .filter(|c| c["outcome"] == "fail")
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

/// The check named `name` of a `--json` report.
fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} check: {report}"))
}

/// The anchors of `docs/authoring.md`'s headings, as a Markdown renderer makes them.
fn guide_anchors() -> Vec<String> {
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/authoring.md"))
            .unwrap();
    guide
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| {
            l.trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
                .map(|c| if c == ' ' { '-' } else { c })
                .collect()
        })
        .collect()
}

/// A `fail` or `warn` says where it is explained: `see docs/authoring.md#<a section that
/// exists>`, and names error codes the WIT's way.
fn assert_explained(id: &str, c: &Value, anchors: &[String]) {
    let message = c["message"].as_str().unwrap();
    let anchor = message
        .split("docs/authoring.md#")
        .nth(1)
        .map(|rest| rest.split(|ch: char| !(ch.is_alphanumeric() || ch == '-')).next().unwrap())
        .unwrap_or_else(|| {
            panic!("{id}: {} links no section of docs/authoring.md: {message}", c["name"])
        });
    assert!(
        anchors.iter().any(|a| a == anchor),
        "{id}: {} links #{anchor}, no such section",
        c["name"]
    );
    for snake in ["invalid_arguments", "execution_failed", "Failed", "Succeeded"] {
        assert!(
            !message.contains(snake),
            "{id}: {} names {snake}, not the WIT's name: {message}",
            c["name"]
        );
    }
}

#[test]
fn every_built_in_component_passes() {
    let a = Attack::new();
    let builtins = toolhost::builtins::BUILTIN_COMPONENTS.iter();
    for id in builtins.chain(toolhost::builtins::WORKSPACE_COMPONENTS) {
        let out = conformance(&a, &components_dir().join(format!("{id}.wasm")), &["--json"]);
        let report: Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{id}: not JSON ({e}): {}", out.all()));
        assert_eq!(failed_checks(&report), BTreeSet::new(), "{id}: {}", out.stdout);
        assert_eq!(out.code, Some(0), "{id}: {}", out.all());
        let names: Vec<&str> = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        for group in [
            "static.",
            "describe.",
            "inputs.",
            "bounds.",
            "deadline.",
            "capabilities.",
            "isolation.",
        ] {
            assert!(
                names.iter().any(|n| n.starts_with(group)),
                "{id}: no {group} check ran: {names:?}"
            );
        }
    }
    let scribe = conformance(&a, &test_components_dir().join("scribe.wasm"), &[]);
    assert_eq!(scribe.code, Some(0), "{}", scribe.all());
    assert!(
        !scribe.stdout.contains("\nfail ") && !scribe.stdout.contains("\nwarn "),
        "{}",
        scribe.stdout
    );
}

/// Components built against the frozen 0.1.0 and 0.2.0 WITs (`tools/testing/legacy` and
/// `legacy02`, which bind `wit/since_v0.1.0` and `wit/since_v0.2.0` without the SDK) pass on a
/// host whose newest WIT is later; so does a process-execution tool of the newest WIT with an
/// output schema (`runner`).
#[test]
fn frozen_0_1_0_and_0_2_0_components_and_a_newest_process_tool_pass() {
    let a = Attack::new();
    let newest = toolhost::runtime::wit::newest().version;
    for (id, version) in [("legacy", "0.1.0"), ("legacy02", "0.2.0"), ("runner", newest)] {
        let out = conformance(
            &a,
            &test_components_dir().join(format!("{id}.wasm")),
            &["--json", "--cases", "48"],
        );
        let report: Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{id}: not JSON ({e}): {}", out.all()));
        assert_eq!(failed_checks(&report), BTreeSet::new(), "{id}: {}", out.stdout);
        assert_eq!(out.code, Some(0), "{id}: {}", out.all());
        let contract = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "static.contract")
            .unwrap();
        assert_eq!(contract["message"], format!("targets toolhost:tool@{version}"), "{id}");
    }
    assert!(
        !["0.1.0", "0.2.0"].contains(&newest),
        "the frozen fixtures prove nothing until a newer WIT exists"
    );
}

#[test]
fn misbehaving_components_fail_exactly_the_checks_they_break() {
    let a = Attack::new();
    let anchors = guide_anchors();
    let cases: [(&str, &[&str]); 12] = [
        // Imports an interface toolhost does not provide.
        ("foreign", &["static.imports"]),
        // Exports no toolhost:tool/tool.
        ("noexport", &["static.exports"]),
        // describe traps.
        ("describetrap", &["describe.returns"]),
        // Definitions that break one rule each (bound with wit-bindgen: the SDK cannot emit them).
        ("badid", &["describe.id"]),
        ("blankdesc", &["describe.description"]),
        ("badschema", &["describe.schema"]),
        ("badoutput", &["describe.output-schema"]),
        // Traps and hoards on some inputs; writes although it declares read-only.
        ("misbehave", &["inputs.no-trap", "bounds.memory", "capabilities.grant"]),
        // Returns a structured result that breaks its own output schema.
        ("shapeless", &["outputs.structured"]),
        // Writes while inspect says read-only.
        ("liar", &["capabilities.inspect"]),
        // Runs a program while inspect says read-only.
        ("sly", &["capabilities.inspect"]),
        // Describes itself differently on every instance.
        ("unstable", &["describe.stable"]),
    ];
    for (id, expected) in cases {
        let out = conformance(
            &a,
            &test_components_dir().join(format!("{id}.wasm")),
            &["--json", "--cases", "32"],
        );
        assert_eq!(out.code, Some(1), "{id}: {}", out.all());
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        let want: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
        assert_eq!(failed_checks(&report), want, "{id}: {}", out.stdout);
        for c in report["checks"].as_array().unwrap() {
            if c["outcome"] != "pass" {
                assert!(
                    !c["message"].as_str().unwrap().is_empty(),
                    "{id}: {} says nothing",
                    c["name"]
                );
                assert_explained(id, c, &anchors);
            }
        }
    }
    // The smallest failing input and the seed to replay it.
    let out = conformance(&a, &test_components_dir().join("misbehave.wasm"), &["--cases", "32"]);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("fail  inputs.no-trap"))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(line.contains("--seed 1") && line.contains("\"action\""), "{line}");
}

#[test]
fn outputs_and_exit_codes_follow_the_contract() {
    let a = Attack::new();
    let junit = a.outside_dir("ci").join("report.xml");
    let out =
        conformance(&a, &components_dir().join("read.wasm"), &["--junit", junit.to_str().unwrap()]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(out.stdout.lines().any(|l| l.starts_with("pass  static.component")), "{}", out.stdout);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<testsuite name=\"toolhost conformance\"") && xml.contains("failures=\"0\""),
        "{xml}"
    );

    let junk = a.outside_dir("junk");
    std::fs::write(junk.join("text.wasm"), "not wasm").unwrap();
    std::fs::write(junk.join("core.wasm"), b"\0asm\x01\0\0\0").unwrap();
    for (file, code) in
        [(junk.join("text.wasm"), 2), (junk.join("missing.wasm"), 2), (junk.join("core.wasm"), 1)]
    {
        let out = conformance(&a, &file, &["--json"]);
        assert_eq!(out.code, Some(code), "{}: {}", file.display(), out.all());
    }
    let core = conformance(&a, &junk.join("core.wasm"), &["--json"]);
    let report: Value = serde_json::from_str(&core.stdout).unwrap();
    assert_eq!(
        failed_checks(&report),
        BTreeSet::from(["static.component".to_string()]),
        "{}",
        core.stdout
    );
}

/// `toolhost wit` prints the package a tool author builds against: the newest by default,
/// any linked version by `--version`, exit 2 for one the host does not link. The released text
/// comes unchanged after a header of `//` comments that names the world to build and
/// `docs/authoring.md` (a page that exists).
#[test]
fn wit_prints_the_linked_packages() {
    let a = Attack::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let frozen =
        |v: &str| std::fs::read_to_string(root.join(format!("wit/since_v{v}/tool.wit"))).unwrap();
    // The header: comment lines (the package still parses), then the released text, whole.
    let printed = |args: &[&str], v: &str| {
        let out = a.run(&[], args);
        assert_eq!(out.code, Some(0), "{}", out.all());
        let body = frozen(v);
        let header = out
            .stdout
            .strip_suffix(body.as_str())
            .unwrap_or_else(|| panic!("{args:?} is not the frozen {v} text after a header"));
        assert!(
            header.lines().all(|l| l.is_empty() || l.starts_with("// ")),
            "{args:?}: the header is not comments: {header}"
        );
        for needle in ["docs/authoring.md", "`tool-component`", &format!("toolhost:tool@{v}")] {
            assert!(
                header.contains(needle),
                "{args:?}: the header does not name {needle}: {header}"
            );
        }
        out.stdout
    };
    assert!(root.join("docs/authoring.md").is_file());
    let v03 = printed(&["wit"], "0.3.0");
    printed(&["wit", "--version", "0.1.0"], "0.1.0");
    printed(&["wit", "--version", "0.2.0"], "0.2.0");
    assert_eq!(a.run(&[], &["wit", "--version", "v0.3.0"]).stdout, v03);
    let unknown = a.run(&[], &["wit", "--version", "9.9.9"]);
    assert_eq!(unknown.code, Some(2), "{}", unknown.all());
    assert!(unknown.stderr.contains("0.1.0, 0.2.0, 0.3.0"), "{}", unknown.stderr);
}

/// A component whose `execute` never returns (and never checks `cancelled()`) cannot hold a
/// run of conformance past its budget: the run stops feeding inputs once two calls ran past
/// their deadline, says so, and still runs every later check. The bound asserted is the
/// test's own (a generous 90 s kill); before the budget, the run took over two minutes.
/// `lenient` takes a number where its schema says string: the host refuses every input that
/// breaks the schema before the component runs, so a tool that leans on that check passes,
/// and the report says how many inputs the host refused for it.
#[test]
fn a_tool_that_leans_on_the_hosts_input_check_passes() {
    let a = Attack::new();
    let out = conformance(&a, &test_components_dir().join("lenient.wasm"), &["--json"]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(failed_checks(&report).is_empty(), "{}", out.stdout);
    // A tool that answers passes `inputs.answers` (the stuck one below fails it).
    let answers = check(&report, "inputs.answers");
    assert_eq!(answers["outcome"], "pass", "{answers}");
    let message = check(&report, "inputs.invalid-refused")["message"].as_str().unwrap();
    assert!(message.contains("(the host refused "), "{message}");
    assert!(message.contains("refused with invalid-arguments"), "not the WIT's name: {message}");
    assert!(!message.contains("the host refused 0 of"), "{message}");
}

/// A component whose every call never returns cannot hold conformance past its budget, and
/// is not conformant: every call ran past its deadline, so it answered
/// nothing; `inputs.answers` fails, naming the deadline, and conformance exits 1 (it passed
/// with warnings before). A tool that answers passes that check
/// (`a_tool_that_leans_on_the_hosts_input_check_passes`).
#[test]
fn a_component_that_never_returns_cannot_hold_conformance() {
    let a = Attack::new();
    let file = test_components_dir().join("stuck.wasm");
    let mut cmd = a.command(&[]);
    cmd.args(["conformance", file.to_str().unwrap(), "--seed", SEED, "--json"]);
    let out =
        toolhost_tests::attack::run_limited(&mut cmd, None, std::time::Duration::from_secs(90))
            .expect("conformance of a stuck component ran past 90 s");
    assert_eq!(out.code, Some(1), "a tool that never answers passed: {}", out.all());
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let bounded = check(&report, "inputs.bounded");
    assert_eq!(bounded["outcome"], "warn", "{bounded}");
    let message = bounded["message"].as_str().unwrap();
    assert!(
        message.starts_with("stopped after ")
            && message.contains(" of 64 generated inputs: 2 calls ran past their 2 s deadline"),
        "{message}"
    );
    for later in ["deadline.deadline", "deadline.cancel", "capabilities.grant", "isolation.ambient"]
    {
        assert!(
            report["checks"].as_array().unwrap().iter().any(|c| c["name"] == later),
            "{later} did not run: {}",
            out.stdout
        );
    }
    assert!(failed_checks(&report).contains("inputs.answers"), "{}", out.stdout);
    let message = check(&report, "inputs.answers")["message"].as_str().unwrap();
    assert!(
        message.starts_with("the tool answered none of the ")
            && message.contains("each ran past its 2 s deadline"),
        "{message}"
    );
}

/// The WASI packages a language runtime imports and the author cannot remove pass
/// `static.imports`, saying nothing is behind them: `runtimewasi` imports `wasi:filesystem` and
/// `wasi:sockets` as a Python (componentize-py) component does, `runtimefs` only
/// `wasi:filesystem` as a JavaScript (componentize-js) one does. `isolation.ambient` names
/// each package a component imports once, and none it does not import.
#[test]
fn a_language_runtimes_wasi_imports_pass() {
    let a = Attack::new();
    let cases: [(&str, &[&str], &[&str]); 2] = [
        ("runtimewasi", &["wasi:filesystem", "wasi:sockets"], &[]),
        ("runtimefs", &["wasi:filesystem"], &["wasi:sockets", "socket"]),
    ];
    for (id, imported, absent) in cases {
        let out = conformance(
            &a,
            &test_components_dir().join(format!("{id}.wasm")),
            &["--json", "--cases", "16"],
        );
        assert_eq!(out.code, Some(0), "{id}: {}", out.all());
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        let imports = check(&report, "static.imports");
        assert_eq!(imports["outcome"], "pass", "{id}: {imports}");
        let said = imports["message"].as_str().unwrap();
        assert!(said.contains("nothing behind"), "{id}: {said}");
        let ambient = check(&report, "isolation.ambient")["message"].as_str().unwrap();
        for package in imported {
            assert!(said.contains(package), "{id}: static.imports does not name {package}: {said}");
            assert!(
                ambient.contains(package),
                "{id}: isolation.ambient does not name {package}: {ambient}"
            );
        }
        for word in absent {
            assert!(!said.contains(word), "{id}: static.imports names {word}: {said}");
            assert!(!ambient.contains(word), "{id}: isolation.ambient names {word}: {ambient}");
        }
        let named: Vec<&str> = ambient
            .split(|c: char| !(c.is_alphanumeric() || c == ':' || c == '-'))
            .filter(|w| w.starts_with("wasi:"))
            .collect();
        for package in &named {
            assert_eq!(
                named.iter().filter(|p| *p == package).count(),
                1,
                "{id}: isolation.ambient repeats {package}: {ambient}"
            );
        }
    }
}

/// A 0.2.0 component's draft (`current`, then `commit`) still writes through a host whose
/// newest WIT is later, and its change is recorded and undone like any other.
#[test]
fn a_frozen_0_2_0_component_still_commits_through_its_draft() {
    let a = Attack::new();
    a.put("a.txt", "one\ntwo\n");
    let legacy02 = test_components_dir().join("legacy02.wasm");
    let out = a.call_with(
        &["--tool", legacy02.to_str().unwrap()],
        "legacy02",
        serde_json::json!({"path": "a.txt", "copyTo": "copy/b.txt"}),
    );
    assert_eq!(out.status(), "succeeded", "{}", out.all());
    assert!(
        out.text().contains("2 lines (8 bytes) in a.txt; copy/b.txt created"),
        "{}",
        out.text()
    );
    assert_eq!(out.json()["structuredContent"], serde_json::json!({"lines": 2, "bytes": 8}));
    assert_eq!(std::fs::read_to_string(a.ws.join("copy/b.txt")).unwrap(), "one\ntwo\n");
    let ids = a.change_ids();
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert_eq!(a.run(&[], &["undo", &ids[0]]).code, Some(0));
    assert!(!a.ws.join("copy/b.txt").exists());
}
