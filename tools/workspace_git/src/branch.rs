//! `branch`: the local branches from `git for-each-ref refs/heads`, rendered like
//! `git branch -v` (the current one starred).

use schemars::JsonSchema;
use serde::Serialize;

/// The subcommand: one record per branch, fields separated by US (0x1f), ended by NUL.
pub fn args() -> Vec<String> {
    vec![
        "for-each-ref".into(),
        "--format=%(HEAD)%1f%(refname)%1f%(objectname)%1f%(upstream:short)%00".into(),
        "refs/heads".into(),
    ]
}

/// When no branch is current: whether HEAD names an unborn branch (`symbolic-ref`).
pub fn head_args() -> Vec<String> {
    vec!["symbolic-ref".into(), "--quiet".into(), "HEAD".into()]
}

/// One local branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Branch {
    /// The branch name (without `refs/heads/`).
    pub name: String,
    /// Whether it is checked out.
    pub current: bool,
    /// The full hash of the commit it points to.
    pub head: String,
    /// Its upstream (`origin/main`), if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
}

/// Parses the output of [`args`].
pub fn parse(text: &str) -> Result<Vec<Branch>, String> {
    let mut branches = Vec::new();
    for record in text.split('\0') {
        let record = record.trim_start_matches('\n');
        if record.is_empty() {
            continue;
        }
        let fields: Vec<&str> = record.split('\x1f').collect();
        let [mark, refname, head, upstream] = fields[..] else {
            return Err(format!("unexpected branch record {record:?}"));
        };
        let name = refname.strip_prefix("refs/heads/").unwrap_or(refname);
        branches.push(Branch {
            name: name.into(),
            current: mark == "*",
            head: head.into(),
            upstream: (!upstream.is_empty()).then(|| upstream.into()),
        });
    }
    Ok(branches)
}

/// The branch HEAD names, from `git symbolic-ref --quiet HEAD` output (none: detached).
pub fn unborn_head(text: &str) -> Option<String> {
    text.trim_end().strip_prefix("refs/heads/").map(str::to_owned)
}

/// One branch as a line: `* name  hash12 [upstream]`.
pub fn line(branch: &Branch) -> String {
    let mark = if branch.current { '*' } else { ' ' };
    let short = branch.head.get(..12).unwrap_or(&branch.head);
    match &branch.upstream {
        Some(up) => format!("{mark} {} {short} [{up}]", branch.name),
        None => format!("{mark} {} {short}", branch.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_lines() {
        let text = " \x1frefs/heads/dev\x1faaaabbbbccccdddd\x1f\0\n*\x1frefs/heads/main\x1f1111222233334444\x1forigin/main\0\n";
        let branches = parse(text).unwrap();
        assert_eq!(branches.len(), 2);
        assert!(!branches[0].current && branches[1].current);
        assert_eq!(line(&branches[0]), "  dev aaaabbbbcccc");
        assert_eq!(line(&branches[1]), "* main 111122223333 [origin/main]");
        assert!(parse("x\x1fy\0").is_err());
        assert_eq!(unborn_head("refs/heads/main\n").as_deref(), Some("main"));
        assert_eq!(unborn_head(""), None);
    }
}
