//! Reads confined to the workspace plus listed roots
//! (docs/security.md#reads-confined-to-roots), through the built binary. By default another
//! project's `.env` beside the workspace is readable (the default, docs/contract.md#paths: reads everywhere but
//! credentials); with `--confine-reads`, `--read-root` or policy.json's `reads`, read, grep,
//! glob, list and bash refuse it, a listed root is readable and never writable, the system
//! directories stay readable and bash still runs programs, the tools' descriptions say what is
//! readable, and an MCP client's roots (the official Python SDK) narrow reads, follow
//! `roots/list_changed`, and widen nothing.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolhost_tests::attack::*;
use toolhost_tests::toolhost_bin;

/// A project beside the workspace with a `.env` holding a marker.
fn sibling_project(a: &Attack) -> (PathBuf, String) {
    let other = a.outside_dir("other-project");
    let m = marker("SIBLING-ENV");
    std::fs::write(other.join(".env"), format!("API_KEY={m}\n")).unwrap();
    std::fs::write(other.join("notes.txt"), format!("notes {m}\n")).unwrap();
    (other, m)
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// The five ways a model reads another directory: read, grep, glob, list, bash.
fn every_reader(a: &Attack, global: &[&str], dir: &Path) -> Vec<(&'static str, Out)> {
    let env = dir.join(".env");
    vec![
        ("read", a.call_with(global, "read", json!({ "path": path(&env) }))),
        (
            "grep",
            a.call_with(global, "grep", json!({ "pattern": "API_KEY|notes", "path": path(dir) })),
        ),
        ("glob", a.call_with(global, "glob", json!({ "pattern": "*", "path": path(dir) }))),
        ("list", a.call_with(global, "list", json!({ "path": path(dir) }))),
        (
            "bash",
            a.call_with(
                global,
                "bash",
                json!({ "command": format!("cat {0}/.env {0}/notes.txt; ls -a {0}", path(dir)) }),
            ),
        ),
    ]
}

#[test]
fn a_sibling_projects_env_is_readable_by_default_and_refused_by_every_tool_when_reads_are_confined()
{
    let a = Attack::new();
    let bash = a.sandbox_or_skip("reads_confined_to_roots");
    let (other, m) = sibling_project(&a);
    // The default: read, grep and bash show it.
    for (tool, out) in every_reader(&a, &[], &other) {
        if tool == "bash" && !bash {
            continue;
        }
        if matches!(tool, "read" | "grep" | "bash") {
            assert!(
                out.text().contains(&m),
                "by default {tool} reads the sibling .env: {}",
                out.all()
            );
        }
    }
    // Confined by the flag, and by policy.json: every reader refuses it.
    std::fs::write(a.data.join("policy.json"), r#"{"reads": {"confine": true}}"#).unwrap();
    for (how, global) in [("policy.json", &[][..]), ("--confine-reads", &["--confine-reads"][..])] {
        for (tool, out) in every_reader(&a, global, &other) {
            if tool == "bash" && !bash {
                continue;
            }
            out.assert_hidden(&m, &format!("{how}: {tool}"));
            if tool != "bash" {
                // The names in it are hidden too (glob, list).
                hidden(
                    &out.text(),
                    "notes.txt",
                    &format!("{how}: {tool} lists the sibling's names"),
                );
                let text = out.text();
                promise(out.status() == "failed" && text.contains("\"reads\""), || {
                    format!("{how}: {tool} is refused naming the setting: {}", out.all())
                });
            }
        }
    }
    std::fs::remove_file(a.data.join("policy.json")).unwrap();
    // HOME's own files are users' data too; its toolchains stay readable.
    std::fs::write(a.home.join("diary.txt"), format!("dear diary {m}\n")).unwrap();
    let g = ["--confine-reads"];
    let diary = a.call_with(&g, "read", json!({ "path": path(&a.home.join("diary.txt")) }));
    diary.assert_hidden(&m, "read of HOME's plain file");
    let toolchain = &a.readable[1];
    let out = a.call_with(&g, "read", json!({ "path": path(&toolchain.path) }));
    assert!(
        out.text().contains(&toolchain.marker),
        "HOME's toolchains stay readable: {}",
        out.all()
    );
    // The workspace itself is as readable as ever.
    a.put("src/main.rs", "fn main() {}\n");
    let out = a.call_with(&g, "grep", json!({ "pattern": "fn main" }));
    assert!(out.text().contains("main.rs"), "{}", out.all());
}

#[test]
fn a_listed_root_is_readable_and_never_writable() {
    let a = Attack::new();
    let bash = a.sandbox_or_skip("reads_confined_to_roots");
    let lib = a.outside_dir("shared-lib");
    let m = marker("LIB");
    std::fs::write(lib.join("lib.rs"), format!("// {m}\n")).unwrap();
    let (other, secret) = sibling_project(&a);
    let root = path(&lib);
    let g = ["--read-root", root.as_str()];
    let out = a.call_with(&g, "read", json!({ "path": path(&lib.join("lib.rs")) }));
    assert!(out.text().contains(&m), "read of a listed root: {}", out.all());
    let out = a.call_with(&g, "grep", json!({ "pattern": "LIB", "path": root }));
    assert!(out.text().contains("lib.rs"), "grep of a listed root: {}", out.all());
    // Writing it is refused, by write and by bash.
    let out =
        a.call_with(&g, "write", json!({ "path": path(&lib.join("new.rs")), "content": "x" }));
    promise(out.status() == "failed" && !lib.join("new.rs").exists(), || {
        format!("write into a read root: {}", out.all())
    });
    // A root opens only itself: the sibling project stays closed.
    a.call_with(&g, "read", json!({ "path": path(&other.join(".env")) }))
        .assert_hidden(&secret, "read beside a read root");
    if bash {
        let cmd = format!(
            "cat {root}/lib.rs; cat {}/.env; echo x > {root}/lib.rs; touch {root}/new2",
            path(&other)
        );
        let out = a.call_with(&g, "bash", json!({ "command": cmd }));
        assert!(out.text().contains(&m), "bash reads a listed root: {}", out.all());
        out.assert_hidden(&secret, "bash beside a read root");
        let now = std::fs::read_to_string(lib.join("lib.rs")).unwrap();
        promise(now.contains(&m) && !lib.join("new2").exists(), || {
            format!("bash wrote into a read root: {}", out.all())
        });
    }
    // A --read-root that is not a directory is a usage error.
    let out = a.run(&["--read-root", "/nonexistent/dir"], &["call", "read", r#"{"path":"x"}"#]);
    assert_eq!(out.code, Some(2), "{}", out.all());
    assert!(out.stderr.contains("--read-root"), "{}", out.all());
}

#[test]
fn system_directories_stay_readable_and_bash_still_runs_programs() {
    let a = Attack::new();
    let g = ["--confine-reads"];
    let etc = a.call_with(&g, "read", json!({ "path": "/etc/passwd" }));
    assert!(etc.text().contains("root:"), "/etc stays readable: {}", etc.all());
    let usr = a.call_with(&g, "list", json!({ "path": "/usr/bin", "limit": 2000 }));
    assert!(
        usr.text().lines().any(|l| l.trim_end() == "/usr/bin/env"),
        "/usr/bin stays listable: {}",
        usr.all()
    );
    let glob = a.call_with(&g, "glob", json!({ "pattern": "env", "path": "/usr/bin" }));
    assert!(glob.text().contains("/usr/bin/env"), "{}", glob.all());
    if !a.sandbox_or_skip("reads_confined_to_roots") {
        return;
    }
    a.put("hello.txt", "hello from the workspace\n");
    let cmd = "/usr/bin/env true && echo env-ran; head -c 5 /etc/passwd; echo; cat hello.txt; \
               git --version >/dev/null && echo git-ran; echo tmp > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"";
    let out = a.call_with(&g, "bash", json!({ "command": cmd }));
    let text = out.text();
    for want in ["env-ran", "root:", "hello from the workspace", "git-ran", "tmp"] {
        assert!(text.contains(want), "bash under confined reads lost {want:?}: {}", out.all());
    }
}

#[test]
fn tool_descriptions_say_what_is_readable_only_when_reads_are_confined() {
    let a = Attack::new();
    let lib = a.outside_dir("shared-lib");
    let definitions = |global: &[&str]| -> Vec<Value> {
        let out = a.run(global, &["tools", "--json"]);
        serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("tools --json ({e}): {}", out.all()))
    };
    let described = |defs: &[Value], id: &str| -> String {
        defs.iter()
            .find(|d| d["id"] == id)
            .map(|d| d["description"].as_str().unwrap().to_string())
            .unwrap()
    };
    let default = definitions(&[]);
    let root = path(&lib);
    let confined = definitions(&["--read-root", &root]);
    let ids =
        |d: &[Value]| d.iter().map(|d| d["id"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    assert_eq!(ids(&default), ids(&confined), "no new tool: the toolset stays the same");
    assert_eq!(ids(&default).len(), 7, "{:?}", ids(&default));
    for id in ["read", "grep", "glob", "list", "bash"] {
        let (d, c) = (described(&default, id), described(&confined, id));
        assert!(!d.contains("Readable here"), "{id}: the default description is unchanged: {d}");
        assert!(c.starts_with(&d), "{id}: the note is added at the end: {c}");
        assert!(c.contains("Readable here") && c.contains(&root), "{id}: {c}");
        assert!(c.contains(&path(&a.ws)), "{id} names the workspace: {c}");
    }
    for id in ["write", "edit"] {
        assert_eq!(described(&default, id), described(&confined, id), "{id}");
    }
}

#[test]
fn mcp_roots_narrow_reads_follow_list_changed_and_never_widen_writes() {
    let a = Attack::new();
    let bash = a.sandbox_or_skip("reads_confined_to_roots");
    let lib = a.outside_dir("shared-lib");
    std::fs::create_dir_all(lib.join("sub")).unwrap();
    let (sub_m, lib_m) = (marker("ROOT-SUB"), marker("ROOT-LIB"));
    std::fs::write(lib.join("sub/a.txt"), format!("{sub_m}\n")).unwrap();
    std::fs::write(lib.join("b.txt"), format!("{lib_m}\n")).unwrap();
    let (other, secret) = sibling_project(&a);
    let bin = toolhost_bin();
    let args =
        [bin.as_os_str(), a.ws.as_os_str(), a.data.as_os_str(), lib.as_os_str(), other.as_os_str()];
    let (report, stderr) =
        toolhost_tests::mcp::run_client_script("roots_client.py", &args, Some(&a.home));
    let text = |step: &str, what: &str| {
        report[step][what]["text"].as_str().unwrap_or_default().to_string()
    };
    let refused = |step: &str, what: &str| report[step][what]["isError"] == json!(true);
    // The client's root LIB/sub narrows the operator's LIB.
    assert_eq!(report["sub"]["tools"].as_array().map(Vec::len), Some(7), "{report:#}");
    let described = report["sub"]["read_description"].as_str().unwrap_or_default();
    assert!(
        described.contains(&path(&lib.join("sub"))),
        "the description names the root: {described}"
    );
    assert!(text("sub", "read_sub").contains(&sub_m), "{report:#}");
    promise(refused("sub", "read_lib") && !text("sub", "read_lib").contains(&lib_m), || {
        format!("a client's root narrows the operator's: {report:#}")
    });
    // After list_changed to LIB whole: LIB is readable again, never writable.
    assert!(text("lib", "read_lib").contains(&lib_m), "roots/list_changed is followed: {report:#}");
    let described = report["lib"]["read_description"].as_str().unwrap_or_default();
    assert!(!described.contains(&path(&lib.join("sub"))), "the description follows: {described}");
    // Offering only OTHER (outside the operator's roots) widens nothing and narrows to none.
    promise(refused("other", "read_other") && refused("other", "read_lib"), || {
        format!("a client's root outside the operator's widens nothing: {report:#}")
    });
    for step in ["sub", "lib", "other"] {
        hidden(&report[step].to_string(), &secret, &format!("{step}: the sibling .env"));
        promise(refused(step, "write_lib"), || {
            format!("{step}: a root is never writable: {report:#}")
        });
        if bash {
            let out = text(step, "bash");
            hidden(&out, &secret, &format!("{step}: bash reads the sibling .env"));
            assert_eq!(
                out.contains(&sub_m),
                step != "other",
                "{step}: bash follows the roots: {out}"
            );
            assert_eq!(
                out.contains(&lib_m),
                step == "lib",
                "{step}: bash follows the roots: {out}"
            );
        }
    }
    let now = std::fs::read_to_string(lib.join("b.txt")).unwrap();
    promise(now.contains(&lib_m), || format!("LIB/b.txt was written: {now}"));
    assert!(stderr.contains("ignored"), "bad and outside roots are logged: {stderr}");
}

#[test]
fn a_client_that_never_answers_roots_list_holds_no_call() {
    let a = Attack::new();
    let lib = a.outside_dir("shared-lib");
    let lib_m = marker("ROOT-LIB");
    std::fs::write(lib.join("b.txt"), format!("{lib_m}\n")).unwrap();
    let other = a.outside_dir("other-project");
    let bin = toolhost_bin();
    let silent = std::ffi::OsStr::new("silent");
    let args = [
        bin.as_os_str(),
        a.ws.as_os_str(),
        a.data.as_os_str(),
        lib.as_os_str(),
        other.as_os_str(),
        silent,
    ];
    let (report, stderr) =
        toolhost_tests::mcp::run_client_script("roots_client.py", &args, Some(&a.home));
    // Both calls are answered, under the operator's read roots.
    let read = report["silent_read_lib"]["text"].as_str().unwrap_or_default();
    assert!(read.contains(&lib_m), "the operator's roots stay: {report:#}");
    assert_eq!(report["silent_list"]["isError"], json!(false), "{report:#}");
    assert!(stderr.contains("roots/list"), "the missing answer is logged: {stderr}");
}

#[test]
fn over_http_every_mcp_session_has_roots_of_its_own() {
    let fx = toolhost_tests::Fixture::new();
    let lib = tempfile::tempdir().unwrap();
    let lib = lib.path().canonicalize().unwrap();
    std::fs::create_dir_all(lib.join("sub")).unwrap();
    let (sub_m, lib_m) = (marker("ROOT-SUB"), marker("ROOT-LIB"));
    std::fs::write(lib.join("sub/a.txt"), format!("{sub_m}\n")).unwrap();
    std::fs::write(lib.join("b.txt"), format!("{lib_m}\n")).unwrap();
    let root = path(&lib);
    let server = toolhost_tests::mcp::HttpServer::start(&fx, &["--read-root", &root]);
    let token = server.token().to_string();
    let args = [std::ffi::OsStr::new(server.url()), std::ffi::OsStr::new(&token), lib.as_os_str()];
    let (report, _) = toolhost_tests::mcp::run_client_script("roots_http_client.py", &args, None);
    let text =
        |who: &str, what: &str| report[who][what]["text"].as_str().unwrap_or_default().to_string();
    assert!(text("a", "read_sub").contains(&sub_m), "{report:#}");
    promise(
        report["a"]["read_lib"]["isError"] == json!(true)
            && !text("a", "read_lib").contains(&lib_m),
        || format!("A's root LIB/sub narrows A's reads: {report:#}"),
    );
    assert!(text("b", "read_lib").contains(&lib_m), "B's root LIB is B's alone: {report:#}");
    assert!(text("b", "read_sub").contains(&sub_m), "{report:#}");
    server.terminate();
}
