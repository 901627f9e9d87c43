//! One call from checked input to its result, over any [`Git`]: list the repository's
//! drivers and disable them ([`crate::hardening`]), resolve the revision
//! ([`crate::revision`]), run the operation's command, parse what it printed and render the
//! text. Every step is a pure function or a [`Git::run`], so the whole flow runs natively in
//! tests.

use toolhost_sdk::error_kinds::ErrorKind;

use crate::failure::GitFailure;
use crate::hardening::{argv, driver_overrides, driver_query};
use crate::input::{CheckedGit, GitOperation};
use crate::report::GitOutput;
use crate::revision;
use crate::runner::{Git, GitRun, Keep, exit_failure};
use crate::{branch, log, status};
use toolhost_sdk::head_tail::Kept;

/// A call that succeeded: its structured value, the full text, and for diff/show the kept
/// stdout (which the structured value may cut further).
#[derive(Debug)]
pub struct Done {
    /// The structured value (success).
    pub output: GitOutput,
    /// The model-visible text before it is bounded.
    pub text: String,
    /// diff/show: git's stdout as kept within `max_bytes`.
    pub kept: Option<Kept>,
}

/// The `-c` overrides disabling the repository's drivers (a first git run).
pub fn overrides<G: Git>(git: &mut G) -> Result<Vec<String>, GitFailure> {
    let ran = git.run(&driver_query(), Keep::Whole)?;
    match ran.code {
        0 => driver_overrides(&ran.text()),
        // No such setting (also outside a repository: the real command then says so).
        1 => Ok(Vec::new()),
        // Unknown drivers would stay live: fail closed.
        _ => Err(exit_failure("git config (listing the repository's drivers)", &ran)),
    }
}

/// Runs the call.
pub fn run<G: Git>(git: &mut G, input: &CheckedGit) -> Result<Done, GitFailure> {
    let overrides = overrides(git)?;
    let start = match &input.revision {
        Some(rev) => Some(revision::resolve(git, &overrides, rev)?),
        None => None,
    };
    let call = Call { input, overrides: &overrides, start: start.as_deref() };
    match input.operation {
        GitOperation::Status => call.status(git),
        GitOperation::Log => call.log(git),
        GitOperation::Branch => call.branch(git),
        GitOperation::Diff | GitOperation::Show => call.patch(git),
    }
}

/// What every operation needs: the input, the driver overrides and the resolved revision.
struct Call<'a> {
    input: &'a CheckedGit,
    overrides: &'a [String],
    start: Option<&'a str>,
}

