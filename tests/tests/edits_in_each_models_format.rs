//! Edits in each model's own format, through the built binary (docs/contract.md#multi_edit,
//! #str_replace_based_edit_tool, #anthropic-bash, #apply_patch): the tools each toolset lists;
//! Anthropic's text editor with `view` as the read read-before-edit asks for; the tolerant
//! tiers of `str_replace`, `multi_edit` and `apply_patch`, which say how they matched, refuse
//! several candidates naming their lines and refuse copied line numbers; `multi_edit` all or
//! nothing and one undoable change; Anthropic's bash; the same over MCP.

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, result_text};

fn read(a: &Attack, rel: &str) -> String {
    std::fs::read_to_string(a.ws.join(rel)).unwrap()
}

/// The tool ids `tools --json` lists under `global`.
fn listed(a: &Attack, global: &[&str]) -> Vec<String> {
    let out = a.run(global, &["tools", "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let defs: Value = serde_json::from_str(&out.stdout).unwrap();
    defs.as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().or(d["name"].as_str()).unwrap().to_string())
        .collect()
}

fn succeeded(r: &Value) -> String {
    assert_eq!(r["status"], "succeeded", "{r}");
    result_text(r)
}

fn failed(r: &Value) -> String {
    assert_eq!(r["status"], "failed", "{r}");
    assert!(r["artifacts"].as_array().is_none_or(Vec::is_empty), "a refusal recorded: {r}");
    result_text(r)
}

#[test]
fn each_toolset_lists_its_models_own_tools() {
    let a = Attack::new();
    assert_eq!(listed(&a, &["--agent", "claude"]), ["str_replace_based_edit_tool", "bash"]);
    assert_eq!(
        listed(&a, &["--tools", "read,multi_edit,str_replace_based_edit_tool"]),
        ["read", "multi_edit", "str_replace_based_edit_tool"]
    );
    // The default toolset is as it was.
    assert_eq!(listed(&a, &[]), ["read", "write", "edit", "grep", "glob", "list", "bash"]);
    let out = a.run(&["--agent", "claude"], &["tools", "--json"]);
    let defs: Value = serde_json::from_str(&out.stdout).unwrap();
    let editor = &defs[0]["input_schema"]["properties"];
    for field in ["command", "path", "view_range", "file_text", "old_str", "new_str", "insert_line"]
    {
        assert!(editor.get(field).is_some(), "the editor's schema lacks {field}: {editor}");
    }
    let bash = &defs[1]["input_schema"]["properties"];
    assert!(bash.get("command").is_some() && bash.get("restart").is_some(), "{bash}");
    assert!(bash.get("timeoutMs").is_none(), "Anthropic's bash has no timeout: {bash}");
    // Not chosen, not callable.
    let r = a.call("multi_edit", json!({ "filePath": "x", "edits": [] }));
    assert_eq!(r.status(), "failed", "{}", r.all());
}

#[test]
fn view_is_the_read_that_lets_claude_edit_and_each_edit_is_one_undoable_change() {
    let a = Attack::new();
    a.put("app.py", "def main():\n    print('hi')\n    return 0\n");
    let mut s = a.session(&["--agent", "claude"]);
    let tool = "str_replace_based_edit_tool";
    let edit = json!({"command": "str_replace", "path": "app.py",
        "old_str": "print('hi')", "new_str": "print('hello')"});
    let refused = failed(&s.call("e0", tool, edit.clone()));
    assert!(
        refused.contains("Read app.py before editing it.") && refused.contains("`view`"),
        "{refused}"
    );
    assert_eq!(read(&a, "app.py"), "def main():\n    print('hi')\n    return 0\n");

    let viewed = succeeded(&s.call("v", tool, json!({"command": "view", "path": "app.py"})));
    assert_eq!(
        viewed,
        "Here's the result of running `cat -n` on app.py:\n     1\tdef main():\n     2\t    \
         print('hi')\n     3\t    return 0\n"
    );
    let done = succeeded(&s.call("e1", tool, edit));
    assert!(
        done.starts_with("The file app.py has been edited (old_str matched exactly at line 2)"),
        "{done}"
    );
    assert!(done.contains("     2\t    print('hello')"), "the snippet: {done}");
    assert_eq!(read(&a, "app.py"), "def main():\n    print('hello')\n    return 0\n");

    // insert after line 1, and at the top; no re-read between consecutive edits.
    succeeded(&s.call(
        "i",
        tool,
        json!({"command": "insert", "path": "app.py",
        "insert_line": 1, "new_str": "    \"\"\"Entry.\"\"\""}),
    ));
    succeeded(&s.call(
        "i0",
        tool,
        json!({"command": "insert", "path": "app.py",
        "insert_line": 0, "new_str": "import sys\n"}),
    ));
    assert_eq!(
        read(&a, "app.py"),
        "import sys\ndef main():\n    \"\"\"Entry.\"\"\"\n    print('hello')\n    return 0\n"
    );
    let bad = failed(&s.call(
        "i9",
        tool,
        json!({"command": "insert", "path": "app.py",
        "insert_line": 99, "new_str": "x"}),
    ));
    assert!(bad.contains("[0, 5]"), "{bad}");
    let made = succeeded(&s.call(
        "c",
        tool,
        json!({"command": "create", "path": "pkg/new.py",
        "file_text": "X = 1\n"}),
    ));
    assert_eq!(made, "File created successfully at: pkg/new.py");
    drop(s);
    // Four changes, each undoable by its id: undo the last edit of app.py.
    let ids = a.change_ids();
    assert_eq!(ids.len(), 4, "{ids:?}");
    let undo = a.run(&[], &["undo", &ids[2]]);
    assert_eq!(undo.code, Some(0), "{}", undo.all());
    assert_eq!(
        read(&a, "app.py"),
        "def main():\n    \"\"\"Entry.\"\"\"\n    print('hello')\n    return 0\n"
    );
}

#[test]
fn view_shows_ranges_and_directories_as_anthropics_tool_does() {
    let a = Attack::new();
    let text: String = (1..=6).map(|i| format!("line {i}\n")).collect();
    a.put("src/a.txt", &text);
    a.put("src/deep/b.txt", "b\n");
    a.put("src/deep/deeper/c.txt", "c\n");
    a.put(".hidden/x", "x\n");
    let mut s = a.session(&["--agent", "claude"]);
    let tool = "str_replace_based_edit_tool";
    let v = |s: &mut toolhost_tests::attack::Session, input: Value| s.call("v", tool, input);
    let r = succeeded(&v(
        &mut s,
        json!({"command": "view", "path": "src/a.txt", "view_range": [2, 3]}),
    ));
    assert!(r.ends_with("     2\tline 2\n     3\tline 3\n"), "{r}");
    let r = succeeded(&v(
        &mut s,
        json!({"command": "view", "path": "src/a.txt", "view_range": [5, -1]}),
    ));
    assert!(r.ends_with("     5\tline 5\n     6\tline 6\n"), "{r}");
    let r =
        failed(&v(&mut s, json!({"command": "view", "path": "src/a.txt", "view_range": [4, 2]})));
    assert!(r.contains("Invalid `view_range`"), "{r}");
    let r = succeeded(&v(
        &mut s,
        json!({"command": "view", "path": "src/a.txt", "max_characters": 30}),
    ));
    assert!(
        r.contains("     1\tline 1\n") && !r.contains("line 6") && r.contains("view_range [3, -1]"),
        "{r}"
    );
    let r = succeeded(&v(&mut s, json!({"command": "view", "path": "."})));
    assert!(
        r.contains("./src/\n") && r.contains("./src/a.txt\n") && r.contains("./src/deep/\n"),
        "{r}"
    );
    assert!(!r.contains(".hidden") && !r.contains("deeper/c.txt"), "two levels, no hidden: {r}");
    let r = failed(&v(&mut s, json!({"command": "view", "path": "nope.txt"})));
    assert!(r.contains("does not exist"), "{r}");
    let r = failed(&v(&mut s, json!({"command": "undo_edit", "path": "src/a.txt"})));
    assert!(r.contains("toolhost undo"), "{r}");
    // The fence is the same as every file tool's: outside the workspace is refused.
    let outside = a.outside_dir("o").join("f.txt");
    std::fs::write(&outside, "o\n").unwrap();
    let r = s.call(
        "o",
        tool,
        json!({"command": "create", "path": outside.to_str().unwrap(), "file_text": "x"}),
    );
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "o\n");
}

