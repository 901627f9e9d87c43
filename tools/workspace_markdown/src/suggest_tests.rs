//! Tests of [`super::suggest`]: each edit is applied the way the `edit` tool applies it.

use super::*;

/// Apply `edits` in order as `edit` does: `oldString` must occur exactly once at the time.
pub fn apply(text: &str, edits: &[SuggestedEdit]) -> String {
    let mut text = text.to_owned();
    for e in edits {
        let n = text.matches(e.old_string.as_str()).count();
        assert_eq!(n, 1, "{:?} occurs {n} times in {text:?}", e.old_string);
        assert_ne!(e.old_string, e.new_string);
        text = text.replacen(&e.old_string, &e.new_string, 1);
    }
    text
}

fn edits(text: &str) -> Vec<SuggestedEdit> {
    let s = suggest(&Document::parse(text), "doc.md", &|| false).unwrap();
    assert_eq!(s.not_unique, 0);
    assert!(!s.budget_spent);
    s.edits
}

/// Applying the suggestions of `text` gives `want`, and `want` needs none.
fn fixes_to(text: &str, want: &str) {
    let e = edits(text);
    for edit in &e {
        assert_eq!(text.matches(edit.old_string.as_str()).count(), 1, "{edit:?}");
        assert_eq!(edit.file_path, "doc.md");
    }
    assert_eq!(apply(text, &e), want);
    assert_eq!(edits(want), [], "{want:?} still has suggestions");
}

#[test]
fn missing_space_after_hash() {
    fixes_to("#Title\n\ntext\n", "# Title\n\ntext\n");
    fixes_to("##Sub\n", "## Sub\n");
    // Issue references and code stay.
    fixes_to("#123 fixed\n\n```\n#x\n```\n", "#123 fixed\n\n```\n#x\n```\n");
}

#[test]
fn trailing_whitespace_and_hard_breaks() {
    fixes_to("a \nb\t\n", "a\nb\n");
    // Exactly two spaces stay; three on a hard break become two; at a paragraph's end they go.
    fixes_to("two  \nthree   \nend   \n", "two  \nthree  \nend\n");
    fixes_to("   \n", "\n");
    // Code keeps its whitespace.
    fixes_to("```\ncode   \n```\n", "```\ncode   \n```\n");
}

#[test]
fn closing_hashes() {
    fixes_to("# Title ##\n", "# Title\n");
    fixes_to("## C#\n", "## C#\n");
    fixes_to("### Both ###   \n", "### Both\n");
    assert_eq!(without_closing_hashes("## ##"), Some("##".into()));
    assert_eq!(without_closing_hashes("# foo#"), None);
    assert_eq!(without_closing_hashes("   #"), None);
    assert_eq!(without_closing_hashes("> # Quoted #"), Some("> # Quoted".into()));
}

#[test]
fn blank_lines() {
    fixes_to("a\n\n\n\nb\n", "a\n\nb\n");
    fixes_to("a\n\n \n\t\nb\n", "a\n\nb\n");
    fixes_to("```\n\n\n\n```\n", "```\n\n\n\n```\n");
}

#[test]
fn blank_lines_around_headings() {
    fixes_to("text\n# H\nmore\n", "text\n\n# H\n\nmore\n");
    fixes_to("# A\n## B\n", "# A\n\n## B\n");
    fixes_to("Setext\n---\nbody\n", "Setext\n---\n\nbody\n");
    // Inside a quote a blank line would split it: left alone.
    fixes_to("> a\n> # H\n", "> a\n> # H\n");
}

#[test]
fn crlf_endings_are_kept() {
    fixes_to("# A\r\ntext  \r\nx   \r\n", "# A\r\n\r\ntext  \r\nx\r\n");
}

#[test]
fn a_byte_order_mark_stays_out_of_old_strings() {
    // `edit` matches against the text after the mark.
    let e = edits("\u{feff}# A\ntext \n");
    assert!(e.iter().all(|e| !e.old_string.contains('\u{feff}')));
    assert_eq!(apply("# A\ntext \n", &e), "# A\n\ntext\n");
}

#[test]
fn repeated_lines_get_context() {
    let text = "# A\n\nsame \n\n# B\n\nsame \n";
    let e = edits(text);
    assert_eq!(e.len(), 2);
    assert!(e.iter().all(|e| e.old_string.len() > "same \n".len()));
    assert_eq!(apply(text, &e), "# A\n\nsame\n\n# B\n\nsame\n");
}

