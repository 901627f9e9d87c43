//! `toolhost COMMAND --help` shows the command's own options and examples,
//! and names the global options in one line instead of repeating them; `toolhost --help`
//! documents the global options once, and its `--agent` text names the five workspace tools.
//! The options still parse wherever they stood before (docs/cli.md).

use serde_json::Value;
use toolhost_tests::attack::Attack;

const COMMANDS: &[&[&str]] = &[
    &["tools"],
    &["call"],
    &["session"],
    &["doctor"],
    &["mcp"],
    &["conformance"],
    &["wit"],
    &["new"],
    &["tool"],
    &["tool", "add"],
    &["tool", "publish"],
    &["tool", "list"],
    &["tool", "show"],
    &["tool", "remove"],
    &["changes"],
    &["undo"],
    &["reapply"],
];

const GLOBALS: &[&str] = &[
    "--workspace",
    "--data-dir",
    "--mode",
    "--agent",
    "--tools",
    "--session",
    "--allow-escalation",
    "--tool",
];

const WORKSPACE_TOOLS: &[&str] = &[
    "workspace_git",
    "workspace_markdown",
    "workspace_preview",
    "workspace_shell",
    "workspace_tests",
];

#[test]
fn each_commands_help_has_its_own_options_and_examples_and_names_the_globals_once() {
    let a = Attack::new();
    for path in COMMANDS {
        let mut args: Vec<&str> = path.to_vec();
        args.push("--help");
        let out = a.run(&[], &args);
        assert_eq!(out.code, Some(0), "{path:?}: {}", out.all());
        let help = &out.stdout;
        assert!(help.contains("\nExamples:\n  toolhost "), "{path:?} shows no example: {help}");
        // The global options are named in one line, not repeated as options of the command.
        assert!(help.contains(&GLOBALS.join(", ")), "{path:?} does not name them: {help}");
        for global in GLOBALS {
            let listed =
                help.lines().filter(|l| l.split_whitespace().next() == Some(global)).count();
            assert_eq!(listed, 0, "{path:?} repeats {global} as one of its options: {help}");
        }
    }
    // Its own options are there: `call --json`, `mcp --listen`, `conformance --seed`.
    for (path, own) in
        [(&["call"][..], "--json"), (&["mcp"], "--listen"), (&["conformance"], "--seed")]
    {
        let mut args = path.to_vec();
        args.push("--help");
        let out = a.run(&[], &args);
        assert!(
            out.stdout.lines().any(|l| l.trim_start().starts_with(own)),
            "{path:?}: {}",
            out.stdout
        );
    }
    // Hidden from a command's help, the global options still parse before and after it.
    for args in [
        &["--agent", "workspace", "tools", "--json"][..],
        &["tools", "--agent", "workspace", "--json"],
    ] {
        let out = a.run(&[], args);
        assert_eq!(out.code, Some(0), "{args:?}: {}", out.all());
        let tools: Value = serde_json::from_str(&out.stdout).unwrap();
        let ids: Vec<&str> =
            tools.as_array().unwrap().iter().filter_map(|t| t["id"].as_str()).collect();
        assert!(ids.contains(&"workspace_git"), "{args:?}: {ids:?}");
    }
    let out = a.run(&[], &["tools", "--agent", "nobody"]);
    assert_eq!(out.code, Some(2), "{}", out.all());
}

#[test]
fn the_top_level_help_documents_every_global_option_and_all_five_workspace_tools() {
    let a = Attack::new();
    let out = a.run(&[], &["--help"]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    for global in GLOBALS {
        assert!(
            out.stdout.lines().any(|l| l.trim_start().starts_with(global)),
            "{global} is not documented: {}",
            out.stdout
        );
    }
    // The `--agent` option's text, up to the next option.
    let agent: String = out
        .stdout
        .split("\n      --agent")
        .nth(1)
        .and_then(|rest| rest.split("\n      --").next())
        .unwrap_or_default()
        .to_string();
    for tool in WORKSPACE_TOOLS {
        assert!(agent.contains(tool), "--agent's help does not name {tool}: {agent}");
    }
}
