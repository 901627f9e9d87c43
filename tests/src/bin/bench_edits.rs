//! `cargo xtask bench edits`: how often an edit lands where the model meant it — accuracy,
//! not speed.
//!
//! The corpus is real code already on this machine ([`corpus`]): Rust files in cargo's
//! registry and Python's standard library, a deterministic sample. In each file one block of
//! 3–8 consecutive non-blank lines is the target and one identifier of its middle line is
//! renamed; the expected result is the file with exactly that block replaced. The old text is
//! then given nine ways ([`perturb::Perturbation`]), the ways models get it wrong: six a
//! matcher can recover from, three (stale context, an ambiguous block, copied line numbers)
//! it must refuse.
//!
//! Every case runs through toolhost in three formats, each in one long-running `toolhost
//! session` ([`host`]), each case on a fresh copy of its file, read first; and through two
//! peers in the same run ([`peers`]): aider's SEARCH/REPLACE matcher
//! (`tests/mcp/edits_aider.py`) and codex's own `apply_patch`, both installed by xtask under
//! `target/bench-peers` (a peer that is not there is left out, saying so). Each file is then
//! compared with the expected text ([`report`]): applied right, refused (unchanged), or
//! applied wrong (changed, but not to the expected text: the wrong place, or the right place
//! with the wrong text). Nothing here fails on a figure.
//!
//! Options: `--cases N` base blocks (default 200, half Rust and half Python; nine cases
//! each); `--keep` keeps every case's directory under `target/bench-edits` (otherwise only
//! the wrongly applied ones are kept, for inspection).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use perturb::Perturbation;
use report::{Attempt, Outcome};

/// Base blocks when `--cases` is not given.
const DEFAULT_CASES: usize = 200;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cases = option(&args, "--cases").map_or(DEFAULT_CASES, |n| {
        n.parse().unwrap_or_else(|_| panic!("--cases takes a number, not {n:?}"))
    });
    let keep = args.iter().any(|a| a == "--keep");
    let target = toolhost_tests::profile_dir().parent().expect("target dir").to_path_buf();

    let (bases, summary) = corpus::bases(cases);
    println!("{summary}");
    let cases: Vec<perturb::Case> = bases
        .iter()
        .enumerate()
        .flat_map(|(i, base)| Perturbation::ALL.into_iter().map(move |p| perturb::case(i, base, p)))
        .collect();

    let scratch = target.join("bench-edits");
    let _ = std::fs::remove_dir_all(&scratch);
    let home = scratch.join("home");
    std::fs::create_dir_all(&home).unwrap();

    let mut editors: Vec<Box<dyn Editor>> = host::Format::ALL
        .into_iter()
        .map(|f| Box::new(host::Toolhost::start(f, &scratch, &home)) as Box<dyn Editor>)
        .collect();
    let peers_dir = target.join("bench-peers");
    match peers::Aider::start(&peers_dir, &home) {
        Ok(aider) => editors.push(Box::new(aider)),
        Err(why) => println!("aider: left out ({why})"),
    }
    match peers::Codex::find(&peers_dir, &home) {
        Ok(codex) => editors.push(Box::new(codex)),
        Err(why) => println!("codex: left out ({why})"),
    }

    // Each editor on its own thread over its own directory: the outcomes do not depend on
    // the order, and the two cores are both used.
    let runs: Vec<Run> = std::thread::scope(|s| {
        let handles: Vec<_> = editors
            .into_iter()
            .map(|mut editor| {
                let cases = &cases;
                s.spawn(move || run(editor.as_mut(), cases, keep))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("an editor's thread panicked")).collect()
    });
    report::print(&cases, &runs, &scratch);
}

/// The value after `name` in `args`.
fn option<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(String::as_str)
}

/// One way of applying an edit: a toolhost format or a peer.
trait Editor: Send {
    /// Its column in the tables.
    fn name(&self) -> String;
    /// Applies `case`'s edit to the file `dir/<case.name>` (already written: `case.file`),
    /// `rel` being that file relative to the editor's root.
    fn apply(&mut self, dir: &Path, rel: &str, case: &perturb::Case) -> Attempt;
    /// The directory the cases' directories are made in.
    fn root(&self) -> PathBuf;
}

/// What one editor did with every case.
pub struct Run {
    /// [`Editor::name`].
    pub name: String,
    /// Whether it is one of toolhost's formats (its ambiguity refusals must name lines).
    pub toolhost: bool,
    /// One per case, in case order.
    pub outcomes: Vec<Outcome>,
    /// How long all the cases took (printed, never judged).
    pub elapsed: Duration,
}

/// Runs every case through `editor`, each on a fresh copy of its file in a directory of its
/// own, and classifies what the file became.
fn run(editor: &mut dyn Editor, cases: &[perturb::Case], keep: bool) -> Run {
    let root = editor.root();
    let started = Instant::now();
    let outcomes = cases
        .iter()
        .map(|case| {
            let dir = root.join(&case.id);
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(&case.name);
            std::fs::write(&path, &case.file).unwrap();
            let attempt = editor.apply(&dir, &format!("{}/{}", case.id, case.name), case);
            let after = std::fs::read(&path).unwrap_or_default();
            let outcome = report::classify(case, &after, attempt);
            if !keep && outcome.kind != report::Kind::Wrong {
                let _ = std::fs::remove_dir_all(&dir);
            }
            outcome
        })
        .collect();
    Run {
        name: editor.name(),
        toolhost: editor.name().starts_with("toolhost"),
        outcomes,
        elapsed: started.elapsed(),
    }
}

