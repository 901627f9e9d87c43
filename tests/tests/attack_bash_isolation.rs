//! Attacks on bash's isolation beyond files, through the built binary: the
//! network (a TCP listener on loopback, in both modes), unix sockets (abstract, and a
//! tmux-like pathname socket under /tmp), a `bwrap` planted on PATH inside the workspace,
//! a fork bomb and a 4 GiB allocation. Plus two smaller attacks: a command's own
//! `bwrap: ` text on stderr, and a bubblewrap that hangs in the self-check. And the system
//! temp dir: bash cannot change its mode or owner, and each process has a private
//! temp dir that bash, approved runs and the file tools share and that goes with it.
//!
//! Every listener is the test's own: the attack sends a marker, and the listener must never
//! receive it. A listener stops at a final `END` connection the test makes after the call
//! (connections are accepted in order, so anything bash got through arrives first).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::json;
use toolhost_tests::attack::*;

/// What a listener received, and its thread.
struct Catcher {
    got: Arc<Mutex<Vec<u8>>>,
    thread: JoinHandle<()>,
}

impl Catcher {
    /// Starts a thread that reads every accepted connection to its end, until one says END.
    fn start<S: Read + Send + 'static>(
        mut accept: impl FnMut() -> Option<S> + Send + 'static,
    ) -> Catcher {
        let got = Arc::new(Mutex::new(Vec::new()));
        let sink = got.clone();
        let thread = std::thread::spawn(move || {
            while let Some(mut conn) = accept() {
                let mut buf = Vec::new();
                let _ = conn.read_to_end(&mut buf);
                if buf == b"END" {
                    return;
                }
                sink.lock().unwrap().extend_from_slice(&buf);
                sink.lock().unwrap().push(b'\n');
            }
        });
        Catcher { got, thread }
    }

    /// After `end` (the test's END connection) has been made: everything received before it.
    fn finish(self, end: impl FnOnce()) -> String {
        end();
        self.thread.join().unwrap();
        String::from_utf8_lossy(&self.got.lock().unwrap()).into_owned()
    }
}

/// A TCP listener on 127.0.0.1 and its port.
fn tcp_catcher() -> (u16, Catcher) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let c = Catcher::start(move || {
        let (s, _) = l.accept().ok()?;
        s.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
        Some(s)
    });
    (port, c)
}

fn tcp_end(port: u16) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(b"END").unwrap();
}

/// bash must not reach a TCP listener on the host's loopback in `mode`.
fn loopback_unreachable(mode: &str) {
    let a = Attack::new();
    if !a.sandbox_or_skip(&format!("loopback_unreachable {mode}")) {
        return;
    }
    let (port, catcher) = tcp_catcher();
    let m = marker("TCP");
    let command =
        format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo {m} >&3; exec 3>&-; echo done");
    let out = a.call_with(&["--mode", mode], "bash", json!({ "command": command }));
    let got = catcher.finish(|| tcp_end(port));
    promise(!got.contains(&m), || {
        format!(
            "--mode {mode}: bash reached 127.0.0.1:{port}; the listener got {got:?}\n{}",
            out.all()
        )
    });
}

#[test]
fn bash_cannot_reach_a_loopback_tcp_listener() {
    loopback_unreachable("workspace-write");
}

#[test]
fn bash_cannot_reach_a_loopback_tcp_listener_in_read_only_mode() {
    loopback_unreachable("read-only");
}

