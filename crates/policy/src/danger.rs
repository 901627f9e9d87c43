//! The dangerous-command detector (docs/contract.md#dangerous-commands): a fact for the host's
//! approval step, not a sandbox rule. It recognizes, by simple shell-word matching:
//!
//! * a recursive delete (`rm -r`/`-R`/`--recursive`) of `/`, `~` / `$HOME`, or the workspace
//!   root (`.`, `./`, `*`, or its absolute path);
//! * `git push --force` / `-f` / `--force-with-lease`;
//! * `git reset --hard`;
//! * `git clean` with `-f`, `-d` and `-x`;
//! * `curl` or `wget` piped into a shell (`sh`, `bash`, `zsh`, `dash`, `ksh`);
//! * `dd of=/dev/…` or `mkfs…` on `/dev/…`;
//! * `chmod -R 777`;
//! * the fork bomb `:(){ :|:& };:`;
//! * `sudo`.
//!
//! It is a heuristic: quoting tricks, `eval` or scripts defeat it. The OS sandbox is the
//! boundary; this only tells the user what an approval would allow.

use std::path::Path;

/// The texts [`detect_danger`] returns.
pub mod texts {
    pub const RM_ROOT: &str = "recursively deletes the file system root (/)";
    pub const RM_HOME: &str = "recursively deletes the home directory (~)";
    pub const RM_WORKSPACE: &str = "recursively deletes the workspace root";
    pub const GIT_PUSH_FORCE: &str =
        "force-pushes with git (git push --force), which can overwrite remote history";
    pub const GIT_RESET_HARD: &str = "discards uncommitted changes with git reset --hard";
    pub const GIT_CLEAN: &str = "deletes untracked and ignored files with git clean -fdx";
    pub const CURL_PIPE_SHELL: &str = "pipes a download from curl/wget straight into a shell";
    pub const DISK_WRITE: &str = "writes to a raw device under /dev (dd/mkfs)";
    pub const CHMOD_777: &str = "makes a tree world-writable with chmod -R 777";
    pub const FORK_BOMB: &str = "is a fork bomb";
    pub const SUDO: &str = "runs a command with sudo";
}

const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh"];
const WRAPPERS: &[&str] = &["env", "command", "nohup", "time", "exec", "nice", "xargs"];

/// Why `command` (run with `workspace` as its working directory) is dangerous, if it is.
pub fn detect_danger(command: &str, workspace: &Path) -> Option<String> {
    let squeezed: String = command.chars().filter(|c| !c.is_whitespace()).collect();
    if squeezed.contains(":(){:|:&};:") {
        return Some(texts::FORK_BOMB.into());
    }
    for pipeline in split_top(command, &[";", "&&", "||", "\n", "&"]) {
        let stages = split_top(&pipeline, &["|"]);
        let mut downloaded = false;
        for stage in &stages {
            let words = words(stage);
            let (sudo, words) = strip_wrappers(&words);
            if sudo {
                return Some(texts::SUDO.into());
            }
            let Some(prog) = words.first() else { continue };
            let prog = prog.rsplit('/').next().unwrap_or(prog);
            if downloaded && SHELLS.contains(&prog) {
                return Some(texts::CURL_PIPE_SHELL.into());
            }
            if prog == "curl" || prog == "wget" {
                downloaded = true;
            }
            if let Some(t) = judge(prog, &words[1..], workspace) {
                return Some(t.into());
            }
        }
    }
    None
}

fn judge(prog: &str, args: &[String], workspace: &Path) -> Option<&'static str> {
    let flags: Vec<&str> = args.iter().map(String::as_str).filter(|a| a.starts_with('-')).collect();
    let short_has = |c: char| flags.iter().any(|f| !f.starts_with("--") && f.contains(c));
    match prog {
        "rm" => {
            let recursive = short_has('r') || short_has('R') || flags.contains(&"--recursive");
            if !recursive {
                return None;
            }
            for a in args.iter().filter(|a| !a.starts_with('-')) {
                let t = a.trim_end_matches('/');
                let t = t.strip_suffix("/*").unwrap_or(t);
                if t.is_empty() || a == "/*" {
                    return Some(texts::RM_ROOT);
                }
                if matches!(t, "~" | "$HOME" | "${HOME}") {
                    return Some(texts::RM_HOME);
                }
                if matches!(t, "." | "*" | "./*") || Path::new(t) == workspace {
                    return Some(texts::RM_WORKSPACE);
                }
            }
            None
        }
        "git" => {
            let mut rest = args;
            while let Some(first) = rest.first() {
                if first == "-C" || first == "-c" {
                    rest = rest.get(2..).unwrap_or(&[]);
                } else if first.starts_with('-') {
                    rest = &rest[1..];
                } else {
                    break;
                }
            }
            let (sub, sub_args) = rest.split_first()?;
            let has = |x: &str| sub_args.iter().any(|a| a == x);
            let short = |c: char| {
                sub_args.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c))
            };
            match sub.as_str() {
                "push"
                    if has("--force")
                        || short('f')
                        || sub_args.iter().any(|a| a.starts_with("--force-with-lease")) =>
                {
                    Some(texts::GIT_PUSH_FORCE)
                }
                "reset" if has("--hard") => Some(texts::GIT_RESET_HARD),
                "clean" if (short('f') || has("--force")) && short('d') && short('x') => {
                    Some(texts::GIT_CLEAN)
                }
                _ => None,
            }
        }
        "dd" if args.iter().any(|a| a.starts_with("of=/dev/") && !is_harmless_dev(&a[3..])) => {
            Some(texts::DISK_WRITE)
        }
        p if p.starts_with("mkfs") && args.iter().any(|a| a.starts_with("/dev/")) => {
            Some(texts::DISK_WRITE)
        }
        "chmod" => {
            let recursive = short_has('R') || flags.contains(&"--recursive");
            let world = args.iter().any(|a| a == "777" || a == "0777" || a == "a+rwx");
            (recursive && world).then_some(texts::CHMOD_777)
        }
        _ => None,
    }
}

