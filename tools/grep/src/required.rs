//! The literals a pattern requires: sets of [`Needle`]s such that every match of the
//! pattern contains one needle of each set (`\b(impl|struct)\s+[A-Z]\w+Error\b` requires
//! one of `impl`/`struct`, and `Error`). grep searches line by line, so a line can only
//! match if it holds one needle of every set: [`Required`] scans for the set that is rarest
//! in source text, checks the line for the others, and hands the line to the regex as a
//! candidate. The regex alone decides whether it matches, so the results are the regex's.
//!
//! Sound by construction: each set is derived from the pattern's syntax tree by rules that
//! only ever over-approximate what a match can be ([`analyse`]); a pattern the rules do not
//! understand yields no set, and the regex then searches alone.

use std::cell::Cell;

use regex_syntax::hir::{Class, Hir, HirKind};

use crate::needles::{MAX_NEEDLES, Needle, Needles};

/// A set scanned for must stop the scan at fewer than this share of positions (about one in
/// 200 bytes); otherwise candidates come so often that the regex is better on its own.
const MAX_COST: f64 = 0.005;

/// Sets checked on a candidate's line besides the one scanned for.
const MAX_CHECKS: usize = 2;

/// Sets kept (each is sampled, see [`Required::find_candidate`]).
const MAX_SETS: usize = 4;

/// The sets are sampled after this many bytes were scanned since the last sample, and at the
/// first search.
const SAMPLE_EVERY: usize = 4 << 20;

/// Bytes of one sample: the start of the haystack being searched (a file is ~10 KB).
const SAMPLE_BYTES: usize = 16 << 10;

/// The candidate-line search for a pattern that requires literals.
#[derive(Debug, Clone)]
pub struct Required {
    /// The usable sets, cheapest estimate first.
    sets: Vec<Needles>,
    /// For each set as the one scanned for: the sets its lines are checked for.
    checks: Vec<Vec<usize>>,
    /// The set scanned for now.
    scan: Cell<usize>,
    /// Bytes scanned since the last sample (it starts full: the first search samples).
    unsampled: Cell<usize>,
    /// Occurrences of each set counted in all samples so far.
    hits: Vec<Cell<u64>>,
}

impl Required {
    /// The search for `hir`'s required literals, or `None` when it requires none that are
    /// rare enough to pay for the scan.
    pub fn of(hir: &Hir) -> Option<Required> {
        if regex_is_accelerated(hir) {
            return None;
        }
        let facts = analyse(hir);
        // The whole pattern's strings are required too (`TODO|FIXME`, `Größe`).
        let all = facts.required.into_iter().chain(facts.strings);
        let mut sets: Vec<Needles> =
            all.filter_map(usable).filter(|s| s.cost() < MAX_COST).collect();
        if sets.is_empty() {
            return None;
        }
        sets.sort_by(|a, b| a.cost().total_cmp(&b.cost()));
        sets.truncate(MAX_SETS);
        let checks = (0..sets.len())
            .map(|scan| {
                let mut checks: Vec<usize> = Vec::new();
                for (i, set) in sets.iter().enumerate() {
                    // A set that every needle already found implies is not worth checking.
                    let implied =
                        sets[scan].implies(set) || checks.iter().any(|&c| sets[c].implies(set));
                    if i != scan && !implied && checks.len() < MAX_CHECKS {
                        checks.push(i);
                    }
                }
                checks
            })
            .collect();
        let hits = sets.iter().map(|_| Cell::new(0)).collect();
        Some(Required {
            sets,
            checks,
            scan: Cell::new(0),
            unsampled: Cell::new(SAMPLE_EVERY),
            hits,
        })
    }