/// Small text helpers shared by the corpus and the perturbations.
mod text {
    /// The ASCII character a typographic dash, quote or space stands for, as toolhost's
    /// matcher reads it (`edit-match`'s `normalise_char`); any other is itself.
    pub fn fold_char(c: char) -> char {
        match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{2018}'..='\u{201B}' => '\'',
            '\u{201C}'..='\u{201F}' => '"',
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
            other => other,
        }
    }

    /// A line as the most lenient tier compares it: trimmed, punctuation folded.
    pub fn loose(line: &str) -> String {
        line.trim().chars().map(fold_char).collect()
    }

    /// How many places in `lines` hold `block` line for line, compared [`loose`]ly.
    pub fn loose_places(lines: &[String], block: &[String]) -> usize {
        let block: Vec<String> = block.iter().map(|l| loose(l)).collect();
        let lines: Vec<String> = lines.iter().map(|l| loose(l)).collect();
        lines.windows(block.len()).filter(|w| *w == block.as_slice()).count()
    }

    /// The byte ranges of the ASCII identifiers of at least three characters in `line`.
    pub fn identifiers(line: &str) -> Vec<std::ops::Range<usize>> {
        let b = line.as_bytes();
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if (b[i].is_ascii_alphabetic() || b[i] == b'_') && (i == 0 || !word(b[i - 1])) {
                let start = i;
                while i < b.len() && word(b[i]) {
                    i += 1;
                }
                if i - start >= 3 {
                    out.push(start..i);
                }
            } else {
                i += 1;
            }
        }
        out
    }

    /// `line` with the identifier at `r` followed by `suffix`.
    pub fn rename(line: &str, r: std::ops::Range<usize>, suffix: &str) -> String {
        format!("{}{suffix}{}", &line[..r.end], &line[r.end..])
    }

    /// The leading whitespace of `line`.
    pub fn indent(line: &str) -> &str {
        &line[..line.len() - line.trim_start().len()]
    }

    /// FNV-1a of `s`: a stable hash (the same on every machine and build) to pick blocks by.
    pub fn fnv(s: &str) -> u64 {
        s.bytes()
            .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
    }

    /// `lines` joined by `\n`, with a final `\n`: a file's text.
    pub fn file_of(lines: &[String]) -> String {
        let mut s = lines.join("\n");
        s.push('\n');
        s
    }
}

/// The corpus: real files, and in each one block to edit.
mod corpus {
    use std::path::{Path, PathBuf};

    use crate::text;

    /// Files larger than this are skipped (the cases copy each file nine times per editor).
    const MAX_FILE_BYTES: u64 = 256 * 1024;
    /// Lines longer than this are not picked into a block.
    const MAX_LINE_CHARS: usize = 200;

    /// One target block in one real file, and its intended replacement.
    pub struct Base {
        /// Where the file came from, for the report (below the registry or `/usr/lib`).
        pub source: String,
        /// The file's name (each case's copy is `<case dir>/<name>`).
        pub name: String,
        /// The file's lines, without line breaks (the file ends with one).
        pub lines: Vec<String>,
        /// The block's first line, 0-based.
        pub start: usize,
        /// The block's lines as the file has them.
        pub old: Vec<String>,
        /// The intended replacement: `old` with one identifier of the middle line renamed.
        pub new: Vec<String>,
        /// `old` with one identifier of its first line renamed, as if an earlier edit had
        /// changed that line (for [`crate::perturb::Perturbation::Stale`]).
        pub stale_first: String,
    }

    /// `want` base blocks, about half from Python's standard library and the rest from the
    /// Rust files in cargo's registry, and a paragraph saying what was taken.
    pub fn bases(want: usize) -> (Vec<Base>, String) {
        let (py_root, py_pool) = python_pool();
        let (rs_root, rs_pool) = rust_pool();
        let python = sample(&py_root, &py_pool, want / 2);
        let rust = sample(&rs_root, &rs_pool, want - python.len());
        let mut bases = rust;
        let (n_rust, n_python) = (bases.len(), python.len());
        bases.extend(python);
        let lines: usize = bases.iter().map(|b| b.old.len()).sum();
        let fingerprint = text::fnv(
            &bases
                .iter()
                .map(|b| format!("{}:{}:{}", b.source, b.start, b.old.len()))
                .collect::<String>(),
        );
        let summary = format!(
            "corpus: {n_rust} Rust files sampled from {} under {} and {n_python} Python files from {} \
             under {}; one block each, {lines} lines in all ({:.1} a block); corpus fingerprint {fingerprint:016x}",
            rs_pool.len(),
            rs_root.display(),
            py_pool.len(),
            py_root.display(),
            lines as f64 / bases.len().max(1) as f64,
        );
        (bases, summary)
    }

