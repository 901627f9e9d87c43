//! Attacks on other toolhost instances' data dirs and on the bearer token of `mcp --listen`
//! through the built binary. Every data dir is private, not just the running
//! one's: a session with another `--data-dir` must not read the first one's store or token,
//! nor plant a `policy.json` (or a compiled component) in it when it lies in a writable root
//! — the workspace, the temp dir (`TOOLHOST_HOME=/tmp/…`), or `~/.toolhost` of a workspace that
//! is HOME. And `--token-file`'s file is private to the tools it guards, its token never printed.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolhost_tests::Fixture;
use toolhost_tests::attack::*;
use toolhost_tests::http::{Reply, mcp_headers, request};
use toolhost_tests::mcp::HttpServer;

/// Runs instance A (the attack's data dir) once, so its store holds a marker, and puts a
/// marker token in its `mcp-token`; returns (store marker, token marker).
fn seed_instance_a(a: &Attack) -> (String, String) {
    let m = marker("STORE-A");
    a.put("notes.txt", format!("intro\n{m}\nend\n"));
    let out = a.call("read", json!({ "path": "notes.txt" }));
    assert!(out.text().contains(&m), "instance A reads its own file: {}", out.all());
    std::fs::remove_file(a.ws.join("notes.txt")).unwrap();
    let token = marker("TOKEN-A");
    std::fs::write(a.data.join("mcp-token"), format!("{token}\n")).unwrap();
    (m, token)
}

/// A second data dir at `to` for instance B, with A's warm component cache copied in.
fn data_dir_b(a: &Attack, to: &Path) -> PathBuf {
    std::fs::create_dir_all(to).unwrap();
    let cache = a.data.join("cache/components");
    if cache.is_dir() {
        let _ = std::process::Command::new("cp")
            .arg("-a")
            .arg(&cache)
            .arg(to.join("components-warm"))
            .status();
        std::fs::create_dir_all(to.join("cache")).unwrap();
        let _ = std::fs::rename(to.join("components-warm"), to.join("cache/components"));
    }
    to.to_path_buf()
}

/// Instance B (data dir `b`) tries to read instance A's (`a_data`) store and token with every
/// file tool and bash; neither marker may show.
fn b_cannot_read_a(a: &mut Attack, a_data: &Path, b: &Path, markers: &[&str], sandbox: bool) {
    a.data = b.to_path_buf();
    let token = a_data.join("mcp-token").display().to_string();
    let db = a_data.join("toolhost.db").display().to_string();
    let dir = a_data.display().to_string();
    let mut outs = vec![
        ("read mcp-token", a.call("read", json!({ "path": token }))),
        ("read toolhost.db", a.call("read", json!({ "path": db }))),
        ("grep the data dir", a.call("grep", json!({ "pattern": "MARKER-", "path": dir }))),
        ("grep the data dir's parent", a.call("grep", json!({ "pattern": "MARKER-", "path": a_data.parent().unwrap().display().to_string() }))),
    ];
    if sandbox {
        outs.push(("bash cat", a.bash(&format!("cat '{token}' 2>&1; cat '{db}'* 2>&1 | grep -ao 'MARKER-[A-Z-]*-[0-9a-f]*' | sort -u"))));
        outs.push((
            "bash grep -r",
            a.bash(&format!("grep -rao 'MARKER-[A-Z-]*-[0-9a-f]*' '{dir}' 2>&1 | head -20")),
        ));
    }
    for (what, out) in outs {
        for m in markers {
            out.assert_hidden(m, &format!("instance B: {what} of instance A's data dir {dir}"));
        }
    }
}

#[test]
fn another_sessions_store_and_token_are_unreadable_outside_the_roots() {
    // A's data dir lies outside B's writable roots (beside the workspace), as in the report.
    let mut a = Attack::new();
    let sandbox = a.sandbox_or_skip(
        "another_sessions_store_and_token_are_unreadable_outside_the_roots (bash)",
    );
    let (store, token) = seed_instance_a(&a);
    let a_data = a.data.clone();
    let b = data_dir_b(&a, &a.outside_dir("data-b"));
    b_cannot_read_a(&mut a, &a_data, &b, &[&store, &token], sandbox);
}

