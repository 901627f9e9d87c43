//! The first start on a fresh data dir compiles the built-in tools for this machine, which
//! takes seconds: on a terminal, one line says so and roughly how long, before the wait; a
//! warm start and a script (stderr not a terminal) get no such line. `conformance` of a
//! component says the same on its progress line while the component compiles.

use std::path::Path;
use std::time::Duration;

use toolhost_tests::attack::{Attack, run_limited};
use toolhost_tests::*;

/// Whether util-linux `script` (a real pseudo-terminal) is here; `.ci/run`'s machines have it.
fn have_script(test: &str) -> bool {
    let here = std::process::Command::new("script").arg("--version").output().is_ok();
    if !here {
        eprintln!("{test}: skipped (no `script` for a pseudo-terminal)");
    }
    here
}

/// `toolhost ARGS…` over `a`'s workspace and `data`, on a pseudo-terminal: all it wrote.
fn on_a_terminal(a: &Attack, data: &Path, args: &str) -> String {
    let inner = format!(
        "{} --workspace {} --data-dir {} {args}",
        toolhost_bin().display(),
        a.ws.display(),
        data.display(),
    );
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qec", &inner, "/dev/null"]).env("HOME", &a.home);
    run_limited(&mut cmd, None, Duration::from_secs(300)).expect("script ran").stdout
}

#[test]
fn a_first_start_on_a_terminal_says_it_is_compiling_and_for_about_how_long() {
    if !have_script("a_first_start_on_a_terminal_says_it_is_compiling_and_for_about_how_long") {
        return;
    }
    let a = Attack::new();
    std::fs::write(a.ws.join("hello.txt"), "hi\n").unwrap();
    let data = a.outside_dir("fresh-data");
    let first = on_a_terminal(&a, &data, r#"call list '{"path":"."}'"#);
    let line = first
        .lines()
        .find(|l| {
            l.starts_with("toolhost: compiling the built-in tools for this machine, once (about ")
        })
        .unwrap_or_else(|| panic!("no line says what the first start waits for: {first:?}"));
    let cache = data.join("cache").join("components");
    assert!(
        line.contains(" s; later starts reuse ") && line.contains(&cache.display().to_string()),
        "{line:?}"
    );
    // Said before the wait, so before the result.
    let said = first.find("toolhost: compiling").unwrap();
    assert!(first.find("hello.txt").is_some_and(|at| at > said), "{first:?}");

    // A warm start says nothing of the kind.
    let again = on_a_terminal(&a, &data, r#"call list '{"path":"."}'"#);
    assert!(again.contains("hello.txt"), "{again:?}");
    assert!(!again.contains("compiling"), "a warm start says it compiles: {again:?}");

    // Neither does a script's first start (stderr is not a terminal).
    let script_data = a.outside_dir("script-data");
    let out = std::process::Command::new(toolhost_bin())
        .arg("--workspace")
        .arg(&a.ws)
        .arg("--data-dir")
        .arg(&script_data)
        .args(["call", "list", r#"{"path":"."}"#])
        .env("HOME", &a.home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn conformance_says_it_is_compiling_the_component_and_for_about_how_long() {
    if !have_script("conformance_says_it_is_compiling_the_component_and_for_about_how_long") {
        return;
    }
    let a = Attack::new();
    let data = a.outside_dir("fresh-data");
    let greet = test_components_dir().join("greet.wasm");
    let size = std::fs::metadata(&greet).unwrap().len() as f64 / 1e6;
    let out =
        on_a_terminal(&a, &data, &format!("conformance {} --cases 4 --seed 1", greet.display()));
    assert!(
        out.contains(&format!(
            "compiling greet.wasm ({size:.1} MB) for this machine, once (about "
        )),
        "{out:?}"
    );
}
