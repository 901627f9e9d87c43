//! The Landlock tier (docs/security.md#the-landlock-tier) through the built binary, run where
//! user namespaces are really refused ([`toolhost_tests::confined`]): bubblewrap cannot start
//! there, so toolhost falls back to Landlock, seccomp and process limits. Each test attacks it
//! as an unprivileged user; as root without capabilities the tier refuses to run anything.

use serde_json::json;
use toolhost_tests::attack::{Attack, marker};
use toolhost_tests::confined::{self, Confinement};

/// An attack whose every run is confined as `mode`; None (with a note) where confinement
/// cannot run here (not root), a failure when `TOOLHOST_REQUIRE_SANDBOX=1`.
fn confined_attack(test: &str, mode: Confinement) -> Option<Attack> {
    if let Some(why) = confined::unavailable() {
        if std::env::var_os("TOOLHOST_REQUIRE_SANDBOX").is_some_and(|v| v == "1") {
            panic!("{test}: cannot confine here ({why}) and TOOLHOST_REQUIRE_SANDBOX=1");
        }
        eprintln!("SKIPPED {test}: {why}");
        return None;
    }
    let mut a = Attack::new();
    a.confined = Some(mode);
    Some(a)
}

#[test]
fn doctor_names_the_landlock_tier_and_what_it_does_not_isolate() {
    let Some(a) = confined_attack("doctor", Confinement::User) else { return };
    let out = a.run(&[], &["doctor"]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(out.stdout.contains("tier: landlock"), "{}", out.stdout);
    assert!(out.stdout.contains("not isolated by this tier"), "{}", out.stdout);
    assert!(out.stdout.contains("seccomp: refused"), "{}", out.stdout);
}

#[test]
fn bash_runs_and_writes_only_in_the_workspace() {
    let Some(a) = confined_attack("writes", Confinement::User) else { return };
    let outside = a.outside_dir("outside");
    let r = a.bash(&format!(
        "echo made > made.txt && cat made.txt; echo x > {}/escape.txt; echo x > {}/.bashrc; echo rc=$?",
        outside.display(),
        a.home.display()
    ));
    assert_eq!(r.status(), "succeeded", "{}", r.all());
    assert!(r.text().contains("made"), "{}", r.text());
    assert_eq!(std::fs::read_to_string(a.ws.join("made.txt")).unwrap(), "made\n");
    assert!(!outside.join("escape.txt").exists(), "a write landed outside the workspace");
    assert_eq!(std::fs::read_to_string(a.home.join(".bashrc")).unwrap(), a.bashrc);
}

#[test]
fn credentials_and_the_data_dir_stay_unreadable() {
    let Some(a) = confined_attack("reads", Confinement::User) else { return };
    for s in &a.secrets {
        let r = a.bash(&format!(
            "cat {} 2>&1; ls -la {} 2>&1",
            s.path.display(),
            s.path.parent().unwrap().display()
        ));
        r.assert_hidden(&s.marker, &format!("cat {}", s.rel));
    }
    for (dir, m) in &a.name_markers {
        let r = a.bash(&format!(
            "ls -la {} 2>&1; find {} 2>&1 | head",
            a.home.join(dir).display(),
            a.home.display()
        ));
        r.assert_hidden(m, &format!("list {dir}"));
    }
    // Readable entries of HOME stay readable.
    for s in &a.readable {
        let r = a.bash(&format!("cat {}", s.path.display()));
        assert!(r.text().contains(&s.marker), "{} is not readable: {}", s.rel, r.all());
    }
    let m = marker("STORE");
    std::fs::write(a.data.join("policy.json"), json!({ "extra_sensitive": [m] }).to_string())
        .unwrap();
    let r = a.bash(&format!("cat {}/policy.json 2>&1", a.data.display()));
    r.assert_hidden(&m, "cat policy.json");
}

#[test]
fn the_network_and_other_processes_are_out_of_reach() {
    let Some(a) = confined_attack("network", Confinement::User) else { return };
    let Some(python) = toolhost_tests::attack::python3() else { return };
    let r = a.bash(&format!(
        "{python} -c \"import socket\ntry:\n  socket.create_connection(('127.0.0.1', 9), 2); print('CONNECTED')\nexcept OSError as e: print('refused', e)\ntry:\n  socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print('UDP')\nexcept OSError as e: print('udp refused', e)\"; \
         {python} -c \"import ctypes; print('ptrace', ctypes.CDLL(None).ptrace(0, 0, 0, 0))\"; \
         unshare -U true 2>&1; echo unshare=$?"
    ));
    let text = r.text();
    assert!(!text.contains("CONNECTED") && !text.contains("\nUDP"), "{text}");
    assert!(text.contains("ptrace -1"), "ptrace was not refused: {text}");
    assert!(!text.contains("unshare=0"), "a namespace was made: {text}");
}

#[test]
fn git_metadata_is_put_back_and_no_process_outlives_the_call() {
    let Some(a) = confined_attack("git", Confinement::User) else { return };
    a.git_init(&a.ws);
    let config = std::fs::read_to_string(a.ws.join(".git/config")).unwrap();
    let pidfile = a.ws.join("pid");
    let r = a.bash(&format!(
        "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config; \
         mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit; \
         (setsid sleep 600 & echo $! > {})",
        pidfile.display()
    ));
    assert_eq!(r.status(), "succeeded", "{}", r.all());
    assert_eq!(
        std::fs::read_to_string(a.ws.join(".git/config")).unwrap(),
        config,
        "git config not put back"
    );
    assert!(!a.ws.join(".git/hooks/pre-commit").exists(), "a hook stayed");
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    assert!(
        !std::path::Path::new(&format!("/proc/{}", pid.trim())).exists(),
        "process {pid} outlived the call"
    );
}

#[test]
fn as_root_in_a_container_nothing_runs_and_doctor_says_why() {
    let Some(a) = confined_attack("root", Confinement::Root) else { return };
    let out = a.run(&[], &["doctor"]);
    assert_ne!(out.code, Some(0), "{}", out.all());
    assert!(out.stdout.contains("does not run commands as root"), "{}", out.stdout);
    let r = a.bash("echo ran > ran.txt");
    assert_eq!(r.status(), "failed", "{}", r.all());
    assert!(!a.ws.join("ran.txt").exists());
}

#[test]
fn an_operator_who_requires_the_full_tier_gets_no_bash_here() {
    let Some(a) = confined_attack("full", Confinement::User) else { return };
    std::fs::write(a.data.join("policy.json"), r#"{"sandbox_tier": "full"}"#).unwrap();
    let r = a.bash("echo ran > ran.txt");
    assert_eq!(r.status(), "failed", "{}", r.all());
    assert!(r.text().contains("requires the full sandbox"), "{}", r.text());
    assert!(!a.ws.join("ran.txt").exists());
}

/// The private temp dir's 0700 outer directory: a command that opens it up (an owner's chmod
/// needs no right Landlock governs) finds it closed again after the call.
#[test]
fn the_private_temp_dir_is_closed_again_after_a_chmod() {
    use std::os::unix::fs::PermissionsExt;
    let Some(a) = confined_attack("temp", Confinement::User) else { return };
    let mut s = a.session(&[]);
    let r = s.call(
        "c",
        "bash",
        json!({"command": "chmod 777 \"$(dirname \"$TMPDIR\")\" && echo \"$TMPDIR\""}),
    );
    assert_eq!(r["status"], "succeeded", "{r}");
    let tmpdir = toolhost_tests::attack::result_text(&r);
    let outer =
        std::path::Path::new(tmpdir.lines().next().unwrap().trim()).parent().unwrap().to_path_buf();
    let mode = std::fs::metadata(&outer).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "{} was left {mode:o}", outer.display());
}

/// An approved run (`workspace_shell`) goes through the same tier: it runs, writes in the
/// workspace, and reads no credential.
#[test]
fn an_approved_run_works_under_the_landlock_tier() {
    let Some(a) = confined_attack("approved", Confinement::User) else { return };
    let secret = &a.secrets[0];
    let out = a.call_with(
        &["--tools", "workspace_shell", "--allow-escalation"],
        "workspace_shell",
        json!({"command": "sh", "args": ["-c", format!("echo ran > ran.txt; cat {} 2>&1; echo done", secret.path.display())]}),
    );
    assert_eq!(out.json()["status"], "succeeded", "{}", out.all());
    assert_eq!(std::fs::read_to_string(a.ws.join("ran.txt")).unwrap(), "ran\n");
    out.assert_hidden(&secret.marker, "an approved run's cat");
}
