//! `toolhost conformance FILE.wasm [--json] [--junit FILE] [--cases N] [--seed S]`: every check
//! of `toolhost-conformance` on one component (contract in docs/cli.md and docs/extending.md). Exit
//! 0 when no check failed, 1 when one did, 2 when the file cannot be checked at all.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::commands::EXIT_USAGE;
use crate::setup::Setup;

/// Run the checks and print the report (text, or JSON with `json`); `junit` also gets it as
/// JUnit XML.
pub async fn run(
    setup: &Setup,
    file: &Path,
    json: bool,
    junit: Option<&PathBuf>,
    cases: Option<usize>,
    seed: Option<u64>,
) -> Result<ExitCode> {
    let mut options = toolhost_conformance::Options {
        cache_dir: Some(setup.data_dir.join("cache").join("components")),
        ..Default::default()
    };
    if let Some(n) = cases {
        options.cases = n;
    }
    if let Some(s) = seed {
        options.seed = s;
    }
    // On a terminal, one line of progress on stderr, rewritten as the run goes.
    let progress = std::io::stderr().is_terminal().then(|| {
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        options.progress = Some(tx);
        std::thread::spawn(move || {
            let mut err = std::io::stderr();
            for line in rx {
                let _ = write!(err, "\r\x1b[2Ktoolhost conformance: {line}");
                let _ = err.flush();
            }
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        })
    });
    let checked = toolhost_conformance::check(file, &options, &setup.policy).await;
    drop(options);
    if let Some(printer) = progress {
        let _ = printer.join();
    }
    let report = match checked {
        Ok(r) => r,
        Err(e) => {
            eprintln!("toolhost: {}", toolhost::display::terminal_text(&e.to_string()));
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    if json {
        outln!("{}", toolhost::display::json_text(&report.json()));
    } else {
        out!("{}", toolhost::display::terminal_text(&report.text()));
    }
    if let Some(path) = junit {
        std::fs::write(path, report.junit())
            .with_context(|| format!("cannot write the JUnit report to {}", path.display()))?;
    }
    Ok(if report.failed() { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}
