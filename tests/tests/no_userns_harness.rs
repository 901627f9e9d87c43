//! The harness that runs the built binary where user namespaces are refused
//! (`toolhost_tests::confined`), proved on its own: inside it bubblewrap cannot start, no
//! user namespace can be made, the process has the chosen uid and no capabilities, plain
//! programs run, and the files of an attack setup can be read and written.
//!
//! Needs root; skipped (SKIPPED printed) elsewhere, and a failure under
//! `TOOLHOST_REQUIRE_SANDBOX=1`.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::process::Command;

use toolhost_tests::attack::{Attack, HANG_GUARD, Out, run_limited};
use toolhost_tests::confined::{self, Confinement};

/// Whether the harness can run here; prints a skip note if not (panics under
/// `TOOLHOST_REQUIRE_SANDBOX=1`).
fn harness_or_skip(test: &str) -> bool {
    let Some(why) = confined::unavailable() else { return true };
    if std::env::var_os("TOOLHOST_REQUIRE_SANDBOX").is_some_and(|v| v == "1") {
        panic!("{test}: the no-userns harness cannot run and TOOLHOST_REQUIRE_SANDBOX=1: {why}");
    }
    eprintln!("SKIPPED {test}: the no-userns harness cannot run here: {why}");
    false
}

/// An attack setup whose runs are confined as `mode`.
fn attack(mode: Confinement) -> Attack {
    let mut a = Attack::new();
    a.confined = Some(mode);
    a
}

/// Runs `program args` confined as `a` says, PATH and HOME as in a toolhost run.
fn run(a: &Attack, program: &str, args: &[&str]) -> Out {
    let mut cmd = Command::new(program);
    cmd.env_clear().env("PATH", &a.path_var).env("HOME", &a.home).args(args);
    let mut cmd = a.confined_command(cmd);
    run_limited(&mut cmd, None, HANG_GUARD).unwrap_or_else(|| panic!("{program} hung"))
}

/// The hex value of `field` in /proc/self/status as printed inside.
fn status_field<'a>(status: &'a str, field: &str) -> &'a str {
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {field} in {status}"))
        .trim()
}

