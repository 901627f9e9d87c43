//! Every operation over real READMEs (ignored by default; run by hand):
//!
//! ```sh
//! cargo test -p toolhost-tool-workspace-markdown --release -- --ignored --nocapture
//! ```
//!
//! The corpus is each `README.md` two levels below `MARKDOWN_CORPUS` (default: the cargo
//! registry's sources, one crate per directory); each crate's directory is the workspace
//! its links resolve in. Nothing may panic, every suggested edit must apply in order as the
//! `edit` tool applies it, and the totals and time are printed (with
//! `MARKDOWN_CORPUS_VERBOSE=1`, every finding too).

use std::path::{Path, PathBuf};
use std::time::Instant;

use toolhost_sdk::error_kinds::ErrorKind;

use crate::document::Document;
use crate::workspace::{Failure, Loaded, PathKind, Workspace, decode};
use crate::{diagnose, links, outline, suggest};

/// The real filesystem below one directory.
struct Dir(PathBuf);

impl Workspace for Dir {
    fn stat(&mut self, path: &str) -> Result<Option<PathKind>, Failure> {
        Ok(std::fs::metadata(self.0.join(path)).ok().map(|m| {
            if m.is_dir() {
                PathKind::Dir
            } else if m.is_file() {
                PathKind::File
            } else {
                PathKind::Other
            }
        }))
    }

    fn load(&mut self, path: &str) -> Result<Loaded, Failure> {
        let bytes = std::fs::read(self.0.join(path))
            .map_err(|e| Failure::new(ErrorKind::NotFound, format!("{path}: {e}")))?;
        Ok(Loaded { display_path: path.into(), text: decode(path, bytes)? })
    }
}

fn corpus() -> Vec<PathBuf> {
    let root = std::env::var_os("MARKDOWN_CORPUS").map(PathBuf::from).unwrap_or_else(|| {
        Path::new(&std::env::var_os("HOME").unwrap_or_default()).join(".cargo/registry/src")
    });
    let mut found = Vec::new();
    for index in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for krate in std::fs::read_dir(index.path()).into_iter().flatten().flatten() {
            let readme = krate.path().join("README.md");
            if readme.is_file() {
                found.push(readme);
            }
        }
    }
    found.sort();
    found.truncate(300);
    found
}

#[test]
#[ignore = "reads the READMEs of the local cargo registry; run by hand"]
fn every_operation_over_real_readmes() {
    let files = corpus();
    assert!(!files.is_empty(), "no README.md found; set MARKDOWN_CORPUS");
    let (mut bytes, mut headings, mut findings, mut edits, mut second_pass) = (0, 0, 0, 0, 0);
    let (mut checked, mut broken, mut not_unique, mut nested) = (0, 0, 0, 0);
    let started = Instant::now();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        bytes += text.len();
        let doc = Document::parse(&text);
        nested += doc.headings.iter().filter(|h| !h.top_level).count();
        let o = outline::outline(&doc);
        headings += o.len();
        // Each entry's line is a heading line: `#…`, or text over an underline (inside a
        // list or quote, after its markers).
        let lines: Vec<&str> = doc.lines.text().lines().collect();
        for h in &o {
            let at = lines[h.line - 1].trim_start().trim_start_matches(['>', '-', '*', '+', ' ']);
            let next = lines.get(h.line).map_or("", |l| l.trim());
            let underline = !next.is_empty() && next.chars().all(|c| c == '=' || c == '-');
            assert!(at.starts_with('#') || underline, "{}: {h:?}", file.display());
        }
        let found = diagnose::diagnose(&doc);
        findings += found.len();
        let verbose = std::env::var_os("MARKDOWN_CORPUS_VERBOSE").is_some();
        let s = suggest::suggest(&doc, "README.md", &|| false).unwrap();
        not_unique += s.not_unique;
        edits += s.edits.len();
        let fixed = suggest::tests::apply(&text, &s.edits);
        let again = suggest::suggest(&Document::parse(&fixed), "README.md", &|| false).unwrap();
        second_pass += again.edits.len();
        let mut ws = Dir(file.parent().unwrap().to_path_buf());
        let c = links::check_links(&doc, "README.md", &mut ws, &|| false).unwrap();
        if verbose {
            for d in found.iter().chain(&c.diagnostics) {
                eprintln!("{}:{}: {}: {}", file.display(), d.line, d.kind.name(), d.message);
            }
        }
        checked += c.checked;
        broken += c.broken + c.missing_anchors;
    }
    eprintln!(
        "{} READMEs, {bytes} bytes in {:?}: {headings} headings, {findings} findings, \
         {edits} edits ({not_unique} left out as not unique; {second_pass} more after applying \
         them), {checked} local links checked, {broken} broken; {nested} headings inside a \
         list or quote",
        files.len(),
        started.elapsed()
    );
}

/// A document of about `size` bytes with every kind of finding, many times over.
fn stress_text(size: usize) -> String {
    let unit = "# Title ##\n#Missing\n\ntext   \nmore\n\n\n\n### Jump [a](#title) [b](nope.md)\n[r][undefined]\n\n";
    let mut text = String::with_capacity(size);
    let mut i = 0;
    while text.len() + unit.len() + 20 < size {
        text.push_str(&unit.replace("text", &format!("text {i}")));
        i += 1;
    }
    text
}

/// Every operation over a document of about `size` bytes, timed; the suggestions made.
fn stress(size: usize) -> suggest::Suggestions {
    let text = stress_text(size);
    let started = Instant::now();
    let doc = Document::parse(&text);
    let parse = started.elapsed();
    let started = Instant::now();
    let headings = outline::outline(&doc).len();
    let outline_time = started.elapsed();
    let started = Instant::now();
    let findings = diagnose::diagnose(&doc).len();
    let diagnose_time = started.elapsed();
    let started = Instant::now();
    let s = suggest::suggest(&doc, "big.md", &|| false).unwrap();
    let suggest_time = started.elapsed();
    let started = Instant::now();
    let mut ws = Dir(std::env::temp_dir());
    let c = links::check_links(&doc, "big.md", &mut ws, &|| false).unwrap();
    let links_time = started.elapsed();
    eprintln!(
        "{} bytes: parse {parse:?}; outline {headings} in {outline_time:?}; diagnostics \
         {findings} in {diagnose_time:?}; suggestions {} of {} (budget spent: {}) in \
         {suggest_time:?}; links {} checked in {links_time:?}",
        text.len(),
        s.edits.len(),
        s.found,
        s.budget_spent,
        c.checked
    );
    s
}

#[test]
#[ignore = "1 MiB and 2 MiB documents through every operation; run by hand with --release"]
fn every_operation_over_the_largest_files() {
    // The largest file `edit` takes: a few hundred edits before the scan budget is spent.
    let s = stress(toolhost_sdk::limits::MAX_EDIT_FILE_BYTES);
    assert!(s.edits.len() >= 1600, "{}", s.edits.len());
    // The largest file read: each unique oldString costs a scan of 2 MiB.
    let s = stress(toolhost_sdk::limits::MARKDOWN_MAX_FILE_BYTES as usize);
    assert!(s.budget_spent && s.edits.len() >= 800, "{}", s.edits.len());
}