    /// The offset of a needle of the scanned set in the first line of `haystack` that holds
    /// a needle of every checked set (the line's candidate position).
    ///
    /// Which set is scanned for is measured, not guessed: the estimate from byte frequencies
    /// picks first (`Error` is rarer than `impl`/`struct` in most code), then every
    /// [`SAMPLE_EVERY`] bytes the start of the haystack is counted for each set, and the scan
    /// moves to a set with less than half the occurrences of the current one so far (in a
    /// tree where every line says `Error`, to `impl`/`struct`). Every set is required, so
    /// the choice changes the speed only, never the lines found.
    pub fn find_candidate(&self, haystack: &[u8]) -> Option<usize> {
        if self.sets.len() > 1 && self.unsampled.get() >= SAMPLE_EVERY {
            self.sample(haystack);
        }
        let scan = self.scan.get();
        let (set, checks) = (&self.sets[scan], &self.checks[scan]);
        let mut from = 0;
        let found = loop {
            let Some(at) = set.find(haystack, from) else { break None };
            let start = memchr::memrchr(b'\n', &haystack[..at]).map_or(0, |i| i + 1);
            let end = memchr::memchr(b'\n', &haystack[at..]).map_or(haystack.len(), |i| at + i);
            let line = &haystack[start..end];
            if checks.iter().all(|&c| self.sets[c].find(line, 0).is_some()) {
                break Some(at);
            }
            from = end + 1;
        };
        self.unsampled.set(self.unsampled.get().saturating_add(found.unwrap_or(haystack.len())));
        found
    }

    /// Count each set's occurrences in the start of `haystack`; scan for the set with the
    /// fewest so far when it has less than half the current one's.
    fn sample(&self, haystack: &[u8]) {
        self.unsampled.set(0);
        let sample = &haystack[..haystack.len().min(SAMPLE_BYTES)];
        for (set, hits) in self.sets.iter().zip(&self.hits) {
            let (mut n, mut from) = (0, 0);
            while let Some(at) = set.find(sample, from) {
                n += 1;
                from = at + 1;
            }
            hits.set(hits.get() + n);
        }
        let current = self.scan.get();
        let fewest =
            (0..self.sets.len()).min_by_key(|&i| (self.hits[i].get(), i)).unwrap_or(current);
        if self.hits[fewest].get() * 2 < self.hits[current].get() {
            self.scan.set(fewest);
        }
    }

    /// The sets, scanned one first, then those its lines are checked for (for tests).
    #[cfg(test)]
    pub fn sets(&self) -> impl Iterator<Item = &Needles> {
        let scan = self.scan.get();
        std::iter::once(&self.sets[scan]).chain(self.checks[scan].iter().map(|&c| &self.sets[c]))
    }
}

/// Whether the regex crate searches `hir` well on its own: its matches start with one literal
/// of two bytes or more, which its prefilter finds with memchr's `memmem` (SIMD on wasm32
/// too), and no Unicode word boundary makes its lazy DFA give up on non-ASCII text. Then it
/// scans a whole buffer in one call, which is cheaper than one call per candidate line
/// (measured: `fn [a-z_]+_[0-9]+\((self|ctx)` 1.25× slower with the scan).
fn regex_is_accelerated(hir: &Hir) -> bool {
    if hir.properties().look_set().contains_word_unicode() {
        return false;
    }
    let prefixes = regex_syntax::hir::literal::Extractor::new().extract(hir);
    matches!(prefixes.literals(), Some([one]) if one.len() >= 2)
}

/// `set` as a scan, when none of its needles is empty or holds a line terminator (a match
/// never does: grep matches within one line).
fn usable(set: Vec<Needle>) -> Option<Needles> {
    if set.iter().any(|n| n.len() == 0 || n.bytes.contains(&b'\n')) {
        return None;
    }
    Needles::new(minimal(set))
}

/// `set` without the needles that contain another of its needles (a line holding the longer
/// one holds the shorter).
fn minimal(mut set: Vec<Needle>) -> Vec<Needle> {
    set.sort();
    set.dedup();
    let keep: Vec<bool> = set
        .iter()
        .enumerate()
        .map(|(i, n)| !set.iter().enumerate().any(|(j, m)| i != j && n.contains(m)))
        .collect();
    set.into_iter().zip(keep).filter_map(|(n, k)| k.then_some(n)).collect()
}

/// What is known about the matches of one part of a pattern.
#[derive(Debug, Default)]
struct Facts {
    /// A small set of strings that every match is one of (a superset: looks such as `\b`
    /// count as the empty string), or `None` when there is no small one.
    strings: Option<Vec<Needle>>,
    /// Sets of which every match contains one needle each.
    required: Vec<Vec<Needle>>,
}

