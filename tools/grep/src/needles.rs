//! Several short byte strings searched for at once: the candidate scan for patterns that
//! are not one literal but require one of a few (`\b(impl|struct)\s+…`, `(TODO|FIXME)`,
//! `(?i)\b(get|set)_\w+`; see [`crate::required`]).
//!
//! On wasm32 the regex crate has no Teddy (aho-corasick's packed searcher is x86/aarch64
//! only), so its prefilter for an alternation of literals walks an automaton byte by byte.
//! [`Needles`] tests 16 start positions per step instead: for each needle, the two of its
//! bytes that are rarest in source text ([`PER_MILLION`]), compared at their offsets
//! with one `simd128` compare each; a position where both bytes of some needle fit is then
//! compared whole. ASCII letters that may be either case are compared with bit 0x20 set on
//! both sides.
//!
//! The 16-lane step has two forms — `simd128`, and a scalar loop giving the same mask that
//! the native unit tests run — and everything around it is shared.

/// The most needles one set holds: each costs two compares per 16 bytes.
pub const MAX_NEEDLES: usize = 8;

/// One string to search for: its bytes, where each ASCII letter that may be either case is
/// stored lowercase with bit 0x20 in `fold` (0 everywhere else).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Needle {
    pub bytes: Vec<u8>,
    pub fold: Vec<u8>,
}

impl Needle {
    /// These bytes, exactly.
    pub fn exact(bytes: &[u8]) -> Needle {
        Needle { bytes: bytes.to_vec(), fold: vec![0; bytes.len()] }
    }

    /// The ASCII letter `lower` in either case.
    pub fn folded(lower: u8) -> Needle {
        debug_assert!(lower.is_ascii_lowercase());
        Needle { bytes: vec![lower], fold: vec![0x20] }
    }

    /// `self` followed by `next`.
    pub fn then(&self, next: &Needle) -> Needle {
        let mut out = self.clone();
        out.bytes.extend_from_slice(&next.bytes);
        out.fold.extend_from_slice(&next.fold);
        out
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the needle occurs at `at` in `haystack`.
    #[inline]
    pub fn occurs_at(&self, haystack: &[u8], at: usize) -> bool {
        let Some(window) = haystack.get(at..at + self.bytes.len()) else { return false };
        window.iter().zip(&self.bytes).zip(&self.fold).all(|((h, b), f)| h | f == *b)
    }

    /// Whether every string `self` stands for contains a string `other` stands for (so a set
    /// holding both needs only `other`).
    pub fn contains(&self, other: &Needle) -> bool {
        let n = other.len();
        n <= self.len()
            && (0..=self.len() - n).any(|o| {
                (0..n).all(|i| {
                    let (b, f) = (self.bytes[o + i], self.fold[o + i]);
                    // `other` must accept every byte `self` accepts here.
                    b == other.bytes[i] && f & !other.fold[i] == 0
                })
            })
    }

    /// The estimated share of positions in source text where this byte of the needle fits.
    fn frequency_at(&self, i: usize) -> f64 {
        let b = self.bytes[i];
        if self.fold[i] != 0 { frequency(b) + frequency(b & !0x20) } else { frequency(b) }
    }
}

/// The share of bytes in source text that are `b` ([`PER_MILLION`]).
fn frequency(b: u8) -> f64 {
    f64::from(PER_MILLION[usize::from(b)]) / 1e6
}

/// One needle's probe: the offsets of its two rarest bytes and what must be there (after
/// OR-ing the fold bit). A one-byte needle probes the same byte twice.
#[derive(Debug, Clone, Copy)]
struct Probe {
    p: usize,
    q: usize,
    bp: u8,
    fp: u8,
    bq: u8,
    fq: u8,
}

/// A set of needles to search for at once (1 to [`MAX_NEEDLES`], none empty).
#[derive(Debug, Clone)]
pub struct Needles {
    needles: Vec<Needle>,
    probes: Vec<Probe>,
    /// The largest probe offset: a 16-lane step at `at` reads up to `at + reach + 16`.
    reach: usize,
    /// The shortest needle's length.
    shortest: usize,
    /// memchr's searcher, when the set is one needle without folded letters (it is faster
    /// for exact bytes).
    exact: Option<memchr::memmem::Finder<'static>>,
}

impl Needles {
    /// The scan for `needles`, or `None` when there are none, too many, or an empty one.
    pub fn new(mut needles: Vec<Needle>) -> Option<Needles> {
        needles.sort();
        needles.dedup();
        if needles.is_empty() || needles.len() > MAX_NEEDLES || needles.iter().any(|n| n.len() == 0)
        {
            return None;
        }
        let probes: Vec<Probe> = needles
            .iter()
            .map(|n| {
                let mut order: Vec<usize> = (0..n.len()).collect();
                order.sort_by(|&a, &b| {
                    n.frequency_at(a).total_cmp(&n.frequency_at(b)).then(a.cmp(&b))
                });
                let (p, q) = (order[0], order.get(1).copied().unwrap_or(order[0]));
                Probe { p, q, bp: n.bytes[p], fp: n.fold[p], bq: n.bytes[q], fq: n.fold[q] }
            })
            .collect();
        let reach = probes.iter().map(|pr| pr.p.max(pr.q)).max().unwrap_or(0);
        let shortest = needles.iter().map(Needle::len).min().unwrap_or(0);
        let exact = match &needles[..] {
            [one] if one.fold.iter().all(|&f| f == 0) => {
                Some(memchr::memmem::Finder::new(&one.bytes).into_owned())
            }
            _ => None,
        };
        Some(Needles { needles, probes, reach, shortest, exact })
    }

