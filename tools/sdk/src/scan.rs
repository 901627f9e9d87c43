//! What every scanning tool (grep, glob, and third-party ones) needs from the host, behind
//! two small traits so its loop also runs natively in tests: [`Control`] (cancellation and
//! the scan timeout) and [`Append`] (the spill file for the full list).

use crate::bindings::toolhost::tool::call::{Spill, cancelled, elapsed_ms, scan_timeout_ms};

/// Why a scan stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The call was cancelled: the result is `cancelled`.
    Cancelled,
    /// The scan timeout passed: the result says "at least" (seed 000 §7.6, §7.7).
    TimedOut,
}

/// Cancellation and the scan timeout, asked per entry and per match.
pub trait Control {
    /// Why to stop now, if at all.
    fn check(&self) -> Option<Stop>;
}

/// Where the full list goes: one call appends one or more lines (joined by `\n`; the
/// receiver adds the final newline).
pub trait Append {
    fn append(&mut self, lines: &str);
}

/// Text gathered in the guest before one [`Append::append`], so one host call carries many
/// lines.
pub const SPILL_CHUNK_BYTES: usize = 64 * 1024;

/// [`Control`] from the host's `call` interface: cancelled, or past the session's scan
/// timeout.
pub struct HostControl {
    timeout_ms: u64,
}

impl HostControl {
    /// The control of this call (reads the scan timeout once).
    pub fn new() -> Self {
        HostControl { timeout_ms: scan_timeout_ms() }
    }

    /// The scan timeout in milliseconds (for the "timed out after" footer).
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms
    }
}

impl Default for HostControl {
    fn default() -> Self {
        Self::new()
    }
}

impl Control for HostControl {
    fn check(&self) -> Option<Stop> {
        if cancelled() {
            Some(Stop::Cancelled)
        } else if elapsed_ms() >= self.timeout_ms {
            Some(Stop::TimedOut)
        } else {
            None
        }
    }
}

impl Append for Spill {
    fn append(&mut self, lines: &str) {
        Spill::append(self, lines);
    }
}