    /// `$CARGO_HOME/registry/src` (default `~/.cargo`), and every `.rs` file below it, sorted.
    fn rust_pool() -> (PathBuf, Vec<PathBuf>) {
        let home = std::env::var_os("CARGO_HOME").map(PathBuf::from).unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo")
        });
        let root = home.join("registry/src");
        let mut files = Vec::new();
        walk(&root, &mut files);
        files.retain(|p| p.extension().is_some_and(|e| e == "rs"));
        files.sort();
        (root, files)
    }

    /// `/usr/lib`, and the `.py` files directly in each `/usr/lib/python3*`, sorted.
    fn python_pool() -> (PathBuf, Vec<PathBuf>) {
        let root = PathBuf::from("/usr/lib");
        let mut files = Vec::new();
        for dir in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            if !dir.file_name().to_string_lossy().starts_with("python3") {
                continue;
            }
            for e in std::fs::read_dir(dir.path()).into_iter().flatten().flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "py")
                    && e.file_type().is_ok_and(|t| t.is_file())
                {
                    files.push(p);
                }
            }
        }
        files.sort();
        (root, files)
    }

    /// Every regular file below `dir` (symlinks not followed).
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => walk(&e.path(), out),
                Ok(t) if t.is_file() => out.push(e.path()),
                _ => {}
            }
        }
    }

    /// Up to `want` blocks from `pool`: every `len / want`-th file first, then the files after
    /// each of those, and so on, one block per file.
    fn sample(root: &Path, pool: &[PathBuf], want: usize) -> Vec<Base> {
        let mut out = Vec::new();
        if want == 0 || pool.is_empty() {
            return out;
        }
        let stride = (pool.len() / want).max(1);
        for offset in 0..stride {
            for path in pool.iter().skip(offset).step_by(stride) {
                if out.len() == want {
                    return out;
                }
                if let Some(base) = pick(root, path) {
                    out.push(base);
                }
            }
        }
        out
    }

    /// The block of `path`: from a place its name's hash picks, the first run of lines that
    /// [`qualifies`]; its length is 3–8, also from the hash.
    fn pick(root: &Path, path: &Path) -> Option<Base> {
        if std::fs::metadata(path).ok()?.len() > MAX_FILE_BYTES {
            return None;
        }
        let content = String::from_utf8(std::fs::read(path).ok()?).ok()?;
        if content.contains('\r') || !content.ends_with('\n') {
            return None;
        }
        let lines: Vec<String> =
            content.strip_suffix('\n')?.split('\n').map(str::to_owned).collect();
        let source = path.strip_prefix(root).unwrap_or(path).display().to_string();
        let h = text::fnv(&source);
        let len = 3 + (h % 6) as usize;
        if lines.len() < len + 10 {
            return None;
        }
        let first = (h >> 8) as usize % lines.len();
        (0..lines.len()).map(|o| (first + o) % lines.len()).find_map(|start| {
            let (new, stale_first) = qualifies(&content, &lines, start, len)?;
            Some(Base {
                source: source.clone(),
                name: path.file_name()?.to_string_lossy().into_owned(),
                lines: lines.clone(),
                start,
                old: lines[start..start + len].to_vec(),
                new,
                stale_first,
            })
        })
    }

    /// The replacement and the stale first line of the block `lines[start..start + len]`, if
    /// it can be a target: every line non-blank, ASCII, at most [`MAX_LINE_CHARS`], no `\t`
    /// but in the indentation; one kind of indentation (spaces or tabs) and some line indented
    /// at least 4 columns, so the whitespace perturbations change something; identifiers to
    /// rename in the first and middle lines, and a space between words in the middle one
    /// (for the non-breaking space of (e)); the block found once exactly and once under the
    /// loosest comparison, and its stale form nowhere.
    fn qualifies(
        content: &str,
        lines: &[String],
        start: usize,
        len: usize,
    ) -> Option<(Vec<String>, String)> {
        let block = lines.get(start..start + len)?;
        let line_ok = |l: &String| {
            !l.trim().is_empty()
                && l.is_ascii()
                && l.len() <= MAX_LINE_CHARS
                && !l.trim_start().contains('\t')
                && !l.trim_start().starts_with("***")
        };
        if !block.iter().all(line_ok) {
            return None;
        }
        let indents: Vec<&str> = block.iter().map(|l| text::indent(l)).collect();
        let tabs = indents.iter().any(|i| i.contains('\t'));
        let spaces = indents.iter().any(|i| i.contains(' '));
        if tabs == spaces {
            return None; // mixed, or no indentation at all
        }
        if !indents.iter().any(|i| i.contains('\t') || i.len() >= 4) {
            return None;
        }
        let mid = len / 2;
        if !block[mid].trim().contains(' ') {
            return None; // (e) needs a space between words of the middle line
        }
        let rename = text::identifiers(&block[mid]).pop()?;
        let stale = text::identifiers(&block[0]).into_iter().next()?;
        let mut new = block.to_vec();
        new[mid] = text::rename(&block[mid], rename, "_edited");
        let stale_first = text::rename(&block[0], stale, "_prev");
        if content.matches(&block.join("\n")).count() != 1 || text::loose_places(lines, block) != 1
        {
            return None;
        }
        let mut stale_block = block.to_vec();
        stale_block[0] = stale_first.clone();
        if text::loose_places(lines, &stale_block) != 0 {
            return None;
        }
        Some((new, stale_first))
    }
}

/// The nine ways the old text is given, and the case each makes of a base block.
mod perturb {
    use crate::corpus::Base;
    use crate::text;

