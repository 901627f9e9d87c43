//! One shift of indentation: a tier that ignores indentation ([`Tier::Indentation`] and
//! after) accepts a place only when the pattern sits there with **one** shift, so that the
//! re-indented replacement keeps the structure the model wrote.
//!
//! The shift is taken from the first non-blank pattern line `P` and the file line it meets
//! `F` (their leading whitespace). Every other non-blank pattern line must meet a file line
//! whose leading whitespace is its own with `P` turned into `F` ([`shifted`], the rule
//! [`crate::reindent`] writes the replacement by). Under [`Tier::TabsSpaces`] the rule is
//! on widths instead, a tab 4 columns wide or else 8: every non-blank line's width differs
//! from its file line's by the same number of columns. A pattern whose relative indentation
//! differs from the file's (a body flattened to the level of its `def`) matches under no
//! tier: re-indenting it would write the wrong structure.

use crate::tier::{Forms, Tier, leading_whitespace};

/// The tab widths [`Tier::TabsSpaces`] tries, in order.
pub const TAB_WIDTHS: [usize; 2] = [4, 8];

/// `lead` (a line's leading whitespace) with the reference `p` turned into `f`: `f` plus the
/// rest when `lead` starts with `p`; `f` shortened by what `lead` lacks when `lead` is a
/// prefix of `p`; none otherwise (or when `f` is too short).
pub(crate) fn shifted(lead: &str, p: &str, f: &str) -> Option<String> {
    if let Some(rest) = lead.strip_prefix(p) {
        return Some(format!("{f}{rest}"));
    }
    let less = p.strip_prefix(lead)?;
    let keep = f.len().checked_sub(less.len())?;
    f.is_char_boundary(keep).then(|| f[..keep].to_owned())
}

/// The columns `lead` takes with tabs `tab` wide.
pub(crate) fn width(lead: &str, tab: usize) -> usize {
    lead.chars().fold(0, |w, c| if c == '\t' { (w / tab + 1) * tab } else { w + 1 })
}

/// Whether the non-blank `pattern` lines meet the `file` lines (the same count, already equal
/// under `tier` line by line) with one shift of indentation (module docs). Always true for
/// the tiers that do not ignore indentation.
pub(crate) fn one_shift<'a>(tier: Tier, pattern: &[Forms<'a>], file: &[Forms<'a>]) -> bool {
    if tier < Tier::Indentation {
        return true;
    }
    fn lead<'a>(l: &Forms<'a>) -> &'a str {
        leading_whitespace(l.body())
    }
    let mut pairs = pattern.iter().zip(file).filter(|(p, _)| !p.trim.is_empty());
    let Some((p0, f0)) = pairs.next() else {
        return true;
    };
    let (p, f) = (lead(p0), lead(f0));
    if tier == Tier::TabsSpaces {
        return tab_width(pairs.map(|(pl, fl)| (lead(pl), lead(fl))), p, f).is_some();
    }
    pairs.all(|(pl, fl)| shifted(lead(pl), p, f).as_deref() == Some(lead(fl)))
}

/// The first of [`TAB_WIDTHS`] under which every `(pattern, file)` leading whitespace pair
/// differs in width by what `p` and `f` do.
pub(crate) fn tab_width<'s>(
    pairs: impl Iterator<Item = (&'s str, &'s str)> + Clone,
    p: &str,
    f: &str,
) -> Option<usize> {
    TAB_WIDTHS.into_iter().find(|&tab| {
        let delta = width(f, tab) as i64 - width(p, tab) as i64;
        pairs.clone().all(|(pl, fl)| width(fl, tab) as i64 == width(pl, tab) as i64 + delta)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tier::Interner;

    fn forms<'a>(lines: &'a [&'a str], interner: &mut Interner<'a>) -> Vec<Forms<'a>> {
        lines.iter().map(|l| Forms::new(l, true, interner)).collect()
    }

    fn check(tier: Tier, pattern: &[&str], file: &[&str]) -> bool {
        let mut i = Interner::default();
        let (p, f) = (forms(pattern, &mut i), forms(file, &mut i));
        one_shift(tier, &p, &f)
    }

    #[test]
    fn a_uniform_shift_is_one_and_a_flattened_body_is_not() {
        let file = ["    def g(self):", "        return 1"];
        assert!(check(Tier::Indentation, &["def g(self):", "    return 1"], &file));
        assert!(check(Tier::Indentation, &["      def g(self):", "          return 1"], &file));
        assert!(!check(Tier::Indentation, &["def g(self):", "return 1"], &file));
        assert!(!check(Tier::Normalised, &["def g(self):", "        return 1"], &file));
        assert!(check(Tier::Exact, &["x"], &["y"]), "only lenient tiers are judged");
    }

    #[test]
    fn tabs_and_spaces_are_judged_by_width() {
        let file = ["\tif x {", "\t\ty();", "\t}"];
        let pattern = ["    if x {", "        y();", "    }"];
        assert!(!check(Tier::Indentation, &pattern, &file));
        assert!(check(Tier::TabsSpaces, &pattern, &file));
        assert!(!check(Tier::TabsSpaces, &["if x {", "y();", "}"], &file));
        assert_eq!(width("\t  ", 4), 6);
        assert_eq!(width("  \t", 8), 8);
    }

    #[test]
    fn shifting_turns_the_reference_into_the_files() {
        assert_eq!(shifted("      ", "  ", "\t").as_deref(), Some("\t    "));
        assert_eq!(shifted("", "    ", "        ").as_deref(), Some("    "));
        assert_eq!(shifted("\t", "    ", "        "), None);
        assert_eq!(shifted("", "    ", "  "), None);
    }
}