#[test]
fn another_sessions_store_and_token_are_unreadable_inside_the_workspace() {
    let mut a = Attack::new();
    let sandbox = a.sandbox_or_skip(
        "another_sessions_store_and_token_are_unreadable_inside_the_workspace (bash)",
    );
    let b = data_dir_b(&a, &a.outside_dir("data-b"));
    let inside = a.ws.join("state/toolhost-a");
    a.move_data_dir(&inside);
    let (store, token) = seed_instance_a(&a);
    b_cannot_read_a(&mut a, &inside, &b, &[&store, &token], sandbox);
}

/// Instance B (data dir `b`) tries to plant a `policy.json` that widens A's sandbox, and a
/// compiled component in A's cache, with the write tool and bash; then A's bash must still
/// not write outside its roots.
fn b_cannot_plant_in_a(a: &mut Attack, a_data: &Path, b: &Path) {
    let outside = a.outside_dir("outside-of-a");
    let policy = a_data.join("policy.json");
    let payload = json!({ "extra_writable_roots": [outside], "network": "allow" }).to_string();
    let a_ws = a.ws.clone();
    a.data = b.to_path_buf();
    let mut s = a.session(&[]);
    let w = s.try_call(
        "w",
        "write",
        json!({ "path": policy.display().to_string(), "content": payload }),
    );
    let c = s.try_call("c", "write", json!({ "path": a_data.join("cache/components/planted.cwasm").display().to_string(), "content": "x" }));
    drop(s);
    let out = a.bash(&format!(
        "echo '{payload}' > '{p}' 2>&1; mkdir -p '{d}/cache/components' 2>&1; echo x > '{d}/cache/components/planted2.cwasm' 2>&1; mv '{d}' '{d}-moved' 2>&1; ls -la '{d}' 2>&1",
        p = policy.display(),
        d = a_data.display()
    ));
    promise(!policy.exists(), || {
        format!("instance B planted {}: write {w:?} bash {}", policy.display(), out.all())
    });
    for planted in ["planted.cwasm", "planted2.cwasm"] {
        let p = a_data.join("cache/components").join(planted);
        promise(!p.exists(), || {
            format!("instance B planted {}: write {c:?} bash {}", p.display(), out.all())
        });
    }
    promise(a_data.is_dir(), || {
        format!("instance B moved instance A's data dir away: {}", out.all())
    });
    // Instance A again: its sandbox is as narrow as before.
    a.data = a_data.to_path_buf();
    a.ws = a_ws;
    let target = outside.join("escaped");
    let out = a.bash(&format!("echo pwned > '{}' 2>&1", target.display()));
    promise(!target.exists(), || {
        format!("instance A's bash wrote outside its roots: {}", out.all())
    });
}

#[test]
fn another_data_dir_in_the_workspace_cannot_be_planted_in() {
    let mut a = Attack::new();
    if !a.sandbox_or_skip("another_data_dir_in_the_workspace_cannot_be_planted_in") {
        return;
    }
    let b = data_dir_b(&a, &a.outside_dir("data-b"));
    let inside = a.ws.join("state/toolhost-a");
    a.move_data_dir(&inside);
    seed_instance_a(&a);
    b_cannot_plant_in_a(&mut a, &inside, &b);
}

