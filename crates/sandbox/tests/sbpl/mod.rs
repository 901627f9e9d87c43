//! An evaluator of exactly the SBPL (Seatbelt profile language) subset toolhost's generator
//! emits, so the profile can be judged on Linux, where `sandbox-exec` does not exist.
//!
//! The subset: `(version 1)`, `(deny default)` / `(allow default)`, and rules
//! `(allow|deny OP… FILTER…)` whose filters (OR-ed, none = always) are `(literal S)`,
//! `(subpath S)`, `(regex #"R")`, `(require-all F…)`, `(require-any F…)`, `(require-not F)`
//! and `(target same-sandbox)`; a string is `"…"` (escapes `\\` and `\"` only) or
//! `(param "NAME")`, resolved from the `-D NAME=VALUE` arguments of `sandbox-exec`. A regex
//! uses only `^ $ . [^…] […] ( ) ? * + |` and `\`-escaped metacharacters, the POSIX ERE
//! subset the generator writes; it is compiled with the `regex` crate (`.` matching any
//! character, as POSIX does without `REG_NEWLINE`). Anything else is a parse error, so a
//! profile that leaves the subset fails the test instead of being judged wrongly.
//!
//! An operation `X*` covers every operation starting with `X` (`file-read*` covers
//! `file-read-data`); the last matching rule wins, else the default.

use std::collections::BTreeMap;
use std::ffi::OsString;

/// `allow` or `deny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Allow,
    Deny,
}

/// A rule filter.
#[derive(Debug, Clone)]
pub enum Filter {
    Literal(String),
    Subpath(String),
    Regex(regex::Regex),
    All(Vec<Filter>),
    Any(Vec<Filter>),
    Not(Box<Filter>),
    Target(String),
}

/// One `(allow|deny …)` rule.
#[derive(Debug, Clone)]
pub struct Rule {
    pub action: Action,
    pub ops: Vec<String>,
    /// OR-ed; empty matches every query of the operations.
    pub filters: Vec<Filter>,
}

/// A parsed profile.
#[derive(Debug, Clone)]
pub struct Profile {
    pub default: Action,
    pub rules: Vec<Rule>,
}

/// What is asked: an operation, and the path or signal target it is on.
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    pub op: &'a str,
    pub path: Option<&'a str>,
    pub target: Option<&'a str>,
}

impl Query<'_> {
    /// `op` on `path`.
    pub fn file<'a>(op: &'a str, path: &'a str) -> Query<'a> {
        Query { op, path: Some(path), target: None }
    }

    /// `op` on no path (network, sysctl, …).
    pub fn bare(op: &str) -> Query<'_> {
        Query { op, path: None, target: None }
    }
}

/// The parsed argv of `sandbox-exec -p PROFILE -D K=V … -- COMMAND…`.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub program: String,
    pub profile_text: String,
    pub params: BTreeMap<String, String>,
    pub command: Vec<String>,
    pub profile: Profile,
}

/// Parses a `sandbox-exec` argv (only `-p`, `-D` and `--` are expected) and its profile.
pub fn parse_invocation(argv: &[OsString]) -> Result<Invocation, String> {
    let s: Vec<String> = argv
        .iter()
        .map(|a| a.to_str().map(str::to_string).ok_or_else(|| format!("non-UTF-8 argument {a:?}")))
        .collect::<Result<_, _>>()?;
    let program = s.first().cloned().ok_or("empty argv")?;
    let mut profile_text = None;
    let mut params = BTreeMap::new();
    let mut i = 1;
    loop {
        match s.get(i).map(String::as_str) {
            Some("-p") => {
                profile_text = Some(s.get(i + 1).ok_or("-p needs a profile")?.clone());
                i += 2;
            }
            Some("-D") => {
                let kv = s.get(i + 1).ok_or("-D needs KEY=VALUE")?;
                let (k, v) = kv.split_once('=').ok_or_else(|| format!("-D {kv}: no '='"))?;
                params.insert(k.to_string(), v.to_string());
                i += 2;
            }
            Some("--") => break,
            other => return Err(format!("unexpected sandbox-exec argument {other:?}")),
        }
    }
    let profile_text = profile_text.ok_or("no -p profile")?;
    let profile = Profile::parse(&profile_text, &params)?;
    Ok(Invocation { program, profile_text, params, command: s[i + 1..].to_vec(), profile })
}

#[derive(Debug, Clone, PartialEq)]
enum Sexp {
    Sym(String),
    Str(String),
    Regex(String),
    List(Vec<Sexp>),
}

