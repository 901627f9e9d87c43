//! `toolhost mcp --listen` attacked over raw HTTP: without the bearer token (or with a wrong
//! one) nothing answers but 401 and no tool runs; the token is random, written 0600 into the
//! data dir, kept across restarts and shared by every listener on that data dir, unreadable to the tools and bash of any workspace, and
//! `--token-file`/`TOOLHOST_MCP_TOKEN` fix it; `--no-auth` is refused off loopback; an
//! `Origin` with a non-numeric port is refused; a half-sent header is cut off while a long
//! call is not; and the live MCP sessions are bounded.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::time::Instant;

use serde_json::{Value, json};
use toolhost_tests::http::{HANG_GUARD, Reply, initialize_body, mcp_headers, request, split_url};
use toolhost_tests::mcp::HttpServer;
use toolhost_tests::*;

use toolhost_tests::http::{HANDSHAKE_PROTOCOL as PROTOCOL, open_session};

fn initialize(url: &str, bearer: Option<&str>) -> Reply {
    let mut extra = Vec::new();
    if let Some(b) = bearer {
        extra.push(("authorization", b));
    }
    request(url, "POST", &mcp_headers(&extra), &initialize_body(1))
}

/// `tools/call` in session `session`, with `bearer` as the Authorization header (if any).
fn call(url: &str, bearer: Option<&str>, session: &str, tool: &str, arguments: Value) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    let mut extra = vec![("mcp-session-id", session), ("mcp-protocol-version", PROTOCOL)];
    if let Some(b) = bearer {
        extra.push(("authorization", b));
    }
    request(url, "POST", &mcp_headers(&extra), &body.to_string())
}

fn assert_refused(r: &Reply, what: &str) {
    assert_eq!(r.status, 401, "{what}: {r:?}");
    assert!(r.header("www-authenticate").is_some_and(|v| v.starts_with("Bearer")), "{what}: {r:?}");
    assert_eq!(r.body.trim_end().lines().count(), 1, "{what}: one line: {r:?}");
    assert!(r.body.contains("Authorization: Bearer"), "{what}: {r:?}");
}

