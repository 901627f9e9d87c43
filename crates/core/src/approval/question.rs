//! Every text of an approval a person or the model reads: the question every channel shows
//! for a run ([`run_request`]) or an escalation ([`approval_request`]), and the model-visible
//! refusals when nobody approved or a person declined. What the model wrote is always
//! escaped on one quoted line, so it cannot pose as one of toolhost's lines.

use std::path::Path;

use toolhost_policy::{Escalation, NetworkAccess};

use super::package::{PackageJson, PackageScripts};
use super::run::{RunApproval, RunFacts};
use crate::display::{quoted, terminal_line};

/// The line every run question carries: toolhost approves the program it starts, not what
/// that program starts in turn (docs/workspace-tools.md#approvals).
pub const RUNS_IN_TURN: &str = "  - what it starts in turn is not checked: the program may run any other program (a shell, a compiler, the project's own tests and scripts, an alias or a hook it is configured with) in this same sandbox";

/// The question for one run (see [`super::Approval::question`]), built from what will actually run
/// ([`RunFacts`]): the command line as the model gave it, the program file found for it, the
/// working directory, the time limit, the variables, the package scripts a package manager
/// runs, every place the run may write, the network, that what it starts in turn is not
/// checked, and the model's purpose quoted on one escaped line. Every field the model wrote
/// is escaped, and bounded ([`RunApproval::check_size`]).
pub fn run_request(tool: &str, run: &RunApproval) -> String {
    let facts = &run.facts;
    let mut out = format!("The {} call asks to run a program:\n", terminal_line(tool));
    out.push_str(&format!("  - command: {}\n", run.command_line()));
    out.push_str(&format!("  - program file: {}\n", program_line(facts)));
    out.push_str(&format!("  - in: {}\n", run.cwd_shown()));
    out.push_str(&format!("  - time limit: {}\n", seconds(run.spec.timeout_ms)));
    if !run.spec.env.is_empty() {
        out.push_str(&format!("  - environment: {}\n", run.env_shown()));
    }
    if let Some(package) = &facts.package {
        out.push_str(&package_lines(package));
    }
    let writable = facts.writable();
    if writable.is_empty() {
        out.push_str("  - writes: nothing (every path is read-only for it)\n");
    }
    for root in &writable {
        let what = writable_label(facts, root);
        out.push_str(&format!(
            "  - writes: {} and everything below it{what}\n",
            quoted(&root.to_string_lossy())
        ));
    }
    out.push_str("  - reads: everything else but credentials (hidden); writes nothing else\n");
    let network = facts.policy.as_ref().is_some_and(|p| p.network() == NetworkAccess::Allow);
    if network {
        out.push_str("  - network: the run may reach any host\n");
    } else {
        out.push_str("  - network: none\n");
    }
    out.push_str(RUNS_IN_TURN);
    out.push('\n');
    match run.purpose_shown() {
        Some(p) => out.push_str(&format!(
            "  The model's reason (its own words, not checked by toolhost): {p}\n"
        )),
        None => out.push_str("  The model gave no reason.\n"),
    }
    out.push_str("Allow this one run?");
    out
}

/// The program file of a question: its path, what it links to, its `#!` line, and whether
/// it lies where the run (and so the model) can write.
fn program_line(facts: &RunFacts) -> String {
    let Some(program) = &facts.program else {
        let why = facts.not_found.as_deref().unwrap_or("no program file was found");
        return format!("none ({}): it cannot start", terminal_line(why));
    };
    let mut line = quoted(&program.path.to_string_lossy());
    if program.real != program.path {
        line.push_str(&format!(", which is the file {}", quoted(&program.real.to_string_lossy())));
    }
    if let Some(header) = &program.header {
        line.push_str(&format!(", a script that starts {}", quoted(header)));
    }
    if facts.in_writable(&program.real) || facts.in_writable(&program.path) {
        line.push_str(" — in a place the model can write, so it may have written this program");
    }
    line
}

/// What a writable root is, after its path on a question line.
fn writable_label(facts: &RunFacts, root: &Path) -> &'static str {
    let policy = facts.policy.as_ref();
    if facts.cache.as_deref() == Some(root) {
        " (this session's private cache dir, the run's XDG_CACHE_HOME)"
    } else if policy.is_some_and(|p| p.workspace() == root) {
        " (the workspace)"
    } else if policy.is_some_and(|p| p.temp_dir() == root && p.temp_dir_is_shared()) {
        " (the temp dir, shared with other programs)"
    } else if policy.is_some_and(|p| p.temp_dir() == root) {
        " (this toolhost process's private temp dir, the run's TMPDIR)"
    } else {
        ""
    }
}

