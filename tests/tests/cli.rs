//! The command-line contract of docs/cli.md: `tools`, `call`, exit codes 0/1/2.

use std::process::Command;

use toolhost_tests::*;

fn toolhost(fx: &Fixture) -> Command {
    let mut cmd = Command::new(toolhost_bin());
    cmd.arg("--workspace").arg(fx.root()).arg("--data-dir").arg(fx.data.path());
    cmd
}

#[test]
fn tools_prints_the_toolset_in_order() {
    let fx = Fixture::new();
    let out = toolhost(&fx).arg("tools").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let ids: Vec<&str> = text.lines().map(|l| l.split('\t').next().unwrap()).collect();
    let expected: Vec<String> =
        toolhost::Agent::Default.toolset().tools.iter().map(|t| t.to_string()).collect();
    assert_eq!(ids, expected);
    let out = toolhost(&fx).args(["tools", "--json"]).output().unwrap();
    let defs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(defs[0]["id"], expected[0]);
    assert!(defs[0]["input_schema"].is_object());
}

#[test]
fn call_list_prints_the_listing_and_exits_0() {
    let fx = Fixture::new();
    fx.write("b.txt", "");
    fx.write("a/x", "");
    let out = toolhost(&fx).args(["call", "list", r#"{"path":"."}"#]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "a/\nb.txt\n");
    let out = toolhost(&fx).args(["call", "list", "{}", "--json"]).output().unwrap();
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["status"], "succeeded");
    assert_eq!(r["content"][0]["type"], "text");
    assert_eq!(r["sandbox_denied"], false);
}

#[test]
fn a_failed_call_exits_1_and_usage_errors_exit_2() {
    let fx = Fixture::new();
    let out = toolhost(&fx).args(["call", "list", r#"{"limit":0}"#]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = toolhost(&fx).args(["call", "nosuchtool", "{}"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    for bad in ["{", "[1]", "\"x\"", ""] {
        let out = toolhost(&fx).args(["call", "list", bad]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "input {bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("JSON"), "says what was wrong: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let out = toolhost(&fx).args(["--mode", "sideways", "tools"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A --tools id that is no tool here is a bad flag value like any other.
    let out = toolhost(&fx).args(["--tools", "read,nosuch", "tools"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`nosuch`, which is not a tool here") && err.contains("multi_edit"),
        "{err}"
    );
}

#[test]
fn a_warm_start_uses_the_component_cache() {
    let fx = Fixture::new();
    assert!(toolhost(&fx).arg("tools").status().unwrap().success());
    let cache = fx.data.path().join("cache/components");
    let names = || {
        let mut n: Vec<String> = std::fs::read_dir(&cache)
            .unwrap()
            .flatten()
            .map(|b| b.file_name().to_string_lossy().into_owned())
            .filter(|n| n != "stamps")
            .collect();
        n.sort();
        n
    };
    let first = names();
    let compiled = first.iter().filter(|n| n.ends_with(".cwasm")).count();
    let described = first.iter().filter(|n| n.ends_with(".def.json")).count();
    assert_eq!(
        compiled,
        toolhost::builtins::BUILTIN_COMPONENTS.len(),
        "compiled components are cached: {first:?}"
    );
    assert_eq!(described, compiled, "and so are their definitions: {first:?}");
    assert!(first.iter().all(|n| n.ends_with(".cwasm") || n.ends_with(".def.json")), "{first:?}");
    // A warm start reuses them: nothing is compiled or described again.
    let stamps = |ns: &[String]| {
        ns.iter()
            .map(|n| std::fs::metadata(cache.join(n)).unwrap().modified().unwrap())
            .collect::<Vec<_>>()
    };
    let before = stamps(&first);
    assert!(toolhost(&fx).args(["call", "list", "{}"]).status().unwrap().success());
    assert_eq!(names(), first);
    assert_eq!(stamps(&first), before);
}

#[test]
fn doctor_says_whether_the_sandbox_works_and_what_to_do() {
    let fx = Fixture::new();
    let out = toolhost(&fx).arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "bubblewrap is installed by .ci/run: {text}");
    assert!(text.contains("sandbox: available"), "{text}");
    // The network, in plain words, and how an operator turns it on.
    let policy_json = fx.data.path().join("policy.json");
    let network = text.lines().find(|l| l.starts_with("network: ")).unwrap_or_default();
    assert!(
        network.starts_with("network: off — bash and every program it runs have no network"),
        "{text}"
    );
    assert!(
        network.contains(&format!("put \"network\": \"allow\" in {}", policy_json.display())),
        "{text}"
    );
    // What is readable, and how an operator confines it.
    let reads = text.lines().find(|l| l.starts_with("reads: ")).unwrap_or_default();
    assert!(reads.starts_with("reads: every path but credentials (the default)"), "{text}");
    assert!(reads.contains("--read-root DIR") && reads.contains("--confine-reads"), "{text}");
    let root = tempfile::tempdir().unwrap();
    let root = root.path().canonicalize().unwrap();
    let out = toolhost(&fx).arg("--read-root").arg(&root).arg("doctor").output().unwrap();
    let confined = String::from_utf8_lossy(&out.stdout);
    let reads = confined.lines().find(|l| l.starts_with("reads: ")).unwrap_or_default();
    assert!(
        reads.starts_with("reads: confined to the workspace")
            && reads.contains(&root.display().to_string()),
        "{confined}"
    );
    std::fs::write(&policy_json, r#"{"network": "allow"}"#).unwrap();
    let out = toolhost(&fx).arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("network: ON for every bash call"), "{text}");
    std::fs::remove_file(&policy_json).unwrap();
    // Without bwrap it says so, in plain words, with what to do.
    let out =
        toolhost(&fx).arg("doctor").env("TOOLHOST_BWRAP", "/nonexistent/bwrap").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("UNAVAILABLE") && text.contains("apt-get install bubblewrap"), "{text}");
}

#[test]
fn a_call_is_recorded_so_its_change_can_be_listed_and_undone_later() {
    let fx = Fixture::new();
    let out = toolhost(&fx)
        .args(["call", "write", r#"{"path":"new.txt","content":"hello\n"}"#, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let change_id = r["artifacts"][0]["changeId"].as_str().unwrap().to_string();
    let out = toolhost(&fx).args(["changes", "--json"]).output().unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains(&change_id), "{listed}");
    let out = toolhost(&fx).args(["undo", &change_id]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!fx.root().join("new.txt").exists(), "undoing a creation deletes the file");
}

#[test]
fn a_policy_config_in_the_data_dir_extends_the_tiers() {
    let fx = Fixture::new();
    let extra = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = extra.path().join("out.txt");
    let input = serde_json::json!({"path": target, "content": "x"}).to_string();
    let out = toolhost(&fx).args(["call", "write", &input]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "outside the writable roots by default");
    let secret = fx.write("vault/key.txt", "s3cret");
    let config = serde_json::json!({"extra_writable_roots": [extra.path()], "extra_credential": [fx.root().join("vault")]});
    std::fs::write(fx.data.path().join("policy.json"), config.to_string()).unwrap();
    let out = toolhost(&fx).args(["call", "write", &input]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(target.exists());
    let out = toolhost(&fx)
        .args(["call", "read", &serde_json::json!({"path": secret}).to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("s3cret"));
    std::fs::write(fx.data.path().join("policy.json"), r#"{"extra_writeable_roots": []}"#).unwrap();
    let out = toolhost(&fx).args(["call", "list", "{}"]).output().unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("policy.json"),
        "a typo is reported, not ignored"
    );
}

#[test]
fn spill_dirs_older_than_seven_days_are_removed_at_start() {
    // docs/contract.md#spill-files: at start, session spill directories last modified over 7 days
    // ago go; newer ones (one a minute short of the limit) stay, and so does everything outside
    // spill/.
    let fx = Fixture::new();
    let spill = fx.data.path().join("spill");
    let day = std::time::Duration::from_secs(24 * 3600);
    let now = std::time::SystemTime::now();
    for (name, age) in [
        ("old", 7 * day + day / 24),
        ("almost", 7 * day - std::time::Duration::from_secs(60)),
        ("new", day),
    ] {
        std::fs::create_dir_all(spill.join(name)).unwrap();
        std::fs::write(spill.join(name).join("c.txt"), "kept output\n").unwrap();
        let dir = std::fs::File::open(spill.join(name)).unwrap();
        dir.set_modified(now - age).unwrap();
    }
    std::fs::write(fx.data.path().join("beside.txt"), "x").unwrap();
    let out = toolhost(&fx).args(["call", "list", r#"{"path":"."}"#]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!spill.join("old").exists(), "the expired session dir is removed");
    assert!(
        spill.join("almost/c.txt").exists() && spill.join("new/c.txt").exists(),
        "newer ones stay"
    );
    assert!(fx.data.path().join("beside.txt").exists());
}

#[test]
fn the_hosts_environment_is_a_credential_location() {
    // A multi-line value (a PEM key) in the host's environment was readable line by line
    // past the NUL-separated first line: `read /proc/self/environ` with offset 2.
    let fx = Fixture::new();
    let pem = "-----BEGIN KEY-----\nMIIEsecretkeymaterial\n-----END KEY-----";
    for input in [
        r#"{"path":"/proc/self/environ","offset":2,"limit":1}"#.to_string(),
        r#"{"path":"/proc/self/task/../environ"}"#.to_string(),
        format!(r#"{{"path":"/proc/{}/environ"}}"#, std::process::id()),
    ] {
        let out = toolhost(&fx)
            .env("TOOLHOST_TEST_PEM", pem)
            .args(["call", "read", &input, "--json"])
            .output()
            .unwrap();
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let text = r["content"][0]["text"].as_str().unwrap_or_default().to_string();
        assert!(!text.contains("secretkeymaterial"), "{input}: {text}");
        assert_eq!(r["error"]["code"], "permission_denied", "{input}: {r}");
        assert_eq!(r["sandbox_denied"], true, "{input}");
    }
    let out = toolhost(&fx)
        .env("TOOLHOST_TEST_PEM", pem)
        .args(["call", "grep", r#"{"pattern":"secretkeymaterial","path":"/proc/self/environ"}"#])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("secretkeymaterial"));
    assert_eq!(out.status.code(), Some(1), "refused, not 'no matches'");
}