#[test]
fn a_mix_applies_in_order() {
    let text = "Intro  \nmore\n\n#Title ##\nbody \n\n\n\n## Sub\ntext\n```\nx  \n\n\n```\n\n\n";
    let want = "Intro  \nmore\n\n# Title\nbody\n\n## Sub\n\ntext\n```\nx  \n\n\n```\n\n";
    let e = edits(text);
    assert_eq!(apply(text, &e), want);
    assert!(e.iter().all(|e| !e.reason.is_empty() && e.line >= 1));
}

#[test]
fn reasons_and_lines() {
    let e = edits("x\n\n\n\nmid\ny \n");
    assert_eq!(e.len(), 2);
    assert_eq!((e[0].line, e[0].reason.as_str()), (3, "remove an extra blank line"));
    assert_eq!((e[1].line, e[1].reason.as_str()), (6, "remove trailing whitespace"));
    // Adjacent changed lines are one edit with every reason.
    let e = edits("x\n\n\n\ny \n");
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].reason, "remove an extra blank line; remove trailing whitespace");
}

#[test]
fn identical_blocks_that_cannot_be_told_apart_are_left_out() {
    let block = "x \n".repeat(40);
    let s = suggest(&Document::parse(&block), "doc.md", &|| false).unwrap();
    // One group of 40 changed lines: unique as a whole.
    assert_eq!((s.found, s.edits.len(), s.not_unique), (1, 1, 0));
    // The same changed line with the same 8 lines around it, twice: one edit takes in both.
    let unit = format!("{}x \n{}", "p\n".repeat(20), "p\n".repeat(20));
    let text = unit.repeat(2);
    let s = suggest(&Document::parse(&text), "doc.md", &|| false).unwrap();
    assert_eq!((s.found, s.edits.len(), s.covered, s.not_unique), (2, 1, 2, 0));
    assert_eq!(apply(&text, &s.edits), text.replace("x \n", "x\n"));
    // Ten times: even four groups together repeat; every one is left out, and said so.
    let s = suggest(&Document::parse(&unit.repeat(10)), "doc.md", &|| false).unwrap();
    assert_eq!((s.found, s.edits.len(), s.covered, s.not_unique), (10, 0, 0, 10));
}

#[test]
fn cancellation_is_noticed() {
    let r = suggest(&Document::parse("a \n"), "doc.md", &|| true);
    assert_eq!(r.unwrap_err(), SuggestCancelled);
}

/// Documents made of tricky fragments, from a fixed seed: every operation's invariants hold.
#[test]
fn random_documents_keep_every_invariant() {
    const PIECES: &[&str] = &[
        "#",
        "## ",
        "#Title",
        " ",
        "  ",
        "   ",
        "\t",
        "\n",
        "\n",
        "\n",
        "\r\n",
        "```",
        "~~~",
        "- ",
        "> ",
        "1. ",
        "    ",
        "[a](b.md#c)",
        "[x][y]",
        "[y]: z.md",
        "Title",
        "===",
        "---",
        "<div>",
        "</div>",
        "*",
        "`",
        "|a|b|",
        "|-|-|",
        "\\",
        "&#x20;",
        "😀",
        "ü",
        " ##",
        "[]()",
        "<!--",
        "-->",
        "text",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..400 {
        let len = (next() % 80) as usize;
        let text: String =
            (0..len).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect();
        let doc = Document::parse(&text);
        crate::outline::outline(&doc);
        crate::diagnose::diagnose(&doc);
        let s = suggest(&doc, "doc.md", &|| false).unwrap();
        for e in &s.edits {
            assert_eq!(text.matches(e.old_string.as_str()).count(), 1, "{text:?}: {e:?}");
        }
        apply(&text, &s.edits);
    }
}

/// One edit at a time, suggestions asked again after each (as a model works): the file ends
/// with nothing left to suggest.
#[test]
fn applying_one_at_a_time_converges() {
    let mut text =
        "#Title\n\nSome text   \nMore text\n\n\n\n## Section ##\nbody\n- item\t\n".to_owned();
    for _ in 0..20 {
        let e = edits(&text);
        let Some(first) = e.first() else { break };
        text = apply(&text, std::slice::from_ref(first));
    }
    assert_eq!(text, "# Title\n\nSome text  \nMore text\n\n## Section\n\nbody\n- item\n");
}
