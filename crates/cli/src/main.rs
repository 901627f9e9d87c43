//! The `toolhost` command line (contract in docs/cli.md): `tools`, `call`, `session`, `tool`,
//! `conformance`, `wit`, `new`, `changes`, `undo`, `reapply`, `mcp`, `doctor`, and the global options.
//! Exit codes: 0 succeeded, 1 the call did not succeed, 2 usage.
//!
//! This file holds `main`; [`args`] holds the options and commands clap parses, [`setup`]
//! builds what every command works with once (workspace, data dir, policy, bash's sandbox, the
//! finalized toolset), each command is a module of its own under [`commands`]
//! ([`commands::dispatch`] picks it), [`signals`] ends one on SIGINT or SIGTERM, and
//! [`output`] writes what it says.

#[macro_use]
mod output;
mod args;
mod commands;
mod help;
mod setup;
mod signals;

pub(crate) use args::{Cli, Command};
pub(crate) use output::error_text;
pub(crate) use signals::termination_signal;

use std::process::ExitCode;

/// glibc malloc: keep freed memory for reuse instead of returning it to the kernel at once.
/// A walk reads every file into a fresh buffer and frees it once the component has it; with
/// the defaults, large buffers are `mmap`ed and unmapped and the heap top is trimmed, so
/// each file's pages are faulted in anew (thousands of page faults per grep of a big tree).
/// Memory held this way is bounded by what the instances of a call hold at once: one batch
/// each (`WALK_BATCH_BYTES` plus at most one file).
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any other thread runs.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

fn main() -> ExitCode {
    // Helper mode inside the bash sandbox: apply Landlock, then exec. Before anything else.
    let mut args = std::env::args_os();
    if args.nth(1).is_some_and(|a| a == toolhost_sandbox::helper::SANDBOX_EXEC_ARG) {
        toolhost_sandbox::helper::sandbox_exec_main(args.collect());
    }
    keep_freed_memory();
    // As root, the file tools are refused what bash is refused: before any thread starts.
    if let toolhost::privileges::Dropped::Failed(e) =
        toolhost::privileges::drop_file_access_overrides()
    {
        eprintln!(
            "toolhost: cannot drop CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH ({e}); refusing to run as root with them"
        );
        return ExitCode::FAILURE;
    }
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("TOOLHOST_LOG"))
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .init();
    let cli = help::parse();
    let failed = |e: &anyhow::Error| {
        eprintln!("toolhost: {}", toolhost::display::terminal_text(&error_text(e)));
        if e.downcast_ref::<setup::UsageError>().is_some() {
            ExitCode::from(commands::EXIT_USAGE)
        } else {
            ExitCode::FAILURE
        }
    };
    // `new` writes a project and nothing else: no data dir, no toolset.
    if let Command::New { name, lang, dir } = &cli.command {
        return commands::new::run(name, *lang, dir.as_deref()).unwrap_or_else(|e| failed(&e));
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("toolhost: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let setup = match setup::setup(&cli) {
        Ok(setup) => setup,
        Err(e) => return failed(&e),
    };
    let outcome = runtime.block_on(signals::run(&cli, &setup));
    // Every task ends before the session's temp dir goes with the setup: their sandboxed
    // programs are killed as they are dropped. After a signal a blocking read of stdin is not
    // waited for.
    if matches!(outcome, Ok(signals::Ended::BySignal(_))) {
        runtime.shutdown_timeout(signals::SIGNAL_SHUTDOWN_GRACE);
    } else {
        drop(runtime);
    }
    drop(setup);
    match outcome {
        Ok(signals::Ended::Finished(code)) => code,
        Ok(signals::Ended::BySignal(signal)) => ExitCode::from(128 + signal),
        Err(e) => failed(&e),
    }
}
