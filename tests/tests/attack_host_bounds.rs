//! What the host holds for a call, a session and a listener is bounded, through the built
//! binary: a hostile component's unfinished spills, spill files and progress messages (the
//! test component `hoarder`, `tools/testing/hoarder`), a session whose client reads more
//! slowly than bash prints, and `mcp --listen` flooded with connections that never send a
//! byte. Each bound is the test's own: a watchdog samples the host's resident memory
//! (`VmRSS`) and kills it past the bound; the spill dir is measured after the call.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, promise, result_text};
use toolhost_tests::http::{initialize_body, mcp_headers, split_url};
use toolhost_tests::mcp::HttpServer;
use toolhost_tests::watchdog::{Watchdog, rss_bytes};
use toolhost_tests::{Fixture, test_components_dir};

/// The host's resident memory may not pass this (bytes) in any attack here: a toolhost serving
/// one call stays far below it (the component's own memory is bounded separately).
const RSS_BOUND: u64 = 600 << 20;

/// Files and bytes under `dir`, recursively.
fn tree_size(dir: &Path) -> (usize, u64) {
    let mut files = 0;
    let mut bytes = 0;
    let Ok(entries) = std::fs::read_dir(dir) else { return (0, 0) };
    for e in entries.flatten() {
        let Ok(meta) = e.metadata() else { continue };
        if meta.is_dir() {
            let (f, b) = tree_size(&e.path());
            files += f;
            bytes += b;
        } else {
            files += 1;
            bytes += meta.len();
        }
    }
    (files, bytes)
}

fn install(a: &Attack, id: &str) {
    let file: PathBuf = test_components_dir().join(format!("{id}.wasm"));
    let out = a.run(&[], &["tool", "add", file.to_str().unwrap(), "--yes"]);
    assert_eq!(out.code, Some(0), "tool add {id}: {}", out.all());
}

/// One read-only call opens 6,000 spills of 255 KiB and finishes none (each stays below the
/// size at which the host writes it out, so every byte would sit in the host's memory): the
/// host's memory stays bounded, the call fails with an error naming the limit, and the
/// session serves the next call.
#[test]
fn unfinished_spills_of_a_component_do_not_take_the_hosts_memory() {
    let a = Attack::new();
    install(&a, "hoarder");
    let mut s = a.session(&[]);
    let dog = Watchdog::start(s.proc.pid(), RSS_BOUND);
    let r = s.try_call(
        "open",
        "hoarder",
        json!({"action": "open", "count": 6000, "bytes": 255 * 1024}),
    );
    dog.finish("6,000 unfinished spills of 255 KiB");
    let r =
        r.unwrap_or_else(|| panic!("the session ended: {}", s.proc.ending(Duration::from_secs(5))));
    let result = &r["result"];
    assert_eq!(result["status"], "failed", "6,000 unfinished spills were allowed: {r}");
    let message = result["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("spill") && message.contains("at most"),
        "the error does not name the limit: {message}"
    );
    let (files, _) = tree_size(&a.data.join("spill"));
    assert_eq!(files, 0, "unfinished spills left files behind");
    let next = s.call("after", "hoarder", json!({"action": "open", "count": 2, "bytes": 10}));
    assert_eq!(result_text(&next), "opened 2", "{next}");
}