#[test]
fn without_the_right_token_every_request_gets_401_and_no_tool_runs() {
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let url = server.url();
    let bearer = server.bearer();
    let wrong = format!("Bearer {}", bearer["Bearer ".len()..].chars().rev().collect::<String>());
    // A valid session, so the refused calls below fail for the token alone.
    let session = open_session(url, &bearer);
    let target = fx.root().join("pwned.txt");
    let write = json!({"path": "pwned.txt", "content": "pwned\n"});

    // The attack first: tools/call write and bash with no token and with a wrong one.
    let attempts = [
        ("tools/call without a token", call(url, None, &session, "write", write.clone())),
        (
            "tools/call with a wrong token",
            call(url, Some(&wrong), &session, "write", write.clone()),
        ),
        (
            "bash without a token",
            call(url, None, &session, "bash", json!({"command": "echo pwned > pwned.txt"})),
        ),
    ];
    assert!(!target.exists(), "a call without the token ran: {:?}", attempts[0].1);
    for (what, reply) in &attempts {
        assert_refused(reply, what);
    }

    let r = initialize(url, None);
    assert_refused(&r, "initialize without a token");
    let token_file = fx.data.path().join("mcp-token");
    assert!(
        r.body.contains(&token_file.display().to_string()),
        "the 401 says where the token is: {r:?}"
    );
    assert_refused(&initialize(url, Some(&wrong)), "initialize with a wrong token");
    assert!(
        initialize(url, Some(&wrong)).header("www-authenticate").unwrap().contains("invalid_token")
    );
    assert_refused(&initialize(url, Some("Basic dXNlcjpwYXNz")), "initialize with Basic auth");
    let sid = [("mcp-session-id", session.as_str())];
    assert_refused(
        &request(url, "GET", &[("accept", "text/event-stream"), sid[0]], ""),
        "GET stream",
    );
    assert_refused(&request(url, "DELETE", &sid, ""), "DELETE session");
    // Nothing else is revealed before the token: not the path, not the Host check.
    let elsewhere = url.replace("/mcp", "/elsewhere");
    assert_refused(
        &request(&elsewhere, "POST", &mcp_headers(&[]), &initialize_body(1)),
        "other path",
    );
    let foreign = mcp_headers(&[("host", "attacker.example")]);
    assert_refused(&request(url, "POST", &foreign, &initialize_body(1)), "foreign Host");
    assert!(!target.exists(), "a refused call ran");

    // The same call with the token runs (so the refusals above were the token's doing).
    let r = call(url, Some(&bearer), &session, "write", write);
    assert_eq!(r.status, 200, "{r:?}");
    let result = r
        .messages()
        .into_iter()
        .find(|m| m["id"] == 2)
        .unwrap_or_else(|| panic!("no result: {r:?}"));
    assert_eq!(result["result"]["isError"], false, "{result}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "pwned\n");
}

#[test]
fn the_token_is_kept_per_data_dir_across_restarts_and_listeners_and_token_file_or_env_fix_it() {
    let fx = Fixture::new();
    let token_file = fx.data.path().join("mcp-token");
    let first = HttpServer::start(&fx, &[]);
    let a = first.token().to_string();
    assert_eq!(a.len(), 64, "{a}");
    assert!(a.bytes().all(|b| b.is_ascii_hexdigit()), "{a}");
    assert_eq!(std::fs::read_to_string(&token_file).unwrap().trim(), a);
    assert_eq!(std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777, 0o600);
    let stderr = first.stderr();
    let lines: Vec<&str> = stderr.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("toolhost: MCP (Streamable HTTP) listening at http://"))
        .unwrap();
    assert!(
        lines[at + 1].starts_with("toolhost: MCP bearer token in ")
            && lines[at + 1].contains("mcp-token"),
        "{stderr}"
    );
    assert!(!stderr.contains(&a), "the token is printed on stderr: {stderr}");
    // A second listener on the same data dir shares the token instead of replacing it, so
    // the first one's clients and its 401 text stay right.
    let second = HttpServer::start(&fx, &[]);
    assert_eq!(second.token(), a, "a second listener replaced the token");
    assert_eq!(std::fs::read_to_string(&token_file).unwrap().trim(), a);
    assert_eq!(initialize(first.url(), Some(&first.bearer())).status, 200);
    assert_eq!(initialize(second.url(), Some(&format!("Bearer {a}"))).status, 200);
    drop(second);
    // A restart keeps it: a client's pasted `Bearer` still works.
    drop(first);
    let restarted = HttpServer::start(&fx, &[]);
    assert_eq!(restarted.token(), a, "a restart changed the token");
    assert_eq!(initialize(restarted.url(), Some(&format!("Bearer {a}"))).status, 200);
    drop(restarted);
    // Deleting the file is how a user gets a new one; a file others can read is not kept.
    std::fs::remove_file(&token_file).unwrap();
    let second = HttpServer::start(&fx, &[]);
    let b = second.token().to_string();
    assert_ne!(a, b, "a new token after the file was deleted");
    assert_eq!(std::fs::read_to_string(&token_file).unwrap().trim(), b);
    assert_refused(&initialize(second.url(), Some(&format!("Bearer {a}"))), "the old token");
    assert_eq!(initialize(second.url(), Some(&second.bearer())).status, 200);
    drop(second);
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let relaxed = HttpServer::start(&fx, &[]);
    assert_ne!(relaxed.token(), b, "a token file others can read was kept");
    assert_eq!(std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777, 0o600);
    let b = relaxed.token().to_string();
    drop(relaxed);

    // --token-file: its trimmed content is the token.
    let dir = tempfile::tempdir().unwrap();
    let fixed = "f1xed-t0ken-0123456789abcdefghijklmnop";
    let file = dir.path().join("token");
    std::fs::write(&file, format!("  {fixed}\n")).unwrap();
    let server = HttpServer::start_with(&fx, &[], &["--token-file", file.to_str().unwrap()], &[]);
    assert_eq!(server.token(), fixed);
    assert!(
        !server.stderr().contains(fixed),
        "the --token-file token is printed: {}",
        server.stderr()
    );
    assert_eq!(initialize(server.url(), Some(&format!("Bearer {fixed}"))).status, 200);
    assert_refused(&initialize(server.url(), Some(&format!("Bearer {b}"))), "the generated token");
    assert_eq!(
        std::fs::read_to_string(&token_file).unwrap().trim(),
        b,
        "a fixed token is not written to the data dir"
    );
    drop(server);

    // TOOLHOST_MCP_TOKEN.
    let from_env = "env-token-0123456789abcdefghijklmnopqrstuv";
    let server = HttpServer::start_with(&fx, &[], &[], &[("TOOLHOST_MCP_TOKEN", from_env)]);
    assert_eq!(server.token(), from_env);
    assert!(
        !server.stderr().contains(from_env),
        "the $TOOLHOST_MCP_TOKEN token is printed: {}",
        server.stderr()
    );
    assert_eq!(initialize(server.url(), Some(&format!("Bearer {from_env}"))).status, 200);
    drop(server);

    // Short or empty fixed tokens are usage errors.
    for short in ["", "\n", "short-token\n"] {
        std::fs::write(&file, short).unwrap();
        let out = toolhost_command(&fx)
            .args(["mcp", "--listen", "127.0.0.1:0", "--token-file"])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{short:?}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("at least 32"), "{out:?}");
    }
    let out = toolhost_command(&fx)
        .args(["mcp", "--listen", "127.0.0.1:0"])
        .env("TOOLHOST_MCP_TOKEN", "abc")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let out = toolhost_command(&fx).args(["mcp", "--token-file"]).arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--token-file needs --listen: {out:?}");
}

