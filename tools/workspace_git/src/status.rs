//! `status`: `git status --porcelain=v2 --branch --untracked-files=all` parsed into
//! [`FileEntry`]s and a [`BranchLine`], and rendered like `git status --short --branch`.

use schemars::JsonSchema;
use serde::Serialize;

use crate::paths::{self, BadQuoting};

/// The subcommand (after the hardened global arguments); pathspecs follow `--`.
pub fn args(pathspecs: &[String]) -> Vec<String> {
    let mut args: Vec<String> = [
        "status",
        "--porcelain=v2",
        "--branch",
        "--untracked-files=all",
        "--ignore-submodules=dirty",
        "--",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    args.extend(pathspecs.iter().cloned());
    args
}

/// One changed, unmerged or untracked file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FileEntry {
    /// The path, relative to the repository's top directory (not to `cwd`). A UTF-8 path is
    /// given as is; one that is not UTF-8 is written quoted, `"latin1-\xe9.txt"`: JSON escapes,
    /// and `\xHH` for each byte that is not UTF-8.
    pub path: String,
    /// The staged (index) status: a git status letter (`M` modified, `A` added, `D` deleted,
    /// `R` renamed, `C` copied, `T` type changed, `U` unmerged, `.` unchanged), or
    /// `untracked`.
    pub index: String,
    /// The work tree status, with the same letters as `index` (or `untracked`).
    pub worktree: String,
    /// The path it was renamed or copied from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orig_path: Option<String>,
    /// What kind of entry this is.
    pub kind: FileKind,
    /// Rename or copy similarity, 0–100.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<u32>,
    /// The path as shown in the text (a JSON literal when it holds a control character).
    #[serde(skip)]
    pub shown: String,
    /// The original path as shown in the text.
    #[serde(skip)]
    pub orig_shown: Option<String>,
}

/// The kind of a status entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// Modified, added, deleted or type-changed.
    Changed,
    /// Renamed (`orig_path` is the old path).
    Renamed,
    /// Copied (`orig_path` is the source).
    Copied,
    /// In a merge conflict.
    Unmerged,
    /// Not tracked.
    Untracked,
}

/// The `# branch.*` lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BranchLine {
    /// The current branch; none when HEAD is detached.
    pub head: Option<String>,
    /// The commit HEAD is on; none before the first commit.
    pub oid: Option<String>,
    /// The upstream branch.
    pub upstream: Option<String>,
    /// Commits ahead of and behind the upstream.
    pub ahead_behind: Option<(u64, u64)>,
}

/// A parsed status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    /// The branch.
    pub branch: BranchLine,
    /// The files, in git's order.
    pub files: Vec<FileEntry>,
}

/// Why a status line could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine(pub String);

impl From<BadQuoting> for BadLine {
    fn from(e: BadQuoting) -> Self {
        BadLine(format!("badly quoted path {:?}", e.0))
    }
}

/// Parses porcelain v2 output (without `-z`: paths C-quoted).
pub fn parse(text: &str) -> Result<Status, BadLine> {
    let mut status = Status::default();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let bad = || BadLine(format!("unexpected status line {line:?}"));
        if let Some(header) = line.strip_prefix("# ") {
            parse_header(header, &mut status.branch).ok_or_else(bad)?;
            continue;
        }
        let (tag, rest) = line.split_once(' ').ok_or_else(bad)?;
        let entry = match tag {
            "1" => {
                let f: Vec<&str> = rest.splitn(8, ' ').collect();
                let [xy, _sub, _mh, _mi, _mw, _hh, _hi, path] = f[..] else { return Err(bad()) };
                tracked(xy, path, None, FileKind::Changed).ok_or_else(bad)??
            }
            "2" => {
                let f: Vec<&str> = rest.splitn(9, ' ').collect();
                let [xy, _sub, _mh, _mi, _mw, _hh, _hi, score, paths] = f[..] else {
                    return Err(bad());
                };
                let kind = match score.chars().next() {
                    Some('R') => FileKind::Renamed,
                    Some('C') => FileKind::Copied,
                    _ => return Err(bad()),
                };
                let score = score[1..].parse().map_err(|_| bad())?;
                tracked(xy, paths, Some(score), kind).ok_or_else(bad)??
            }
            "u" => {
                let f: Vec<&str> = rest.splitn(10, ' ').collect();
                let [xy, .., path] = f[..] else { return Err(bad()) };
                if f.len() != 10 {
                    return Err(bad());
                }
                tracked(xy, path, None, FileKind::Unmerged).ok_or_else(bad)??
            }
            "?" => {
                let bytes = paths::decode(rest)?;
                FileEntry {
                    path: paths::structured(&bytes),
                    shown: paths::shown(&bytes),
                    index: "untracked".into(),
                    worktree: "untracked".into(),
                    orig_path: None,
                    orig_shown: None,
                    kind: FileKind::Untracked,
                    score: None,
                }
            }
            "!" => continue,
            _ => return Err(bad()),
        };
        status.files.push(entry);
    }
    Ok(status)
}

