//! The environment a component may set for a program it runs: an allow list
//! ([`ALLOWED_ENV`], each name with the values it may take), names never allowed
//! ([`REFUSED_ENV`]: they decide what code runs), and the operator's additions
//! (`policy.json` `process_env_allow`), judged by [`env_refusal`].

/// Names a component may never set, not even when `policy.json` allows them: `PATH` decides
/// which program runs; the loader's and the shells' and interpreters' start-up hooks run code
/// of the caller's choosing before the program's own. Prefixes end with `_`; compared in any
/// case.
pub const REFUSED_ENV: &[&str] = &[
    "PATH",
    "LD_",
    "DYLD_",
    "BASH_ENV",
    "ENV",
    "BASH_FUNC_",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "IFS",
    "CDPATH",
    "GLOBIGNORE",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONINSPECT",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_CONFIG_",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GCONV_PATH",
    "MALLOC_",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "HOME",
    "TMPDIR",
];

/// What value an allowed variable may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvValue {
    /// Any value: the variable is a switch (`NO_COLOR`, `CI`).
    Any,
    /// Digits only (`COLUMNS`, `SOURCE_DATE_EPOCH`).
    Number,
    /// A locale name (`en_US.UTF-8`, `C`): letters, digits, `_ . - @`; no `/` or `..`, which
    /// would make the C library load locale data from a file the tool chose.
    Locale,
    /// Locale names separated by `:` (`LANGUAGE`).
    LocaleList,
    /// A time zone (`Europe/Berlin`, `UTC`, `EST5EDT,M3.2.0,M11.1.0`): relative to the
    /// system's zone files, no `..`, not a path (`/…`, `:/…`).
    TimeZone,
    /// A terminal name (`xterm-256color`): letters, digits, `. _ + -`; no `/` or `..`.
    Terminal,
    /// Exactly this value: a switch that only takes something away (`GIT_CONFIG_NOSYSTEM=1`),
    /// allowed although its prefix is refused.
    Only(&'static str),
}

/// The only variables a component may set for a program it runs without the operator's say
/// (`policy.json` `process_env_allow` adds more): none of them names a program, a
/// configuration file, a directory to load code or configuration from, or options a program
/// parses, and those that name a system file (locale, zone, terminal) must stay a name.
/// Everything else (`GIT_DIR`, `XDG_CONFIG_HOME`, `PAGER`, `EDITOR`, `GOFLAGS`, `CC`, …) can
/// make a harmless-looking `git status` run the tool's code.
pub const ALLOWED_ENV: &[(&str, EnvValue)] = &[
    ("LANG", EnvValue::Locale),
    ("LANGUAGE", EnvValue::LocaleList),
    ("LC_ALL", EnvValue::Locale),
    ("LC_ADDRESS", EnvValue::Locale),
    ("LC_COLLATE", EnvValue::Locale),
    ("LC_CTYPE", EnvValue::Locale),
    ("LC_IDENTIFICATION", EnvValue::Locale),
    ("LC_MEASUREMENT", EnvValue::Locale),
    ("LC_MESSAGES", EnvValue::Locale),
    ("LC_MONETARY", EnvValue::Locale),
    ("LC_NAME", EnvValue::Locale),
    ("LC_NUMERIC", EnvValue::Locale),
    ("LC_PAPER", EnvValue::Locale),
    ("LC_TELEPHONE", EnvValue::Locale),
    ("LC_TIME", EnvValue::Locale),
    ("TZ", EnvValue::TimeZone),
    ("TERM", EnvValue::Terminal),
    ("NO_COLOR", EnvValue::Any),
    ("CLICOLOR", EnvValue::Any),
    ("CLICOLOR_FORCE", EnvValue::Any),
    ("FORCE_COLOR", EnvValue::Any),
    ("CI", EnvValue::Any),
    ("COLUMNS", EnvValue::Number),
    ("LINES", EnvValue::Number),
    ("SOURCE_DATE_EPOCH", EnvValue::Number),
    // git's switches that only take away: no system or global config, no optional locks, no
    // prompt, no system attributes, no replace refs, no fetch of missing objects.
    ("GIT_CONFIG_NOSYSTEM", EnvValue::Only("1")),
    ("GIT_CONFIG_GLOBAL", EnvValue::Only("/dev/null")),
    ("GIT_OPTIONAL_LOCKS", EnvValue::Only("0")),
    ("GIT_TERMINAL_PROMPT", EnvValue::Only("0")),
    ("GIT_ATTR_NOSYSTEM", EnvValue::Only("1")),
    ("GIT_NO_REPLACE_OBJECTS", EnvValue::Only("1")),
    ("GIT_NO_LAZY_FETCH", EnvValue::Only("1")),
];