impl Facts {
    fn strings(strings: Vec<Needle>) -> Facts {
        Facts { strings: Some(strings), required: Vec::new() }
    }

    /// The best single set of which every match contains a needle: its strings when they
    /// hold no empty one, or its cheapest required set.
    fn best(&self) -> Option<Vec<Needle>> {
        let own = self.strings.iter().filter(|s| s.iter().all(|n| n.len() > 0));
        own.chain(&self.required)
            .filter_map(|set| Some((Needles::new(set.clone())?.cost(), set)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, set)| set.clone())
    }
}

/// The facts of `hir`, bottom up.
fn analyse(hir: &Hir) -> Facts {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Facts::strings(vec![Needle::exact(b"")]),
        // A literal is required too, but every run or repetition holding it says so.
        HirKind::Literal(lit) => Facts::strings(vec![Needle::exact(&lit.0)]),
        HirKind::Class(class) => Facts { strings: class_strings(class), required: Vec::new() },
        HirKind::Capture(cap) => analyse(&cap.sub),
        HirKind::Repetition(rep) => {
            let sub = analyse(&rep.sub);
            match (rep.min, rep.max) {
                // `x?`: x or nothing; nothing is required.
                (0, Some(1)) => Facts {
                    strings: sub.strings.map(|mut s| {
                        s.push(Needle::exact(b""));
                        s
                    }),
                    required: Vec::new(),
                },
                (0, _) => Facts::default(),
                // At least one x: whatever x requires, and x itself.
                (min, max) => {
                    let mut required = sub.required;
                    required.extend(sub.strings.clone().filter(|s| s.iter().all(|n| n.len() > 0)));
                    let strings = if (min, max) == (1, Some(1)) { sub.strings } else { None };
                    Facts { strings, required }
                }
            }
        }
        HirKind::Concat(subs) => concat(subs),
        HirKind::Alternation(subs) => {
            let facts: Vec<Facts> = subs.iter().map(analyse).collect();
            let strings = facts
                .iter()
                .map(|f| f.strings.clone())
                .collect::<Option<Vec<_>>>()
                .map(|sets| sets.concat())
                .filter(|s| s.len() <= MAX_NEEDLES);
            // Each branch requires its best set: the alternation requires their union.
            let required = facts
                .iter()
                .map(Facts::best)
                .collect::<Option<Vec<_>>>()
                .map(|sets| minimal(sets.concat()))
                .filter(|s| s.len() <= MAX_NEEDLES);
            Facts { strings, required: required.into_iter().collect() }
        }
    }
}

/// A concatenation: adjacent parts with small string sets are joined into longer strings
/// (`\b`, `(get|set)`, `_` give `get_`/`set_`); each run that ends (at a part without a small
/// set, or when the product would grow too large) is required, and so is whatever each part
/// requires.
fn concat(subs: &[Hir]) -> Facts {
    let mut required = Vec::new();
    let mut run: Option<Vec<Needle>> = Some(vec![Needle::exact(b"")]);
    let mut whole = true;
    let end_run = |run: &mut Option<Vec<Needle>>, required: &mut Vec<Vec<Needle>>| {
        if let Some(set) = run.take().filter(|s| s.iter().all(|n| n.len() > 0)) {
            required.push(set);
        }
    };
    for sub in subs {
        let facts = analyse(sub);
        required.extend(facts.required);
        match (run.as_ref(), facts.strings) {
            (Some(prefixes), Some(next)) if prefixes.len() * next.len() <= MAX_NEEDLES => {
                run = Some(prefixes.iter().flat_map(|p| next.iter().map(|n| p.then(n))).collect());
            }
            (_, next) => {
                whole = false;
                end_run(&mut run, &mut required);
                run = next.filter(|s| s.len() <= MAX_NEEDLES);
            }
        }
    }
    let strings = if whole { run.clone() } else { None };
    end_run(&mut run, &mut required);
    Facts { strings, required }
}