fn tokenize(text: &str) -> Result<Vec<Sexp>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut stack: Vec<Vec<Sexp>> = vec![Vec::new()];
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            ';' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '(' => {
                stack.push(Vec::new());
                i += 1;
            }
            ')' => {
                let list = stack.pop().ok_or("unbalanced )")?;
                stack.last_mut().ok_or("unbalanced )")?.push(Sexp::List(list));
                i += 1;
            }
            '"' => {
                let mut s = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err("unterminated string".into()),
                        Some('"') => break,
                        Some('\\') => {
                            match chars.get(i + 1) {
                                Some(e @ ('\\' | '"')) => s.push(*e),
                                other => {
                                    return Err(format!(
                                        "string escape \\{other:?} is outside the subset"
                                    ));
                                }
                            }
                            i += 2;
                        }
                        Some(ch) => {
                            s.push(*ch);
                            i += 1;
                        }
                    }
                }
                i += 1;
                stack.last_mut().ok_or("unbalanced")?.push(Sexp::Str(s));
            }
            '#' if chars.get(i + 1) == Some(&'"') => {
                let start = i + 2;
                let end =
                    (start..chars.len()).find(|&j| chars[j] == '"').ok_or("unterminated regex")?;
                let r: String = chars[start..end].iter().collect();
                stack.last_mut().ok_or("unbalanced")?.push(Sexp::Regex(r));
                i = end + 1;
            }
            _ => {
                let start = i;
                while i < chars.len() && !chars[i].is_whitespace() && !"()\";".contains(chars[i]) {
                    i += 1;
                }
                let sym: String = chars[start..i].iter().collect();
                stack.last_mut().ok_or("unbalanced")?.push(Sexp::Sym(sym));
            }
        }
    }
    if stack.len() != 1 {
        return Err("unbalanced (".into());
    }
    Ok(stack.pop().unwrap())
}

/// Checks that `r` uses only the regex subset of the module doc.
fn check_regex_subset(r: &str) -> Result<(), String> {
    let chars: Vec<char> = r.chars().collect();
    let mut i = 0;
    let mut depth = 0i32;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                let next = chars.get(i + 1).ok_or("trailing \\")?;
                if !".^$|?*+()[]{}\\".contains(*next) {
                    return Err(format!("regex escape \\{next} in {r:?} is outside the subset"));
                }
                i += 2;
            }
            '[' => {
                let end =
                    (i + 1..chars.len()).find(|&j| chars[j] == ']').ok_or("unterminated [")?;
                if chars[i + 1..end].iter().any(|c| "[\\".contains(*c)) {
                    return Err(format!("bracket expression in {r:?} is outside the subset"));
                }
                i = end + 1;
            }
            '(' => {
                if chars.get(i + 1) == Some(&'?') {
                    return Err(format!("group syntax in {r:?} is outside the subset"));
                }
                depth += 1;
                i += 1;
            }
            ')' => {
                depth -= 1;
                i += 1;
            }
            '{' | '}' => return Err(format!("interval in {r:?} is outside the subset")),
            _ => i += 1,
        }
    }
    if depth != 0 {
        return Err(format!("unbalanced group in {r:?}"));
    }
    Ok(())
}

fn string_arg(e: &Sexp, params: &BTreeMap<String, String>) -> Result<String, String> {
    match e {
        Sexp::Str(s) => Ok(s.clone()),
        Sexp::List(l) if l.first() == Some(&Sexp::Sym("param".into())) && l.len() == 2 => {
            match &l[1] {
                Sexp::Str(name) => params
                    .get(name)
                    .cloned()
                    .ok_or_else(|| format!("(param {name:?}) is not given with -D")),
                other => Err(format!("param name {other:?}")),
            }
        }
        other => Err(format!("expected a string, got {other:?}")),
    }
}

fn filter(e: &Sexp, params: &BTreeMap<String, String>) -> Result<Filter, String> {
    let Sexp::List(l) = e else { return Err(format!("expected a filter, got {e:?}")) };
    let Some(Sexp::Sym(head)) = l.first() else {
        return Err(format!("filter without a name: {e:?}"));
    };
    let args = &l[1..];
    let one = || -> Result<&Sexp, String> {
        match args {
            [a] => Ok(a),
            _ => Err(format!("({head} …) takes one argument")),
        }
    };
    Ok(match head.as_str() {
        "literal" => Filter::Literal(string_arg(one()?, params)?),
        "subpath" => Filter::Subpath(string_arg(one()?, params)?),
        "regex" => match one()? {
            Sexp::Regex(r) => {
                check_regex_subset(r)?;
                Filter::Regex(regex::Regex::new(&format!("(?s){r}")).map_err(|e| e.to_string())?)
            }
            other => return Err(format!("regex wants #\"…\", got {other:?}")),
        },
        "require-all" => {
            Filter::All(args.iter().map(|a| filter(a, params)).collect::<Result<_, _>>()?)
        }
        "require-any" => {
            Filter::Any(args.iter().map(|a| filter(a, params)).collect::<Result<_, _>>()?)
        }
        "require-not" => Filter::Not(Box::new(filter(one()?, params)?)),
        "target" => match one()? {
            Sexp::Sym(s) if s == "same-sandbox" => Filter::Target(s.clone()),
            other => return Err(format!("target {other:?} is outside the subset")),
        },
        other => return Err(format!("filter {other} is outside the subset")),
    })
}

