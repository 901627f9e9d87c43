//! What `--help` shows (docs/cli.md#help): the global options once, under `toolhost --help`;
//! each command's own options, then examples of it and one line naming the global options.
//!
//! clap copies a `global = true` option into every subcommand's help. A hidden copy of each
//! is given to every subcommand first: clap skips an option a subcommand already has, and
//! the copy parses exactly as the global one does (same id, same value parser, `global`
//! too, so its value reaches the top), it only does not show.

use clap::{Command, CommandFactory, FromArgMatches};

use crate::Cli;

/// Examples of each command, by its path below `toolhost` (`tool add`).
const EXAMPLES: &[(&str, &[&str])] = &[
    ("tools", &["toolhost tools", "toolhost --agent workspace tools --json"]),
    (
        "call",
        &[
            r#"toolhost call read '{"path": "README.md"}'"#,
            r#"toolhost call list '{"path": "."}' --json"#,
            r#"toolhost --workspace ~/project call grep '{"pattern": "TODO"}'"#,
            "toolhost call write - < write-input.json",
        ],
    ),
    (
        "session",
        &[
            "toolhost --workspace ~/project --session demo session --client-approves",
            r#"echo '{"id":"c1","tool":"read","arguments":{"path":"README.md"}}' | toolhost session"#,
        ],
    ),
    ("doctor", &["toolhost doctor"]),
    (
        "mcp",
        &[
            "toolhost --workspace ~/project mcp",
            "toolhost --workspace ~/project --agent workspace mcp --listen 8765",
        ],
    ),
    (
        "conformance",
        &[
            "toolhost conformance ./wordcount.wasm",
            "toolhost conformance ./wordcount.wasm --json --seed 7",
        ],
    ),
    ("wit", &["toolhost wit > wit/tool.wit", "toolhost wit --version 0.1.0"]),
    (
        "new",
        &[
            "toolhost new wordcount --lang rust",
            "toolhost new wordcount --lang python --dir ./tools/wc",
        ],
    ),
    ("tool", &["toolhost tool add ./wordcount.wasm", "toolhost tool list"]),
    (
        "tool add",
        &[
            "toolhost tool add ./wordcount.wasm",
            "toolhost tool add ./wordcount.wasm --yes",
            "toolhost tool add oci://ghcr.io/acme/wordcount:1.0 --key acme.pub",
            "toolhost tool add oci://ghcr.io/acme/wordcount@sha256:<64 hex digits>",
        ],
    ),
    (
        "tool publish",
        &[
            "toolhost tool publish ./wordcount.wasm oci://ghcr.io/acme/wordcount:1.0",
            "COSIGN_PASSWORD=… toolhost tool publish ./wordcount.wasm oci://ghcr.io/acme/wordcount:1.0 --key cosign.key",
        ],
    ),
    ("tool list", &["toolhost tool list", "toolhost tool list --json"]),
    ("tool show", &["toolhost tool show wordcount", "toolhost tool show wordcount --json"]),
    ("tool remove", &["toolhost tool remove wordcount"]),
    ("changes", &["toolhost changes", "toolhost --session demo changes --json"]),
    ("undo", &["toolhost undo demo-2", "toolhost undo demo-3 demo-2"]),
    ("reapply", &["toolhost reapply demo-2"]),
];

/// The `toolhost` command with the help described above.
pub fn command() -> Command {
    let root = Cli::command();
    let globals: Vec<clap::Arg> =
        root.get_arguments().filter(|a| a.is_global_set()).cloned().collect();
    let names: Vec<String> =
        globals.iter().filter_map(|a| a.get_long()).map(|long| format!("--{long}")).collect();
    let line = format!(
        "Global options (before or after the command; `toolhost --help` says what each does):\n  {}",
        names.join(", ")
    );
    let root = root.after_help(
        "Examples:\n  toolhost call list '{\"path\": \".\"}'\n  toolhost --workspace ~/project mcp\n\n`toolhost COMMAND --help` shows a command's own options and examples.",
    );
    with_quiet_globals(root, "", &globals, &line)
}

/// Every subcommand of `cmd` (whose path is `path`), recursively, with hidden copies of
/// `globals`, its examples and `line`.
fn with_quiet_globals(mut cmd: Command, path: &str, globals: &[clap::Arg], line: &str) -> Command {
    let names: Vec<String> = cmd.get_subcommands().map(|s| s.get_name().to_string()).collect();
    for name in names {
        let sub_path = if path.is_empty() { name.clone() } else { format!("{path} {name}") };
        let examples = EXAMPLES
            .iter()
            .find(|(p, _)| *p == sub_path)
            .map(|(_, lines)| format!("Examples:\n  {}\n\n", lines.join("\n  ")))
            .unwrap_or_default();
        let after = format!("{examples}{line}");
        cmd = cmd.mut_subcommand(&name, |sub| {
            let mut sub = sub.after_help(after);
            for global in globals {
                sub = sub.arg(global.clone().hide(true));
            }
            with_quiet_globals(sub, &sub_path, globals, line)
        });
    }
    cmd
}

/// Parse the process's arguments with [`command`]; on a usage error clap prints it and exits
/// 2, as `Cli::parse` does.
pub fn parse() -> Cli {
    let matches = command().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rendered `--help` of the command at `path`.
    fn help(path: &[&str]) -> String {
        let mut cmd = command();
        cmd.build();
        let mut at = &mut cmd;
        for name in path {
            at = at.find_subcommand_mut(name).unwrap_or_else(|| panic!("no {name}"));
        }
        at.render_long_help().to_string()
    }

    #[test]
    fn every_command_has_examples_and_the_globals_only_once() {
        let top = help(&[]);
        assert!(top.contains("--workspace <WORKSPACE>") && top.contains("--allow-escalation"));
        let mut paths: Vec<Vec<String>> = Vec::new();
        let cmd = command();
        for sub in cmd.get_subcommands() {
            paths.push(vec![sub.get_name().into()]);
            for nested in sub.get_subcommands() {
                paths.push(vec![sub.get_name().into(), nested.get_name().into()]);
            }
        }
        for path in paths {
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            let text = help(&path);
            assert!(text.contains("Examples:\n  toolhost "), "{path:?}: {text}");
            assert!(!text.contains("--data-dir <DATA_DIR>"), "{path:?} repeats a global: {text}");
            assert!(text.contains("--data-dir, --mode"), "{path:?} does not name them: {text}");
        }
    }

    #[test]
    fn a_global_option_after_the_command_still_parses() {
        let m = command()
            .try_get_matches_from(["toolhost", "tools", "--workspace", "/w", "--json"])
            .unwrap();
        let cli = Cli::from_arg_matches(&m).unwrap();
        assert_eq!(cli.workspace.as_deref(), Some(std::path::Path::new("/w")));
        let m = command()
            .try_get_matches_from(["toolhost", "tool", "list", "--data-dir", "/d"])
            .unwrap();
        let cli = Cli::from_arg_matches(&m).unwrap();
        assert_eq!(cli.data_dir.as_deref(), Some(std::path::Path::new("/d")));
    }
}