    /// How the "model" gets the old text wrong.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Perturbation {
        /// (a) The old text exactly as the file has it.
        Exact,
        /// (b) Old and new text shifted uniformly by 4 columns (a tab in a tab-indented
        /// file): dedented when every line allows it and the case number is even, else
        /// indented. The model writes its replacement at the level it thinks the code is.
        Indent,
        /// (c) Old and new text with tabs and spaces swapped in the indentation (4 spaces a
        /// tab).
        TabsSpaces,
        /// (d) The file converted to CRLF; old and new given with LF. The expected file keeps
        /// CRLF, the new lines too.
        Crlf,
        /// (e) Typographic quotes, en dashes and a non-breaking space: in the old text where the
        /// file has ASCII (even base blocks), or in the file's block where the old text has
        /// ASCII (odd ones). The new text is the intended ASCII one; with the typographic
        /// characters in the file, the block's lines the edit leaves as they were may also stay
        /// as the file spells them ([`Case::also`]).
        Unicode,
        /// (f) Two trailing spaces after every line of the old text.
        TrailingSpaces,
        /// (g) The old text's first line differs from the file's (an identifier renamed, as if
        /// an earlier edit had changed it): must be refused.
        Stale,
        /// (h) A copy of the block appended to the end of the file, so the old text matches two
        /// places: must be refused (the copy comes after the target, so a tool that takes the
        /// first place lands on the intended one by luck; it still counts as applied wrong).
        Duplicate,
        /// (i) Every line of the old text prefixed `{n:6}\t`, as `cat -n` and `view` print it:
        /// must be refused.
        LineNumbers,
    }

    impl Perturbation {
        /// Every perturbation, in table order.
        pub const ALL: [Perturbation; 9] = [
            Perturbation::Exact,
            Perturbation::Indent,
            Perturbation::TabsSpaces,
            Perturbation::Crlf,
            Perturbation::Unicode,
            Perturbation::TrailingSpaces,
            Perturbation::Stale,
            Perturbation::Duplicate,
            Perturbation::LineNumbers,
        ];

        /// Its letter, as in the brief and the tables.
        pub fn letter(self) -> char {
            (b'a' + Self::ALL.iter().position(|&p| p == self).unwrap_or(0) as u8) as char
        }

        /// Its row label.
        pub fn label(self) -> &'static str {
            match self {
                Perturbation::Exact => "exact",
                Perturbation::Indent => "indentation shifted by 4",
                Perturbation::TabsSpaces => "tabs and spaces swapped",
                Perturbation::Crlf => "CRLF file, LF edit",
                Perturbation::Unicode => "curly quotes, en dash, NBSP",
                Perturbation::TrailingSpaces => "trailing spaces",
                Perturbation::Stale => "stale first line",
                Perturbation::Duplicate => "block also elsewhere",
                Perturbation::LineNumbers => "copied line numbers",
            }
        }

        /// Whether a matcher can find the one intended place (else it must refuse).
        pub fn recoverable(self) -> bool {
            !matches!(
                self,
                Perturbation::Stale | Perturbation::Duplicate | Perturbation::LineNumbers
            )
        }
    }

    /// One edit to apply to one file.
    pub struct Case {
        /// `c<base>` and the perturbation's letter: the case's directory.
        pub id: String,
        /// The base block's index.
        pub base: usize,
        /// How the old text was given.
        pub perturbation: Perturbation,
        /// The file's name.
        pub name: String,
        /// Where the file came from (for the report).
        pub source: String,
        /// The block's 1-based first line in the file.
        pub line: usize,
        /// The file's content before the edit.
        pub file: String,
        /// The old text as the "model" gives it (lines joined by `\n`, no final one).
        pub old: String,
        /// The new text as the "model" gives it (likewise).
        pub new: String,
        /// What the file must be afterwards: the block replaced, or (must refuse) unchanged.
        pub expected: String,
        /// Another text that counts as right: for (e) with the typographic characters in the
        /// file, the block's lines that the edit leaves as they were kept as the file spells
        /// them (only the middle line replaced), as a patch's context lines are.
        pub also: Option<String>,
    }

    /// The case of `base` (the `index`-th) under `p`.
    pub fn case(index: usize, base: &Base, p: Perturbation) -> Case {
        let replaced = |lines: &[String]| {
            let mut all = lines.to_vec();
            all.splice(base.start..base.start + base.old.len(), base.new.iter().cloned());
            text::file_of(&all)
        };
        let file = text::file_of(&base.lines);
        let intended = replaced(&base.lines);
        let (mut old, mut new) = (base.old.clone(), base.new.clone());
        let mut also = None;
        let (file, expected) = match p {
            Perturbation::Exact => (file, intended),
            Perturbation::Indent => {
                let tab = base.old.iter().any(|l| l.starts_with('\t'));
                let unit = if tab { "\t" } else { "    " };
                let dedent =
                    index.is_multiple_of(2) && base.old.iter().all(|l| l.starts_with(unit));
                for line in old.iter_mut().chain(new.iter_mut()) {
                    *line = if dedent {
                        line[unit.len()..].to_owned()
                    } else {
                        format!("{unit}{line}")
                    };
                }
                (file, intended)
            }
            Perturbation::TabsSpaces => {
                for line in old.iter_mut().chain(new.iter_mut()) {
                    *line = swap_indent(line);
                }
                (file, intended)
            }
            Perturbation::Crlf => (file.replace('\n', "\r\n"), intended.replace('\n', "\r\n")),
            Perturbation::Unicode if index.is_multiple_of(2) => {
                old = typographic(&old);
                (file, intended)
            }
            Perturbation::Unicode => {
                let mut lines = base.lines.clone();
                let curly = typographic(&base.old);
                lines.splice(base.start..base.start + base.old.len(), curly);
                let mut kept = lines.clone();
                for (i, (o, n)) in base.old.iter().zip(&base.new).enumerate() {
                    if o != n {
                        kept[base.start + i] = n.clone();
                    }
                }
                also = Some(text::file_of(&kept));
                (text::file_of(&lines), replaced(&lines))
            }
            Perturbation::TrailingSpaces => {
                for line in &mut old {
                    line.push_str("  ");
                }
                (file, intended)
            }
            Perturbation::Stale => {
                old[0] = base.stale_first.clone();
                new[0] = base.stale_first.clone();
                (file.clone(), file)
            }
            Perturbation::Duplicate => {
                let doubled = format!("{file}\n{}\n", base.old.join("\n"));
                (doubled.clone(), doubled)
            }
            Perturbation::LineNumbers => {
                for (i, line) in old.iter_mut().enumerate() {
                    *line = format!("{:6}\t{line}", base.start + 1 + i);
                }
                (file.clone(), file)
            }
        };
        Case {
            id: format!("c{index:04}{}", p.letter()),
            base: index,
            perturbation: p,
            name: base.name.clone(),
            source: base.source.clone(),
            line: base.start + 1,
            file,
            old: old.join("\n"),
            new: new.join("\n"),
            expected,
            also,
        }
    }

    /// `line` with its indentation's tabs as 4 spaces each, or its spaces as a tab per 4.
    fn swap_indent(line: &str) -> String {
        let lead = text::indent(line);
        let rest = &line[lead.len()..];
        if lead.contains('\t') {
            format!("{}{rest}", lead.replace('\t', "    "))
        } else {
            format!("{}{}{rest}", "\t".repeat(lead.len() / 4), " ".repeat(lead.len() % 4))
        }
    }

    /// `lines` with curly double quotes (opening and closing in turn), a right single quote
    /// for `'`, an en dash for `-`, and the first space between two words of the middle line
    /// a non-breaking space.
    fn typographic(lines: &[String]) -> Vec<String> {
        let mid = lines.len() / 2;
        lines
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let mut open = true;
                let mut out: String = line
                    .chars()
                    .map(|c| match c {
                        '"' => {
                            open = !open;
                            if open { '\u{201D}' } else { '\u{201C}' }
                        }
                        '\'' => '\u{2019}',
                        '-' => '\u{2013}',
                        c => c,
                    })
                    .collect();
                if i == mid {
                    let lead = text::indent(&out).len();
                    if let Some(at) = out[lead..].find(' ') {
                        out.replace_range(lead + at..lead + at + 1, "\u{00A0}");
                    }
                }
                out
            })
            .collect()
    }
}