#[test]
fn str_replace_matches_in_tiers_says_which_and_never_guesses() {
    let a = Attack::new();
    let original = "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        \
                    return 1\n\nclass C:\n    def g(self):\n        return 1\n";
    a.put("m.py", original);
    a.put("n.py", "def g():\n    x = “quoted” — dash\n    return x\n");
    let mut s = a.session(&["--agent", "claude"]);
    let tool = "str_replace_based_edit_tool";
    for p in ["m.py", "n.py"] {
        succeeded(&s.call("v", tool, json!({"command": "view", "path": p})));
    }
    // Two places: refused, naming both, whatever tier.
    let r = failed(&s.call("d", tool, json!({"command": "str_replace", "path": "m.py",
        "old_str": "    def f(self):\n        return 1", "new_str": "    def f(self):\n        return 2"})));
    assert!(r.contains("matches 2 places (lines 2, 6)"), "{r}");
    let r = failed(&s.call(
        "d2",
        tool,
        json!({"command": "str_replace", "path": "m.py",
        "old_str": "def f(self):\n    return 1", "new_str": "def f(self):\n    return 2"}),
    ));
    assert!(r.contains("lines 2, 6") && r.contains("after ignoring"), "{r}");
    assert_eq!(read(&a, "m.py"), original);
    // Copied line numbers: refused as such, never stripped.
    let r = failed(&s.call(
        "n",
        tool,
        json!({"command": "str_replace", "path": "m.py",
        "old_str": "     9\tclass C:", "new_str": "class D:"}),
    ));
    assert!(r.contains("line numbers"), "{r}");
    // Shifted indentation: found once, re-indented to the file's, and said.
    let r = succeeded(&s.call(
        "i",
        tool,
        json!({"command": "str_replace", "path": "m.py",
        "old_str": "def g(self):\n    return 1", "new_str": "def g(self):\n    return 3"}),
    ));
    assert!(r.contains("old_str matched after ignoring indentation at line 10"), "{r}");
    assert!(
        read(&a, "m.py").ends_with("class C:\n    def g(self):\n        return 3\n"),
        "{}",
        read(&a, "m.py")
    );
    // A body flattened to the level of its def has no one shift: re-indenting it would
    // write another structure, so no tier takes it.
    let r = failed(&s.call(
        "f",
        tool,
        json!({"command": "str_replace", "path": "m.py",
        "old_str": "def g(self):\nreturn 3", "new_str": "def g(self):\nreturn 4"}),
    ));
    assert!(r.contains("not found"), "{r}");
    // ASCII quotes and dash for the file's typographic ones.
    let r = succeeded(&s.call(
        "q",
        tool,
        json!({"command": "str_replace", "path": "n.py",
        "old_str": "    x = \"quoted\" - dash", "new_str": "    x = 'plain'"}),
    ));
    assert!(r.contains("Unicode punctuation at line 2"), "{r}");
    assert_eq!(read(&a, "n.py"), "def g():\n    x = 'plain'\n    return x\n");
    // Not found: the line that is missing and the closest place.
    let r = failed(&s.call(
        "m",
        tool,
        json!({"command": "str_replace", "path": "n.py",
        "old_str": "def g():\n    y = 2", "new_str": "z"}),
    ));
    assert!(r.contains("not found") && r.contains("closest place is lines 1-2"), "{r}");
}