    /// The estimated share of positions where some needle's probe bytes fit: what the scan
    /// stops at (lower is better).
    pub fn cost(&self) -> f64 {
        self.needles
            .iter()
            .zip(&self.probes)
            .map(|(n, pr)| {
                let p = n.frequency_at(pr.p);
                if pr.p == pr.q { p } else { p * n.frequency_at(pr.q) }
            })
            .sum()
    }

    /// The needles, sorted.
    #[cfg(test)]
    pub fn needles(&self) -> &[Needle] {
        &self.needles
    }

    /// Whether every needle of `self` contains one of `other` (a line holding one of `self`
    /// then holds one of `other`).
    pub fn implies(&self, other: &Needles) -> bool {
        self.needles.iter().all(|n| other.needles.iter().any(|m| n.contains(m)))
    }

    /// Whether some needle occurs at `at`.
    #[inline]
    fn occurs_at(&self, haystack: &[u8], at: usize) -> bool {
        self.needles.iter().any(|n| n.occurs_at(haystack, at))
    }

    /// The first position at or after `from` where some needle occurs.
    pub fn find(&self, haystack: &[u8], from: usize) -> Option<usize> {
        if let Some(exact) = &self.exact {
            return exact.find(haystack.get(from..)?).map(|i| from + i);
        }
        // Without a folded probe byte the step compares the bytes as they are (no OR).
        if self.probes.iter().all(|pr| pr.fp == 0 && pr.fq == 0) {
            self.find_fixed::<false>(haystack, from)
        } else {
            self.find_fixed::<true>(haystack, from)
        }
    }

    /// [`Needles::find`] with a fixed number of probes, which lets the compiler unroll the
    /// step and keep every probe's bytes in registers.
    #[inline(always)]
    fn find_fixed<const FOLD: bool>(&self, haystack: &[u8], from: usize) -> Option<usize> {
        match &self.probes[..] {
            [a] => self.find_with::<FOLD>(&[*a], haystack, from),
            [a, b] => self.find_with::<FOLD>(&[*a, *b], haystack, from),
            [a, b, c] => self.find_with::<FOLD>(&[*a, *b, *c], haystack, from),
            [a, b, c, d] => self.find_with::<FOLD>(&[*a, *b, *c, *d], haystack, from),
            probes => self.find_with::<FOLD>(probes, haystack, from),
        }
    }

    #[inline(always)]
    fn find_with<const FOLD: bool>(
        &self,
        probes: &[Probe],
        haystack: &[u8],
        from: usize,
    ) -> Option<usize> {
        let mut at = from;
        // 32 starts a step, then 16, then one at a time.
        while at + self.reach + 32 <= haystack.len() {
            let mask =
                step::<FOLD>(probes, haystack, at) | step::<FOLD>(probes, haystack, at + 16) << 16;
            if let Some(i) = self.first_in(mask, haystack, at) {
                return Some(i);
            }
            at += 32;
        }
        if at + self.reach + 16 <= haystack.len() {
            if let Some(i) = self.first_in(step::<FOLD>(probes, haystack, at), haystack, at) {
                return Some(i);
            }
            at += 16;
        }
        while at + self.shortest <= haystack.len() {
            if self.occurs_at(haystack, at) {
                return Some(at);
            }
            at += 1;
        }
        None
    }

