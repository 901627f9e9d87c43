//! `log`: commits read from `git log --format` with unit and record separators, rendered one
//! line per commit.

use schemars::JsonSchema;
use serde::Serialize;

/// The format: hash, author, email, strict ISO 8601 author date and subject, separated by US
/// (0x1f), each commit ended by NUL (a commit message cannot hold one).
pub const FORMAT: &str = "--format=%H%x1f%an%x1f%ae%x1f%aI%x1f%s%x00";

/// The subcommand for `max_count` commits from `start` (a resolved hash; none: HEAD).
pub fn args(max_count: u32, start: Option<&str>, pathspecs: &[String]) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "log".into(),
        "--no-color".into(),
        "--no-decorate".into(),
        FORMAT.into(),
        format!("--max-count={max_count}"),
    ];
    args.extend(start.map(str::to_owned));
    args.push("--".into());
    args.extend(pathspecs.iter().cloned());
    args
}

/// One commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Commit {
    /// The full commit hash.
    pub hash: String,
    /// The author's name.
    pub author: String,
    /// The author's email.
    pub email: String,
    /// The author date, strict ISO 8601 (`2026-01-31T12:00:00+01:00`).
    pub date: String,
    /// The first line of the message.
    pub subject: String,
}

/// Parses `git log` output written with [`FORMAT`]; `Err` names a record it cannot read.
pub fn parse(text: &str) -> Result<Vec<Commit>, String> {
    let mut commits = Vec::new();
    for record in text.split('\0') {
        let record = record.trim_start_matches('\n');
        if record.is_empty() {
            continue;
        }
        let fields: Vec<&str> = record.splitn(5, '\x1f').collect();
        let [hash, author, email, date, subject] = fields[..] else {
            return Err(format!("unexpected log record {record:?}"));
        };
        commits.push(Commit {
            hash: hash.into(),
            author: author.into(),
            email: email.into(),
            date: date.into(),
            subject: subject.into(),
        });
    }
    Ok(commits)
}

/// One commit as a line: short hash, date, author, subject.
pub fn line(commit: &Commit) -> String {
    let short = commit.hash.get(..12).unwrap_or(&commit.hash);
    let day = commit.date.get(..10).unwrap_or(&commit.date);
    format!("{short} {day} {}: {}", commit.author, commit.subject)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_split_on_nul_and_fields_on_us() {
        let text = "aaaa\x1fAnn\x1fann@x\x1f2026-01-02T03:04:05+01:00\x1ffix: a\x1fb\0\n\
bbbb\x1fBé\x1fb@x\x1f2026-01-01T00:00:00Z\x1f\0\n";
        let commits = parse(text).unwrap();
        assert_eq!(commits.len(), 2);
        assert_eq!(commits[0].subject, "fix: a\x1fb");
        assert_eq!(commits[1].author, "Bé");
        assert_eq!(commits[1].subject, "");
        assert_eq!(line(&commits[0]), "aaaa 2026-01-02 Ann: fix: a\x1fb");
        assert!(parse("").unwrap().is_empty());
        assert!(parse("aaaa\x1fonly two\0").is_err());
    }
}