#[test]
fn another_data_dir_in_the_temp_dir_cannot_be_planted_in() {
    // `TOOLHOST_HOME=/tmp/…` (CI), with instance B's `policy.json` naming that temp dir: A's
    // data dir lies in a writable root of B's. (The system temp dir itself is no longer one.)
    let mut a = Attack::new();
    if !a.sandbox_or_skip("another_data_dir_in_the_temp_dir_cannot_be_planted_in") {
        return;
    }
    let tmp = tempfile::Builder::new().prefix("toolhost-attack-other-").tempdir_in("/tmp").unwrap();
    let b = data_dir_b(&a, &a.outside_dir("data-b"));
    let temp_dir = json!({ "temp_dir": tmp.path().canonicalize().unwrap() }).to_string();
    std::fs::write(b.join("policy.json"), temp_dir).unwrap();
    let in_tmp = tmp.path().canonicalize().unwrap().join("data-a");
    a.move_data_dir(&in_tmp);
    seed_instance_a(&a);
    b_cannot_plant_in_a(&mut a, &in_tmp, &b);
}

#[test]
fn the_default_data_dir_of_a_home_workspace_cannot_be_read_or_planted_in() {
    // `~/.toolhost` of a user whose workspace is HOME, seen from a session with another
    // data dir.
    let mut a = Attack::new();
    let sandbox = a.sandbox_or_skip("the_default_data_dir_of_a_home_workspace (bash)");
    let b = data_dir_b(&a, &a.outside_dir("data-b"));
    let default = a.home.join(".toolhost");
    a.move_data_dir(&default);
    a.ws = a.home.clone();
    let (store, token) = seed_instance_a(&a);
    b_cannot_read_a(&mut a, &default, &b, &[&store, &token], sandbox);
    if sandbox {
        b_cannot_plant_in_a(&mut a, &default, &b);
    }
}

use toolhost_tests::http::{HANDSHAKE_PROTOCOL as PROTOCOL, open_session};

fn call(url: &str, bearer: &str, session: &str, tool: &str, arguments: Value) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    let extra = [
        ("mcp-session-id", session),
        ("mcp-protocol-version", PROTOCOL),
        ("authorization", bearer),
    ];
    request(url, "POST", &mcp_headers(&extra), &body.to_string())
}

#[test]
fn the_token_file_of_listen_is_unreadable_by_the_servers_own_tools_and_never_printed() {
    // The token file lies in the workspace, where the tools it guards read and bash runs.
    let fx = Fixture::new();
    let token = format!("tok-{}{}{}", rand_hex(), rand_hex(), rand_hex());
    let file = fx.write("secrets/mcp.token", format!("{token}\n"));
    let server = HttpServer::start_with(&fx, &[], &["--token-file", file.to_str().unwrap()], &[]);
    promise(!server.stderr().contains(&token), || {
        format!("the --token-file token is printed on stderr:\n{}", server.stderr())
    });
    assert_eq!(server.token(), token, "the test reads the token from the file");
    let bearer = format!("Bearer {token}");
    let url = server.url().to_string();
    let session = open_session(&url, &bearer);
    let path = file.display().to_string();
    for (tool, args) in [
        ("read", json!({ "path": path })),
        ("read", json!({ "path": "secrets/mcp.token" })),
        ("grep", json!({ "pattern": "tok-", "path": "." })),
        ("grep", json!({ "pattern": "tok-", "path": path })),
        ("glob", json!({ "pattern": "**/*.token" })),
        ("bash", json!({ "command": format!("cat '{path}' 2>&1; grep -r tok- . 2>&1 | head") })),
    ] {
        let r = call(&url, &bearer, &session, tool, args.clone());
        assert_eq!(r.status, 200, "{tool} {args}: {r:?}");
        hidden(&r.body, &token, &format!("the server's own {tool} {args} on its --token-file"));
    }
    // And the server's stderr, after all that, still holds no token.
    promise(!server.stderr().contains(&token), || {
        format!("the token is on stderr:\n{}", server.stderr())
    });
}

#[test]
fn a_generated_token_is_never_printed() {
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let token = server.token().to_string();
    assert_eq!(token.len(), 64, "read from the data dir's mcp-token: {token}");
    promise(!server.stderr().contains(&token), || {
        format!("the generated token is printed on stderr:\n{}", server.stderr())
    });
}