/// A python3 client that connects to a unix socket (`@name`: abstract) and sends a marker.
const PROBE: &str = r#"import socket, sys
addr = sys.argv[1]
if addr.startswith("@"):
    addr = "\0" + addr[1:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(addr)
s.sendall(sys.argv[2].encode())
s.close()
print("sent")
"#;

/// bash (via python3) must not get `marker` through the unix socket `addr`.
fn unix_socket_unreachable(a: &Attack, addr: &str, listener: UnixListener, end: impl FnOnce()) {
    let c = Catcher::start(move || listener.accept().ok().map(|(s, _)| s));
    a.put("probe.py", PROBE);
    let m = marker("UNIX");
    let py = python3().unwrap();
    let out = a.bash(&format!("{py} probe.py '{addr}' '{m}' 2>&1 | tail -1"));
    let got = c.finish(end);
    promise(!got.contains(&m), || {
        format!("bash reached the unix socket {addr}: {got:?}\n{}", out.all())
    });
}

#[test]
fn bash_cannot_reach_an_abstract_unix_socket() {
    let a = Attack::new();
    if python3().is_none() || !a.sandbox_or_skip("bash_cannot_reach_an_abstract_unix_socket") {
        eprintln!("skipped if python3 is missing");
        return;
    }
    use std::os::linux::net::SocketAddrExt;
    let name = format!("toolhost-attack-{}", rand_hex());
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let listener = UnixListener::bind_addr(&addr).unwrap();
    unix_socket_unreachable(&a, &format!("@{name}"), listener, || {
        let mut s = UnixStream::connect_addr(&addr).unwrap();
        s.write_all(b"END").unwrap();
    });
}

/// Removes a directory when dropped.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn bash_cannot_reach_a_tmux_like_socket_under_tmp() {
    let a = Attack::new();
    if python3().is_none() || !a.sandbox_or_skip("bash_cannot_reach_a_tmux_like_socket_under_tmp") {
        eprintln!("skipped if python3 is missing");
        return;
    }
    let dir = PathBuf::from(format!("/tmp/tmux-0-test-{}", rand_hex()));
    std::fs::create_dir(&dir).unwrap();
    let _cleanup = RemoveOnDrop(dir.clone());
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let path = dir.join("default");
    let listener = UnixListener::bind(&path).unwrap();
    let p = path.clone();
    unix_socket_unreachable(&a, &path.display().to_string(), listener, move || {
        let mut s = UnixStream::connect(&p).unwrap();
        s.write_all(b"END").unwrap();
    });
}

/// Writes an executable shell script.
fn script(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_bwrap_planted_on_path_in_the_workspace_never_runs() {
    let mut a = Attack::new();
    if !a.sandbox_or_skip("a_bwrap_planted_on_path_in_the_workspace_never_runs") {
        return;
    }
    let flag = a.outside_dir("outside").join("planted-bwrap-ran");
    let real =
        ["/usr/bin/bwrap", "/usr/local/bin/bwrap"].into_iter().find(|p| Path::new(p).exists());
    let pass_on = real.map(|r| format!("exec {r} \"$@\"")).unwrap_or_else(|| "exit 1".into());
    // What one sandboxed call can write: a project virtualenv's bin/, first on PATH.
    script(&a.ws.join(".venv/bin/bwrap"), &format!("touch '{}'\n{pass_on}", flag.display()));
    a.path_var =
        format!("{}:{}", a.ws.join(".venv/bin").display(), a.path_var.to_string_lossy()).into();
    let out = a.bash("echo hi");
    let doctor = a.run(&[], &["doctor"]);
    promise(!flag.exists(), || {
        format!("the planted bwrap ran (outside the sandbox):\n{}\n{}", out.all(), doctor.all())
    });
}

#[test]
fn a_fork_bomb_ends_and_the_next_call_works() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_fork_bomb_ends_and_the_next_call_works") {
        return;
    }
    let command = "for i in $(seq 5000); do sleep 30 & done; wait";
    let out = a.call("bash", json!({ "command": command, "timeoutMs": 20000 }));
    // bash ending with an exit code is a succeeded call (docs/contract.md#bash); what must show is
    // that the per-call limit, not the timeout or the machine, ended the bomb: the call's cgroup
    // (its status line), or, in the Landlock tier without one, the process limit refusing forks.
    let by_rlimit = a.confined.is_some()
        && out.text().contains("fork: Resource temporarily unavailable")
        && !out.text().contains("timed out");
    assert!(
        out.text().contains("[limit: the call reached its process limit") || by_rlimit,
        "the fork bomb was not stopped by the call's process limit: {}",
        out.all()
    );
    let next = a.bash("echo ok");
    assert_eq!(next.status(), "succeeded", "the next call works: {}", next.all());
    assert!(next.text().contains("ok"), "{}", next.all());
}

