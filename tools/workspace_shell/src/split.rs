//! A `shell_string` as the words of one program run, when it is simple enough that no shell
//! is needed: words of `[A-Za-z0-9_./=:,+@%-]` separated by spaces or tabs, a word possibly
//! quoted (`'…'` or `"…"`) when what is quoted is only those characters and spaces. Anything
//! else is shell syntax, and [`split`] names each kind of it found, so a refusal can say what
//! the string needs a shell for.

/// The characters a word may hold unquoted (and, with spaces, quoted).
pub fn plain_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_./=:,+@%-".contains(c)
}

/// What `c` does in a shell, for a refusal; none for a character of a simple string.
fn syntax_of(c: char) -> String {
    match c {
        '|' => "a pipe `|`".into(),
        '&' => "`&` (background, `&&`)".into(),
        ';' => "`;` (a second command)".into(),
        '<' | '>' => format!("redirection `{c}`"),
        '(' | ')' => format!("a subshell `{c}`"),
        '$' => "`$` (a variable or substitution)".into(),
        '`' => "a backtick substitution".into(),
        '\\' => "a backslash escape".into(),
        '*' | '?' | '[' | ']' => format!("globbing `{c}`"),
        '{' | '}' => format!("brace expansion `{c}`"),
        '~' => "`~` (home directory expansion)".into(),
        '!' => "`!` (history or negation)".into(),
        '#' => "`#` (a comment)".into(),
        '\n' | '\r' => "a newline (a second command)".into(),
        '\'' | '"' => "a quote this tool does not take apart".into(),
        c => format!("the character {c:?}"),
    }
}

/// The words of `text`, or every kind of shell syntax it uses (in order, each once). A
/// first word that assigns a variable (`NAME=value cmd`) is shell syntax too.
pub fn split(text: &str) -> Result<Vec<String>, Vec<String>> {
    let mut words = Vec::new();
    let mut syntax: Vec<String> = Vec::new();
    let note = |what: String, syntax: &mut Vec<String>| {
        if !syntax.contains(&what) {
            syntax.push(what);
        }
    };
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                words.extend(word.take());
            }
            '\'' | '"' => {
                let current = word.get_or_insert_with(String::new);
                let mut closed = false;
                for inner in chars.by_ref() {
                    if inner == c {
                        closed = true;
                        break;
                    }
                    if plain_char(inner) || inner == ' ' {
                        current.push(inner);
                    } else {
                        let what = syntax_of(inner);
                        note(format!("{what} inside quotes"), &mut syntax);
                    }
                }
                if !closed {
                    note("an unclosed quote".into(), &mut syntax);
                }
            }
            c if plain_char(c) => word.get_or_insert_with(String::new).push(c),
            c => note(syntax_of(c), &mut syntax),
        }
    }
    words.extend(word);
    if let Some(first) = words.first()
        && let Some((name, _)) = first.split_once('=')
        && !name.is_empty()
        && !name.contains('/')
    {
        note(format!("a variable assignment `{name}=…` (give variables in `env`)"), &mut syntax);
    }
    if syntax.is_empty() { Ok(words) } else { Err(syntax) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        split(text).unwrap_or_else(|s| panic!("{text:?}: {s:?}"))
    }

    fn syntax(text: &str) -> Vec<String> {
        split(text).expect_err(text)
    }

    #[test]
    fn simple_strings_become_words() {
        assert_eq!(words("ls -la"), ["ls", "-la"]);
        assert_eq!(words("  cargo\ttest  --no-fail-fast "), ["cargo", "test", "--no-fail-fast"]);
        assert_eq!(
            words("git log --format=%h:%s -n 5 src/lib.rs user@host a,b +x"),
            ["git", "log", "--format=%h:%s", "-n", "5", "src/lib.rs", "user@host", "a,b", "+x"]
        );
        assert_eq!(
            words("grep 'two words' \"and more\" ''"),
            ["grep", "two words", "and more", ""]
        );
        assert_eq!(words("echo --name='a b'c"), ["echo", "--name=a bc"]);
        assert_eq!(words("./run.sh x=1"), ["./run.sh", "x=1"]);
        assert_eq!(words(""), Vec::<String>::new());
        assert_eq!(words("   "), Vec::<String>::new());
    }

    #[test]
    fn every_kind_of_shell_syntax_is_named() {
        let cases: &[(&str, &str)] = &[
            ("ls | wc -l", "a pipe `|`"),
            ("make && make install", "`&` (background, `&&`)"),
            ("sleep 5 &", "`&` (background, `&&`)"),
            ("ls; rm x", "`;` (a second command)"),
            ("echo hi > out.txt", "redirection `>`"),
            ("sort < in", "redirection `<`"),
            ("(cd x)", "a subshell `(`"),
            ("echo $HOME", "`$` (a variable or substitution)"),
            ("echo $(id)", "`$` (a variable or substitution)"),
            ("echo `id`", "a backtick substitution"),
            ("echo a\\ b", "a backslash escape"),
            ("ls *.rs", "globbing `*`"),
            ("ls file?.rs", "globbing `?`"),
            ("ls [ab].rs", "globbing `[`"),
            ("echo {a,b}", "brace expansion `{`"),
            ("ls ~", "`~` (home directory expansion)"),
            ("! true", "`!` (history or negation)"),
            ("ls # all", "`#` (a comment)"),
            ("ls\nrm x", "a newline (a second command)"),
            ("echo 'oops", "an unclosed quote"),
            ("echo \"$HOME\"", "`$` (a variable or substitution) inside quotes"),
            ("echo 'it''s", "an unclosed quote"),
            ("echo caf\u{e9}", "the character '\u{e9}'"),
            ("FOO=bar make", "a variable assignment `FOO=…` (give variables in `env`)"),
        ];
        for (text, what) in cases {
            let found = syntax(text);
            assert!(found.iter().any(|s| s == what), "{text:?}: {found:?}");
        }
        assert_eq!(syntax("a | b | c > d"), ["a pipe `|`", "redirection `>`"]);
    }
}