#[test]
fn multi_edit_is_all_or_nothing_and_one_change() {
    let a = Attack::new();
    let original = "fn a() {\n    1\n}\nfn b() {\n    2\n}\n";
    a.put("lib.rs", original);
    let mut s = a.session(&["--tools", "read,multi_edit"]);
    let edits = json!([
        {"oldString": "    1", "newString": "    10"},
        {"oldString": "  fn b() {\n      2\n  }", "newString": "  fn b() {\n      20\n  }"},
    ]);
    let r = failed(&s.call("e0", "multi_edit", json!({"filePath": "lib.rs", "edits": edits})));
    assert!(r.contains("Read lib.rs before editing it."), "{r}");
    succeeded(&s.call("r", "read", json!({"path": "lib.rs"})));
    // The second edit does not match: nothing is written, the message names it.
    let bad = json!([
        {"oldString": "    1", "newString": "    10"},
        {"oldString": "fn c() {", "newString": "fn d() {"},
    ]);
    let r = failed(&s.call("e1", "multi_edit", json!({"filePath": "lib.rs", "edits": bad})));
    assert!(r.starts_with("edit 2 of 2: ") && r.contains("No edit was applied"), "{r}");
    assert_eq!(read(&a, "lib.rs"), original);
    let r = succeeded(&s.call("e2", "multi_edit", json!({"filePath": "lib.rs", "edits": edits})));
    assert!(r.starts_with("Applied 2 edits to lib.rs (+2 -2)"), "{r}");
    assert!(r.contains("1. matched exactly at line 2"), "{r}");
    assert!(r.contains("2. matched after ignoring indentation at line 4"), "{r}");
    assert_eq!(read(&a, "lib.rs"), "fn a() {\n    10\n}\nfn b() {\n    20\n}\n");
    // replaceAll, and a later edit sees what the earlier one left.
    let r = succeeded(&s.call(
        "e3",
        "multi_edit",
        json!({"filePath": "lib.rs", "edits": [
            {"oldString": "fn ", "newString": "pub fn ", "replaceAll": true},
            {"oldString": "pub fn a", "newString": "pub fn first"},
        ]}),
    ));
    assert!(r.contains("1. matched 2 places exactly, the first at line 1"), "{r}");
    // A new file: its one edit's oldString is empty.
    succeeded(&s.call(
        "n",
        "multi_edit",
        json!({"filePath": "new.rs", "edits": [
        {"oldString": "", "newString": "// new\n"}]}),
    ));
    assert_eq!(read(&a, "new.rs"), "// new\n");
    drop(s);
    let ids = a.change_ids();
    assert_eq!(ids.len(), 3, "one change per call: {ids:?}");
    let undo = a.run(&[], &["undo", &ids[1]]);
    assert_eq!(undo.code, Some(0), "{}", undo.all());
    assert_eq!(read(&a, "lib.rs"), "fn a() {\n    10\n}\nfn b() {\n    20\n}\n");
    let undo = a.run(&[], &["undo", &ids[0]]);
    assert_eq!(undo.code, Some(0), "{}", undo.all());
    assert_eq!(read(&a, "lib.rs"), original);
}

