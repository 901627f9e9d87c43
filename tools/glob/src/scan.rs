//! The walk loop of glob (docs/contract.md#glob): every matched file is counted, written to the
//! full list in traversal order and offered to the [`Newest`] heap; cancellation and the timeout
//! are checked per entry.
//!
//! The host is reached through two seams so the loop runs natively in tests: [`Control`]
//! and [`Append`].

use crate::newest::{Newest, NewestEntry};

pub use toolhost_sdk::scan::{Append, Control, SPILL_CHUNK_BYTES, Stop};

/// What a walk found.
#[derive(Debug, Default)]
pub struct Scanned {
    /// The newest files.
    pub newest: Newest,
    /// Files matched in all.
    pub total: u64,
    /// Set when the walk stopped early.
    pub stop: Option<Stop>,
}

/// Walk `batches` (an empty batch ends the walk), writing every path to `spill`.
pub fn scan(
    mut next_batch: impl FnMut() -> Vec<NewestEntry>,
    control: &impl Control,
    spill: &mut impl Append,
) -> Scanned {
    let mut scanned = Scanned::default();
    let mut buffer = String::new();
    let mut sent = 0u64;
    let mut flush = |buffer: &mut String, spill: &mut dyn FnMut(&str)| {
        if !buffer.is_empty() {
            // Once past the host's cap, the host drops everything: stop sending.
            if sent <= toolhost_sdk::limits::MAX_SPILL_BYTES {
                spill(&buffer[..buffer.len() - 1]);
                sent += buffer.len() as u64;
            }
            buffer.clear();
        }
    };
    'walk: loop {
        let batch = next_batch();
        if batch.is_empty() {
            break;
        }
        for entry in batch {
            if let Some(stop) = control.check() {
                scanned.stop = Some(stop);
                break 'walk;
            }
            buffer.push_str(&entry.path);
            buffer.push('\n');
            if buffer.len() >= SPILL_CHUNK_BYTES {
                flush(&mut buffer, &mut |s| spill.append(s));
            }
            scanned.total += 1;
            scanned.newest.push(entry);
        }
    }
    flush(&mut buffer, &mut |s| spill.append(s));
    scanned
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    struct After {
        checks: Cell<u64>,
        after: u64,
        stop: Stop,
    }

    impl Control for After {
        fn check(&self) -> Option<Stop> {
            let n = self.checks.get() + 1;
            self.checks.set(n);
            (n > self.after).then_some(self.stop)
        }
    }

    #[derive(Default)]
    struct Lines(Vec<String>);

    impl Append for Lines {
        fn append(&mut self, lines: &str) {
            self.0.extend(lines.split('\n').map(str::to_owned));
        }
    }

    fn batches(n: u64, per: u64) -> impl FnMut() -> Vec<NewestEntry> {
        let mut next = 0u64;
        move || {
            let end = (next + per).min(n);
            let batch = (next..end)
                .map(|i| NewestEntry {
                    path: format!("p{}", (i * 7919) % n),
                    modified_ms: Some((i * 7919) % n),
                })
                .collect();
            next = end;
            batch
        }
    }

    #[test]
    fn counts_everything_keeps_the_newest_and_spills_in_traversal_order() {
        let control = After { checks: Cell::new(0), after: u64::MAX, stop: Stop::TimedOut };
        let mut spill = Lines::default();
        let scanned = scan(batches(150, 40), &control, &mut spill);
        assert_eq!(scanned.total, 150);
        assert_eq!(scanned.stop, None);
        let kept = scanned.newest.into_sorted();
        assert_eq!(kept.len(), 100);
        assert_eq!(kept[0].path, "p149");
        assert_eq!(kept[99].path, "p50");
        assert_eq!(spill.0.len(), 150);
        assert_eq!(spill.0[0], "p0");
        assert_eq!(spill.0[1], format!("p{}", 7919 % 150));
    }

    #[test]
    fn stops_per_entry() {
        let control = After { checks: Cell::new(0), after: 120, stop: Stop::TimedOut };
        let mut spill = Lines::default();
        let scanned = scan(batches(150, 40), &control, &mut spill);
        assert_eq!((scanned.total, scanned.stop), (120, Some(Stop::TimedOut)));
        let control = After { checks: Cell::new(0), after: 0, stop: Stop::Cancelled };
        let scanned = scan(batches(150, 40), &control, &mut Lines::default());
        assert_eq!((scanned.total, scanned.stop), (0, Some(Stop::Cancelled)));
    }
}
