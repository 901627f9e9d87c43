use super::*;

fn s(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

fn chunk(context: Option<&str>, old: &[&str], new: &[&str], eof: bool) -> Chunk {
    Chunk {
        context: context.map(str::to_owned),
        old_lines: s(old),
        new_lines: s(new),
        is_end_of_file: eof,
    }
}

fn update(path: &str, chunks: Vec<Chunk>) -> PatchOperation {
    PatchOperation::Update { path: path.into(), move_to: None, chunks }
}

fn error(patch: &str) -> String {
    parse_patch(patch).unwrap_err().to_string()
}

#[test]
fn every_operation_is_read() {
    let patch = "*** Begin Patch\n\
                 *** Add File: path/add.py\n\
                 +abc\n\
                 +\n\
                 +def\n\
                 *** Delete File: path/delete.py\n\
                 *** Update File: path/update.py\n\
                 *** Move to: path/update2.py\n\
                 @@ def f():\n\
                 -    pass\n\
                 +    return 123\n\
                 *** End Patch";
    let ops = parse_patch(patch).unwrap();
    assert_eq!(
        ops,
        vec![
            PatchOperation::Add { path: "path/add.py".into(), contents: "abc\n\ndef\n".into() },
            PatchOperation::Delete { path: "path/delete.py".into() },
            PatchOperation::Update {
                path: "path/update.py".into(),
                move_to: Some("path/update2.py".into()),
                chunks: vec![chunk(Some("def f():"), &["    pass"], &["    return 123"], false)],
            },
        ]
    );
    assert_eq!(
        ops.iter().map(|o| (o.marker(), o.path())).collect::<Vec<_>>(),
        vec![
            ("Add File", "path/add.py"),
            ("Delete File", "path/delete.py"),
            ("Update File", "path/update.py")
        ]
    );
}

#[test]
fn an_empty_patch_body_has_no_operations_and_an_empty_add_is_an_empty_file() {
    assert_eq!(parse_patch("*** Begin Patch\n*** End Patch\n").unwrap(), vec![]);
    assert_eq!(
        parse_patch("*** Begin Patch\n*** Add File: e\n*** End Patch").unwrap(),
        vec![PatchOperation::Add { path: "e".into(), contents: String::new() }]
    );
}

#[test]
fn hunks_context_lines_empty_lines_and_end_of_file() {
    let patch = "*** Begin Patch\n\
                 *** Update File: f\n\
                 @@\n\
                 \x20foo\n\
                 -bar\n\
                 +BAR\n\
                 \n\
                 @@ fn main() {  \n\
                 \x20baz\n\
                 -qux\n\
                 +QUX\n\
                 *** End of File\n\
                 *** End Patch";
    assert_eq!(
        parse_patch(patch).unwrap(),
        vec![update(
            "f",
            vec![
                chunk(None, &["foo", "bar", ""], &["foo", "BAR", ""], false),
                chunk(Some("fn main() {"), &["baz", "qux"], &["baz", "QUX"], true),
            ]
        )]
    );
}

#[test]
fn the_first_hunk_may_leave_out_its_header() {
    let patch = "*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch";
    assert_eq!(
        parse_patch(patch).unwrap(),
        vec![update("file2.py", vec![chunk(None, &["import foo"], &["import foo", "bar"], false)])]
    );
}

#[test]
fn an_update_followed_by_an_add() {
    let patch = "*** Begin Patch\n*** Update File: file.py\n@@\n+line\n\
                 *** Add File: other.py\n+content\n*** End Patch";
    assert_eq!(
        parse_patch(patch).unwrap(),
        vec![
            update("file.py", vec![chunk(None, &[], &["line"], false)]),
            PatchOperation::Add { path: "other.py".into(), contents: "content\n".into() },
        ]
    );
}

#[test]
fn padded_markers_and_headers_are_accepted() {
    // The three padded-marker scenarios of codex's grammar, and padded hunk markers.
    for patch in [
        "*** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\n",
        " *** Begin Patch\n*** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch \n",
        "*** Begin Patch \n*** Update File: foo.txt\n@@\n-old\n+new\n *** End Patch\n",
        "*** Begin Patch\n*** Update File:   foo.txt  \n  @@  \n-old\n+new\n  *** End of File \n*** End Patch",
    ] {
        let ops = parse_patch(patch).unwrap();
        let PatchOperation::Update { path, chunks, .. } = &ops[0] else { panic!("{ops:?}") };
        assert_eq!(path, "foo.txt");
        assert_eq!(chunks[0].old_lines, s(&["old"]));
        assert_eq!(chunks[0].new_lines, s(&["new"]));
    }
}

#[test]
fn heredoc_wrappers_crlf_and_surrounding_blank_lines_are_accepted() {
    let expected = vec![PatchOperation::Delete { path: "a".into() }];
    for patch in [
        "<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n",
        "<<EOF\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF",
        "<<\"EOF\"\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF",
        "\n\n*** Begin Patch\r\n*** Delete File: a\r\n\r\n*** End Patch\r\n\n",
    ] {
        assert_eq!(parse_patch(patch).unwrap(), expected, "{patch:?}");
    }
}

#[test]
fn unicode_is_kept() {
    let patch = "*** Begin Patch\n*** Update File: foo.txt\n@@ “ctx”\n line1\n-naïve café\n+naïve café ✅\n*** End Patch \n";
    assert_eq!(
        parse_patch(patch).unwrap(),
        vec![update(
            "foo.txt",
            vec![chunk(
                Some("“ctx”"),
                &["line1", "naïve café"],
                &["line1", "naïve café ✅"],
                false
            )]
        )]
    );
}

#[test]
fn whole_patch_errors() {
    assert_eq!(
        error(""),
        "the patch is empty; it must start with *** Begin Patch and end with *** End Patch"
    );
    assert_eq!(error(" \n\t\n"), error(""));
    assert_eq!(
        error("\nbad\n*** End Patch"),
        "line 2: expected *** Begin Patch as the first line, found \"bad\""
    );
    assert_eq!(
        error("*** Begin Patch\n*** Delete File: a\n"),
        "line 2: expected *** End Patch as the last line, found \"*** Delete File: a\"; \
         end the patch with *** End Patch"
    );
    assert_eq!(
        error("*** Begin Patch"),
        "line 1: expected *** End Patch as the last line, found \"*** Begin Patch\"; \
         end the patch with *** End Patch"
    );
    assert_eq!(
        parse_patch("x").unwrap_err(),
        ParseError { line: Some(1), kind: ParseErrorKind::MissingBegin { found: "x".into() } }
    );
}

#[test]
fn operation_errors() {
    assert_eq!(
        error("*** Begin Patch\n*** Delete File: a\nfoo\n*** End Patch"),
        "line 3: expected a file operation (*** Add File:, *** Delete File:, *** Update File:) \
         or *** End Patch, found \"foo\""
    );
    assert_eq!(
        error("*** Begin Patch\n*** Add File:  \n+x\n*** End Patch"),
        "line 2: *** Add File: has no path; write the file's path after the colon"
    );
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n*** Move to:\n@@\n+x\n*** End Patch"),
        "line 3: *** Move to: has no path; write the file's path after the colon"
    );
    assert_eq!(
        error(
            "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b\n*** End Patch"
        ),
        "line 3: *** End Patch must be the last line, but more lines follow it"
    );
}