impl EnvValue {
    /// Whether `value` is one this kind allows.
    fn allows(self, value: &str) -> bool {
        let locale = |v: &str| {
            !v.contains("..")
                && v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '@'))
        };
        match self {
            EnvValue::Any => true,
            EnvValue::Number => value.chars().all(|c| c.is_ascii_digit()),
            EnvValue::Locale => locale(value),
            EnvValue::LocaleList => value.split(':').all(locale),
            EnvValue::TimeZone => {
                let name = value.strip_prefix(':').unwrap_or(value);
                !name.starts_with('/')
                    && !name.split('/').any(|part| part == "..")
                    && value.chars().all(|c| c.is_ascii_alphanumeric() || "_-+.,:/<>".contains(c))
            }
            EnvValue::Only(only) => value == only,
            EnvValue::Terminal => {
                !value.contains("..")
                    && value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '+'))
            }
        }
    }

    /// What this kind allows, for a refusal.
    fn rule(self) -> std::borrow::Cow<'static, str> {
        match self {
            EnvValue::Only(only) => format!("exactly {only:?}").into(),
            EnvValue::Any => "any value".into(),
            EnvValue::Number => "digits only".into(),
            EnvValue::Locale => {
                "a locale name (letters, digits, `_`, `.`, `-`, `@`; not a path)".into()
            }
            EnvValue::LocaleList => "locale names separated by `:` (not paths)".into(),
            EnvValue::TimeZone => "a zone name or rule (no `..`, not a path)".into(),
            EnvValue::Terminal => {
                "a terminal name (letters, digits, `_`, `.`, `-`, `+`; not a path)".into()
            }
        }
    }
}

/// The names of [`ALLOWED_ENV`], for texts.
fn allowed_names() -> String {
    let mut names: Vec<&str> = ALLOWED_ENV
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !n.starts_with("LC_") || *n == "LC_ALL")
        .collect();
    names.insert(names.iter().position(|n| *n == "LC_ALL").map_or(0, |i| i + 1), "LC_*");
    names.join(", ")
}