/// One read-only call writes 100 finished spill files of 8 MiB (800 MiB, each file under the
/// per-file cap): the spill dir keeps at most 512 MiB and 64 files of it, the call fails
/// with an error naming the limit, and the host's memory stays bounded.
#[test]
fn finished_spill_files_of_one_call_are_bounded_on_disk() {
    let a = Attack::new();
    install(&a, "hoarder");
    let mut s = a.session(&[]);
    let dog = Watchdog::start(s.proc.pid(), RSS_BOUND);
    let spill_dir = a.data.join("spill");
    // Watch the disk while the call runs: an unbounded host fills it before it answers.
    let done = Arc::new(AtomicBool::new(false));
    let most = Arc::new(AtomicU64::new(0));
    let watcher = {
        let (done, most, dir) = (done.clone(), most.clone(), spill_dir.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                most.fetch_max(tree_size(&dir).1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let r =
        s.try_call("files", "hoarder", json!({"action": "files", "count": 100, "bytes": 8 << 20}));
    done.store(true, Ordering::SeqCst);
    watcher.join().unwrap();
    dog.finish("100 spill files of 8 MiB");
    let r =
        r.unwrap_or_else(|| panic!("the session ended: {}", s.proc.ending(Duration::from_secs(5))));
    let (files, bytes) = tree_size(&spill_dir);
    let most = most.load(Ordering::SeqCst).max(bytes);
    eprintln!(
        "spill dir after the call: {files} files, {} MiB (at most {} MiB while it ran)",
        bytes >> 20,
        most >> 20
    );
    promise(files <= 64 && most <= 512 << 20, || {
        format!(
            "one call kept {files} spill files, {} MiB (at most {} MiB while it ran): {r}",
            bytes >> 20,
            most >> 20
        )
    });
    let result = &r["result"];
    assert_eq!(result["status"], "failed", "{r}");
    let message = result["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("spill") && message.contains("at most"),
        "the error does not name the limit: {message}"
    );
}

/// A component's progress messages are bounded in size: 64 messages of 8 MiB each (all the
/// progress channel holds) reach the session client cut, not whole, and the host's memory
/// stays bounded while the client reads nothing.
#[test]
fn progress_messages_of_a_component_are_bounded() {
    let a = Attack::new();
    install(&a, "hoarder");
    let (mut child, mut stdin, dog) = unread_session(&a);
    let request = json!({"id": "p", "tool": "hoarder", "arguments": {"action": "progress", "count": 200, "bytes": 8 << 20}});
    writeln!(stdin, "{request}").unwrap();
    // Read nothing for a while: the events pile up in the host.
    std::thread::sleep(Duration::from_secs(15));
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (result, longest, _) = read_until_result(&mut out, "p");
    dog.finish("200 progress messages of 8 MiB");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let result = result.expect("the call's result");
    assert_eq!(result_text(&result["result"]), "reported 200", "{result}");
    promise(longest < 1 << 20, || {
        format!("a progress event of {longest} bytes reached the client")
    });
}

/// `toolhost session` under a [`Watchdog`] of [`RSS_BOUND`], whose output the test reads
/// only when it chooses to (a slow client): the child (stdout still in it), its stdin, the dog.
fn unread_session(a: &Attack) -> (std::process::Child, std::process::ChildStdin, Watchdog) {
    let mut cmd = a.command(&[]);
    cmd.arg("session")
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().expect("spawn toolhost session");
    let dog = Watchdog::start(child.id(), RSS_BOUND);
    let stdin = child.stdin.take().unwrap();
    (child, stdin, dog)
}

/// Reads events until the result of `id`: (its event, the longest progress line, how many
/// progress events came), sleeping a little between lines like a slow client.
fn read_until_result(out: &mut impl BufRead, id: &str) -> (Option<Value>, usize, usize) {
    let mut longest = 0;
    let mut progress = 0;
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut line = String::new();
    while Instant::now() < deadline {
        line.clear();
        match out.read_line(&mut line) {
            Ok(0) | Err(_) => return (None, longest, progress),
            // The output ended inside a line: the host was killed (the watchdog says why).
            Ok(_) if !line.ends_with('\n') => return (None, longest, progress),
            Ok(_) => {}
        }
        let ev: Value = match serde_json::from_str(line.trim_end()) {
            Ok(v) => v,
            Err(e) => panic!("event is not JSON ({e}): {}", &line[..line.len().min(200)]),
        };
        if ev.get("progress").is_some() {
            longest = longest.max(line.len());
            progress += 1;
            if progress % 64 == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            continue;
        }
        if ev["id"] == id {
            return (Some(ev), longest, progress);
        }
    }
    (None, longest, progress)
}

/// bash prints 1 GB while the session's client reads nothing until bash is done, then reads:
/// the host's memory stays bounded (progress events it could not deliver are dropped and
/// counted) and the final result still arrives, whole.
#[test]
fn a_slow_session_client_loses_progress_never_the_result_and_memory_stays_bounded() {
    let a = Attack::new();
    if !a.sandbox_or_skip(
        "a_slow_session_client_loses_progress_never_the_result_and_memory_stays_bounded",
    ) {
        return;
    }
    let (mut child, mut stdin, dog) = unread_session(&a);
    let pid = child.id();
    let done = a.ws.join("flood.done");
    let command =
        "head -c 1000000000 /dev/zero | tr '\\0' x; echo; echo flood-end; touch flood.done";
    let request = json!({"id": "flood", "tool": "bash", "arguments": {"command": command, "timeoutMs": 120000}});
    writeln!(stdin, "{request}").unwrap();
    // Read nothing until bash has printed everything (or the watchdog killed the host).
    let started = Instant::now();
    while !done.exists() && rss_bytes(pid).is_some() && started.elapsed() < Duration::from_secs(150)
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("bash printed 1 GB in {:?} while the client read nothing", started.elapsed());
    std::thread::sleep(Duration::from_secs(2));
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (result, _, progress) = read_until_result(&mut out, "flood");
    dog.finish("bash printing 1 GB to a client that reads nothing");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let result = result.unwrap_or_else(|| panic!("no result after {progress} progress events"));
    let r = &result["result"];
    assert_eq!(r["status"], "succeeded", "{result}");
    assert!(result_text(r).contains("flood-end"), "the result lost its tail: {result}");
    assert!(
        result["droppedProgress"].as_u64().is_some_and(|n| n > 0),
        "the dropped progress events are not counted: {}",
        {
            let mut r = result.clone();
            r["result"] = Value::Null;
            r
        }
    );
    eprintln!("{progress} progress events delivered, {} dropped", result["droppedProgress"]);
}

/// Starts `toolhost mcp --listen` with its descriptor limit (soft and hard) at `nofile`.
fn listen_with_fd_limit(fx: &Fixture, nofile: u64) -> HttpServer {
    HttpServer::start_command(fx, &[], &[], &[], move |cmd: &mut Command| {
        // SAFETY: setrlimit is async-signal-safe; it runs in the child before exec.
        unsafe {
            cmd.pre_exec(move || {
                let lim = libc::rlimit { rlim_cur: nofile, rlim_max: nofile };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    })
}

/// A keep-alive HTTP/1.1 connection sending `initialize` with `bearer`; the status, read
/// within `limit` (None: no answer in time).
fn initialize_within(url: &str, bearer: &str, limit: Duration) -> Option<u16> {
    let (authority, path) = split_url(url);
    let mut stream = TcpStream::connect(&authority).ok()?;
    stream.set_read_timeout(Some(limit)).unwrap();
    let body = initialize_body(1);
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nhost: {authority}\r\nconnection: close\r\ncontent-length: {}\r\nauthorization: {bearer}\r\n",
        body.len()
    );
    for (n, v) in mcp_headers(&[]) {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body.as_bytes()).ok()?;
    let mut first = [0u8; 12];
    stream.read_exact(&mut first).ok()?;
    String::from_utf8_lossy(&first[9..12]).parse().ok()
}

/// 400 connections that never send a byte (no token needed), more than the server's
/// descriptor limit of 128: an authenticated client is still answered at once, again and
/// again while the idle connections are held.
#[test]
fn idle_connections_do_not_lock_an_authenticated_client_out() {
    let fx = Fixture::new();
    let server = listen_with_fd_limit(&fx, 128);
    let url = server.url().to_string();
    let bearer = server.bearer();
    assert_eq!(
        initialize_within(&url, &bearer, Duration::from_secs(30)),
        Some(200),
        "before the flood"
    );
    let (authority, _) = split_url(&url);
    let mut idle = Vec::new();
    for _ in 0..400 {
        match TcpStream::connect(&authority) {
            Ok(s) => idle.push(s),
            Err(e) => panic!("the test could not open an idle connection: {e}"),
        }
    }
    // Let the server accept what it will.
    std::thread::sleep(Duration::from_secs(1));
    for round in 0..3 {
        let started = Instant::now();
        let status = initialize_within(&url, &bearer, Duration::from_secs(20));
        eprintln!(
            "round {round}: {status:?} after {:?} with 400 idle connections open",
            started.elapsed()
        );
        promise(status == Some(200), || {
            format!(
                "400 idle connections locked an authenticated client out (round {round}: {status:?}); stderr:\n{}",
                server.stderr()
            )
        });
        // The flood goes on: reopen what the server closed.
        for s in idle.iter_mut() {
            let mut probe = [0u8; 1];
            s.set_nonblocking(true).unwrap();
            if matches!(s.read(&mut probe), Ok(0))
                && let Ok(fresh) = TcpStream::connect(&authority)
            {
                *s = fresh;
            }
        }
    }
    drop(idle);
}

/// A connection that never sends an authenticated request is closed well before the idle
/// timeout: one that sends nothing, and one that keeps sending requests with a wrong token.
#[test]
fn a_connection_that_never_authenticates_is_closed_early() {
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let (authority, path) = split_url(server.url());
    let silent = TcpStream::connect(&authority).unwrap();
    let wrong = TcpStream::connect(&authority).unwrap();
    let started = Instant::now();
    let closed_at = |mut s: TcpStream, wrong_token: bool| {
        let (authority, path) = (authority.clone(), path.clone());
        std::thread::spawn(move || {
            s.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
            let mut buf = [0u8; 4096];
            let mut last_send = Instant::now() - Duration::from_secs(10);
            while started.elapsed() < Duration::from_secs(90) {
                if wrong_token && last_send.elapsed() > Duration::from_secs(2) {
                    let head = format!(
                        "GET {path} HTTP/1.1\r\nhost: {authority}\r\nauthorization: Bearer wrong\r\n\r\n"
                    );
                    if s.write_all(head.as_bytes()).is_err() {
                        return started.elapsed();
                    }
                    last_send = Instant::now();
                }
                match s.read(&mut buf) {
                    Ok(0) => return started.elapsed(),
                    Ok(_) => {}
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) => {}
                    Err(_) => return started.elapsed(),
                }
            }
            started.elapsed()
        })
    };
    let silent = closed_at(silent, false);
    let wrong = closed_at(wrong, true);
    let (silent, wrong) = (silent.join().unwrap(), wrong.join().unwrap());
    eprintln!("closed after {silent:?} (silent) and {wrong:?} (wrong token)");
    promise(silent < Duration::from_secs(30), || {
        format!("a connection that sent nothing stayed open {silent:?}")
    });
    promise(wrong < Duration::from_secs(30), || {
        format!("a connection sending only wrong tokens stayed open {wrong:?}")
    });
}

/// While a call runs, a session client sends 100 more requests of 15 MiB each (1.5 GB, each
/// under the request size limit): the host does not queue them all, its memory stays
/// bounded, the ones past the bound are answered at once with an error naming it, and the
/// running call can still be cancelled.
#[test]
fn a_session_does_not_queue_requests_without_bound() {
    let a = Attack::new();
    install(&a, "misbehave");
    let mut s = a.session(&[]);
    let dog = Watchdog::start(s.proc.pid(), RSS_BOUND);
    s.send(&json!({"id": "loop", "tool": "misbehave", "arguments": {"action": "loop"}, "timeoutMs": 120000}));
    std::thread::sleep(Duration::from_millis(300));
    let pad = "a".repeat(15 << 20);
    let mut sent = 0;
    for i in 0..100 {
        let request = json!({"id": format!("q{i}"), "tool": "misbehave", "arguments": {"action": "echo", "pad": pad}});
        if s.proc.send_raw(format!("{request}\n").as_bytes()).is_err() {
            break;
        }
        sent += 1;
    }
    drop(pad);
    std::thread::sleep(Duration::from_millis(500));
    dog.finish("100 requests of 15 MiB queued behind a running call");
    s.send(&json!({"id": "c", "cancel": "loop"}));
    let mut refused = 0;
    let mut looped = None;
    for _ in 0..sent + 2 {
        let ev = s.next_final();
        if ev["id"] == "loop" {
            looped = Some(ev.clone());
        }
        if ev["error"].as_str().is_some_and(|e| e.contains("SESSION_MAX_QUEUED")) {
            refused += 1;
        }
    }
    eprintln!("{sent} requests sent, {refused} refused as past the bound");
    let looped = looped.expect("the running call's result");
    assert_eq!(looped["result"]["error"]["code"], "cancelled", "{looped}");
    assert!(refused >= 90, "only {refused} of {sent} requests of 15 MiB were refused");
}