fn parse_header(header: &str, branch: &mut BranchLine) -> Option<()> {
    let (key, value) = header.split_once(' ')?;
    match key {
        "branch.oid" => branch.oid = (value != "(initial)").then(|| value.to_owned()),
        "branch.head" => branch.head = (value != "(detached)").then(|| value.to_owned()),
        "branch.upstream" => branch.upstream = Some(value.to_owned()),
        "branch.ab" => {
            let (a, b) = value.split_once(' ')?;
            branch.ahead_behind =
                Some((a.strip_prefix('+')?.parse().ok()?, b.strip_prefix('-')?.parse().ok()?));
        }
        _ => {}
    }
    Some(())
}

/// A tracked entry: `xy` and the path field (with the original path after a tab for
/// renames and copies). `None` when `xy` is not two characters.
fn tracked(
    xy: &str,
    field: &str,
    score: Option<u32>,
    kind: FileKind,
) -> Option<Result<FileEntry, BadLine>> {
    let mut letters = xy.chars();
    let (x, y) = (letters.next()?, letters.next()?);
    if letters.next().is_some() {
        return None;
    }
    Some((|| {
        let (path, orig) = if score.is_some() {
            let (path, orig) = paths::split_token(field)?;
            if orig.is_empty() {
                return Err(BadLine(format!("no original path in {field:?}")));
            }
            (paths::decode(path)?, Some(paths::decode(orig)?))
        } else {
            (paths::decode(field)?, None)
        };
        Ok(FileEntry {
            path: paths::structured(&path),
            shown: paths::shown(&path),
            index: x.to_string(),
            worktree: y.to_string(),
            orig_path: orig.as_deref().map(paths::structured),
            orig_shown: orig.as_deref().map(paths::shown),
            kind,
            score,
        })
    })())
}

/// The `## …` line of `git status --short --branch`.
pub fn branch_line(branch: &BranchLine) -> String {
    let mut line = match (&branch.head, &branch.oid) {
        (Some(head), None) => format!("## No commits yet on {head}"),
        (Some(head), Some(_)) => format!("## {head}"),
        (None, _) => "## HEAD (no branch)".to_owned(),
    };
    if let Some(upstream) = &branch.upstream {
        line.push_str(&format!("...{upstream}"));
    }
    match branch.ahead_behind {
        Some((0, 0)) | None => {}
        Some((a, 0)) => line.push_str(&format!(" [ahead {a}]")),
        Some((0, b)) => line.push_str(&format!(" [behind {b}]")),
        Some((a, b)) => line.push_str(&format!(" [ahead {a}, behind {b}]")),
    }
    line
}

/// One entry as `git status --short` shows it: `XY path`, `R  old -> new`, `?? path`.
pub fn short_line(entry: &FileEntry) -> String {
    if entry.kind == FileKind::Untracked {
        return format!("?? {}", entry.shown);
    }
    let letter = |s: &str| if s == "." { ' ' } else { s.chars().next().unwrap_or(' ') };
    let (x, y) = (letter(&entry.index), letter(&entry.worktree));
    match &entry.orig_shown {
        Some(orig) => format!("{x}{y} {orig} -> {}", entry.shown),
        None => format!("{x}{y} {}", entry.shown),
    }
}