    /// The first start `at + i` for a bit `i` of `mask` where a needle occurs.
    #[inline(always)]
    fn first_in(&self, mut mask: u32, haystack: &[u8], at: usize) -> Option<usize> {
        while mask != 0 {
            let i = at + mask.trailing_zeros() as usize;
            if self.occurs_at(haystack, i) {
                return Some(i);
            }
            mask &= mask - 1;
        }
        None
    }
}

/// Bit `i` set when the probe bytes of some needle fit at start `at + i`, for the 16
/// starts from `at` (`at + p + 16` and `at + q + 16` within `haystack` for every probe).
/// Without `FOLD`, no probe has a fold bit and the bytes are compared as they are.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn step<const FOLD: bool>(probes: &[Probe], haystack: &[u8], at: usize) -> u32 {
    use core::arch::wasm32::*;
    let base = haystack.as_ptr();
    let mut any = u8x16_splat(0);
    for pr in probes {
        debug_assert!(at + pr.p.max(pr.q) + 16 <= haystack.len());
        // SAFETY: `at + p + 16` and `at + q + 16` are within `haystack` (the callers'
        // bound, `at + reach + 16 <= len`); wasm loads need no alignment.
        let (hp, hq) = unsafe {
            (
                v128_load(base.add(at + pr.p) as *const v128),
                v128_load(base.add(at + pr.q) as *const v128),
            )
        };
        let (hp, hq) = if FOLD {
            (v128_or(hp, u8x16_splat(pr.fp)), v128_or(hq, u8x16_splat(pr.fq)))
        } else {
            (hp, hq)
        };
        let fit_p = u8x16_eq(hp, u8x16_splat(pr.bp));
        let fit_q = u8x16_eq(hq, u8x16_splat(pr.bq));
        any = v128_or(any, v128_and(fit_p, fit_q));
    }
    u32::from(u8x16_bitmask(any))
}

/// The same mask, one lane at a time.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn step<const FOLD: bool>(probes: &[Probe], haystack: &[u8], at: usize) -> u32 {
    debug_assert!(FOLD || probes.iter().all(|pr| pr.fp == 0 && pr.fq == 0));
    let mut mask = 0u32;
    for lane in 0..16 {
        let s = at + lane;
        if probes
            .iter()
            .any(|pr| haystack[s + pr.p] | pr.fp == pr.bp && haystack[s + pr.q] | pr.fq == pr.bq)
        {
            mask |= 1 << lane;
        }
    }
    mask
}

/// How many of a million bytes of source text are each byte: counted over the `.rs`, `.md`,
/// `.toml`, `.c`, `.h`, `.py`, `.js`, `.ts` and `.go` files of a cargo registry's crate
/// sources (323 MB, 2026-12-03), at least 1. Only the order of magnitude matters.
#[rustfmt::skip]
const PER_MILLION: [u32; 256] = [
    1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 27788, 1, 1, 106, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 222894, 1899, 7006, 1998, 383, 332, 2168, 2084, 11954, 11956, 4622, 463, 17603,
    3572, 7780, 13789, 8913, 4715, 4951, 4535, 2473, 1825, 2630, 1262, 2258, 1201, 20358, 6969,
    2132, 7356, 4064, 787, 45, 5215, 2550, 4521, 3467, 6834, 3574, 1572, 1130, 5462, 123, 807,
    3718, 2404, 4079, 4282, 3410, 564, 4638, 6102, 6529, 2345, 1660, 869, 696, 640, 187, 3292,
    605, 3289, 66, 20927, 2780, 30595, 10156, 18258, 15907, 57984, 13787, 8995, 9779, 29499,
    370, 3229, 21082, 13056, 32785, 28320, 17286, 1792, 31756, 30897, 46936, 20222, 4056, 4750,
    6475, 6643, 1419, 4289, 717, 4288, 13, 1, 82, 9, 14, 14, 13, 10, 12, 8, 8, 7, 8, 7, 9, 7, 8,
    9, 47, 33, 10, 10, 71, 14, 14, 6, 11, 13, 10, 11, 14, 28, 24, 25, 14, 7, 6, 7, 10, 8, 10, 9,
    11, 9, 10, 9, 11, 9, 9, 9, 14, 10, 17, 12, 9, 10, 8, 7, 15, 20, 14, 12, 13, 12, 9, 15, 1, 1,
    4, 6, 5, 5, 3, 4, 4, 1, 1, 1, 1, 1, 5, 4, 1, 3, 4, 5, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    30, 54, 119, 7, 1, 1, 1, 1, 1, 1, 34, 4, 4, 2, 1, 12, 105, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1
];

