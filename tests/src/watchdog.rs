//! A memory bound the end-to-end attacks set on the host: [`Watchdog`] samples a process's
//! resident memory (`VmRSS`), remembers the peak and kills the process and its group the
//! moment it passes the bound, so an unbounded host fails the test instead of taking the
//! machine. Tests assert on the bound, never on time.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::attack::promise;

/// How often the resident memory is sampled.
const SAMPLE_EVERY: Duration = Duration::from_millis(10);

/// Watches one process's resident memory (see the module doc).
pub struct Watchdog {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    tripped: Arc<AtomicBool>,
    bound: u64,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// A memory field of `/proc/<pid>/status` (`"VmRSS"`, `"VmHWM"`, …) in bytes, None once the
/// process is gone.
pub fn status_bytes(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kib| kib * 1024)
}

/// Resident memory of `pid` in bytes, None once it is gone.
pub fn rss_bytes(pid: u32) -> Option<u64> {
    status_bytes(pid, "VmRSS")
}

impl Watchdog {
    /// Starts watching `pid`, killing it (and its process group) past `bound` bytes.
    pub fn start(pid: u32, bound: u64) -> Self {
        let (stop, peak, tripped) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicU64::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let (s, p, t) = (stop.clone(), peak.clone(), tripped.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                let Some(now) = rss_bytes(pid) else { return };
                p.fetch_max(now, Ordering::SeqCst);
                if now > bound {
                    t.store(true, Ordering::SeqCst);
                    // SAFETY: kill(2) on the test's own child and its process group.
                    unsafe {
                        libc::kill(pid as i32, libc::SIGKILL);
                        libc::kill(-(pid as i32), libc::SIGKILL);
                    }
                    return;
                }
                std::thread::sleep(SAMPLE_EVERY);
            }
        });
        Watchdog { stop, peak, tripped, bound, thread: Some(thread) }
    }

    /// Stops watching and returns the peak; reports a [`crate::attack::leak`] naming `what`
    /// if the process went past the bound.
    pub fn finish(mut self, what: &str) -> u64 {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let peak = self.peak.load(Ordering::SeqCst);
        eprintln!(
            "{what}: peak resident memory {} MiB (bound {} MiB)",
            peak >> 20,
            self.bound >> 20
        );
        promise(!self.tripped.load(Ordering::SeqCst), || {
            format!(
                "{what}: the host went past {} MiB of resident memory and was killed",
                self.bound >> 20
            )
        });
        peak
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}
