//! The component's side of [`Runner`] and [`Sink`]: the run goes through the host's
//! `process.run` (which checks it against the approved run, fences it and sandboxes it),
//! and a long text is saved to a host spill file.

use toolhost_sdk::Spill;
use toolhost_sdk::process;

use crate::display::Sink;
use crate::failure::Failure;
use crate::runner::{Ran, Runner};
use crate::spec::{RunSpec, command};

/// Runs a spec with `process.run`, exactly as [`command`] says.
#[derive(Debug, Default)]
pub struct HostRunner;

impl Runner for HostRunner {
    fn run(&mut self, spec: &RunSpec) -> Result<Ran, Failure> {
        process::run(&command(spec))
            .map(|finished| Ran::from_finished(&finished))
            .map_err(|e| crate::from_run_error(&e, spec.cwd.as_deref()))
    }
}

/// The host's spill file, opened at the first line.
#[derive(Default)]
pub struct HostSink {
    spill: Option<Spill>,
}

impl Sink for HostSink {
    fn line(&mut self, line: &str) {
        self.spill.get_or_insert_with(Spill::new).append(line);
    }

    fn finish(&mut self) -> Option<(String, bool)> {
        let spilled = self.spill.take()?.finish()?;
        Some((spilled.path, spilled.capped))
    }
}
