//! The one matcher under every tolerant edit format: codex/OpenAI `apply_patch` hunks,
//! Anthropic's `str_replace` and the `multi_edit` tool. It is never ambiguous: every tier
//! must find exactly one place, or the call fails saying where the candidates are.
//!
//! # Map
//!
//! * [`Tier`] (`tier.rs`): how leniently lines are compared, strictest first, with
//!   [`Tier::name`], [`Tier::describe`] and [`Tier::matched_at`] for the caller's text.
//! * [`find_lines`] (`lines.rs`) finds a hunk's lines in a file's lines and returns a
//!   [`LineMatch`]; the caller then re-indents its replacement with [`reindent`]
//!   (`reindent.rs`) when [`Tier::reindents`].
//! * [`replace`] (`replace.rs`) replaces a substring, exactly or by whole lines, re-indenting
//!   and keeping the file's line ending itself, and returns a [`Replaced`].
//! * Both fail with a [`MatchError`] (`error.rs`); `NotFound` carries what fixes it, a
//!   [`MissingLine`] and the closest [`Region`] with a diff, made by `diagnose.rs`.
//!
//! A call prepares every form of every file and pattern line once, then tries the tiers in
//! order; the first tier with any candidate decides: one candidate is the match, several are
//! [`MatchError::Ambiguous`] and no later tier is tried; none anywhere is
//! [`MatchError::NotFound`].
//!
//! # Rules
//!
//! * Tiers, strictest first: [`Tier::Exact`] byte for byte; [`Tier::TrailingWhitespace`]
//!   trailing whitespace of each line ignored; [`Tier::Indentation`] leading and trailing
//!   whitespace ignored, and the replacement re-indented by the difference between the first
//!   non-blank pattern line and the file line it matched; [`Tier::Normalised`] as that, plus
//!   CRLF against LF and Unicode dashes, curly quotes and Unicode spaces read as ASCII
//!   ([`normalise_char`]); [`Tier::TabsSpaces`] as that, the indentation judged by widths
//!   with a tab 4 or 8 columns wide. A line's final `\r` is its ending: the tiers up to
//!   `Indentation` require endings to agree.
//! * One shift (`shift.rs`): a tier that ignores indentation accepts a place only when every
//!   non-blank pattern line sits there with the same shift of indentation as the first
//!   (characters for `Indentation` and `Normalised`, widths for `TabsSpaces`), so the
//!   re-indented replacement keeps the structure the model wrote; a body flattened to the
//!   level of its `def` matches under no tier.
//! * Lines ([`find_lines`]): candidates are the places at or after `start`, uniqueness judged
//!   among them; overlapping places count separately. With `eof`, the place ending at the
//!   last line is tried first under every tier, then the normal search from `start` runs
//!   (as codex's `seek_sequence` does). An empty pattern matches at `start`.
//! * Substrings ([`replace`]): `old` must be non-empty. `Exact` is substring search over the
//!   whole text (non-overlapping occurrences; `replace_all` replaces every one). Only with no
//!   exact occurrence do the other tiers run, on whole lines: `old` split into lines (a
//!   trailing newline adds no empty line) against whole lines of the text, `new` replacing
//!   those whole lines with the file's line ending. `replace_all` replaces every
//!   non-overlapping place of the first tier that has any and says how many.
//! * Line numbers: when every non-blank pattern line starts with a number as read/view
//!   output prints it (`^\s*\d+\t`, `^\s*\d+: `, `^\s*\d+\|`) and the text matches nowhere
//!   exactly, the call fails with [`MatchError::LineNumberPrefixes`] before any tolerant tier
//!   runs; the numbers are never stripped.
//! * Not found: [`MatchError::NotFound`] names the first pattern line that occurs nowhere in
//!   the file (even normalised) and the closest region: the window as long as the pattern
//!   with the most pattern lines equal under `Normalised` at the same offset (earliest on a
//!   tie), with its 1-based lines and an LCS line diff of at most 20 lines.
//! * No edit distance, no "first and last line" rule: a place is only ever accepted when
//!   every one of its lines matches under the tier.
//! * Work: O(file lines x pattern lines) per tier, forms precomputed once per call; only
//!   `std`, no unsafe (the crate is built for `wasm32-wasip2` as well as natively).

mod diagnose;
mod error;
mod lines;
mod reindent;
mod replace;
mod shift;
mod tier;

pub use diagnose::{MAX_DIFF_LINES, MAX_LCS_CELLS};
pub use error::{MAX_LISTED, MatchError, MissingLine, Region};
pub use lines::{LineMatch, find_lines};
pub use reindent::reindent;
pub use replace::{Replaced, line_ending, replace};
pub use tier::{Tier, normalise_char};