/// The strings a class matches, when there are few: each ASCII letter whose two cases are
/// both in it as one folded needle, every other member as its UTF-8 bytes.
fn class_strings(class: &Class) -> Option<Vec<Needle>> {
    let mut members: Vec<u32> = Vec::new();
    let mut bytes_class = false;
    match class {
        Class::Unicode(c) => {
            for r in c.ranges() {
                let (start, end) = (r.start() as u32, r.end() as u32);
                if members.len() + (end - start) as usize >= 2 * MAX_NEEDLES {
                    return None;
                }
                members.extend(start..=end);
            }
        }
        Class::Bytes(c) => {
            bytes_class = true;
            for r in c.ranges() {
                let (start, end) = (u32::from(r.start()), u32::from(r.end()));
                if members.len() + (end - start) as usize >= 2 * MAX_NEEDLES {
                    return None;
                }
                members.extend(start..=end);
            }
        }
    }
    let has = |m: u32| members.binary_search(&m).is_ok();
    let mut strings = Vec::new();
    for &m in &members {
        let upper_of =
            m.checked_sub(0x20).filter(|_| (u32::from(b'a')..=u32::from(b'z')).contains(&m));
        let lower_of = (u32::from(b'A')..=u32::from(b'Z')).contains(&m).then_some(m + 0x20);
        match (upper_of, lower_of) {
            (Some(upper), _) if has(upper) => strings.push(Needle::folded(m as u8)),
            (_, Some(lower)) if has(lower) => {} // taken with its lowercase letter
            _ if bytes_class || m < 0x80 => strings.push(Needle::exact(&[m as u8])),
            _ => {
                let c = char::from_u32(m)?;
                strings.push(Needle::exact(c.encode_utf8(&mut [0; 4]).as_bytes()));
            }
        }
    }
    (strings.len() <= MAX_NEEDLES).then_some(strings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literal::LiteralMatcher;
    use crate::test_support::{lines, regex};

    /// A set as its sorted needles, written with `~` before a letter of either case.
    fn names(set: &Needles) -> Vec<String> {
        set.needles()
            .iter()
            .map(|n| {
                let marked: Vec<u8> = n
                    .bytes
                    .iter()
                    .zip(&n.fold)
                    .flat_map(|(&b, &f)| if f != 0 { vec![b'~', b] } else { vec![b] })
                    .collect();
                String::from_utf8(marked).unwrap()
            })
            .collect()
    }

    fn required(pattern: &str) -> Option<Required> {
        Required::of(&regex_syntax::ParserBuilder::new().build().parse(pattern).unwrap())
    }

    /// The sets `pattern` is searched with, scanned one first.
    fn sets(pattern: &str) -> Option<Vec<Vec<String>>> {
        Some(required(pattern)?.sets().map(names).collect())
    }

    fn strs(sets: &[&[&str]]) -> Option<Vec<Vec<String>>> {
        Some(sets.iter().map(|s| s.iter().map(|n| n.to_string()).collect()).collect())
    }

    #[test]
    fn required_literals_of_everyday_patterns() {
        assert_eq!(
            sets(r"\b(impl|struct)\s+[A-Z]\w+Error\b"),
            strs(&[&["Error"], &["impl", "struct"]])
        );
        assert_eq!(sets("(TODO|FIXME|XXX)"), strs(&[&["FIXME", "TODO", "XXX"]]));
        assert_eq!(sets(r"(?i)\b(todo|fixme)\b"), strs(&[&["~f~i~x~m~e", "~t~o~d~o"]]));
        assert_eq!(sets(r"\b(get|set)_\w+"), strs(&[&["get_", "set_"]]));
        assert_eq!(sets("fn (new|default)"), strs(&[&["fn default", "fn new"]]));
        assert_eq!(sets(r"(?i)kilo\w"), strs(&[&["~k~i~l~o", "\u{212a}~i~l~o"]]));
        assert_eq!(sets(r"\bGr\u{f6}\u{df}e\w*"), strs(&[&["Gr\u{f6}\u{df}e"]]));
        assert_eq!(sets(r"(foo|ba[rz])+\d"), strs(&[&["bar", "baz", "foo"]]));
        // Optional parts join the strings but are not required on their own.
        assert_eq!(sets(r"colou?r\("), strs(&[&["color(", "colour("]]));
        // One leading literal and no Unicode `\b`: the regex's own memmem prefilter does it.
        for accelerated in [r"fn [a-z_]+_[0-9]+\((self|ctx)", "Gr\u{f6}\u{df}e", r"(?-u:\b)impl\s"]
        {
            assert_eq!(sets(accelerated), None, "{accelerated}");
        }
        // Nothing rare enough, or nothing required.
        for none in [r"\w+", "a*", "(impl)?x", r"[a-z]+\s", "e", r"\bfoo|\w+", "a.b", r"(?s).", ""]
        {
            assert_eq!(sets(none), None, "{none}");
        }
    }

    #[test]
    fn the_scan_moves_to_the_set_that_is_rarer_in_the_text() {
        let required = required(r"\b(impl|struct)\s+[A-Z]\w+Error\b").unwrap();
        let text = "let e: Error = Error::new();\n".repeat(100) + "impl FooError {}\n";
        assert_eq!(required.find_candidate(text.as_bytes()), text.find("impl"));
        assert_eq!(names(required.sets().next().unwrap()), ["impl", "struct"]);
        // Where the estimate was right, it stays.
        let required = self::required(r"\b(impl|struct)\s+[A-Z]\w+Error\b").unwrap();
        let text = "impl Foo {}\n".repeat(100) + "impl FooError {}\n";
        assert_eq!(required.find_candidate(text.as_bytes()), text.rfind("Error"));
        assert_eq!(names(required.sets().next().unwrap()), ["Error"]);
    }

    /// The pieces the random texts are made of.
    const PIECES: &[&str] = &[
        "impl",
        "struct",
        "Impl",
        "STRUCT",
        " ",
        "  ",
        "\t",
        "\u{a0}",
        "\n",
        "\n",
        "Foo",
        "ParseError",
        "Error",
        "\u{c9}rror",
        "\u{e9}",
        "x",
        "_",
        "TODO",
        "todo",
        "Todo",
        "FIXME",
        "fixme",
        "XXX",
        "get",
        "set_",
        "get_",
        "fn ",
        "new",
        "default",
        "Gr\u{f6}\u{df}e",
        "GR\u{d6}SSE",
        "kilo",
        "\u{212a}ilo",
        "colour(",
        "color(",
        "(",
        "9",
        "\r\n",
        "fn new",
        "fn default",
        "impl ParseError",
        "struct X\u{e9}Error",
        "impl\u{a0}FooError",
        "struct \u{c9}Error",
    ];

    /// The patterns whose required literals are compared with the regex alone.
    const PATTERNS: &[&str] = &[
        r"\b(impl|struct)\s+[A-Z]\w+Error\b",
        "(TODO|FIXME|XXX)",
        r"(?i)\b(todo|fixme)\b",
        r"(?i)(todo|fixme|xxx)",
        r"\b(get|set)_\w+",
        r"fn (new|default)",
        r"(?i)kilo\w?",
        r"\bGr\u{f6}\u{df}e",
        r"(?i)gr\u{f6}\u{df}e",
        r"colou?r\(",
        r"\b(impl|struct)\b",
        r"(?i)\b(impl|struct)\s+\w+",
    ];

    /// With the required-literal scan, grep reports exactly the lines the regex alone does:
    /// random texts of the needles' case variants, word characters, spaces and non-ASCII
    /// letters right next to them, and line breaks between any two pieces.
    #[test]
    fn the_scan_finds_exactly_the_lines_the_regex_finds() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let matchers: Vec<_> =
            PATTERNS.iter().map(|p| (p, LiteralMatcher::new(p, regex(p)), regex(p))).collect();
        for (pattern, fast, _) in &matchers {
            assert!(fast.has_required(), "{pattern}");
        }
        let mut found = vec![0; matchers.len()];
        for round in 0..400 {
            let len = (next() % 120) as usize;
            let text: String =
                (0..len).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect();
            for (i, (pattern, fast, slow)) in matchers.iter().enumerate() {
                let expected = lines(slow, text.as_bytes());
                assert_eq!(
                    lines(fast, text.as_bytes()),
                    expected,
                    "round {round}, {pattern:?} in {text:?}"
                );
                found[i] += expected.len();
            }
        }
        // Every pattern matched often enough for the comparison to mean something.
        assert!(found.iter().all(|&n| n > 50), "{found:?}");
    }
}
