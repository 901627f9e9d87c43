//! What a call returns: the structured value ([`GitOutput`], kept under the host's bound by
//! [`fit`]), the failure value ([`failed`]), and the model-visible text kept within
//! `MAX_RESULT_BYTES` by [`bound_text`] (head and tail, the whole text in a spill file).

use schemars::JsonSchema;
use serde::Serialize;
use toolhost_sdk::limits::MAX_STRUCTURED_BYTES;
/// The text's bound and its spill, shared with the approval-gated workspace tools.
pub use toolhost_workspace_run::display::{Sink, bound_text};

use crate::branch::Branch;
use crate::failure::GitFailure;
use crate::input::GitOperation;
use crate::log::Commit;
use crate::status::FileEntry;
use toolhost_sdk::head_tail::Kept;

/// Bytes of JSON the structured value keeps under: the host's bound less room for what
/// [`fit`] does not measure exactly.
pub const STRUCTURED_BUDGET: usize = MAX_STRUCTURED_BYTES - 1024;

/// The structured result of `workspace_git`.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct GitOutput {
    /// The operation run: status, diff, log, show or branch.
    pub operation: String,
    /// Whether it succeeded.
    pub success: bool,
    /// One line saying what was found (or what failed).
    pub summary: String,
    /// status: the changed, staged, unmerged and untracked files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileEntry>>,
    /// log: the commits, newest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commits: Option<Vec<Commit>>,
    /// branch: the local branches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branches: Option<Vec<Branch>>,
    /// status and branch: the current branch, or null when HEAD is detached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub current_branch: Option<Option<String>>,
    /// diff and show: git's output, its middle cut when it passed `max_bytes` (or the
    /// structured result's own bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// diff and show: whether `stdout` had its middle cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout_truncated: Option<bool>,
    /// git's stderr (bounded), when it wrote any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// On failure: the `LOCAL_EXECUTOR_*` kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<String>,
    /// On failure: whether the same call will fail the same way again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal: Option<bool>,
    /// On failure: what went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl GitOutput {
    /// A successful value for `operation`, to be filled in.
    pub fn new(operation: GitOperation) -> Self {
        GitOutput { operation: operation.name().into(), success: true, ..Default::default() }
    }
}

/// The value and text of a failed call: the text starts with the error.
pub fn failed(operation: GitOperation, failure: &GitFailure) -> (GitOutput, String) {
    let stderr = (!failure.stderr.is_empty()).then(|| failure.stderr.clone());
    let output = GitOutput {
        operation: operation.name().into(),
        success: false,
        summary: format!("{} failed: {}", operation.name(), failure.message),
        stderr: stderr.clone(),
        error_kind: Some(failure.kind.name().into()),
        terminal: Some(failure.kind.terminal()),
        error: Some(failure.message.clone()),
        ..Default::default()
    };
    let mut text = format!("{} ({})", failure.message, failure.kind.name());
    if let Some(stderr) = stderr {
        text.push_str("\ngit's stderr:\n");
        text.push_str(&stderr);
    }
    (output, text)
}

fn json_len(value: &GitOutput) -> usize {
    serde_json::to_string(value).map_or(usize::MAX, |s| s.len())
}

/// Keeps `output` within [`STRUCTURED_BUDGET`] bytes of JSON: cuts more of the middle of
/// `stdout` (from `kept`, so the count of omitted bytes stays exact) and drops list entries
/// from the end, saying so in the summary. Returns whether anything was cut.
pub fn fit(output: &mut GitOutput, kept: Option<&Kept>) -> bool {
    let mut size = json_len(output);
    if size <= STRUCTURED_BUDGET {
        return false;
    }
    // What is cut leaves room for the sentence the summary gains.
    let target = STRUCTURED_BUDGET - 512;
    if let (Some(kept), Some(_)) = (kept, &output.stdout) {
        let mut limit = kept.len();
        while size > target && limit > 0 {
            // Escaping makes JSON longer than the bytes: scale by how far over it is.
            let scaled = (limit as u128 * target as u128 * 15 / 16 / size as u128) as usize;
            limit = scaled.min(limit.saturating_sub(64));
            let smaller = kept.shrink(limit);
            output.stdout = Some(smaller.render(crate::GIT_OUTPUT));
            output.stdout_truncated = Some(true);
            size = json_len(output);
        }
        output.summary.push_str(&format!(
            "; stdout cut to {limit} bytes to fit the structured result (the text shows more)"
        ));
    }
    let mut first = None;
    while size > target {
        let Some((now, before)) = drop_entries(output, size, target) else { break };
        first.get_or_insert(before);
        size = json_len(output);
        if now == 0 {
            if let Some(total) = first {
                output.summary.push_str(&format!(
                    "; none of the {total} entries fit the structured result (the text lists them, or the file it names does)"
                ));
            }
            return true;
        }
        if size <= target {
            output.summary.push_str(&format!(
                "; only the first {now} of {} entries fit the structured result (the text lists them all, or the file it names does)",
                first.unwrap_or(before)
            ));
        }
    }
    true
}