#[test]
fn a_fork_bomb_cannot_run_5000_processes_at_once() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_fork_bomb_cannot_run_5000_processes_at_once") {
        return;
    }
    // dash, not bash: it does not retry a failed fork for half a minute, so the loop ends
    // quickly either way, and the timeout is long enough for an unbounded loop to finish on
    // a loaded machine. The count is of the sandbox's own pid namespace.
    let command = "sh -c 'i=0; while [ $i -lt 5000 ]; do sleep 60 & i=$((i+1)); done 2>/dev/null; \
                   echo live=$(ls -d /proc/[0-9]* | wc -l)'";
    let out = a.call("bash", json!({ "command": command, "timeoutMs": 120000 }));
    let live: Option<u64> = out
        .text()
        .lines()
        .find_map(|l| l.strip_prefix("live="))
        .and_then(|n| n.trim().parse().ok());
    promise(live.is_none_or(|n| n < 5000), || {
        format!("5000 processes ran at once in one call (live={live:?}): {}", out.all())
    });
    let next = a.bash("echo ok");
    assert_eq!(next.status(), "succeeded", "the next call works: {}", next.all());
}

#[test]
fn a_4_gib_allocation_is_refused() {
    let a = Attack::new();
    let Some(py) = python3() else {
        eprintln!("skipped: no python3");
        return;
    };
    if !a.sandbox_or_skip("a_4_gib_allocation_is_refused") {
        return;
    }
    // Zeroing 4 GiB takes a while on a loaded machine: the longest timeout, so only a limit
    // (not the clock) can stop it.
    let command = format!("{py} -c 'b=bytearray(4<<30); print(len(b))' 2>&1 | tail -3");
    let out = a.call("bash", json!({ "command": command, "timeoutMs": 120000 }));
    promise(!out.text().contains("4294967296"), || {
        format!("a 4 GiB allocation succeeded inside one call: {}", out.all())
    });
    let next = a.bash("echo ok");
    assert_eq!(next.status(), "succeeded", "the next call works: {}", next.all());
}

#[test]
fn a_commands_own_bwrap_text_on_stderr_does_not_hide_its_output() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_commands_own_bwrap_text_on_stderr_does_not_hide_its_output") {
        return;
    }
    let out = a.bash("echo OUT; echo 'bwrap: fake' >&2; exit 1");
    let code = out.json()["error"]["code"].as_str().unwrap_or_default().to_string();
    promise(code != "sandbox_unavailable", || {
        format!("a command that ran is reported as not run: {}", out.all())
    });
    promise(out.text().contains("OUT"), || {
        format!("the command's stdout was dropped: {}", out.all())
    });
}

/// A descriptor open in whatever started toolhost (here fd 7, appending to a file outside
/// every root, as a log or a socket of an agent harness would be) must not reach a sandboxed
/// command, neither bash nor a program a component runs: through it the command could write
/// to what it names, past every mount and Landlock rule.
#[test]
fn a_descriptor_toolhost_inherited_does_not_reach_a_sandboxed_command() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_descriptor_toolhost_inherited_does_not_reach_a_sandboxed_command") {
        return;
    }
    let log = a.outside_dir("inherited").join("log.txt");
    std::fs::write(&log, "").unwrap();
    let runner = toolhost_tests::test_components_dir().join("runner.wasm");
    let bash_marker = marker("FD-BASH");
    let run_marker = marker("FD-RUN");
    let calls: [(&[&str], String); 2] = [
        (&[], json!({"command": format!("echo {bash_marker} >&7; echo {bash_marker} > /proc/self/fd/7")}).to_string()),
        (&["--tool", runner.to_str().unwrap()], json!({"program": "sh", "args": ["-c", format!("echo {run_marker} >&7")]}).to_string()),
    ];
    for (global, input) in calls {
        let tool = if global.is_empty() { "bash" } else { "runner" };
        let mut cmd = std::process::Command::new("bash");
        cmd.env_clear().env("PATH", &a.path_var).env("HOME", &a.home);
        cmd.arg("-c").arg(r#"exec 7>>"$0"; exec "$@""#).arg(&log).arg(a.toolhost());
        cmd.arg("--workspace").arg(&a.ws).arg("--data-dir").arg(&a.data).args(global);
        cmd.args(["call", tool, &input, "--json"]);
        let mut cmd = a.confined_command(cmd);
        let out = run_limited(&mut cmd, None, Duration::from_secs(120)).expect("toolhost hung");
        let written = std::fs::read_to_string(&log).unwrap();
        promise(!written.contains(&bash_marker) && !written.contains(&run_marker), || {
            format!(
                "{tool} wrote through a descriptor toolhost inherited: {written:?}\n{}",
                out.all()
            )
        });
        assert!(out.stdout.contains("\"status\""), "{tool} gave no result: {}", out.all());
    }
}