#[cfg(test)]
mod tests {
    use super::*;

    /// A needle from text where uppercase letters are exact and `~x` is `x` in either case.
    fn needle(spec: &str) -> Needle {
        let mut n = Needle::exact(b"");
        let mut fold_next = false;
        for &b in spec.as_bytes() {
            match b {
                b'~' => fold_next = true,
                _ if fold_next => {
                    n = n.then(&Needle::folded(b));
                    fold_next = false;
                }
                _ => n = n.then(&Needle::exact(&[b])),
            }
        }
        n
    }

    fn naive(needles: &[Needle], haystack: &[u8], from: usize) -> Option<usize> {
        (from..=haystack.len()).find(|&at| needles.iter().any(|n| n.occurs_at(haystack, at)))
    }

    #[test]
    fn containment_and_implication() {
        assert!(needle("impl").contains(&needle("mp")));
        assert!(needle("impl").contains(&needle("~m~p")));
        assert!(!needle("~impl").contains(&needle("impl")));
        assert!(!needle("imp").contains(&needle("impl")));
        let both = Needles::new(vec![needle("fn new"), needle("fn default")]).unwrap();
        assert!(both.implies(&Needles::new(vec![needle("fn ")]).unwrap()));
        assert!(both.implies(&Needles::new(vec![needle("new"), needle("default")]).unwrap()));
        assert!(!both.implies(&Needles::new(vec![needle("new")]).unwrap()));
        assert!(Needles::new(vec![]).is_none());
        assert!(Needles::new(vec![needle("")]).is_none());
        assert!(Needles::new((0..9).map(|i| needle(&format!("n{i}"))).collect()).is_none());
    }

    #[test]
    fn rare_bytes_cost_less() {
        let cost = |specs: &[&str]| {
            Needles::new(specs.iter().map(|s| needle(s)).collect()).unwrap().cost()
        };
        assert!(cost(&["Error"]) < cost(&["e"]));
        assert!(cost(&["impl"]) < cost(&["impl", "struct"]));
        assert!(cost(&["XYZZY"]) < cost(&["~x~y~z~z~y"]));
        assert!(cost(&["caf\u{e9}"]) < cost(&["cafe"]));
    }

    /// The scan finds exactly the first occurrence a naive search finds, from every start,
    /// for sets of needles of mixed lengths, folded letters and non-ASCII bytes, on
    /// haystacks that put occurrences across the 16-byte steps and at the very end.
    #[test]
    fn find_is_the_naive_search() {
        let sets: &[&[&str]] = &[
            &["impl", "struct"],
            &["TODO", "FIXME", "XXX"],
            &["~t~o~d~o", "~f~i~x~m~e"],
            &["x"],
            &["~x"],
            &["get_", "set_"],
            &["caf\u{e9}", "\u{212a}"],
            &["a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh"],
            &["longer needle than sixteen bytes", "s"],
        ];
        let pieces: &[&str] = &[
            "impl",
            "IMPL",
            "struct",
            "Struct",
            "TODO",
            "todo",
            "FIXME",
            "fixMe",
            "XXX",
            "xx",
            "x",
            "X",
            "get_",
            "set",
            "_",
            "caf\u{e9}",
            "CAF\u{c9}",
            "\u{212a}",
            "k",
            "abc",
            "abcdefgh",
            " ",
            "\n",
            "e",
            "\u{e9}",
            "longer needle than sixteen bytes",
            "longer needle",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..300 {
            let len = (next() % 60) as usize;
            let text: String =
                (0..len).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect();
            let hay = text.as_bytes();
            for set in sets {
                let needles: Vec<Needle> = set.iter().map(|s| needle(s)).collect();
                let scan = Needles::new(needles.clone()).unwrap();
                for from in (0..=hay.len()).step_by(7).chain([hay.len(), hay.len() + 1]) {
                    assert_eq!(
                        scan.find(hay, from),
                        naive(&needles, hay, from),
                        "round {round}, {set:?} from {from} in {text:?}"
                    );
                }
            }
        }
    }
}