/// toolhost's three formats, each in one `toolhost session`.
mod host {
    use std::io::{BufRead, BufReader, Write};
    use std::path::{Path, PathBuf};
    use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

    use serde_json::{Value, json};

    use crate::perturb::Case;
    use crate::report::Attempt;

    /// A format a model edits in.
    #[derive(Debug, Clone, Copy)]
    pub enum Format {
        /// `--agent claude`: `view`, then `str_replace`.
        StrReplace,
        /// `--tools read,multi_edit`: `read`, then one edit.
        MultiEdit,
        /// `--agent patch`: `read`, then `apply_patch` of one hunk with no context lines.
        ApplyPatch,
    }

    impl Format {
        /// The three, in table order.
        pub const ALL: [Format; 3] = [Format::StrReplace, Format::MultiEdit, Format::ApplyPatch];

        fn name(self) -> &'static str {
            match self {
                Format::StrReplace => "str_replace",
                Format::MultiEdit => "multi_edit",
                Format::ApplyPatch => "apply_patch",
            }
        }

        fn toolset(self) -> &'static [&'static str] {
            match self {
                Format::StrReplace => &["--agent", "claude"],
                Format::MultiEdit => &["--tools", "read,multi_edit"],
                Format::ApplyPatch => &["--agent", "patch"],
            }
        }

        /// The read that allows the edit: (tool, arguments).
        fn read(self, rel: &str) -> (&'static str, Value) {
            match self {
                Format::StrReplace => {
                    ("str_replace_based_edit_tool", json!({"command": "view", "path": rel}))
                }
                Format::MultiEdit | Format::ApplyPatch => ("read", json!({"path": rel})),
            }
        }

        /// The edit: (tool, arguments).
        fn edit(self, rel: &str, case: &Case) -> (&'static str, Value) {
            match self {
                Format::StrReplace => (
                    "str_replace_based_edit_tool",
                    json!({"command": "str_replace", "path": rel, "old_str": case.old, "new_str": case.new}),
                ),
                Format::MultiEdit => (
                    "multi_edit",
                    json!({"filePath": rel, "edits": [{"oldString": case.old, "newString": case.new}]}),
                ),
                Format::ApplyPatch => ("apply_patch", json!({"input": patch(rel, case)})),
            }
        }
    }

    /// The case as one codex-grammar patch: an `@@` hunk of every old line with `-` and every
    /// new line with `+`, no context lines (the peer codex gets the same text).
    pub fn patch(path: &str, case: &Case) -> String {
        let mut p = format!("*** Begin Patch\n*** Update File: {path}\n@@\n");
        for line in case.old.split('\n') {
            p.push_str(&format!("-{line}\n"));
        }
        for line in case.new.split('\n') {
            p.push_str(&format!("+{line}\n"));
        }
        p.push_str("*** End Patch\n");
        p
    }

    /// One long-running `toolhost session` in one format, over a workspace of its own.
    pub struct Toolhost {
        format: Format,
        ws: PathBuf,
        child: Child,
        stdin: ChildStdin,
        stdout: BufReader<ChildStdout>,
        next_id: u64,
    }

    impl Toolhost {
        /// Starts the session as a user runs it: environment cleared but PATH, HOME the fake
        /// `home`, `--workspace` and `--data-dir` fresh directories under `scratch`; its
        /// stderr goes to `scratch/<format>.stderr`.
        pub fn start(format: Format, scratch: &Path, home: &Path) -> Self {
            let ws = scratch.join(format!("ws-{}", format.name()));
            let data = scratch.join(format!("data-{}", format.name()));
            std::fs::create_dir_all(&ws).unwrap();
            std::fs::create_dir_all(&data).unwrap();
            let stderr = std::fs::File::create(scratch.join(format!("{}.stderr", format.name())))
                .expect("stderr file");
            let mut child = Command::new(toolhost_tests::toolhost_bin())
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()))
                .env("HOME", home)
                .arg("--workspace")
                .arg(&ws)
                .arg("--data-dir")
                .arg(&data)
                .args(format.toolset())
                .arg("session")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(stderr)
                .spawn()
                .expect("start toolhost session (run `cargo xtask build`)");
            let stdin = child.stdin.take().unwrap();
            let stdout = BufReader::new(child.stdout.take().unwrap());
            Toolhost { format, ws, child, stdin, stdout, next_id: 0 }
        }

        /// One call: its result (`{"status": …, "content": …}`), progress lines skipped.
        fn call(&mut self, tool: &str, arguments: Value) -> Value {
            self.next_id += 1;
            let id = format!("e{}", self.next_id);
            let request = json!({"id": id, "tool": tool, "arguments": arguments});
            writeln!(self.stdin, "{request}").expect("write to the session");
            self.stdin.flush().unwrap();
            loop {
                let mut line = String::new();
                let n = self.stdout.read_line(&mut line).expect("read the session");
                assert!(n > 0, "toolhost session ({}) ended early", self.format.name());
                let ev: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("session line is not JSON ({e}): {line}"));
                if ev.get("progress").is_some() {
                    continue;
                }
                if let Some(result) = ev.get("result") {
                    return result.clone();
                }
                return json!({"status": "failed", "content": [{"type": "text", "text": ev.to_string()}]});
            }
        }
    }

    impl Drop for Toolhost {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    impl crate::Editor for Toolhost {
        fn name(&self) -> String {
            format!("toolhost {}", self.format.name())
        }

        fn root(&self) -> PathBuf {
            self.ws.clone()
        }

        fn apply(&mut self, _dir: &Path, rel: &str, case: &Case) -> Attempt {
            let (tool, args) = self.format.read(rel);
            let read = self.call(tool, args);
            if read["status"] != "succeeded" {
                return Attempt {
                    succeeded: false,
                    text: format!("the read failed: {}", text(&read)),
                };
            }
            let (tool, args) = self.format.edit(rel, case);
            let result = self.call(tool, args);
            Attempt { succeeded: result["status"] == "succeeded", text: text(&result) }
        }
    }

    /// The concatenated text blocks of a result.
    fn text(result: &Value) -> String {
        result["content"]
            .as_array()
            .map(|c| c.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default()
    }
}

/// The peers, each in its own format, on the same cases: aider's matcher and codex's applier.
mod peers {
    use std::io::{BufRead, BufReader, Write};
    use std::path::{Path, PathBuf};
    use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

    use serde_json::{Value, json};

    use crate::perturb::Case;
    use crate::report::Attempt;

    /// The environment a peer runs in: cleared but PATH, HOME the fake `home`.
    fn clean_env(cmd: &mut Command, home: &Path) {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()))
            .env("HOME", home);
    }

    /// aider's SEARCH/REPLACE matcher, through `tests/mcp/edits_aider.py` (one process for
    /// every case) in `<peers>/aider-venv`.
    pub struct Aider {
        version: String,
        root: PathBuf,
        child: Child,
        stdin: ChildStdin,
        stdout: BufReader<ChildStdout>,
    }

    impl Aider {
        /// Starts the helper, if the venv with aider is there.
        pub fn start(peers: &Path, home: &Path) -> Result<Self, String> {
            let python = peers.join("aider-venv/bin/python");
            if !python.exists() {
                return Err(format!("no {}: xtask installs aider-chat there", python.display()));
            }
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/edits_aider.py");
            let mut cmd = Command::new(&python);
            clean_env(&mut cmd, home);
            let mut child = cmd
                .arg(&script)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
            let stdin = child.stdin.take().unwrap();
            let mut stdout = BufReader::new(child.stdout.take().unwrap());
            let mut line = String::new();
            stdout.read_line(&mut line).map_err(|e| e.to_string())?;
            let ready: Value = serde_json::from_str(&line)
                .map_err(|_| format!("the helper did not start (printed {line:?})"))?;
            let version = ready["ready"].as_str().unwrap_or("?").to_owned();
            let root = home.parent().unwrap_or(home).join("aider");
            Ok(Aider { version, root, child, stdin, stdout })
        }
    }

    impl Drop for Aider {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    impl crate::Editor for Aider {
        fn name(&self) -> String {
            format!("aider {}", self.version)
        }

        fn root(&self) -> PathBuf {
            self.root.clone()
        }

        /// The SEARCH and REPLACE texts end with a line break, as aider's parser leaves them.
        fn apply(&mut self, dir: &Path, _rel: &str, case: &Case) -> Attempt {
            let edit = json!({
                "path": dir.join(&case.name),
                "old": format!("{}\n", case.old),
                "new": format!("{}\n", case.new),
            });
            writeln!(self.stdin, "{edit}").expect("write to the aider helper");
            self.stdin.flush().unwrap();
            let mut line = String::new();
            self.stdout.read_line(&mut line).expect("read the aider helper");
            let answer: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("the aider helper printed {line:?} ({e})"));
            Attempt {
                succeeded: answer["applied"] == true,
                text: answer["error"].as_str().unwrap_or_default().to_owned(),
            }
        }
    }

    /// codex's own `apply_patch`: its native binary run as `codex --codex-run-as-apply-patch
    /// PATCH` in the case's directory, once per case.
    pub struct Codex {
        bin: PathBuf,
        version: String,
        root: PathBuf,
        home: PathBuf,
    }

    impl Codex {
        /// The binary npm installed under `<peers>/codex/node_modules/@openai/codex*/vendor/`.
        pub fn find(peers: &Path, home: &Path) -> Result<Self, String> {
            let scope = peers.join("codex/node_modules/@openai");
            let mut found = Vec::new();
            for pkg in std::fs::read_dir(&scope).into_iter().flatten().flatten() {
                if !pkg.file_name().to_string_lossy().starts_with("codex") {
                    continue;
                }
                for triple in
                    std::fs::read_dir(pkg.path().join("vendor")).into_iter().flatten().flatten()
                {
                    for candidate in ["bin/codex", "codex/codex"] {
                        let p = triple.path().join(candidate);
                        if p.is_file() {
                            found.push(p);
                        }
                    }
                }
            }
            found.sort();
            let bin = found.into_iter().next().ok_or_else(|| {
                format!(
                    "no codex binary under {}: xtask installs @openai/codex there",
                    scope.display()
                )
            })?;
            let mut cmd = Command::new(&bin);
            clean_env(&mut cmd, home);
            let out = cmd
                .arg("--version")
                .output()
                .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
            let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            let root = home.parent().unwrap_or(home).join("codex");
            Ok(Codex { bin, version, root, home: home.to_path_buf() })
        }
    }

    impl crate::Editor for Codex {
        fn name(&self) -> String {
            self.version.replace("codex-cli", "codex")
        }

        fn root(&self) -> PathBuf {
            self.root.clone()
        }

        fn apply(&mut self, dir: &Path, _rel: &str, case: &Case) -> Attempt {
            let mut cmd = Command::new(&self.bin);
            clean_env(&mut cmd, &self.home);
            let out = cmd
                .arg("--codex-run-as-apply-patch")
                .arg(crate::host::patch(&case.name, case))
                .current_dir(dir)
                .stdin(Stdio::null())
                .output();
            match out {
                Ok(out) => Attempt {
                    succeeded: out.status.success(),
                    text: format!(
                        "{}{}",
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    ),
                },
                Err(e) => Attempt { succeeded: false, text: format!("cannot run codex: {e}") },
            }
        }
    }
}