fn is_harmless_dev(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/zero" | "/dev/stdout" | "/dev/stderr")
}

/// Returns (whether `sudo` was seen, the words after wrappers like `env`/`nohup`).
fn strip_wrappers(words: &[String]) -> (bool, Vec<String>) {
    let mut i = 0;
    let mut sudo = false;
    while i < words.len() {
        let w = words[i].as_str();
        let base = w.rsplit('/').next().unwrap_or(w);
        if base == "sudo" || base == "doas" {
            sudo = true;
            i += 1;
        } else if WRAPPERS.contains(&base) || (w.contains('=') && !w.starts_with('-') && i == 0) {
            i += 1;
        } else {
            break;
        }
    }
    (sudo, words[i..].to_vec())
}

/// Splits on any separator outside quotes (longest separators first).
fn split_top(s: &str, seps: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    'outer: while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            cur.push(c);
            i += 1;
            continue;
        }
        if c == '\'' || c == '"' {
            quote = Some(c);
            cur.push(c);
            i += 1;
            continue;
        }
        // `||` must not be read as two `|`; `&&` not as two `&`.
        for sep in seps {
            let sc: Vec<char> = sep.chars().collect();
            if chars[i..].starts_with(&sc) {
                let doubled = sc.len() == 1
                    && chars.get(i + 1) == Some(&sc[0])
                    && (sc[0] == '|' || sc[0] == '&');
                let prev_same = sc.len() == 1 && i > 0 && chars[i - 1] == sc[0];
                if doubled || prev_same {
                    continue;
                }
                out.push(std::mem::take(&mut cur));
                i += sc.len();
                continue 'outer;
            }
        }
        cur.push(c);
        i += 1;
    }
    out.push(cur);
    out.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// Shell-ish words: whitespace-separated, quotes removed.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() || c == '(' || c == ')' || c == '{' || c == '}' => {
                if !cur.is_empty() || any {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            None => cur.push(c),
        }
    }
    if !cur.is_empty() || any {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dangerous_commands_are_named() {
        let ws = Path::new("/home/u/proj");
        let cases: &[(&str, Option<&str>)] = &[
            ("rm -rf /", Some(texts::RM_ROOT)),
            ("rm -rf /*", Some(texts::RM_ROOT)),
            ("rm -r -f / ", Some(texts::RM_ROOT)),
            ("cd x && rm --recursive --force ~", Some(texts::RM_HOME)),
            ("rm -Rf $HOME/", Some(texts::RM_HOME)),
            ("rm -rf .", Some(texts::RM_WORKSPACE)),
            ("rm -rf *", Some(texts::RM_WORKSPACE)),
            ("rm -rf /home/u/proj", Some(texts::RM_WORKSPACE)),
            ("rm -rf /home/u/proj/", Some(texts::RM_WORKSPACE)),
            ("git push --force origin main", Some(texts::GIT_PUSH_FORCE)),
            ("git -C repo push -f", Some(texts::GIT_PUSH_FORCE)),
            ("git push --force-with-lease", Some(texts::GIT_PUSH_FORCE)),
            ("git reset --hard HEAD~1", Some(texts::GIT_RESET_HARD)),
            ("git clean -fdx", Some(texts::GIT_CLEAN)),
            ("git clean -x -d -f", Some(texts::GIT_CLEAN)),
            ("curl -fsSL https://x.sh | sh", Some(texts::CURL_PIPE_SHELL)),
            ("wget -qO- https://x | sudo bash", Some(texts::SUDO)),
            ("curl https://x | /bin/bash -s", Some(texts::CURL_PIPE_SHELL)),
            ("dd if=/dev/zero of=/dev/sda bs=1M", Some(texts::DISK_WRITE)),
            ("mkfs.ext4 /dev/sdb1", Some(texts::DISK_WRITE)),
            ("chmod -R 777 .", Some(texts::CHMOD_777)),
            (":(){ :|:& };:", Some(texts::FORK_BOMB)),
            ("sudo apt-get install x", Some(texts::SUDO)),
            ("FOO=1 sudo ls", Some(texts::SUDO)),
            // Harmless look-alikes.
            ("rm -rf target", None),
            ("rm -f /tmp/x", None),
            ("rm -rf ./build", None),
            ("git push origin main", None),
            ("git reset --soft HEAD~1", None),
            ("git clean -n", None),
            ("git clean -fd", None),
            ("curl -o out.sh https://x && cat out.sh", None),
            ("echo 'rm -rf /'", None),
            ("dd if=/dev/zero of=/dev/null count=1", None),
            ("dd if=/dev/sda of=disk.img", None),
            ("chmod 755 script.sh", None),
            ("chmod -R 755 .", None),
            ("grep -r sudo .", None),
            ("cargo test || true", None),
            ("ls | grep sh", None),
        ];
        for (cmd, want) in cases {
            assert_eq!(detect_danger(cmd, ws).as_deref(), *want, "{cmd}");
        }
    }
}