impl Profile {
    /// Parses `text` with the `-D` parameters `params`.
    pub fn parse(text: &str, params: &BTreeMap<String, String>) -> Result<Profile, String> {
        let forms = tokenize(text)?;
        let mut version = false;
        let mut default = None;
        let mut rules = Vec::new();
        for f in &forms {
            let Sexp::List(l) = f else { return Err(format!("top-level {f:?}")) };
            match l.as_slice() {
                [Sexp::Sym(v), Sexp::Sym(n)] if v == "version" => {
                    if n != "1" || version || !rules.is_empty() || default.is_some() {
                        return Err("(version 1) must come first, once".into());
                    }
                    version = true;
                }
                [Sexp::Sym(a), Sexp::Sym(d)] if d == "default" => {
                    default = Some(action(a)?);
                }
                [Sexp::Sym(a), rest @ ..] => {
                    let action = action(a)?;
                    let mut ops = Vec::new();
                    let mut filters = Vec::new();
                    for x in rest {
                        match x {
                            Sexp::Sym(op) if filters.is_empty() => ops.push(op.clone()),
                            Sexp::List(_) => filters.push(filter(x, params)?),
                            other => return Err(format!("unexpected {other:?} in a rule")),
                        }
                    }
                    if ops.is_empty() {
                        return Err(format!("rule without an operation: {l:?}"));
                    }
                    rules.push(Rule { action, ops, filters });
                }
                _ => return Err(format!("top-level form {l:?}")),
            }
        }
        if !version {
            return Err("no (version 1)".into());
        }
        Ok(Profile { default: default.ok_or("no default rule")?, rules })
    }

    /// The verdict for `q`: the last matching rule's action, else the default.
    pub fn decide(&self, q: &Query) -> Action {
        self.rules
            .iter()
            .rev()
            .find(|r| {
                r.ops.iter().any(|o| op_covers(o, q.op))
                    && (r.filters.is_empty() || r.filters.iter().any(|f| f.matches(q)))
            })
            .map_or(self.default, |r| r.action)
    }

    /// Whether `q` is allowed.
    pub fn allows(&self, q: &Query) -> bool {
        self.decide(q) == Action::Allow
    }
}

fn action(a: &str) -> Result<Action, String> {
    match a {
        "allow" => Ok(Action::Allow),
        "deny" => Ok(Action::Deny),
        other => Err(format!("{other} is neither allow nor deny")),
    }
}

fn op_covers(rule_op: &str, op: &str) -> bool {
    match rule_op.strip_suffix('*') {
        Some(prefix) => op.starts_with(prefix),
        None => rule_op == op,
    }
}

impl Filter {
    fn matches(&self, q: &Query) -> bool {
        match self {
            Filter::Literal(s) => q.path == Some(s.as_str()),
            Filter::Subpath(s) => q.path.is_some_and(|p| {
                p == s
                    || p.strip_prefix(s.as_str())
                        .is_some_and(|rest| rest.starts_with('/') || s.ends_with('/'))
            }),
            Filter::Regex(r) => q.path.is_some_and(|p| r.is_match(p)),
            Filter::All(fs) => fs.iter().all(|f| f.matches(q)),
            Filter::Any(fs) => fs.iter().any(|f| f.matches(q)),
            Filter::Not(f) => !f.matches(q),
            Filter::Target(t) => q.target == Some(t.as_str()),
        }
    }
}

#[test]
fn the_evaluator_reads_the_subset_and_refuses_the_rest() {
    let p = Profile::parse(
        "(version 1)\n(deny default)\n; a comment\n(allow file-read* (subpath \"/a\"))\n(deny file-read-data (literal \"/a/s\\\"q\"))\n(allow network-outbound (regex #\"^/x\\.y$\"))\n(allow file-write* (subpath (param \"WS\")))",
        &BTreeMap::from([("WS".to_string(), "/w".to_string())]),
    )
    .unwrap();
    assert!(p.allows(&Query::file("file-read-data", "/a/b")));
    assert!(p.allows(&Query::file("file-read-metadata", "/a")));
    assert!(!p.allows(&Query::file("file-read-data", "/ab")), "subpath is per component");
    assert!(!p.allows(&Query::file("file-read-data", "/a/s\"q")), "the later deny wins");
    assert!(p.allows(&Query::file("file-read-metadata", "/a/s\"q")));
    assert!(p.allows(&Query::file("file-write-create", "/w/new")));
    assert!(!p.allows(&Query::file("file-write-create", "/a/new")));
    assert!(
        !p.allows(&Query::bare("network-outbound")),
        "a path filter never matches a query without a path"
    );
    let params = BTreeMap::new();
    for bad in [
        "(deny default)",
        "(version 1)(allow file-read* (prefix \"/a\"))",
        "(version 1)(deny default)(allow file-read* (regex #\"^/a\\d$\"))",
        "(version 1)(deny default)(allow file-read* (regex #\"^/a{2}$\"))",
        "(version 1)(deny default)(allow file-read* (literal \"a\\n\"))",
        "(version 1)(deny default)(allow file-read* (subpath (param \"NOPE\")))",
        "(version 1)(deny default)(allow file-read* (literal \"/a\")",
    ] {
        assert!(Profile::parse(bad, &params).is_err(), "{bad}");
    }
}
