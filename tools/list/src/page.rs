//! The pure part of `list`: bounds, the sorted page and its footer (docs/contract.md#list).

use toolhost_sdk::ToolError;

use crate::MAX_LIMIT;

/// One directory entry as `list` sees it: only directory or not (docs/contract.md#list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedEntry {
    /// The entry's file name.
    pub name: String,
    /// True for directories only; symlinks and others are non-directories.
    pub is_dir: bool,
}

/// The text for a directory with no entries.
pub const EMPTY_DIRECTORY: &str = "[empty directory]";

/// Reject a `limit` outside 1–[`MAX_LIMIT`], naming the range and the value given.
pub fn check_limit(limit: u32) -> Result<(), ToolError> {
    if (1..=MAX_LIMIT).contains(&limit) {
        Ok(())
    } else {
        Err(ToolError::invalid_arguments(format!(
            "limit must be between 1 and {MAX_LIMIT}, got {limit}"
        )))
    }
}

/// The footer when entries remain after the page (docs/contract.md#list, verbatim).
pub fn footer(shown: usize, offset: usize) -> String {
    let next = offset + shown;
    format!(
        "[showing {shown} entries from offset {offset}; more entries available at offset {next}]"
    )
}

/// The path of `name` inside the directory shown as `dir`, as the model passes it on.
pub fn join_display(dir: &str, name: &str) -> String {
    if dir == "." {
        name.to_owned()
    } else if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// Sort `entries` by name (byte order) and render the page at `offset` of at most `limit`
/// lines, directories with a trailing `/`, then the footer when more remain.
pub fn render_page(
    dir: &str,
    mut entries: Vec<ListedEntry>,
    offset: u32,
    limit: u32,
) -> Result<String, ToolError> {
    check_limit(limit)?;
    if entries.is_empty() {
        return Ok(EMPTY_DIRECTORY.to_owned());
    }
    let total = entries.len();
    let offset = offset as usize;
    if offset >= total {
        return Err(ToolError::invalid_arguments(format!(
            "offset {offset} is past the end of {dir} ({total} entries)"
        )));
    }
    entries.sort_unstable_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let page = &entries[offset..total.min(offset + limit as usize)];
    let mut lines: Vec<String> = page
        .iter()
        .map(|e| {
            let path = join_display(dir, &e.name);
            if e.is_dir { path + "/" } else { path }
        })
        .collect();
    if offset + page.len() < total {
        lines.push(footer(page.len(), offset));
    }
    Ok(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::ErrorCode;

    fn entries(spec: &[(&str, bool)]) -> Vec<ListedEntry> {
        spec.iter().map(|&(name, is_dir)| ListedEntry { name: name.into(), is_dir }).collect()
    }

    #[test]
    fn sorted_by_bytes_dirs_with_slash_hidden_included() {
        let e = entries(&[
            ("b.txt", false),
            (".git", true),
            ("A", false),
            ("src", true),
            (".env", false),
        ]);
        assert_eq!(render_page(".", e, 0, 200).unwrap(), ".env\n.git/\nA\nb.txt\nsrc/");
    }

    #[test]
    fn lines_are_joined_with_the_display_path() {
        let e = entries(&[("x", false), ("d", true)]);
        assert_eq!(render_page("src", e.clone(), 0, 10).unwrap(), "src/d/\nsrc/x");
        assert_eq!(render_page("/", e, 0, 10).unwrap(), "/d/\n/x");
    }

    #[test]
    fn zero_based_page_with_footer() {
        let e = entries(&[("e", false), ("a", false), ("d", false), ("c", false), ("b", false)]);
        assert_eq!(
            render_page(".", e.clone(), 0, 2).unwrap(),
            "a\nb\n[showing 2 entries from offset 0; more entries available at offset 2]"
        );
        assert_eq!(
            render_page(".", e.clone(), 1, 2).unwrap(),
            "b\nc\n[showing 2 entries from offset 1; more entries available at offset 3]"
        );
        // The last page has no footer.
        assert_eq!(render_page(".", e.clone(), 3, 2).unwrap(), "d\ne");
        assert_eq!(render_page(".", e, 4, 200).unwrap(), "e");
    }

    #[test]
    fn empty_directory() {
        assert_eq!(render_page(".", Vec::new(), 0, 200).unwrap(), "[empty directory]");
        assert_eq!(render_page("x", Vec::new(), 7, 200).unwrap(), "[empty directory]");
    }

    #[test]
    fn offset_past_the_end() {
        let e = entries(&[("a", false), ("b", false)]);
        let err = render_page("src", e, 2, 200).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArguments);
        assert_eq!(err.message, "offset 2 is past the end of src (2 entries)");
    }

    #[test]
    fn limit_bounds() {
        for bad in [0, MAX_LIMIT + 1] {
            let err = render_page(".", entries(&[("a", false)]), 0, bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidArguments);
            assert_eq!(err.message, format!("limit must be between 1 and 2000, got {bad}"));
        }
        assert!(check_limit(1).is_ok());
        assert!(check_limit(MAX_LIMIT).is_ok());
    }

    #[test]
    fn footer_text_is_the_contract_text() {
        assert_eq!(
            footer(200, 400),
            "[showing 200 entries from offset 400; more entries available at offset 600]"
        );
    }
}
