//! `cargo xtask bench tools` (its second part): a third-party author's journey per language,
//! `toolhost new → build → toolhost conformance → toolhost tool add → toolhost call`, each
//! step timed, with a warm toolchain: the language's tools already fetched (the componentize-py
//! virtualenv and npm's cache under `target/authoring/`, the crates in cargo's registry), but
//! a fresh project, a fresh cargo target dir and a fresh data dir (so the component is
//! compiled once, as on an author's machine). Targets: Rust ≤ 60 s, Python ≤ 60 s,
//! JavaScript ≤ 90 s. Then the Rust journey once more with its dependencies compiled (a
//! second project in a shared target dir).

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use toolhost_tests::authoring::{TemplateLang, Toolchain, toolchain};
use toolhost_tests::toolhost_bin;

fn target(lang: TemplateLang) -> Duration {
    Duration::from_secs(match lang {
        TemplateLang::Rust | TemplateLang::Python => 60,
        TemplateLang::Javascript => 90,
    })
}

fn check(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn timed(what: &str, cmd: &mut Command) -> Duration {
    let t = Instant::now();
    let out = cmd.output().expect("spawn");
    let took = t.elapsed();
    check(what, &out);
    took
}

/// The toolchain's tools fetched before anything is timed: `npm install` (and for Rust the
/// crates) of a throwaway project.
fn warm(tc: &Toolchain, dir: &Path) {
    let project = dir.join("warm");
    check(
        "toolhost new (warm-up)",
        &Command::new(toolhost_bin())
            .args(["new", "warm_up", "--lang", tc.lang.arg(), "--dir"])
            .arg(&project)
            .output()
            .unwrap(),
    );
    match tc.lang {
        TemplateLang::Rust => check(
            "cargo fetch",
            &Command::new("cargo").arg("fetch").current_dir(&project).output().unwrap(),
        ),
        TemplateLang::Javascript => {
            let mut cmd = Command::new("npm");
            cmd.arg("install").current_dir(&project).envs(tc.env.iter().map(|(k, v)| (k, v)));
            check("npm install (warm-up)", &cmd.output().unwrap());
        }
        TemplateLang::Python => {}
    }
}

/// One journey in `dir`; each step's time.
fn journey(tc: &Toolchain, dir: &Path, name: &str, shared_rust_target: bool) -> Vec<Duration> {
    let (ws, data, project) = (dir.join("ws"), dir.join("data"), dir.join(name));
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("notes.txt"), "one two three\nfour five\n").unwrap();
    let toolhost = || {
        let mut cmd = Command::new(toolhost_bin());
        cmd.arg("--workspace").arg(&ws).arg("--data-dir").arg(&data);
        cmd
    };
    let new = timed(
        "toolhost new",
        Command::new(toolhost_bin())
            .args(["new", name, "--lang", tc.lang.arg(), "--dir"])
            .arg(&project),
    );
    let (out, build) = tc.build(&project, shared_rust_target);
    check(tc.lang.build_command(), &out);
    let wasm = tc.component(&project, name, shared_rust_target);
    let conformance = timed("toolhost conformance", toolhost().arg("conformance").arg(&wasm));
    let add = timed("toolhost tool add", toolhost().args(["tool", "add"]).arg(&wasm).arg("--yes"));
    let call = timed("toolhost call", toolhost().args(["call", name, r#"{"path":"notes.txt"}"#]));
    vec![new, build, conformance, add, call]
}

fn report(label: &str, lang: TemplateLang, steps: &[Duration], with_target: bool) {
    let total: Duration = steps.iter().sum();
    let s = |d: &Duration| format!("{:.1} s", d.as_secs_f64());
    let verdict = if !with_target {
        String::new()
    } else if total <= target(lang) {
        format!(" (target: <= {} s, met)", target(lang).as_secs())
    } else {
        format!(" (target: <= {} s, MISSED)", target(lang).as_secs())
    };
    println!(
        "journey {label}: {}{verdict} = new {} + build `{}` {} + conformance {} + tool add {} + call {}",
        s(&total),
        s(&steps[0]),
        lang.build_command(),
        s(&steps[1]),
        s(&steps[2]),
        s(&steps[3]),
        s(&steps[4]),
    );
}

fn main() {
    let base = tempfile::tempdir().unwrap();
    for lang in TemplateLang::ALL {
        let tc = match toolchain(lang) {
            Ok(tc) => tc,
            Err(why) => {
                println!(
                    "journey {}: SKIPPED, its toolchain cannot be had here: {why}",
                    lang.arg()
                );
                continue;
            }
        };
        let dir = base.path().join(lang.arg());
        warm(&tc, &dir);
        let steps = journey(&tc, &dir.join("first"), "word_count", false);
        report(lang.arg(), lang, &steps, true);
        if lang == TemplateLang::Rust {
            // The shared target dir holds the dependencies once the first build there ran.
            let _ = journey(&tc, &dir.join("prime"), "prime_deps", true);
            let steps = journey(&tc, &dir.join("second"), "word_count", true);
            report("rust, dependencies already compiled", lang, &steps, false);
        }
    }
}