#[test]
fn add_line_errors() {
    assert_eq!(
        error("*** Begin Patch\n*** Add File: a\n+one\ntwo\n*** End Patch"),
        "line 4: expected a line of the added file starting with +, found \"two\"; every line \
         of an added file starts with + (a lone + for an empty line)"
    );
    // A blank line among the file's lines is a missing `+`, not a separator.
    assert_eq!(
        parse_patch("*** Begin Patch\n*** Add File: a\n+one\n\n+three\n*** End Patch").unwrap_err(),
        ParseError {
            line: Some(4),
            kind: ParseErrorKind::AddLineWithoutPlus { found: String::new() }
        }
    );
    // Before the next operation it separates.
    assert_eq!(
        parse_patch("*** Begin Patch\n*** Add File: a\n+one\n\n*** Delete File: b\n*** End Patch")
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn update_errors() {
    assert_eq!(
        error("*** Begin Patch\n*** Update File: test.py\n*** End Patch"),
        "line 2: *** Update File: test.py has no hunks; follow it with @@ and lines starting \
         with \" \" (context), \"-\" (removed) or \"+\" (added)"
    );
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n@@foo\n-x\n*** End Patch"),
        "line 3: bad hunk header \"@@foo\"; a hunk starts with \"@@\" alone or \"@@ \" followed \
         by one line of the file to anchor on"
    );
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n@@ -1,3 +1,4 @@ fn main()\n-x\n*** End Patch"),
        "line 3: \"@@ -1,3 +1,4 @@ fn main()\" is a unified-diff hunk header; this format has \
         no line numbers: start the hunk with \"@@\" alone or \"@@ \" followed by one line of \
         the file to anchor on"
    );
    assert_eq!(
        parse_patch("*** Begin Patch\n*** Update File: a\n@@ -1 +1 @@\n-x\n*** End Patch")
            .unwrap_err()
            .kind,
        ParseErrorKind::UnifiedDiffHeader { found: "@@ -1 +1 @@".into() }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n@@\n@@\n-x\n*** End Patch"),
        "line 3: the hunk has no lines; after @@ write lines starting with \" \" (context), \
         \"-\" (removed) or \"+\" (added)"
    );
    assert_eq!(
        parse_patch("*** Begin Patch\n*** Update File: a\n@@ x\n*** End of File\n*** End Patch")
            .unwrap_err(),
        ParseError { line: Some(3), kind: ParseErrorKind::EmptyHunk }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n@@\n-x\nfoo\n*** End Patch"),
        "line 5: expected a hunk line starting with \" \" (context), \"-\" (removed) or \"+\" \
         (added), a hunk header (@@), or the next file operation, found \"foo\""
    );
    assert_eq!(
        parse_patch("*** Begin Patch\n*** Update File: a\nfoo\n*** End Patch").unwrap_err(),
        ParseError { line: Some(3), kind: ParseErrorKind::BadHunkLine { found: "foo".into() } }
    );
    assert_eq!(
        parse_patch("*** Begin Patch\n*** Update File: a\n@@\nfoo\n*** End Patch").unwrap_err(),
        ParseError { line: Some(4), kind: ParseErrorKind::BadHunkLine { found: "foo".into() } }
    );
}

#[test]
fn quoted_text_is_capped() {
    let long = "é".repeat(500);
    let message = error(&format!("*** Begin Patch\n*** Delete File: a\n{long}\n*** End Patch"));
    assert!(message.ends_with(&format!("found \"{}…\"", "é".repeat(200))), "{message}");
}

#[test]
fn a_two_megabyte_patch_over_two_hundred_files_parses() {
    let mut patch = String::from("*** Begin Patch\n");
    for f in 0..200 {
        patch.push_str(&format!("*** Update File: src/f{f}.rs\n"));
        for h in 0..10 {
            patch.push_str(&format!("@@ fn f{h}()\n"));
            for l in 0..50 {
                patch.push_str(&format!(" context line {l} of hunk {h}\n"));
            }
            patch.push_str("-old\n+new\n");
        }
    }
    patch.push_str("*** End Patch\n");
    assert!(patch.len() > 2_000_000);
    let ops = parse_patch(&patch).unwrap();
    assert_eq!(ops.len(), 200);
    assert!(
        ops.iter()
            .all(|op| matches!(op, PatchOperation::Update { chunks, .. } if chunks.len() == 10))
    );
}