/// A refusal under `/proc` is the kernel's rule (here ptrace's, for another process's
/// descriptors), not the sandbox's: bash's result is not marked `sandbox_denied` and does not
/// advise an escalation that no grant could make work.
#[test]
fn a_kernel_refusal_under_proc_is_not_taken_for_the_sandboxs() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_kernel_refusal_under_proc_is_not_taken_for_the_sandboxs") {
        return;
    }
    let out = a.bash("ls -l /proc/1/fd/ 2>&1; true");
    assert!(
        out.text().contains("Permission denied"),
        "the kernel did not refuse here: {}",
        out.all()
    );
    promise(out.json()["sandbox_denied"] == false, || {
        format!("a ptrace refusal was marked as the sandbox's: {}", out.all())
    });
    promise(!out.text().contains("sandboxPermissions"), || {
        format!("an escalation was advised for /proc: {}", out.all())
    });
}

/// The sandbox helper's own failure line and exit code, printed by the command itself after
/// the sandbox started, are the command's output: neither "sandbox unavailable" nor "failed
/// to start".
#[test]
fn a_commands_own_sandbox_helper_text_does_not_hide_its_output() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_commands_own_sandbox_helper_text_does_not_hide_its_output") {
        return;
    }
    for line in
        ["toolhost-sandbox-exec: fake failure", "toolhost-sandbox-exec: cannot run /bin/bash: fake"]
    {
        let out = a.bash(&format!("echo OUT; echo '{line}' >&2; exit 125"));
        let code = out.json()["error"]["code"].as_str().unwrap_or_default().to_string();
        promise(code.is_empty(), || {
            format!("a command that ran and exited 125 is reported as {code}: {}", out.all())
        });
        promise(out.text().contains("OUT") && out.text().contains("125"), || {
            format!("the command's output or exit code was dropped: {}", out.all())
        });
    }
}

