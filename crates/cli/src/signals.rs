//! How a command ends on SIGINT or SIGTERM: [`run`] races the command against
//! [`termination_signal`] (unless the command handles the signals itself), so `main` still
//! removes the session's temp dir.

use std::process::ExitCode;

use anyhow::Result;

use crate::{Cli, Command, setup};

/// How long the async runtime's threads get to drop their tasks after SIGINT or SIGTERM
/// ended a command, before the session's temp dir is removed anyway: dropping a task kills
/// its sandboxed program at once, so this is ample; a thread blocked reading stdin is not
/// waited for past it.
pub(crate) const SIGNAL_SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// How a command ended.
pub(crate) enum Ended {
    /// By itself, with this exit code.
    Finished(ExitCode),
    /// On SIGINT or SIGTERM (the signal's number), before it finished.
    BySignal(u8),
}

/// The first SIGINT or SIGTERM this process gets from now on: its number.
pub(crate) async fn termination_signal() -> u8 {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term)) =
        (signal(SignalKind::interrupt()), signal(SignalKind::terminate()))
    else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => libc::SIGINT as u8,
        _ = term.recv() => libc::SIGTERM as u8,
    }
}

/// Run the command over the setup. SIGINT or SIGTERM ends it (its calls dropped, their
/// sandboxed programs killed), so `main` still removes the session's temp dir; `call` and
/// `mcp --listen` handle both themselves (they cancel what runs, then end as usual).
pub(crate) async fn run(cli: &Cli, setup: &setup::Setup) -> Result<Ended> {
    let handles_signals =
        matches!(cli.command, Command::Call { .. } | Command::Mcp { listen: Some(_), .. });
    if handles_signals {
        return crate::commands::dispatch(cli, setup).await.map(Ended::Finished);
    }
    tokio::select! {
        finished = crate::commands::dispatch(cli, setup) => finished.map(Ended::Finished),
        signal = termination_signal() => Ok(Ended::BySignal(signal)),
    }
}
