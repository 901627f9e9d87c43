//! The bounded heap of glob (docs/contract.md#glob: the walk keeps the newest entries in a heap of
//! capacity 100): memory is [`MAX_RESULTS`] entries whatever the number of matches.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::MAX_RESULTS;

/// A matched file and its modification time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewestEntry {
    /// The path as the host displays it.
    pub path: String,
    /// Milliseconds since the Unix epoch; none when the platform has no time for it.
    pub modified_ms: Option<u64>,
}

/// Output order: newest first, files without a time last, ties by path (byte order) so the
/// result does not depend on traversal order. `Less` means "shown earlier".
impl Ord for NewestEntry {
    fn cmp(&self, other: &Self) -> Ordering {
        // `None < Some`, so reversing the comparison puts missing times last.
        other.modified_ms.cmp(&self.modified_ms).then_with(|| self.path.cmp(&other.path))
    }
}

impl PartialOrd for NewestEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The [`MAX_RESULTS`] entries that come first in output order. The heap's top is the entry
/// shown last, the one a better entry replaces.
#[derive(Debug, Default)]
pub struct Newest {
    heap: BinaryHeap<NewestEntry>,
}

impl Newest {
    /// Offer one entry; it is kept if it is among the first [`MAX_RESULTS`] so far.
    pub fn push(&mut self, entry: NewestEntry) {
        if self.heap.len() < MAX_RESULTS {
            self.heap.push(entry);
        } else if let Some(mut last) = self.heap.peek_mut()
            && entry < *last
        {
            *last = entry;
        }
    }

    /// Entries kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.heap.len()
    }

    /// The kept entries in output order.
    pub fn into_sorted(self) -> Vec<NewestEntry> {
        self.heap.into_sorted_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(path: &str, modified_ms: Option<u64>) -> NewestEntry {
        NewestEntry { path: path.into(), modified_ms }
    }

    #[test]
    fn newest_first_missing_times_last_ties_by_path() {
        let mut n = Newest::default();
        for entry in
            [e("z", None), e("b", Some(5)), e("a", None), e("c", Some(9)), e("a5", Some(5))]
        {
            n.push(entry);
        }
        let order: Vec<String> = n.into_sorted().into_iter().map(|e| e.path).collect();
        assert_eq!(order, ["c", "a5", "b", "a", "z"]);
    }

    #[test]
    fn keeps_the_hundred_newest_in_any_order() {
        let entries: Vec<NewestEntry> = (0..250u64)
            .map(|i| e(&format!("f{i:03}"), if i % 10 == 0 { None } else { Some(i / 2) }))
            .collect();
        let expected = {
            let mut all = entries.clone();
            all.sort();
            all.truncate(MAX_RESULTS);
            all
        };
        for order in [entries.clone(), entries.iter().rev().cloned().collect::<Vec<_>>()] {
            let mut n = Newest::default();
            for entry in order {
                n.push(entry);
                assert!(n.len() <= MAX_RESULTS);
            }
            let got = n.into_sorted();
            assert_eq!(got, expected);
        }
        // i = 249 and 248 share the time 124: the smaller path first.
        assert_eq!(expected[0].path, "f248");
        assert_eq!(expected[1].path, "f249");
        assert!(expected.iter().all(|e| e.modified_ms.is_some()));
    }

    #[test]
    fn files_without_time_fill_up_when_few_have_one() {
        let mut n = Newest::default();
        for i in 0..150 {
            n.push(e(&format!("n{i:03}"), None));
        }
        n.push(e("timed", Some(1)));
        let got = n.into_sorted();
        assert_eq!(got.len(), MAX_RESULTS);
        assert_eq!(got[0].path, "timed");
        assert_eq!(got[1].path, "n000");
        assert_eq!(got[99].path, "n098");
    }
}