/// The question's lines on the package scripts a package manager's run executes, within
/// [`toolhost_limits::APPROVAL_MAX_SCRIPT_CHARS`] (a script past it is named, with its length
/// and its file, never silently left out).
pub(super) fn package_lines(package: &PackageScripts) -> String {
    let manager = &package.manager;
    match &package.found {
        PackageJson::NoFile { from } => format!(
            "  - package scripts: no package.json in {} or above it, so {manager} finds no script to run\n",
            quoted(&from.to_string_lossy())
        ),
        PackageJson::Unreadable { file, why } => format!(
            "  - package scripts: {} could not be read ({}), so the scripts {manager} runs from it are NOT shown here: read the file before you approve\n",
            quoted(&file.to_string_lossy()),
            terminal_line(why)
        ),
        PackageJson::Scripts { file, scripts } if scripts.is_empty() => format!(
            "  - package scripts: none of the arguments names a script of {}\n",
            quoted(&file.to_string_lossy())
        ),
        PackageJson::Scripts { file, scripts } => {
            let file = quoted(&file.to_string_lossy());
            let mut out =
                format!("  - package scripts {manager} runs through a shell, from {file}:\n");
            let mut budget = toolhost_limits::APPROVAL_MAX_SCRIPT_CHARS;
            for (name, script) in scripts {
                let shown = quoted(script);
                let chars = shown.chars().count();
                if chars <= budget {
                    budget -= chars;
                    out.push_str(&format!("      {}: {shown}\n", quoted(name)));
                } else {
                    budget = 0;
                    out.push_str(&format!(
                        "      {}: NOT shown, {} characters, more than this question shows: read it in {file} before you approve\n",
                        quoted(name),
                        script.chars().count()
                    ));
                }
            }
            out
        }
    }
}

/// A time limit as the approval shows it: seconds, with milliseconds when not whole.
fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) { format!("{} s", ms / 1000) } else { format!("{ms} ms") }
}

/// The text of a refused run (status `denied`).
pub fn run_denied_message(tool: &str, run: &RunApproval) -> String {
    format!(
        "The {tool} call asked to run `{}` and nobody approved it, so nothing ran. Ask the user \
         to approve it, or do the task another way.",
        run.command_line()
    )
}

/// The text of a run the user declined (status `denied`).
pub fn run_declined_message(tool: &str, run: &RunApproval) -> String {
    format!("The user declined the {tool} call's run of `{}`, so nothing ran.", run.command_line())
}

/// The text of an escalation the user declined (status `denied`).
pub fn declined_message(tool: &str, escalation: &Escalation) -> String {
    format!(
        "The user declined the {tool} call's request for extra access to {}, so it did not run.",
        escalation_targets(escalation)
    )
}

/// What an escalation asks for, as its refusals name it: the paths, then the network.
fn escalation_targets(escalation: &Escalation) -> String {
    let mut paths: Vec<String> =
        escalation.grants.iter().map(|g| g.path.display().to_string()).collect();
    if escalation.network {
        paths.push("the network".into());
    }
    paths.join(", ")
}

/// The text of a refused escalation (status `denied`).
pub fn denied_message(tool: &str, escalation: &Escalation) -> String {
    format!(
        "The {tool} call asked for extra access to {} and nobody approved it, so it did not run. \
         Do the task inside the workspace, or ask the user to grant it (for example by running \
         toolhost with --allow-escalation).",
        escalation_targets(escalation)
    )
}

/// The text every approval channel shows for one escalation (the terminal prompt, MCP
/// elicitation, any later one), so the user reads the same words everywhere. Each grant is
/// one line saying what it allows: read or write, the exact path only or everything below it,
/// the path as a JSON string literal (quotes, control and bidi characters escaped); the
/// network on a line of its own. What the model wrote (`justification`, and `tool` itself)
/// is quoted on one escaped line and marked as the model's, so it cannot pose as one of
/// toolhost's lines. Ends with the question, without the answer format (`[y/N]` on a
/// terminal, a form in MCP).
pub fn approval_request(tool: &str, escalation: &Escalation) -> String {
    use toolhost_policy::{Access, Scope};
    let mut out =
        format!("The {} call asks for extra access beyond its sandbox:\n", terminal_line(tool));
    for g in &escalation.grants {
        let path = quoted(&g.path.to_string_lossy());
        let line = match (g.access, g.scope) {
            (Access::Write, Scope::Subtree) => {
                format!(
                    "write, subtree: {path} and everything below it (create, change or delete any file there)"
                )
            }
            (Access::Write, Scope::Exact) => {
                format!("write, exact: {path} only (create, change or delete it)")
            }
            (Access::Read, Scope::Subtree) => {
                format!("read, subtree: {path} and everything below it")
            }
            (Access::Read, Scope::Exact) => format!("read, exact: {path} only"),
        };
        out.push_str(&format!("  - {line}\n"));
    }
    if escalation.network {
        out.push_str("  - network: the call may reach any host\n");
    }
    out.push_str(&format!(
        "  The model's reason (its own words, not checked by toolhost): {}\n",
        quoted(&escalation.justification)
    ));
    out.push_str("Allow this one call?");
    out
}
