//! The walk visits exactly what the `ignore` crate's walker (ripgrep's and fd's) yields with
//! the options the file tools used before it had its own walk, on hand-made trees for each
//! rule and on random ones; and it does not follow, wait on or read what it must not.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Mutex;

use super::*;

/// What the `ignore` crate's walker yields under `root` (the root itself left out): each
/// path with what it is.
fn by_ignore_crate(root: &Path) -> BTreeSet<(String, &'static str)> {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .ignore(true)
        .parents(true)
        .require_git(false)
        .follow_links(false);
    let mut seen = BTreeSet::new();
    for entry in builder.build().flatten() {
        if entry.depth() == 0 {
            continue;
        }
        let t = entry.file_type().unwrap();
        let kind = if t.is_symlink() {
            "symlink"
        } else if t.is_dir() {
            "dir"
        } else if t.is_file() {
            "file"
        } else {
            "other"
        };
        seen.insert((entry.path().display().to_string(), kind));
    }
    seen
}

/// What [`walk`] visits under `root` on `threads` threads (the root left out).
fn by_walk(root: &Path, threads: usize) -> BTreeSet<(String, &'static str)> {
    let seen = Mutex::new(BTreeSet::new());
    walk(root, threads, || {
        |e: &Entry| {
            if e.path != root {
                let kind = match e.kind {
                    Kind::File => "file",
                    Kind::Dir => "dir",
                    Kind::Symlink => "symlink",
                    Kind::Other => "other",
                };
                seen.lock().unwrap().insert((e.path.display().to_string(), kind));
            }
            Flow::Continue
        }
    });
    seen.into_inner().unwrap()
}

fn put(root: &Path, rel: &str, contents: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

fn same_as_ignore_crate(root: &Path) {
    let want = by_ignore_crate(root);
    for threads in [1, 3] {
        let got = by_walk(root, threads);
        let missing: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{threads} threads under {}: missing {missing:?}, extra {extra:?}",
            root.display()
        );
    }
}

#[test]
fn each_ignore_rule_as_ripgrep_applies_it() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().canonicalize().unwrap();
    // Above the walk root: its rules reach into the walk (`parents`).
    put(&top, ".gitignore", "*.above\n/root/anchored.txt\n");
    let root = top.join("root");
    put(
        &root,
        ".gitignore",
        "\u{feff}build/\n*.log\n!keep.log\n/only-top.txt\nsub/**/deep.txt\n!.env\n\\#hash.txt\n  \n# comment\n",
    );
    put(&root, ".ignore", "!x.log\nignored-by-ignore.txt\n");
    for rel in [
        "a.txt",
        "b.log",
        "keep.log",
        "x.log",
        "c.above",
        "anchored.txt",
        "only-top.txt",
        "sub/only-top.txt",
        "sub/x/y/deep.txt",
        "sub/deep.txt",
        "build/out.txt",
        "sub/build/out.txt",
        ".env",
        ".hidden",
        ".dir/in.txt",
        "#hash.txt",
        "ignored-by-ignore.txt",
        "sub/crlf.txt",
        "sub/crlf2.txt",
        "sub/bad.txt",
        "sub/notutf8.txt",
    ] {
        put(&root, rel, "x\n");
    }
    // CRLF lines, a line that is not UTF-8, an invalid glob, whitelisting what the parent
    // ignores, a directory-only pattern matching a file.
    std::fs::write(
        root.join("sub/.gitignore"),
        b"crlf.txt\r\ncrlf2.txt\r\n\xff\xfe.txt\nnotutf8.txt\n[\n!b.log\nfile-as-dir/\n",
    )
    .unwrap();
    put(&root, "sub/b.log", "x\n");
    put(&root, "sub/file-as-dir", "x\n");
    // A nested repository's own excludes, and one outside any repository's `.git`.
    put(&root, "repo/.git/info/exclude", "excluded.txt\n");
    put(&root, "repo/excluded.txt", "x\n");
    put(&root, "repo/sub/excluded.txt", "x\n");
    put(&root, "other/excluded.txt", "x\n");
    // Symlinks are entries of their own, never followed.
    std::os::unix::fs::symlink(root.join("sub"), root.join("link-dir")).unwrap();
    std::os::unix::fs::symlink(root.join("a.txt"), root.join("link-file")).unwrap();
    std::os::unix::fs::symlink("/nonexistent", root.join("dangling")).unwrap();
    same_as_ignore_crate(&root);
    same_as_ignore_crate(&root.join("sub"));
    same_as_ignore_crate(&root.join("repo/sub"));
}

/// A small deterministic generator (xorshift), so a failure names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