/// Classifying what a file became, and the tables.
mod report {
    use std::path::Path;

    use crate::perturb::{Case, Perturbation};
    use crate::{Run, text};

    /// What an editor answered.
    pub struct Attempt {
        /// Whether it said it applied the edit.
        pub succeeded: bool,
        /// What it said (its result's text, or the peer's output).
        pub text: String,
    }

    /// What the file became.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Kind {
        /// The expected text (for a case that must be refused: never).
        Right,
        /// Unchanged.
        Refused,
        /// Changed, but not to the expected text.
        Wrong,
    }

    /// One case's outcome for one editor.
    pub struct Outcome {
        pub kind: Kind,
        /// What the editor answered.
        pub attempt: Attempt,
        /// For [`Kind::Wrong`]: how the file differs from the expected one.
        pub why: &'static str,
        /// Right as [`Case::also`] says, not as [`Case::expected`] does.
        pub kept_spelling: bool,
    }

    /// Compares the file after the edit (`after`) with the case's expectations.
    pub fn classify(case: &Case, after: &[u8], attempt: Attempt) -> Outcome {
        let after = String::from_utf8_lossy(after);
        let kept_spelling = after != case.expected && case.also.as_deref() == Some(&*after);
        let (kind, why) = if after == case.file {
            (Kind::Refused, "")
        } else if case.perturbation.recoverable()
            && (after == case.expected || case.also.as_deref() == Some(&*after))
        {
            (Kind::Right, "")
        } else {
            (Kind::Wrong, diagnose(case, &after))
        };
        Outcome { kind, attempt, why, kept_spelling }
    }

    /// How `after` differs from the expected text, in a few words.
    fn diagnose(case: &Case, after: &str) -> &'static str {
        if !case.perturbation.recoverable() {
            return match case.perturbation {
                Perturbation::Duplicate => "applied to one of two places",
                _ => "applied although it must be refused",
            };
        }
        let expected = case.expected.as_str();
        let lines = |s: &str, f: fn(&str) -> String| s.split('\n').map(f).collect::<Vec<_>>();
        if after.replace("\r\n", "\n") == expected.replace("\r\n", "\n") {
            "line endings differ"
        } else if lines(after, |l| l.trim_start().to_owned())
            == lines(expected, |l| l.trim_start().to_owned())
        {
            "indentation differs"
        } else if lines(after, |l| l.trim_end().to_owned())
            == lines(expected, |l| l.trim_end().to_owned())
        {
            "trailing whitespace differs"
        } else if lines(after, |l| l.chars().map(text::fold_char).collect())
            == lines(expected, |l| l.chars().map(text::fold_char).collect())
        {
            "punctuation differs"
        } else {
            "other lines changed"
        }
    }

    /// `right / refused / wrong` of `outcomes`.
    fn counts<'a>(outcomes: impl Iterator<Item = &'a Outcome>) -> [usize; 3] {
        let mut c = [0; 3];
        for o in outcomes {
            c[o.kind as usize] += 1;
        }
        c
    }

    /// A percentage of `n` in `of`, to one decimal.
    fn pct(n: usize, of: usize) -> String {
        if of == 0 { "–".into() } else { format!("{:.1} %", n as f64 * 100.0 / of as f64) }
    }

    /// Prints the tables, then every case toolhost applied wrong or refused although it could
    /// be applied, one by one, the peers' cases applied wrong by reason, and any answer that
    /// disagrees with the file (said it applied but left it unchanged, or the reverse).
    pub fn print(cases: &[Case], runs: &[Run], scratch: &Path) {
        let total_bases = cases.iter().map(|c| c.base + 1).max().unwrap_or(0);
        println!();
        println!(
            "{total_bases} base blocks x {} perturbations = {} cases per editor; each cell: applied right / refused / applied wrong",
            Perturbation::ALL.len(),
            cases.len()
        );
        println!();
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        println!("| perturbation | must | cases | {} |", names.join(" | "));
        println!("| --- | --- | --- |{}", " --- |".repeat(runs.len()));
        for p in Perturbation::ALL {
            let of = |run: &Run| {
                let c = counts(
                    cases
                        .iter()
                        .zip(&run.outcomes)
                        .filter(|(c, _)| c.perturbation == p)
                        .map(|(_, o)| o),
                );
                let wrong = if c[2] > 0 { format!("**{}**", c[2]) } else { "0".into() };
                format!("{} / {} / {wrong}", c[0], c[1])
            };
            let n = cases.iter().filter(|c| c.perturbation == p).count();
            let must = if p.recoverable() { "apply" } else { "refuse" };
            let cells: Vec<String> = runs.iter().map(of).collect();
            println!("| ({}) {} | {must} | {n} | {} |", p.letter(), p.label(), cells.join(" | "));
        }
        println!();
        println!("| total | {} |", names.join(" | "));
        println!("| --- |{}", " --- |".repeat(runs.len()));
        let row = |label: &str, cell: &dyn Fn(&Run) -> String| {
            let cells: Vec<String> = runs.iter().map(cell).collect();
            println!("| {label} | {} |", cells.join(" | "));
        };
        let pick = |run: &'_ Run, recoverable: bool| -> [usize; 3] {
            counts(
                cases
                    .iter()
                    .zip(&run.outcomes)
                    .filter(|(c, _)| c.perturbation.recoverable() == recoverable)
                    .map(|(_, o)| o),
            )
        };
        row("recoverable (a–f): applied right", &|r| {
            let c = pick(r, true);
            format!("{} of {} = **{}**", c[0], c.iter().sum::<usize>(), pct(c[0], c.iter().sum()))
        });
        row("must refuse (g–i): refused", &|r| {
            let c = pick(r, false);
            format!("{} of {} = {}", c[1], c.iter().sum::<usize>(), pct(c[1], c.iter().sum()))
        });
        row("applied wrong, all cases", &|r| {
            let c = counts(r.outcomes.iter());
            if c[2] > 0 { format!("**{}**", c[2]) } else { "0".into() }
        });
        row("ambiguous refusals naming the lines", &|r| {
            if !r.toolhost {
                return "n/a".into();
            }
            let refused: Vec<&crate::Outcome> = cases
                .iter()
                .zip(&r.outcomes)
                .filter(|(c, o)| {
                    c.perturbation == Perturbation::Duplicate && o.kind == Kind::Refused
                })
                .map(|(_, o)| o)
                .collect();
            let named = refused.iter().filter(|o| o.attempt.text.contains("lines ")).count();
            format!("{named} of {}", refused.len())
        });
        row("(e), file typographic: right keeping its spelling in unchanged lines", &|r| {
            let differ = |c: &Case| c.also.as_ref().is_some_and(|a| *a != c.expected);
            let of = cases.iter().filter(|c| differ(c)).count();
            let kept = r.outcomes.iter().filter(|o| o.kept_spelling).count();
            format!("{kept} of {of}")
        });
        row("time (not judged)", &|r| format!("{:.1} s", r.elapsed.as_secs_f64()));

        println!();
        for run in runs {
            let wrong: Vec<(&Case, &crate::Outcome)> =
                cases.iter().zip(&run.outcomes).filter(|(_, o)| o.kind == Kind::Wrong).collect();
            let odd: Vec<(&Case, &crate::Outcome)> = cases
                .iter()
                .zip(&run.outcomes)
                .filter(|(_, o)| (o.kind == Kind::Refused) == o.attempt.succeeded)
                .collect();
            let missed: Vec<(&Case, &crate::Outcome)> = cases
                .iter()
                .zip(&run.outcomes)
                .filter(|(c, o)| c.perturbation.recoverable() && o.kind == Kind::Refused)
                .collect();
            if wrong.is_empty() && odd.is_empty() && (missed.is_empty() || !run.toolhost) {
                continue;
            }
            println!("{}:", run.name);
            if run.toolhost {
                for (case, o) in &missed {
                    println!(
                        "  REFUSED {} ({}) {} line {}: {}",
                        case.id,
                        case.perturbation.label(),
                        case.source,
                        case.line,
                        short(&o.attempt.text)
                    );
                }
                for (case, o) in &wrong {
                    println!(
                        "  WRONG {} ({}) {} line {}: {}; it said: {}",
                        case.id,
                        case.perturbation.label(),
                        case.source,
                        case.line,
                        o.why,
                        short(&o.attempt.text)
                    );
                }
            } else {
                let mut reasons: Vec<(char, &str, usize)> = Vec::new();
                for (case, o) in &wrong {
                    let key = (case.perturbation.letter(), o.why);
                    match reasons.iter_mut().find(|(l, w, _)| (*l, *w) == key) {
                        Some(r) => r.2 += 1,
                        None => reasons.push((key.0, key.1, 1)),
                    }
                }
                for (letter, why, n) in reasons {
                    println!("  applied wrong in ({letter}): {n} x {why}");
                }
            }
            for (case, o) in odd.iter().take(10) {
                let said = if o.attempt.succeeded { "succeeded" } else { "failed" };
                println!(
                    "  ODD {} ({}): it {said} but the file is {}; it said: {}",
                    case.id,
                    case.perturbation.label(),
                    if o.kind == Kind::Refused { "unchanged" } else { "changed" },
                    short(&o.attempt.text)
                );
            }
        }
        println!("(cases applied wrong are kept under {})", scratch.display());
    }

    /// The first 300 characters of `text`, on one line.
    fn short(text: &str) -> String {
        let one: String = text.replace('\n', " ⏎ ");
        match one.char_indices().nth(300) {
            Some((cut, _)) => format!("{}…", &one[..cut]),
            None => one,
        }
    }
}