#[test]
fn a_hanging_bwrap_does_not_hang_the_call() {
    let mut a = Attack::new();
    let fake = a.outside_dir("fake-bwrap").join("bwrap");
    script(&fake, "exec sleep 1000");
    a.env.push(("TOOLHOST_BWRAP".into(), fake.clone().into()));
    let mut cmd = a.command(&[]);
    cmd.args(["call", "bash", r#"{"command":"true"}"#, "--json"]);
    // The hang guard kills the process group (the stand-in's sleep too) when it runs out.
    match run_limited(&mut cmd, None, Duration::from_secs(90)) {
        None => promise(false, || {
            "`toolhost call bash` hung on a bwrap that never answers its self-check".into()
        }),
        // Where user namespaces are refused, bubblewrap's failing self-check hands bash to the
        // Landlock tier, which never runs that bwrap.
        Some(out) if a.confined.is_some() => {
            let doctor = a.run(&[], &["doctor"]);
            promise(out.status() != "succeeded" || doctor.stdout.contains("tier: landlock"), || {
                format!("bash ran, not under the Landlock tier: {}\n{}", out.all(), doctor.all())
            })
        }
        Some(out) => promise(out.status() != "succeeded", || {
            format!("a hanging bwrap cannot have run bash: {}", out.all())
        }),
    }
}

/// With the network allowed by the user, bash reaches the same listener: the isolation is
/// the network namespace, not a broken sandbox. Through `policy.json`, and for one call
/// through an approved `sandboxPermissions.network`.
#[test]
fn the_user_can_allow_the_network_in_policy_json_or_for_one_call() {
    let a = Attack::new();
    if !a.sandbox_or_skip("the_user_can_allow_the_network_in_policy_json_or_for_one_call") {
        return;
    }
    let reach = |global: &[&str], input: serde_json::Value, m: &str| {
        let (port, catcher) = tcp_catcher();
        let command =
            format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo {m} >&3; exec 3>&-; echo done");
        let mut input = input;
        input["command"] = json!(command);
        let out = a.call_with(global, "bash", input);
        (catcher.finish(|| tcp_end(port)), out)
    };
    let m = marker("NETCALL");
    let (got, out) = reach(
        &["--allow-escalation"],
        json!({"sandboxPermissions": {"network": true}, "justification": "fetch a dependency"}),
        &m,
    );
    assert!(
        got.contains(&m),
        "an approved network escalation did not reach the listener: {got:?}\n{}",
        out.all()
    );
    let m = marker("NETDENIED");
    let (got, out) = reach(&[], json!({}), &m);
    assert!(!got.contains(&m), "without approval the next call reached it: {}", out.all());
    std::fs::write(a.data.join("policy.json"), r#"{"network": "allow"}"#).unwrap();
    let m = marker("NETPOLICY");
    let (got, out) = reach(&[], json!({}), &m);
    assert!(
        got.contains(&m),
        "policy.json allows the network, yet the listener got {got:?}\n{}",
        out.all()
    );
}

/// bash holds no capability and can never gain one: every set, the bounding set included, is
/// empty, and no_new_privs is set.
#[test]
fn bash_has_no_capability_not_even_in_its_bounding_set() {
    let a = Attack::new();
    if !a.sandbox_or_skip("bash_has_no_capability_not_even_in_its_bounding_set") {
        return;
    }
    let out = a.bash("grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status");
    for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        let line =
            out.text().lines().find(|l| l.starts_with(set)).map(str::to_string).unwrap_or_default();
        promise(line.ends_with("0000000000000000"), || {
            format!("{set} is not empty inside bash: {line:?}\n{}", out.all())
        });
    }
    promise(out.text().contains("NoNewPrivs:\t1"), || {
        format!("no_new_privs is not set: {}", out.all())
    });
}

/// `toolhost doctor` reports each isolation as on or off with the reason.
#[test]
fn doctor_reports_every_isolation() {
    let a = Attack::new();
    let out = a.run(&[], &["doctor"]);
    let text = out.all();
    for line in ["network: off", "sockets: ", "landlock: ", "limits: "] {
        assert!(text.contains(line), "doctor does not report {line:?}: {text}");
    }
}

/// The system temp dir's mode and owner as a test found them; [`TmpAsFound::intact`] puts
/// them back at once when an attack changed them (a build without the private temp dir lets
/// bash, as root, change them), and so does the drop.
struct TmpAsFound {
    mode: u32,
    uid: u32,
    gid: u32,
}

impl TmpAsFound {
    fn record() -> Self {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata("/tmp").unwrap();
        TmpAsFound { mode: m.mode() & 0o7777, uid: m.uid(), gid: m.gid() }
    }

    /// Whether /tmp is as found; if not, it is restored before this returns.
    fn intact(&self) -> bool {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata("/tmp").unwrap();
        let same = m.mode() & 0o7777 == self.mode && m.uid() == self.uid && m.gid() == self.gid;
        if !same {
            let _ = std::os::unix::fs::chown("/tmp", Some(self.uid), Some(self.gid));
            let _ = std::fs::set_permissions("/tmp", std::fs::Permissions::from_mode(self.mode));
        }
        same
    }
}

impl Drop for TmpAsFound {
    fn drop(&mut self) {
        self.intact();
    }
}

/// bash cannot change the mode or owner of the system temp dir, which every user and program
/// of the machine shares (as its owner, root in a container, it could with every capability
/// dropped: an owner's chmod needs none, and Landlock does not govern modes). Each attack's
/// change, if it got through, is undone at once.
#[test]
fn bash_cannot_change_the_mode_or_owner_of_the_system_temp_dir() {
    let a = Attack::new();
    if !a.sandbox_or_skip("bash_cannot_change_the_mode_or_owner_of_the_system_temp_dir") {
        return;
    }
    let found = TmpAsFound::record();
    for attack in [
        "chmod 755 /tmp",
        "chmod 777 /tmp",
        "chmod -t /tmp",
        "chmod 1700 /tmp",
        "chown 65534:65534 /tmp",
        "chgrp \"$(id -g)\" /tmp; chown \"$(id -u)\" /tmp",
        "cd /tmp && chmod 755 .",
    ] {
        let out = a.bash(&format!("{attack}; stat -c 'mode %a owner %u:%g' /tmp"));
        promise(found.intact(), || {
            format!("`{attack}` in bash changed /tmp (restored):\n{}", out.all())
        });
    }
}

/// The first line bash printed (before its status line).
fn first_line(out: &str) -> String {
    out.lines().next().unwrap_or_default().to_string()
}

/// `dir` is a private temp dir: a directory of this user's, mode 0700, in the system temp dir,
/// inside a directory of the same kind.
fn is_private_temp_dir(a: &Attack, dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    // toolhost's user: this test's, or the one a confined run switches to.
    // SAFETY: geteuid has no preconditions.
    let me = a.confined.map_or_else(|| unsafe { libc::geteuid() }, |c| c.id());
    let private = |d: &Path| {
        d.symlink_metadata()
            .is_ok_and(|m| m.is_dir() && m.mode() & 0o7777 == 0o700 && m.uid() == me)
    };
    // The system temp dir of a toolhost run by `Attack` (its environment has no TMPDIR).
    let system = Path::new("/tmp").canonicalize().unwrap();
    dir.is_absolute()
        && dir.starts_with(&system)
        && dir != system
        && private(dir)
        && dir.parent().is_some_and(|p| p != system && private(p))
}

/// A private temp dir and its parent are gone (within a few seconds of the process's end).
fn gone(dir: &Path) -> bool {
    let outer = dir.parent().unwrap_or(dir).to_path_buf();
    for _ in 0..100 {
        if dir.symlink_metadata().is_err() && outer.symlink_metadata().is_err() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// The session has a temp dir of its own (`TMPDIR` for bash and an approved run, a writable
/// root for the file tools at the same real path), private to the user, and it goes with the
/// session: at the end of input, on SIGTERM, and after `call` and `mcp`.
#[test]
fn the_session_has_a_private_temp_dir_that_write_and_bash_share_and_that_goes_with_it() {
    let a = Attack::new();
    if !a.sandbox_or_skip(
        "the_session_has_a_private_temp_dir_that_write_and_bash_share_and_that_goes_with_it",
    ) {
        return;
    }
    let tools = ["--tools", "bash,read,write,workspace_shell", "--allow-escalation"];
    let mut s = a.session(&tools);
    let r = s.call("1", "bash", json!({"command": "echo \"$TMPDIR\""}));
    let tmp = PathBuf::from(first_line(&result_text(&r)));
    if !is_private_temp_dir(&a, &tmp) {
        leak(&format!("bash's TMPDIR is not a private temp dir (0700, the user's): {r}"));
        return;
    }
    // A file the write tool puts there is the file bash reads, and the other way round.
    let note = marker("TMPDIR-NOTE");
    let w = s.call("2", "write", json!({"path": tmp.join("note.txt"), "content": note}));
    promise(w["status"] == "succeeded", || format!("write in TMPDIR failed: {w}"));
    let r = s.call("3", "bash", json!({"command": "cat \"$TMPDIR/note.txt\""}));
    promise(result_text(&r).contains(&note), || format!("bash did not read the note: {r}"));
    let r = s.call("4", "bash", json!({"command": "echo from-bash > \"$TMPDIR/b.txt\""}));
    promise(r["status"] == "succeeded", || format!("bash could not write TMPDIR: {r}"));
    let r = s.call("5", "read", json!({"path": tmp.join("b.txt")}));
    promise(result_text(&r).contains("from-bash"), || format!("read did not see bash's file: {r}"));
    // An approved run gets the same TMPDIR.
    let r = s.call("6", "workspace_shell", json!({"command": "printenv", "args": ["TMPDIR"]}));
    promise(r["structuredContent"]["stdout"] == json!(format!("{}\n", tmp.display())), || {
        format!("an approved run's TMPDIR is not bash's {}: {r}", tmp.display())
    });
    // The end of input ends the session, and its temp dir goes with it.
    drop(s.proc.take_stdin());
    let ending = s.proc.ending(Duration::from_secs(60));
    promise(gone(&tmp), || format!("{} is left after the session ended: {ending}", tmp.display()));

    // SIGTERM while bash runs: the session ends and its temp dir goes.
    let mut s = a.session(&[]);
    s.send(&json!({"id": "1", "tool": "bash", "arguments": {"command": "echo \"$TMPDIR\"; touch \"$TMPDIR/running\"; sleep 60"}}));
    let mut tmp = None;
    for _ in 0..600 {
        let Some(line) = s.proc.next_line(Duration::from_millis(100)) else { continue };
        let ev: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        if let Some(chunk) = ev["progress"]["stdout"].as_str() {
            tmp = Some(PathBuf::from(first_line(chunk)));
            break;
        }
    }
    let tmp = tmp.expect("bash printed its TMPDIR as progress");
    for _ in 0..200 {
        if tmp.join("running").exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(s.proc.pid() as i32, libc::SIGTERM) };
    let ending = s.proc.ending(Duration::from_secs(30));
    promise(gone(&tmp), || format!("{} is left after SIGTERM: {ending}", tmp.display()));

    // `call` and `mcp`.
    let out = a.bash("echo \"$TMPDIR\"");
    let tmp = PathBuf::from(first_line(&out.text()));
    promise(!tmp.as_os_str().is_empty() && gone(&tmp), || {
        format!("{} is left after `call`: {}", tmp.display(), out.all())
    });
    let mut m = a.mcp(&[]);
    let r = m.call_tool("bash", json!({"command": "echo \"$TMPDIR\""}));
    let text = r["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string();
    let tmp = PathBuf::from(first_line(&text));
    promise(is_private_temp_dir(&a, &tmp), || format!("mcp's bash has no private TMPDIR: {r}"));
    drop(m.proc.take_stdin());
    let ending = m.proc.ending(Duration::from_secs(60));
    promise(gone(&tmp), || format!("{} is left after mcp ended: {ending}", tmp.display()));
}

/// A process killed outright cannot remove its temp dir: the next start of toolhost does.
#[test]
fn a_temp_dir_left_by_a_killed_process_is_removed_at_the_next_start() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_temp_dir_left_by_a_killed_process_is_removed_at_the_next_start") {
        return;
    }
    let mut s = a.session(&[]);
    let r = s.call("1", "bash", json!({"command": "echo \"$TMPDIR\"; mkdir -p \"$TMPDIR/d\"; echo x > \"$TMPDIR/d/f\"; chmod 0 \"$TMPDIR/d\""}));
    let tmp = PathBuf::from(first_line(&result_text(&r)));
    if !is_private_temp_dir(&a, &tmp) {
        leak(&format!("bash's TMPDIR is not a private temp dir (0700, the user's): {r}"));
        return;
    }
    drop(s); // SIGKILL
    assert!(tmp.exists(), "a killed process removed {}", tmp.display());
    let out = a.run(&[], &["tools"]);
    promise(gone(&tmp), || {
        format!("{} is left after the next start: {}", tmp.display(), out.all())
    });
}

/// How bash ended is what the sandbox helper saw, on a descriptor bash never has: killed by a
/// signal says so (`[killed by signal 9; …]`, docs/contract.md#bash), exit code 137 by itself
/// stays `[exit 137; …]`, and a command that tries to write the helper's record — on
/// descriptor 3, or through `/proc` into the waiting helper's — cannot turn its exit into a
/// signal.
#[test]
fn bash_killed_by_a_signal_says_so_and_cannot_fake_it() {
    let a = Attack::new();
    if !a.sandbox_or_skip("bash_killed_by_a_signal_says_so_and_cannot_fake_it") {
        return;
    }
    let text = |command: &str| {
        let r = a.call("bash", json!({ "command": command })).json();
        assert_eq!(r["status"], "succeeded", "{command}: {r}");
        r["content"][0]["text"].as_str().unwrap().to_owned()
    };
    let t = text("kill -KILL $$");
    assert!(t.starts_with("[killed by signal 9; duration "), "{t}");
    let t = text("kill -ABRT $$");
    assert!(t.starts_with("[killed by signal 6; duration "), "{t}");
    let t = text("exit 137");
    assert!(t.starts_with("[exit 137; duration "), "{t}");
    for forged in [
        r"printf '1S\011' >&3; exit 137",
        r"for p in $PPID 1 2 3; do printf 'S\011' > /proc/$p/fd/3; done; exit 137",
    ] {
        let t = text(forged);
        assert!(
            t.contains("[exit 137; duration ") && !t.contains("[killed by signal"),
            "{forged}: {t}"
        );
    }
}