#[test]
fn random_trees_are_walked_as_ripgrep_walks_them() {
    const NAMES: &[&str] =
        &["a", "b", "c.rs", "d.log", ".e", ".f.rs", "g h", "target", "src", "x.txt", "é.txt"];
    const PATTERNS: &[&str] = &[
        "*.log",
        "!d.log",
        "a",
        "/a",
        "a/",
        "b/",
        "**/c.rs",
        "src/**",
        "!src/c.rs",
        ".e",
        "!.e",
        "!.f.rs",
        "target/",
        "*.txt",
        "!x.txt",
        "g*",
        "/src/a",
        "**/b/**",
        "c.*",
        "!*",
        "é*",
        "\\!x.txt",
        "[ab]",
        "?",
    ];
    for seed in 1..=40u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut dirs = vec![root.clone()];
        for _ in 0..60 {
            let parent = dirs[(rng.next() % dirs.len() as u64) as usize].clone();
            let name = rng.pick(NAMES);
            let path = parent.join(name);
            if path.exists() {
                continue;
            }
            match rng.next() % 6 {
                0 | 1 => {
                    std::fs::create_dir(&path).unwrap();
                    dirs.push(path);
                }
                2 => {
                    let file = rng.pick(&[".gitignore", ".ignore", ".gitignore"]);
                    let lines: Vec<&str> =
                        (0..1 + rng.next() % 4).map(|_| rng.pick(PATTERNS)).collect();
                    std::fs::write(parent.join(file), lines.join("\n")).unwrap();
                }
                3 if rng.next().is_multiple_of(4) => {
                    let lines: Vec<&str> =
                        (0..1 + rng.next() % 3).map(|_| rng.pick(PATTERNS)).collect();
                    std::fs::create_dir_all(parent.join(".git/info")).unwrap();
                    std::fs::write(parent.join(".git/info/exclude"), lines.join("\n")).unwrap();
                }
                _ => std::fs::write(&path, "x\n").unwrap(),
            }
        }
        let want = by_ignore_crate(&root);
        let got = by_walk(&root, 2);
        assert_eq!(got, want, "seed {seed}");
    }
}

#[test]
fn ignore_files_that_are_symlinks_or_fifos_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().canonicalize().unwrap();
    put(&top, "secret", "plain.txt\n");
    let root = top.join("root");
    put(&root, "plain.txt", "x\n");
    put(&root, "sub/also.txt", "x\n");
    put(&root, "sub2/third.txt", "x\n");
    // A symlink to a file of patterns would hide plain.txt if it were read.
    std::os::unix::fs::symlink(top.join("secret"), root.join(".gitignore")).unwrap();
    // A FIFO nobody writes to would block the walk forever if it were opened for reading.
    crate::open::make_fifo(&root.join("sub/.ignore"));
    // A `.git` file names its git dir anywhere: not followed.
    put(&top, "elsewhere/info/exclude", "third.txt\n");
    put(&root, "sub2/.git", &format!("gitdir: {}\n", top.join("elsewhere").display()));
    let got = by_walk(&root, 2);
    for rel in ["plain.txt", "sub/also.txt", "sub2/third.txt"] {
        assert!(
            got.contains(&(root.join(rel).display().to_string(), "file")),
            "{rel} missing: {got:?}"
        );
    }
}

#[test]
fn a_visitor_can_skip_a_directory_or_end_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for i in 0..50 {
        put(&root, &format!("d{i}/f.txt"), "x\n");
    }
    put(&root, "skipped/inner/f.txt", "x\n");
    let seen = Mutex::new(Vec::new());
    walk(&root, 2, || {
        |e: &Entry| {
            seen.lock().unwrap().push(e.path.to_path_buf());
            if e.path.ends_with("skipped") { Flow::Skip } else { Flow::Continue }
        }
    });
    let seen = seen.into_inner().unwrap();
    assert!(
        seen.iter().any(|p| p.ends_with("skipped"))
            && !seen.iter().any(|p| p.starts_with(root.join("skipped/inner")))
    );
    let visits = Mutex::new(0);
    walk(&root, 2, || {
        |_: &Entry| {
            let mut n = visits.lock().unwrap();
            *n += 1;
            if *n >= 10 { Flow::Quit } else { Flow::Continue }
        }
    });
    // Each thread stops at its next entry once one has quit.
    assert!(*visits.lock().unwrap() <= 12, "{}", visits.lock().unwrap());
}

#[test]
fn an_entrys_modification_time_is_read_in_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    put(&root, "sub/f.txt", "x\n");
    let want = std::fs::metadata(root.join("sub/f.txt")).unwrap().modified().unwrap();
    let want = want.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let got = Mutex::new(None);
    // A file named as the root, inside it, must not pass for the root's time.
    put(&root, root.file_name().unwrap().to_str().unwrap(), "x\n");
    let root_time = Mutex::new(None);
    walk(&root.join("sub"), 1, || {
        |e: &Entry| {
            if e.kind == Kind::File {
                *got.lock().unwrap() = Some(e.modified_ms().unwrap());
            }
            Flow::Continue
        }
    });
    walk(&root, 1, || {
        |e: &Entry| {
            if e.path == root {
                *root_time.lock().unwrap() = Some(e.modified_ms().is_err());
            }
            Flow::Continue
        }
    });
    assert_eq!(got.into_inner().unwrap(), Some(Some(want)));
    assert_eq!(
        root_time.into_inner().unwrap(),
        Some(true),
        "the root has no modification time here"
    );
}