#[test]
fn apply_patch_refuses_a_hunk_that_fits_two_places_and_says_a_lenient_match() {
    let a = Attack::new();
    let original = "fn a() {\n    x();\n}\nfn b() {\n    x();\n}\n";
    a.put("lib.rs", original);
    let mut s = a.session(&["--agent", "patch"]);
    succeeded(&s.call("r", "read", json!({"path": "lib.rs"})));
    let patch = |body: &str| json!({"input": format!("*** Begin Patch\n*** Update File: lib.rs\n{body}*** End Patch\n")});
    let r = failed(&s.call("p0", "apply_patch", patch("@@\n-    x();\n+    y();\n")));
    assert!(r.contains("matches 2 places (lines 2, 5)") && r.contains("@@ line"), "{r}");
    assert_eq!(read(&a, "lib.rs"), original);
    // Anchored by its @@ line, the same hunk is one place; indented wrongly, it is said.
    let r = succeeded(&s.call("p1", "apply_patch", patch("@@ fn b() {\n-x();\n+y();\n+z();\n")));
    assert!(r.contains("lib.rs: hunk 1 matched after ignoring indentation at line 5"), "{r}");
    assert_eq!(read(&a, "lib.rs"), "fn a() {\n    x();\n}\nfn b() {\n    y();\n    z();\n}\n");
}