/// Drops entries from the end of the value's list (files, commits or branches) in
/// proportion to how far `size` is over the budget: the entries kept and the count before.
fn drop_entries(o: &mut GitOutput, size: usize, target: usize) -> Option<(usize, usize)> {
    let cut = |list_len: usize| (list_len * target / size.max(1)).min(list_len.saturating_sub(1));
    fn cut_to<T>(list: &mut Vec<T>, keep: impl Fn(usize) -> usize) -> (usize, usize) {
        let before = list.len();
        let keep = keep(before);
        list.truncate(keep);
        (list.len(), before)
    }
    if let Some(files) = o.files.as_mut() {
        return Some(cut_to(files, cut));
    }
    if let Some(commits) = o.commits.as_mut() {
        return Some(cut_to(commits, cut));
    }
    Some(cut_to(o.branches.as_mut()?, cut))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::FileKind;
    use toolhost_sdk::error_kinds::ErrorKind;
    use toolhost_sdk::output_schema;

    #[test]
    fn schema_names_exactly_the_fields() {
        let schema = output_schema::<GitOutput>();
        let mut names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        names.sort();
        let mut expected = [
            "operation",
            "success",
            "summary",
            "files",
            "commits",
            "branches",
            "current_branch",
            "stdout",
            "stdout_truncated",
            "stderr",
            "error_kind",
            "terminal",
            "error",
        ];
        expected.sort();
        assert_eq!(names, expected);
        assert_eq!(schema["required"], serde_json::json!(["operation", "success", "summary"]));
        let text = schema.to_string();
        for inner in ["orig_path", "worktree", "subject", "email", "upstream", "untracked"] {
            assert!(text.contains(inner), "{inner}");
        }
    }

    #[test]
    fn a_failure_says_its_kind_and_starts_the_text() {
        let f = GitFailure::new(ErrorKind::NotARepository, "not a git repository")
            .with_stderr("fatal: x");
        let (value, text) = failed(GitOperation::Status, &f);
        assert!(text.starts_with("not a git repository (LOCAL_EXECUTOR_NOT_A_REPOSITORY)"));
        assert!(text.ends_with("fatal: x"));
        let json = serde_json::to_value(&value).unwrap();
        assert_eq!(json["success"], false);
        assert_eq!(json["error_kind"], "LOCAL_EXECUTOR_NOT_A_REPOSITORY");
        assert_eq!(json["terminal"], true);
        assert_eq!(json["stderr"], "fatal: x");
        assert!(json.get("files").is_none());
    }

    #[test]
    fn current_branch_is_null_when_detached_and_absent_when_unknown() {
        let mut o = GitOutput::new(GitOperation::Status);
        assert!(serde_json::to_value(&o).unwrap().get("current_branch").is_none());
        o.current_branch = Some(None);
        assert_eq!(serde_json::to_value(&o).unwrap()["current_branch"], serde_json::Value::Null);
    }

    #[test]
    fn fit_cuts_stdout_then_lists() {
        let big: Vec<u8> = b"+added line with \"quotes\"\n".repeat(STRUCTURED_BUDGET / 10);
        let kept = Kept::of(&big, big.len());
        let mut o = GitOutput::new(GitOperation::Diff);
        o.stdout = Some(kept.render(crate::GIT_OUTPUT));
        o.stdout_truncated = Some(false);
        assert!(fit(&mut o, Some(&kept)));
        assert!(json_len(&o) <= STRUCTURED_BUDGET);
        assert_eq!(o.stdout_truncated, Some(true));
        assert!(o.stdout.as_ref().unwrap().contains("omitted here"));
        assert!(o.summary.contains("to fit the structured result"));

        // Short lines grow most when escaped; four budgets of them still keep a fair share.
        let lines: Vec<u8> = b"-1234\n".repeat(STRUCTURED_BUDGET * 4 / 6);
        let kept = Kept::of(&lines, lines.len());
        let mut o = GitOutput::new(GitOperation::Diff);
        o.stdout = Some(kept.render(crate::GIT_OUTPUT));
        assert!(fit(&mut o, Some(&kept)));
        let stdout = o.stdout.as_ref().unwrap();
        assert!(json_len(&o) <= STRUCTURED_BUDGET);
        assert!(stdout.len() > STRUCTURED_BUDGET / 2, "{}", stdout.len());
        assert!(stdout.starts_with("-1234\n") && stdout.ends_with("-1234\n"));

        let entry = |i: usize| FileEntry {
            path: format!("dir/file-{i:06}.rs"),
            index: ".".into(),
            worktree: "M".into(),
            orig_path: None,
            kind: FileKind::Changed,
            score: None,
            shown: String::new(),
            orig_shown: None,
        };
        let mut o = GitOutput::new(GitOperation::Status);
        o.files = Some((0..STRUCTURED_BUDGET / 40).map(entry).collect());
        assert!(fit(&mut o, None));
        assert!(json_len(&o) <= STRUCTURED_BUDGET);
        assert!(o.summary.contains("entries fit the structured result"), "{}", o.summary);
        let mut small = GitOutput::new(GitOperation::Status);
        assert!(!fit(&mut small, None));
    }
}