#[test]
fn no_auth_is_refused_off_loopback_and_warns_on_it() {
    let fx = Fixture::new();
    for addr in ["0.0.0.0:0", "[::]:0"] {
        let out =
            toolhost_command(&fx).args(["mcp", "--listen", addr, "--no-auth"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{addr}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--no-auth is refused"),
            "{addr}: {out:?}"
        );
    }
    let server = HttpServer::start_with(&fx, &[], &["--no-auth"], &[]);
    assert_eq!(server.token_if_any(), None);
    assert!(server.stderr().contains("warning: --no-auth"), "{}", server.stderr());
    assert_eq!(initialize(server.url(), None).status, 200);
}

#[test]
fn tools_and_bash_of_another_workspace_cannot_read_the_token() {
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let token = server.token().to_string();
    let token_file = fx.data.path().join("mcp-token");
    let other = tempfile::tempdir().unwrap();
    let in_other = |tool: &str, input: Value| {
        let out = std::process::Command::new(toolhost_bin())
            .arg("--workspace")
            .arg(other.path())
            .arg("--data-dir")
            .arg(fx.data.path())
            .args(["call", tool, &input.to_string()])
            .output()
            .unwrap();
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    };
    let path = token_file.display().to_string();
    for (tool, input) in [
        ("read", json!({"path": path})),
        ("grep", json!({"pattern": "[0-9a-f]{64}", "path": fx.data.path().display().to_string()})),
        (
            "bash",
            json!({"command": format!("cat {path}; cat {path}* 2>&1; od -c {path} | head -3")}),
        ),
    ] {
        let out = in_other(tool, input);
        assert!(
            !out.contains(&token) && !out.contains(&token[..16]),
            "{tool} read the token: {out}"
        );
    }
}

#[test]
fn an_origin_whose_port_is_not_a_number_is_refused() {
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let (authority, _) = split_url(server.url());
    let port = authority.rsplit(':').next().unwrap().to_string();
    let bearer = server.bearer();
    let with_origin = |origin: &str| {
        request(
            server.url(),
            "POST",
            &mcp_headers(&[("authorization", &bearer), ("origin", origin)]),
            &initialize_body(1),
        )
    };
    for evil in
        ["http://localhost:80.evil.com", "http://127.0.0.1:1@evil.com", "http://localhost:8x"]
    {
        let r = with_origin(evil);
        assert_eq!(r.status, 403, "{evil}: {r:?}");
    }
    assert_eq!(with_origin(&format!("http://localhost:{port}")).status, 200);
    assert_eq!(with_origin("http://127.0.0.1").status, 200);
}

#[test]
fn a_stalled_half_header_is_closed_while_a_long_call_is_not_cut() {
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let url = server.url().to_string();
    let bearer = server.bearer();
    // A call that outlasts the header timeout (10 s) keeps its SSE response: in flight is not idle.
    let long = std::thread::spawn(move || {
        let session = open_session(&url, &bearer);
        call(
            &url,
            Some(&bearer),
            &session,
            "bash",
            json!({"command": "sleep 12 && echo still-here"}),
        )
    });
    let (authority, _) = split_url(server.url());
    let mut stalled = std::net::TcpStream::connect(&authority).unwrap();
    stalled
        .write_all(
            format!("POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: app").as_bytes(),
        )
        .unwrap();
    stalled.set_read_timeout(Some(HANG_GUARD)).unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 256];
    match stalled.read(&mut buf) {
        Ok(0) => {}
        Ok(n) => {
            panic!("the server answered a half header: {:?}", String::from_utf8_lossy(&buf[..n]))
        }
        Err(e) if matches!(e.kind(), std::io::ErrorKind::ConnectionReset) => {}
        Err(e) => {
            panic!("the half-header connection was still open after {:?}: {e}", started.elapsed())
        }
    }
    eprintln!("half-header connection closed after {:?}", started.elapsed());
    let r = long.join().unwrap();
    assert_eq!(r.status, 200, "{r:?}");
    let result = r
        .messages()
        .into_iter()
        .find(|m| m["id"] == 2)
        .unwrap_or_else(|| panic!("no result: {r:?}"));
    assert!(
        result["result"]["content"][0]["text"].as_str().unwrap_or_default().contains("still-here"),
        "{result}"
    );
}

#[test]
fn the_65th_live_session_is_refused_until_one_ends() {
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let bearer = server.bearer();
    let sessions: Vec<String> = (0..64).map(|_| open_session(server.url(), &bearer)).collect();
    let refused = initialize(server.url(), Some(&bearer));
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(refused.body.contains("64 live MCP sessions"), "{refused:?}");
    // Sessions already open still work.
    let r = call(server.url(), Some(&bearer), &sessions[0], "list", json!({}));
    assert_eq!(r.status, 200, "{r:?}");
    let ended = request(
        server.url(),
        "DELETE",
        &[("authorization", &bearer), ("mcp-session-id", &sessions[1])],
        "",
    );
    // 204, not rmcp's 202, which clients log as a failure to end the session.
    assert_eq!(ended.status, 204, "{ended:?}");
    assert!(ended.body.is_empty(), "{ended:?}");
    assert_eq!(initialize(server.url(), Some(&bearer)).status, 200, "a slot was freed");
}