/// How many files changed, in a phrase for the summary.
pub fn summary(status: &Status) -> String {
    let count = |k: FileKind| status.files.iter().filter(|f| f.kind == k).count();
    let staged = status
        .files
        .iter()
        .filter(|f| f.kind != FileKind::Untracked && f.index != "." && f.index != "?")
        .count();
    let unstaged =
        status.files.iter().filter(|f| f.kind != FileKind::Untracked && f.worktree != ".").count();
    let on = match &status.branch.head {
        Some(head) => format!("on branch {head}"),
        None => "HEAD detached".to_owned(),
    };
    if status.files.is_empty() {
        return format!("{on}; working tree clean");
    }
    let mut parts = vec![format!("{staged} staged"), format!("{unstaged} unstaged")];
    let untracked = count(FileKind::Untracked);
    parts.push(format!("{untracked} untracked"));
    let unmerged = count(FileKind::Unmerged);
    if unmerged > 0 {
        parts.push(format!("{unmerged} unmerged"));
    }
    format!("{on}; {} files changed: {}", status.files.len(), parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_line_kind() {
        let text = "# branch.oid 1234abcd\n# branch.head main\n# branch.upstream origin/main\n# branch.ab +2 -1\n\
1 M. N... 100644 100644 100644 aaaa bbbb src/lib.rs\n\
1 .D N... 100644 100644 000000 aaaa aaaa \"tab\\there\"\n\
2 R. N... 100644 100644 100644 aaaa aaaa R100 new name.rs\told name.rs\n\
2 C. N... 100644 100644 100644 aaaa aaaa C75 \"caf\\303\\251\"\t\"x\\ny\"\n\
u UU N... 100644 100644 100644 100644 aaaa bbbb cccc conflict.txt\n\
? \"bad\\377\"\n? plain new.txt\n";
        let status = parse(text).unwrap();
        assert_eq!(
            status.branch,
            BranchLine {
                head: Some("main".into()),
                oid: Some("1234abcd".into()),
                upstream: Some("origin/main".into()),
                ahead_behind: Some((2, 1)),
            }
        );
        let f = &status.files;
        assert_eq!(f.len(), 7);
        assert_eq!(
            (f[0].path.as_str(), f[0].index.as_str(), f[0].worktree.as_str()),
            ("src/lib.rs", "M", ".")
        );
        assert_eq!(f[1].path, "tab\there");
        assert_eq!(f[1].shown, r#""tab\there""#);
        assert_eq!(short_line(&f[1]), r#" D "tab\there""#);
        assert_eq!((f[2].kind, f[2].score), (FileKind::Renamed, Some(100)));
        assert_eq!(f[2].orig_path.as_deref(), Some("old name.rs"));
        assert_eq!(short_line(&f[2]), "R  old name.rs -> new name.rs");
        assert_eq!((f[3].path.as_str(), f[3].orig_path.as_deref()), ("café", Some("x\ny")));
        assert_eq!((f[3].kind, f[3].score), (FileKind::Copied, Some(75)));
        assert_eq!((f[4].kind, f[4].index.as_str()), (FileKind::Unmerged, "U"));
        assert_eq!(f[5].path, r#""bad\xff""#);
        assert_eq!(short_line(&f[6]), "?? plain new.txt");
        assert_eq!(branch_line(&status.branch), "## main...origin/main [ahead 2, behind 1]");
        assert_eq!(
            summary(&status),
            "on branch main; 7 files changed: 4 staged, 2 unstaged, 2 untracked, 1 unmerged"
        );
    }

    #[test]
    fn branch_lines() {
        let initial = parse("# branch.oid (initial)\n# branch.head main\n").unwrap();
        assert_eq!(branch_line(&initial.branch), "## No commits yet on main");
        let detached = parse("# branch.oid abcd\n# branch.head (detached)\n").unwrap();
        assert_eq!(branch_line(&detached.branch), "## HEAD (no branch)");
        assert_eq!(summary(&detached), "HEAD detached; working tree clean");
    }

    #[test]
    fn malformed_lines_are_errors() {
        for bad in [
            "1 M. N... 100644 src/lib.rs",
            "2 R. N... 100644 100644 100644 aaaa aaaa X100 a\tb",
            "2 R. N... 100644 100644 100644 aaaa aaaa R100 only",
            "? \"open",
            "z what",
            "# branch.ab 2 1",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