#[test]
fn anthropics_bash_runs_a_command_and_restarts() {
    let a = Attack::new();
    if !a.sandbox_or_skip("anthropics_bash_runs_a_command_and_restarts") {
        return;
    }
    let mut s = a.session(&["--agent", "claude"]);
    let r = succeeded(&s.call("b", "bash", json!({"command": "echo hi-from-bash"})));
    assert!(r.starts_with("hi-from-bash\n") && r.contains("[exit 0;"), "{r}");
    assert_eq!(
        succeeded(&s.call("r", "bash", json!({"restart": true}))),
        "tool has been restarted."
    );
    let r = s.call("n", "bash", json!({}));
    assert_eq!(r["status"], "failed", "{r}");
    let r = s.call("t", "bash", json!({"command": "true", "timeoutMs": 5}));
    assert_eq!(r["status"], "failed", "Anthropic's bash takes no timeoutMs: {r}");
}

#[test]
fn over_mcp_the_claude_toolset_views_and_edits() {
    let a = Attack::new();
    a.put("a.txt", "one\ntwo\n");
    let mut m = a.mcp(&["--agent", "claude"]);
    let list = m.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["str_replace_based_edit_tool", "bash"], "{list}");
    let tool = "str_replace_based_edit_tool";
    let r = m.call_tool(tool, json!({"command": "view", "path": "a.txt"}));
    assert_eq!(r["result"]["isError"], false, "{r}");
    let r = m.call_tool(
        tool,
        json!({"command": "str_replace", "path": "a.txt", "old_str": "two", "new_str": "2"}),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
    let r = m.call_tool(
        tool,
        json!({"command": "str_replace", "path": "a.txt", "old_str": "three", "new_str": "3"}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(read(&a, "a.txt"), "one\n2\n");
}

#[test]
fn openais_apply_patch_takes_one_operation_and_needs_no_read() {
    let a = Attack::new();
    assert_eq!(listed(&a, &["--agent", "openai"]), ["apply_patch", "shell"]);
    // Codex's apply_patch is still the one `--tools` names.
    let out = a.run(&["--tools", "apply_patch"], &["tools", "--json"]);
    let defs: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(defs[0]["input_schema"]["required"], json!(["input"]), "{defs}");

    a.put("app.py", "def f():\n    return 1\n\n\ndef g():\n    return 1\n");
    let mut s = a.session(&["--agent", "openai"]);
    let r = s.call(
        "c",
        "apply_patch",
        json!({"type": "create_file", "path": "pkg/new.py", "diff": "+X = 1\n+Y = 2\n"}),
    );
    let text = succeeded(&r);
    assert!(text.starts_with("Applied the patch: 1 file changed (+2 -0)"), "{text}");
    assert_eq!(r["structuredContent"], json!({"status": "completed", "output": text}), "{r}");
    assert_eq!(read(&a, "pkg/new.py"), "X = 1\nY = 2\n");
    // No read first: the shell is this toolset's reader, and the hunk's context must match.
    let r = s.call(
        "u",
        "apply_patch",
        json!({"type": "update_file", "path": "app.py",
        "diff": "@@ def g():\n-    return 1\n+    return 2\n"}),
    );
    succeeded(&r);
    assert_eq!(read(&a, "app.py"), "def f():\n    return 1\n\n\ndef g():\n    return 2\n");
    // Ambiguous context is refused, naming the places.
    a.put("twice.py", "x = 1\ny = 2\nx = 1\n");
    let r = failed(&s.call(
        "a",
        "apply_patch",
        json!({"type": "update_file", "path": "twice.py",
        "diff": "@@\n-x = 1\n+x = 3\n"}),
    ));
    assert!(r.contains("lines 1, 3"), "{r}");
    // A diff cannot smuggle in a second operation.
    let r = failed(&s.call(
        "m",
        "apply_patch",
        json!({"type": "update_file", "path": "app.py",
        "diff": "@@\n-    return 2\n+    return 3\n*** Delete File: pkg/new.py\n"}),
    ));
    assert!(r.contains("patch marker"), "{r}");
    assert!(a.ws.join("pkg/new.py").exists());
    let r = s.call("d", "apply_patch", json!({"type": "delete_file", "path": "pkg/new.py"}));
    succeeded(&r);
    assert!(!a.ws.join("pkg/new.py").exists());
    drop(s);
    assert_eq!(a.change_ids().len(), 3, "one change per operation");
}

#[test]
fn openais_shell_runs_each_command_with_its_own_streams_and_outcome() {
    let a = Attack::new();
    if !a.sandbox_or_skip("openais_shell_runs_each_command_with_its_own_streams_and_outcome") {
        return;
    }
    let mut s = a.session(&["--agent", "openai"]);
    let r = s.call(
        "s",
        "shell",
        json!({"commands": [
        "echo out; echo err >&2", "exit 3", "echo 0123456789", "sleep 5"],
        "timeout_ms": 1500, "max_output_length": 6}),
    );
    succeeded(&r);
    assert_eq!(
        r["structuredContent"],
        json!({"output": [
            {"stdout": "out\n", "stderr": "er", "outcome": {"type": "exit", "exit_code": 0}},
            {"stdout": "", "stderr": "", "outcome": {"type": "exit", "exit_code": 3}},
            {"stdout": "012345", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
            {"stdout": "", "stderr": "", "outcome": {"type": "timeout"}},
        ], "max_output_length": 6}),
        "{r}"
    );
    let text = result_text(&r);
    assert!(
        text.starts_with("$ echo out; echo err >&2\n") && text.contains("$ exit 3\n"),
        "{text}"
    );
    let r = s.call("e", "shell", json!({"commands": []}));
    assert_eq!(r["status"], "failed", "{r}");
}

/// The tool calls the providers' own SDK types (PyPI `openai`, `anthropic`) build, run
/// through the session, and their results fed back through the SDKs' types for results: a
/// field named or shaped differently from the provider's fails here.
#[test]
fn the_providers_own_sdk_types_build_the_calls_and_take_the_results() {
    let test = "the_providers_own_sdk_types_build_the_calls_and_take_the_results";
    let a = Attack::new();
    if !a.sandbox_or_skip(test) {
        return;
    }
    let Some(bin) = toolhost_tests::toolchains::provider_sdks(test) else { return };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/mcp/provider_shapes.py");
    let python = |phase: &str, stdin: &str| {
        let mut cmd = std::process::Command::new(bin.join("python"));
        cmd.args([script, phase]);
        let out = toolhost_tests::attack::run_limited(
            &mut cmd,
            Some(stdin.as_bytes().to_vec()),
            std::time::Duration::from_secs(120),
        )
        .expect("python ran");
        assert_eq!(out.code, Some(0), "provider_shapes.py {phase}: {}", out.all());
        out.stdout
    };
    a.put("a.py", "x = 1\n");
    let calls: Vec<Value> =
        python("calls", "").lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut results = String::new();
    for (agent, prefix) in [("claude", "toolu_"), ("openai", "call_")] {
        let mut s = a.session(&["--agent", agent]);
        for c in calls.iter().filter(|c| c["id"].as_str().unwrap().starts_with(prefix)) {
            let id = c["id"].as_str().unwrap();
            let r = s.call(id, c["tool"].as_str().unwrap(), c["arguments"].clone());
            results.push_str(&format!("{}\n", json!({"id": id, "result": r})));
        }
    }
    let checked: Vec<String> = serde_json::from_str(&python("results", &results)).unwrap();
    assert_eq!(checked.len(), calls.len(), "{checked:?}");
    assert_eq!(read(&a, "a.py"), "import os\nx = 2\n");
    assert_eq!(read(&a, "b.py"), "y = 1\n");
    assert!(!a.ws.join("c.txt").exists());
}