fn proves_the_harness(mode: Confinement, test: &str) {
    if !harness_or_skip(test) {
        return;
    }
    let a = attack(mode);
    let id = mode.id().to_string();

    // Plain programs run, as the chosen uid and gid, with no groups and no capabilities.
    let ids = run(&a, "sh", &["-c", "id -u; id -g; id -G"]);
    assert_eq!(ids.code, Some(0), "{}", ids.all());
    assert_eq!(ids.stdout, format!("{id}\n{id}\n{id}\n"), "{}", ids.all());
    let status = run(&a, "cat", &["/proc/self/status"]);
    assert_eq!(status.code, Some(0), "{}", status.all());
    for field in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        assert_eq!(status_field(&status.stdout, field), "0000000000000000", "{field}");
    }
    assert_eq!(status_field(&status.stdout, "NoNewPrivs"), "0", "the tier sets it itself");

    // No user namespace can be made: bubblewrap cannot start, nor can unshare(1).
    let max = run(&a, "cat", &["/proc/sys/user/max_user_namespaces"]);
    assert_eq!(max.stdout, "0\n", "{}", max.all());
    let bwrap = run(&a, "bwrap", &["--unshare-all", "--ro-bind", "/", "/", "true"]);
    assert_ne!(bwrap.code, Some(0), "bwrap started inside: {}", bwrap.all());
    eprintln!("{test}: bwrap inside exits {:?}: {}", bwrap.code, bwrap.stderr.trim());
    if std::path::Path::new("/usr/bin/unshare").exists() {
        let unshare = run(&a, "/usr/bin/unshare", &["--user", "true"]);
        assert_ne!(unshare.code, Some(0), "unshare --user worked inside: {}", unshare.all());
        eprintln!("{test}: unshare --user inside: {}", unshare.stderr.trim());
    }

    // The attack setup's files, made by the test as root, are the confined uid's.
    let marker = format!("harness-{}", toolhost_tests::attack::rand_hex());
    a.put("src/in.txt", format!("{marker}\n"));
    let out = a.ws.join("src/out.txt");
    let rw = run(
        &a,
        "sh",
        &["-c", &format!("cat {0}/src/in.txt && echo written > {0}/src/out.txt", a.ws.display())],
    );
    assert_eq!(rw.code, Some(0), "{}", rw.all());
    assert_eq!(rw.stdout, format!("{marker}\n"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "written\n");
    assert_eq!(std::fs::metadata(&out).unwrap().uid(), mode.id(), "owner of what it wrote");

    // The user's own git takes the repository the test made as the user's (no "dubious
    // ownership" refusal, which would let a planted hook or fsmonitor go unnoticed).
    a.git_init(&a.ws);
    let git = run(&a, "git", &["-C", a.ws.to_str().unwrap(), "status", "--short"]);
    assert_eq!(git.code, Some(0), "the confined user's git status: {}", git.all());

    // It has no capability over files that are not its own: a private file of another uid
    // (root's, for the unprivileged user; another user's, for root) stays closed.
    // (Outside the setup's base dir, which is given to the confined uid before each run.)
    let other_dir = tempfile::Builder::new().prefix("toolhost-harness-").tempdir_in("/var/tmp");
    let other_dir = other_dir.unwrap();
    let other = other_dir.path();
    std::fs::set_permissions(other, std::fs::Permissions::from_mode(0o755)).unwrap();
    let private = other.join("private");
    std::fs::write(&private, "not yours\n").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    let owner = Some(mode.id() + 1);
    std::os::unix::fs::chown(&private, owner, owner).unwrap();
    std::os::unix::fs::chown(other, owner, owner).unwrap();
    let denied = run(&a, "cat", &[private.to_str().unwrap()]);
    assert_ne!(denied.code, Some(0), "read another uid's private file: {}", denied.all());
    assert!(!denied.stdout.contains("not yours"));

    // The built binary runs there too (its own files are the test's, readable by all).
    let version = a.run(&[], &["--version"]);
    assert_eq!(version.code, Some(0), "toolhost --version confined: {}", version.all());
    let read = a.call("read", serde_json::json!({ "path": "src/in.txt" }));
    assert!(read.stdout.contains(&marker), "toolhost call read confined: {}", read.all());
    let doctor = a.run(&[], &["doctor"]);
    eprintln!("{test}: toolhost doctor inside exits {:?}:\n{}", doctor.code, doctor.all());
}

#[test]
fn an_unprivileged_user_where_user_namespaces_are_refused() {
    proves_the_harness(Confinement::User, "an_unprivileged_user_where_user_namespaces_are_refused");
}

#[test]
fn root_without_capabilities_where_user_namespaces_are_refused() {
    proves_the_harness(
        Confinement::Root,
        "root_without_capabilities_where_user_namespaces_are_refused",
    );
}

#[test]
fn confine_var_values() {
    assert_eq!(Confinement::User.var_value(), "no-userns");
    assert_eq!(Confinement::Root.var_value(), "no-userns-root");
    assert_eq!(confined::CONFINE_VAR, "TOOLHOST_TEST_CONFINE");
}

/// Components under a directory closed to other users (a checkout under `/root`) are copied
/// where the confined user reaches them; an open one is used as it is.
#[test]
fn test_components_closed_to_the_confined_user_are_copied_where_it_reaches_them() {
    let base = tempfile::tempdir_in("/var/tmp").unwrap();
    let closed = base.path().join("closed");
    let dir = closed.join("test-components");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("runner.wasm"), b"\0asm").unwrap();
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o700)).unwrap();
    let copy = toolhost_tests::confined::reachable_dir(Confinement::User, &dir);
    assert_ne!(copy, dir);
    assert_eq!(std::fs::read(copy.join("runner.wasm")).unwrap(), b"\0asm");
    let mode = std::fs::metadata(copy.join("runner.wasm")).unwrap().permissions().mode();
    assert_eq!(mode & 0o004, 0o004, "the copy is not readable by every uid");
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(toolhost_tests::confined::reachable_dir(Confinement::User, &dir), dir);
}