/// Why a component may not set the variable `name` to `value` under `policy` (whose
/// `process_env_allow` adds names); `None` if it may. `policy_file` is where an operator
/// allows more.
pub fn env_refusal(
    name: &str,
    value: &str,
    policy: &toolhost_policy::SandboxPolicy,
    policy_file: &std::path::Path,
) -> Option<String> {
    let well_formed = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !well_formed {
        return Some(format!(
            "the environment variable name {name:?} is not allowed: use letters, digits and `_`, not starting with a digit"
        ));
    }
    if let Some((_, kind @ EnvValue::Only(_))) = ALLOWED_ENV.iter().find(|(n, _)| *n == name) {
        return (!kind.allows(value)).then(|| {
            format!("a tool may set {name} for a program it runs only to {}", kind.rule())
        });
    }
    let upper = name.to_ascii_uppercase();
    if let Some(r) = REFUSED_ENV
        .iter()
        .find(|r| if r.ends_with('_') { upper.starts_with(*r) } else { upper == **r })
    {
        return Some(format!(
            "a tool may not set {name} for a program it runs ({r}{} decides what code runs); the host's value is used",
            if r.ends_with('_') { "*" } else { "" }
        ));
    }
    if let Some((_, kind)) = ALLOWED_ENV.iter().find(|(n, _)| *n == name) {
        return (!kind.allows(value)).then(|| {
            format!("a tool may set {name} for a program it runs only to {}; this value could name a file of its own", kind.rule())
        });
    }
    if policy.process_env_allowed(name) {
        return None;
    }
    Some(format!(
        "a tool may not set {name} for a program it runs: only {} are passed on, since any other variable may name a program, a configuration file or options the program parses (GIT_DIR, XDG_CONFIG_HOME, PAGER, …); an operator allows it by adding \"{name}\" to \"process_env_allow\" in {}",
        allowed_names(),
        policy_file.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_policy::{PolicyConfig, SandboxMode, SandboxPolicy};

    fn policy(allow: &[&str]) -> SandboxPolicy {
        let config = PolicyConfig {
            process_env_allow: allow.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        SandboxPolicy::builder(SandboxMode::WorkspaceWrite, "/ws").config(config).build()
    }

    #[test]
    fn the_environment_a_tool_may_set_is_an_allow_list() {
        let file = std::path::Path::new("/data/policy.json");
        let none = policy(&[]);
        for (ok, value) in [
            ("CI", "true"),
            ("NO_COLOR", "1"),
            ("LANG", "en_US.UTF-8"),
            ("LC_ALL", "C"),
            ("LANGUAGE", "de:en"),
            ("TZ", "Europe/Berlin"),
            ("TZ", "EST5EDT,M3.2.0,M11.1.0"),
            ("TZ", "UTC"),
            ("TERM", "xterm-256color"),
            ("COLUMNS", "80"),
        ] {
            assert_eq!(env_refusal(ok, value, &none, file), None, "{ok}={value}");
        }
        for refused in [
            "PATH",
            "path",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "DYLD_INSERT_LIBRARIES",
            "BASH_ENV",
            "BASH_FUNC_x%%",
            "GIT_CONFIG_COUNT",
            "NODE_OPTIONS",
            "PYTHONPATH",
            "HOME",
        ] {
            assert!(env_refusal(refused, "x", &none, file).is_some(), "{refused}");
        }
        // Not on the list: refused, saying how an operator allows it.
        for unknown in [
            "GIT_DIR",
            "XDG_CONFIG_HOME",
            "PAGER",
            "EDITOR",
            "GOFLAGS",
            "CC",
            "RUST_BACKTRACE",
            "lang",
            "cargo_term_color",
        ] {
            let why = env_refusal(unknown, "x", &none, file)
                .unwrap_or_else(|| panic!("{unknown} was allowed"));
            assert!(
                why.contains(&format!("may not set {unknown}"))
                    && why.contains(&format!(
                        "\"{unknown}\" to \"process_env_allow\" in /data/policy.json"
                    )),
                "{why}"
            );
        }
    }

    #[test]
    fn a_value_that_could_name_a_file_is_refused_and_policy_adds_only_harmless_names() {
        let file = std::path::Path::new("/data/policy.json");
        let none = policy(&[]);
        // A name that must stay a name.
        for (name, value) in [
            ("LANG", "/ws/locale"),
            ("LC_CTYPE", "../x"),
            ("LC_ALL", ".."),
            ("LANGUAGE", "en:/ws/x"),
            ("LANGUAGE", "de:.."),
            ("TZ", "/ws/zone"),
            ("TZ", ":/ws/zone"),
            ("TZ", "../../ws/zone"),
            ("TERM", "../ws/t"),
            ("COLUMNS", "80x"),
        ] {
            let why = env_refusal(name, value, &none, file)
                .unwrap_or_else(|| panic!("{name}={value} was allowed"));
            assert!(
                why.contains(&format!("may set {name} for a program it runs only to")),
                "{why}"
            );
        }
        // policy.json adds names, never one that decides what code runs.
        let some = policy(&["GOFLAGS", "MYAPP_*", "PATH", "LD_*"]);
        assert_eq!(env_refusal("GOFLAGS", "-x", &some, file), None);
        assert_eq!(env_refusal("MYAPP_LEVEL", "3", &some, file), None);
        assert!(env_refusal("GIT_DIR", "x", &some, file).is_some());
        assert!(env_refusal("PATH", "/x", &some, file).unwrap().contains("decides what code runs"));
        assert!(
            env_refusal("LD_PRELOAD", "/x", &some, file)
                .unwrap()
                .contains("decides what code runs")
        );
        for malformed in ["", "A=B", "1X", "A B", "Ä"] {
            assert!(
                env_refusal(malformed, "x", &some, file).unwrap().contains("is not allowed"),
                "{malformed}"
            );
        }
    }
}