impl Call<'_> {
    fn git<G: Git>(&self, git: &mut G, rest: &[String], keep: Keep) -> Result<GitRun, GitFailure> {
        git.run(&argv(self.overrides, rest), keep)
    }

    fn status<G: Git>(&self, git: &mut G) -> Result<Done, GitFailure> {
        let ran = self.git(git, &status::args(&self.input.pathspecs), Keep::Whole)?;
        let ran = ok(ran, "git status")?;
        let parsed = status::parse(&ran.text()).map_err(|e| unreadable("git status", &e.0))?;
        let mut lines = vec![status::branch_line(&parsed.branch)];
        lines.extend(parsed.files.iter().map(status::short_line));
        if parsed.files.is_empty() {
            lines.push("nothing to commit, working tree clean".into());
        }
        let mut output = GitOutput::new(GitOperation::Status);
        output.summary = status::summary(&parsed);
        output.current_branch = Some(parsed.branch.head.clone());
        output.files = Some(parsed.files);
        output.stderr = nonempty(&ran);
        Ok(Done { text: with_notes(lines.join("\n"), &ran), output, kept: None })
    }

    fn log<G: Git>(&self, git: &mut G) -> Result<Done, GitFailure> {
        let input = self.input;
        let args = log::args(input.max_count, self.start, &input.pathspecs);
        let ran = self.git(git, &args, Keep::Whole)?;
        let mut output = GitOutput::new(GitOperation::Log);
        if ran.code != 0 && ran.stderr.contains("does not have any commits yet") {
            output.summary = "no commits yet".into();
            output.commits = Some(Vec::new());
            return Ok(Done { text: "No commits yet.".into(), output, kept: None });
        }
        let ran = ok(ran, "git log")?;
        let commits = log::parse(&ran.text()).map_err(|e| unreadable("git log", &e))?;
        let text = if commits.is_empty() {
            "No commits match.".to_owned()
        } else {
            commits.iter().map(log::line).collect::<Vec<_>>().join("\n")
        };
        output.summary = format!(
            "{} commit{} (newest first, at most {})",
            commits.len(),
            if commits.len() == 1 { "" } else { "s" },
            input.max_count
        );
        output.commits = Some(commits);
        output.stderr = nonempty(&ran);
        Ok(Done { text: with_notes(text, &ran), output, kept: None })
    }

    fn branch<G: Git>(&self, git: &mut G) -> Result<Done, GitFailure> {
        let ran = ok(self.git(git, &branch::args(), Keep::Whole)?, "git for-each-ref")?;
        let branches =
            branch::parse(&ran.text()).map_err(|e| unreadable("git for-each-ref", &e))?;
        let mut current = branches.iter().find(|b| b.current).map(|b| b.name.clone());
        let mut lines: Vec<String> = branches.iter().map(branch::line).collect();
        if current.is_none() {
            let head = self.git(git, &branch::head_args(), Keep::Whole)?;
            current = branch::unborn_head(&head.text());
            lines.push(match &current {
                Some(name) => format!("(HEAD is on {name}, which has no commits yet)"),
                None => "(HEAD is detached)".to_owned(),
            });
        }
        let mut output = GitOutput::new(GitOperation::Branch);
        output.summary = format!(
            "{} local branch{}; current: {}",
            branches.len(),
            if branches.len() == 1 { "" } else { "es" },
            current.as_deref().unwrap_or("none (HEAD detached)")
        );
        output.current_branch = Some(current);
        output.branches = Some(branches);
        output.stderr = nonempty(&ran);
        Ok(Done { text: with_notes(lines.join("\n"), &ran), output, kept: None })
    }

    /// diff and show: git's patch, kept within `max_bytes`.
    fn patch<G: Git>(&self, git: &mut G) -> Result<Done, GitFailure> {
        let input = self.input;
        let sub = input.operation.name();
        let mut args: Vec<String> =
            [sub, "--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=dirty"]
                .iter()
                .map(|s| (*s).to_owned())
                .collect();
        match (input.operation, self.start) {
            (_, Some(hash)) => args.push(hash.to_owned()),
            (GitOperation::Show, None) => {
                let head = revision::parse("HEAD")?;
                args.push(revision::resolve(git, self.overrides, &head)?);
            }
            _ => {}
        }
        args.push("--".into());
        args.extend(input.pathspecs.iter().cloned());
        let ran = self.git(git, &args, Keep::HeadTail(input.max_bytes))?;
        let ran = ok(ran, &format!("git {sub}"))?;
        let kept = ran.stdout.clone();
        let total = kept.len() as u64 + kept.omitted;
        let stdout = kept.render(crate::GIT_OUTPUT);
        let mut output = GitOutput::new(input.operation);
        output.summary = if total == 0 {
            "no changes".to_owned()
        } else if kept.truncated() {
            format!(
                "{total} bytes of {sub} output; {} of them kept, from its start and its end (max_bytes {})",
                kept.len(),
                input.max_bytes
            )
        } else {
            format!("{total} bytes of {sub} output")
        };
        let mut text = if stdout.is_empty() { "No changes.".to_owned() } else { stdout.clone() };
        if kept.truncated() {
            let saved =
                ran.stdout_saved.as_ref().map(|p| format!("; the whole output is saved at {p}"));
            text.push_str(&format!(
                "\n[git printed {total} bytes; the middle was cut to keep max_bytes ({}){}]",
                input.max_bytes,
                saved.unwrap_or_default()
            ));
        }
        output.stdout = Some(stdout);
        output.stdout_truncated = Some(kept.truncated());
        output.stderr = nonempty(&ran);
        Ok(Done { text: with_notes(text, &ran), output, kept: Some(kept) })
    }
}

/// `ran` when git exited 0, else its failure.
fn ok(ran: GitRun, what: &str) -> Result<GitRun, GitFailure> {
    if ran.code == 0 { Ok(ran) } else { Err(exit_failure(what, &ran)) }
}

fn unreadable(what: &str, why: &str) -> GitFailure {
    GitFailure::new(ErrorKind::Internal, format!("could not read the output of {what}: {why}"))
}

fn nonempty(ran: &GitRun) -> Option<String> {
    let stderr = ran.stderr_trimmed();
    (!stderr.is_empty()).then(|| stderr.to_owned())
}

/// The text with a note when stdout lost bytes the runner could not read back.
fn with_notes(mut text: String, ran: &GitRun) -> String {
    if ran.stdout_incomplete {
        text.push_str("\n[git's output was larger than the host saves (64 MiB); the rest is missing — narrow with pathspecs]");
    }
    text
}
