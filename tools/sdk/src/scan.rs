//! What every scanning tool (grep, glob, and third-party ones) needs from the host, behind
//! two small traits so its loop also runs natively in tests: [`Control`] (cancellation and
//! the scan timeout) and [`Append`] (the spill file for the full list).

use crate::bindings::toolhost::tool::call::{
    Spill, Spilled, cancelled, elapsed_ms, scan_timeout_ms,
};

/// Why a scan stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Stop {
    /// The call was cancelled: the result is `cancelled`.
    Cancelled,
    /// The scan timeout passed: the result says "at least" (docs/contract.md#grep, #glob).
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

/// [`HostControl`] asks the host on the first check and then on every this many: a check per
/// match would otherwise cost two host calls per matching line (millions in a big grep).
pub const ASK_HOST_EVERY: u32 = 64;

/// [`Control`] from the host's `call` interface: cancelled, or past the session's scan
/// timeout. Asks the host every [`ASK_HOST_EVERY`] checks; once it said stop, says stop.
pub struct HostControl {
    timeout_ms: u64,
    checks: std::cell::Cell<u32>,
    stopped: std::cell::Cell<Option<Stop>>,
}

impl HostControl {
    /// The control of this call (reads the scan timeout once).
    pub fn new() -> Self {
        HostControl {
            timeout_ms: scan_timeout_ms(),
            checks: Default::default(),
            stopped: Default::default(),
        }
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
        if let Some(stop) = self.stopped.get() {
            return Some(stop);
        }
        let n = self.checks.get();
        self.checks.set(n.wrapping_add(1));
        if !n.is_multiple_of(ASK_HOST_EVERY) {
            return None;
        }
        let stop = if cancelled() {
            Some(Stop::Cancelled)
        } else if elapsed_ms() >= self.timeout_ms {
            Some(Stop::TimedOut)
        } else {
            None
        };
        self.stopped.set(stop);
        stop
    }
}

impl Append for Spill {
    fn append(&mut self, lines: &str) {
        Spill::append(self, lines);
    }
}

/// The message of a cancelled scan (the same text the host uses for a cancelled call).
pub const CANCELLED: &str = "the call was cancelled";

/// Said after a spill path when the 64 MiB cap stopped the spill (docs/contract.md#spill-files:
/// writing stops at the cap and the result says only the first 64 MB were saved).
pub const CAPPED: &str = " (only the first 64 MB were saved)";

/// `; full list saved to <path>` (plus [`CAPPED`]), or nothing when the spill failed
/// (docs/contract.md#spill-files: never a path that cannot be read).
pub fn saved_clause(spilled: Option<&Spilled>) -> String {
    match spilled {
        Some(s) => format!("; full list saved to {}{}", s.path, if s.capped { CAPPED } else { "" }),
        None => String::new(),
    }
}

/// The line after a timeout footer when results were left out and the spill was saved.
pub fn found_so_far_saved(spilled: &Spilled) -> String {
    format!(
        "[everything found before the timeout saved to {}{}]",
        spilled.path,
        if spilled.capped { CAPPED } else { "" }
    )
}

/// A timeout in seconds as a footer says it: `30s`, `0.2s`, `1.25s`.
pub fn seconds(ms: u64) -> String {
    let (whole, frac) = (ms / 1000, ms % 1000);
    if frac == 0 {
        format!("{whole}s")
    } else {
        let frac = format!("{frac:03}");
        format!("{whole}.{}s", frac.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_whole_when_whole() {
        assert_eq!(seconds(30_000), "30s");
        assert_eq!(seconds(200), "0.2s");
        assert_eq!(seconds(1_250), "1.25s");
    }

    #[test]
    fn the_saved_clause_names_a_path_only_when_there_is_one() {
        assert_eq!(saved_clause(None), "");
        let s = Spilled { path: "/d/x.txt".into(), capped: false };
        assert_eq!(saved_clause(Some(&s)), "; full list saved to /d/x.txt");
        let s = Spilled { path: "/d/x.txt".into(), capped: true };
        assert_eq!(
            saved_clause(Some(&s)),
            "; full list saved to /d/x.txt (only the first 64 MB were saved)"
        );
    }
}
