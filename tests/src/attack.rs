//! Helpers for the end-to-end attack suites (`tests/tests/attack_*.rs`): a fake HOME full of
//! fake secrets, each holding a unique marker, and the built `toolhost` run the way a user
//! runs it (environment cleared but PATH, HOME = the fake one, `TOOLHOST_HOME` unset,
//! `--workspace` and `--data-dir` given) through `call`, `session` and `mcp` (stdio).
//!
//! With `TOOLHOST_TEST_CONFINE=no-userns` (or `no-userns-root`) every run is confined where
//! user namespaces are refused, as an unprivileged uid (or root without capabilities): see
//! [`crate::confined`]. The base dir is then given to that uid before each run.
//!
//! Every run has a hang guard: the binary runs in its own process group, which is killed
//! (and the test fails) if it outlives a generous bound.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::confined::{self, Confinement};
use crate::toolhost_bin;
use crate::watchdog::Watchdog;

/// How long one toolhost run may take before the hang guard kills it.
pub const HANG_GUARD: Duration = Duration::from_secs(300);

/// The fake secrets under HOME: (path under HOME, marker stem).
pub const SECRETS: &[(&str, &str)] = &[
    (".ssh/id_rsa", "SSH-KEY"),
    (".ssh/known_hosts", "SSH-KNOWN-HOSTS"),
    (".aws/credentials", "AWS-CREDENTIALS"),
    (".netrc", "NETRC"),
    (".git-credentials", "GIT-CREDENTIALS"),
    (".config/gh/hosts.yml", "GH-HOSTS"),
    (".docker/config.json", "DOCKER-CONFIG"),
    (".kube/config", "KUBE-CONFIG"),
    (".npmrc", "NPMRC"),
    (".pypirc", "PYPIRC"),
    (".cargo/credentials.toml", "CARGO-CREDENTIALS"),
    (".gnupg/x", "GNUPG"),
    (".config/gcloud/x", "GCLOUD"),
    (".azure/x", "AZURE"),
    // The logins of the agents that drive toolhost.
    (".claude/.credentials.json", "CLAUDE-LOGIN"),
    (".codex/auth.json", "CODEX-LOGIN"),
    (".config/github-copilot/hosts.json", "COPILOT-LOGIN"),
    // Other stores of secrets.
    (".vault-token", "VAULT-TOKEN"),
    (".pgpass", "PGPASS"),
    (".my.cnf", "MY-CNF"),
    (".terraform.d/credentials.tfrc.json", "TERRAFORM"),
    (".m2/settings.xml", "M2-SETTINGS"),
    (".gradle/gradle.properties", "GRADLE-PROPERTIES"),
    (".config/rclone/rclone.conf", "RCLONE"),
    (".cargo/credentials", "CARGO-OLD-CREDENTIALS"),
    (".gem/credentials", "GEM-CREDENTIALS"),
    (".config/hub", "HUB"),
    (".local/share/keyrings/login.keyring", "KEYRING"),
    (".password-store/github.gpg", "PASSWORD-STORE"),
    (".config/op/config", "ONEPASSWORD"),
    (".bash_history", "BASH-HISTORY"),
    // A store nobody listed: closed because it is one of HOME's hidden entries.
    (".newagent/token", "NEWAGENT-UNLISTED"),
];

/// Files under HOME that must stay readable (package caches and toolchains an agent's build
/// reads, the shell's and git's configuration): (path under HOME, marker stem).
pub const READABLE_HOME_FILES: &[(&str, &str)] = &[
    (".cargo/registry/index/crates/serde.json", "CARGO-REGISTRY"),
    (".rustup/settings.toml", "RUSTUP"),
    (".m2/repository/org/x/x.pom", "M2-REPOSITORY"),
    (".local/lib/python3.12/site-packages/x.py", "PYTHON-USER-SITE"),
    (".gitconfig", "GITCONFIG"),
];

/// Credential directories that also get a file whose *name* holds a marker, so a listing
/// (list, glob) of the directory is caught leaking it.
pub const SECRET_DIRS: &[&str] =
    &[".ssh", ".aws", ".config/gh", ".docker", ".kube", ".gnupg", ".config/gcloud", ".azure"];

/// Eight random hex bytes, for markers and names no other test shares.
pub fn rand_hex() -> String {
    let mut b = [0u8; 8];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .expect("/dev/urandom");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A unique marker string `MARKER-<stem>-<random>`.
pub fn marker(stem: &str) -> String {
    format!("MARKER-{stem}-{}", rand_hex())
}

/// One fake secret: its path under HOME, its absolute path and the marker it holds.
#[derive(Debug, Clone)]
pub struct Secret {
    /// Path relative to HOME.
    pub rel: &'static str,
    /// Absolute path.
    pub path: PathBuf,
    /// The unique marker in its content.
    pub marker: String,
}

/// What one toolhost run printed and how it ended.
#[derive(Debug, Clone)]
pub struct Out {
    /// Exit code (None: killed by a signal).
    pub code: Option<i32>,
    /// Raw stdout bytes.
    pub raw: Vec<u8>,
    /// stdout as (lossy) text.
    pub stdout: String,
    /// stderr as (lossy) text.
    pub stderr: String,
}

impl Out {
    /// stdout parsed as one JSON value (a `call --json` ToolResult); Null if it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or(Value::Null)
    }

    /// The ToolResult's status (`succeeded`, `failed`, …), or "" if there is none.
    pub fn status(&self) -> String {
        self.json()["status"].as_str().unwrap_or_default().to_string()
    }

    /// The model-visible text of a `call --json` result.
    pub fn text(&self) -> String {
        result_text(&self.json())
    }

    /// stdout and stderr together, for marker checks.
    pub fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    /// Panics (naming `what`) if `marker` appears anywhere in what the run printed (see
    /// [`leak`]).
    pub fn assert_hidden(&self, marker: &str, what: &str) {
        if self.all().contains(marker) {
            leak(&format!("{what}: the marker {marker} leaked:\n{}", self.all()));
        }
    }
}

/// The variable that turns [`leak`]s into prints ([`soft`]).
pub const ATTACK_SOFT_VAR: &str = "TOOLHOST_ATTACK_SOFT";

/// Whether [`ATTACK_SOFT_VAR`] is 1. A run in this mode is for reading, never a pass: the
/// first time it is seen, the test process is made to exit 101 when it ends, after saying
/// why, whatever its tests reported.
pub fn soft() -> bool {
    static SOFT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SOFT.get_or_init(|| {
        let soft = std::env::var_os(ATTACK_SOFT_VAR).is_some_and(|v| v == "1");
        if soft {
            extern "C" fn never_a_pass() {
                let text = b"\nTOOLHOST_ATTACK_SOFT=1: leaks were printed, not failed; this run is never a pass\n";
                // SAFETY: write(2) and _exit(2) are async-signal-safe and take no locks; the
                // buffer outlives the call.
                unsafe {
                    libc::write(2, text.as_ptr().cast(), text.len());
                    libc::_exit(101);
                }
            }
            // SAFETY: registers a plain `extern "C" fn()` with no captured state.
            unsafe { libc::atexit(never_a_pass) };
        }
        soft
    })
}

/// Reports a leak: panics, or with `TOOLHOST_ATTACK_SOFT=1` only prints it and goes on, so
/// one run against an old binary shows every hole a test reaches, not just the first (such a
/// run then exits 101: [`soft`]).
pub fn leak(message: &str) {
    if soft() {
        let short: String = message.chars().take(400).collect();
        eprintln!("LEAK {short}");
    } else {
        panic!("{message}");
    }
}

/// Checks one promise of the fence: reports a [`leak`] with `message` unless `holds`.
pub fn promise(holds: bool, message: impl FnOnce() -> String) {
    if !holds {
        leak(&message());
    }
}

/// Checks that `marker` is not in `haystack` (a result, a response, a file's text).
pub fn hidden(haystack: &str, marker: &str, what: &str) {
    promise(!haystack.contains(marker), || {
        format!("{what}: the marker {marker} leaked:\n{haystack}")
    });
}

/// The concatenated text content of a ToolResult JSON.
pub fn result_text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|c| c.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

/// Runs `cmd` (in a process group of its own) with `stdin` bytes, killing the group and
/// returning None if it has not ended within `limit`.
pub fn run_limited(cmd: &mut Command, stdin: Option<Vec<u8>>, limit: Duration) -> Option<Out> {
    run_limited_watched(cmd, stdin, limit, None)
}

/// [`run_limited`] under a [`Watchdog`] of `bound` bytes of resident memory (named `what`
/// in the report): panics if the run went past it.
pub fn run_watched(
    cmd: &mut Command,
    stdin: Option<Vec<u8>>,
    limit: Duration,
    bound: u64,
    what: &str,
) -> Option<Out> {
    run_limited_watched(cmd, stdin, limit, Some((bound, what)))
}

fn run_limited_watched(
    cmd: &mut Command,
    stdin: Option<Vec<u8>>,
    limit: Duration,
    watch: Option<(u64, &str)>,
) -> Option<Out> {
    cmd.process_group(0).stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child =
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn toolhost");
    let pgid = child.id() as i32;
    let dog = watch.map(|(bound, what)| (Watchdog::start(child.id(), bound), what));
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if Instant::now() >= deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Whatever it left behind in its group goes too (a hung helper, a bwrap stand-in).
    // SAFETY: kill(2) on our own child's process group.
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
    if let Some((dog, what)) = dog {
        let _ = child.wait();
        dog.finish(what);
    }
    let status = status?;
    let raw = t_out.join().unwrap();
    let err = t_err.join().unwrap();
    Some(Out {
        code: status.code(),
        stdout: String::from_utf8_lossy(&raw).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        raw,
    })
}

/// `/usr/bin/python3` when it is there, else `python3` if it runs, else None.
pub fn python3() -> Option<&'static str> {
    if Path::new("/usr/bin/python3").exists() {
        return Some("/usr/bin/python3");
    }
    Command::new("python3")
        .arg("-c")
        .arg("pass")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| "python3")
}

/// A warm copy of the component cache for the binary under test, so a fresh data dir does
/// not compile every component again (made once, kept under /var/tmp).
fn warm_cache() -> Option<PathBuf> {
    static WARM: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    WARM.get_or_init(|| {
        use std::hash::{Hash, Hasher};
        let bin = toolhost_bin();
        let meta = std::fs::metadata(&bin).ok()?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (bin.display().to_string(), meta.len(), meta.modified().ok()).hash(&mut h);
        let dir = PathBuf::from(format!("/var/tmp/toolhost-attack-warm/{:016x}", h.finish()));
        let components = dir.join("cache/components");
        if dir.join("ready").exists() {
            return Some(components);
        }
        let tmp = tempfile::tempdir_in("/var/tmp").ok()?;
        let data = tmp.path().join("data");
        let mut cmd = Command::new(&bin);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", tmp.path());
        cmd.arg("--workspace").arg(tmp.path()).arg("--data-dir").arg(&data).arg("tools");
        run_limited(&mut cmd, None, HANG_GUARD).filter(|o| o.code == Some(0))?;
        std::fs::create_dir_all(dir.parent()?).ok()?;
        let staged = tempfile::tempdir_in(dir.parent()?).ok()?.keep();
        copy_dir(&data.join("cache/components"), &staged.join("cache/components")).ok()?;
        std::fs::write(staged.join("ready"), "").ok()?;
        // Another test process may have won the race: either copy is good.
        if std::fs::rename(&staged, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&staged);
        }
        dir.join("ready").exists().then_some(components)
    })
    .clone()
}

/// Copies the regular files of `from` (one level, plus subdirectories) into `to`.
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let ft = e.file_type()?;
        if ft.is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()))?;
        } else if ft.is_file() {
            std::fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

/// One attack setup: a base dir under /var/tmp (outside the system temp dir, which bash may
/// write) holding a fake HOME, a workspace and a data dir, each a separate directory.
pub struct Attack {
    base: tempfile::TempDir,
    /// The fake HOME (real path), full of fake secrets.
    pub home: PathBuf,
    /// The workspace given as `--workspace` (tests may point it elsewhere).
    pub ws: PathBuf,
    /// The data dir given as `--data-dir` (tests may point it elsewhere).
    pub data: PathBuf,
    /// The fake secrets under HOME.
    pub secrets: Vec<Secret>,
    /// Markers held in the *names* of files inside [`SECRET_DIRS`]: (dir under HOME, marker).
    pub name_markers: Vec<(&'static str, String)>,
    /// The known content of HOME/.bashrc.
    pub bashrc: String,
    /// Files under HOME that must stay readable ([`READABLE_HOME_FILES`]), with their markers.
    pub readable: Vec<Secret>,
    /// Extra environment variables for every run.
    pub env: Vec<(OsString, OsString)>,
    /// The PATH every run gets (the test's own by default).
    pub path_var: OsString,
    /// How every run is confined (`TOOLHOST_TEST_CONFINE`), if it is.
    pub confined: Option<Confinement>,
}

impl Attack {
    /// `git init` in `dir` as the user would run it (HOME = the fake one, no system config).
    pub fn git_init(&self, dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        let out = Command::new("git")
            .env_clear()
            .env("PATH", &self.path_var)
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(["init", "-q"])
            .arg(dir)
            .output()
            .expect("git is installed (.ci/run installs it)");
        assert!(out.status.success(), "git init: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// A fresh fake HOME with every secret, an empty workspace and a data dir.
    pub fn new() -> Self {
        // A soft run is marked as never a pass from its first attack on.
        soft();
        let base =
            tempfile::Builder::new().prefix("toolhost-attack-").tempdir_in("/var/tmp").unwrap();
        let root = base.path().canonicalize().unwrap();
        let (home, ws, data) = (root.join("home"), root.join("ws"), root.join("data"));
        for d in [&home, &ws, &data] {
            std::fs::create_dir_all(d).unwrap();
        }
        let mut secrets = Vec::new();
        for (rel, stem) in SECRETS {
            let path = home.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let m = marker(stem);
            std::fs::write(&path, format!("fake secret\n{m}\nend\n")).unwrap();
            secrets.push(Secret { rel, path, marker: m });
        }
        let mut name_markers = Vec::new();
        for dir in SECRET_DIRS {
            let m = marker("NAME");
            std::fs::write(home.join(dir).join(&m), "x\n").unwrap();
            name_markers.push((*dir, m));
        }
        let mut readable = Vec::new();
        for (rel, stem) in READABLE_HOME_FILES {
            let path = home.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let m = format!("READABLE-{stem}-{}", rand_hex());
            std::fs::write(&path, format!("# {m}\n")).unwrap();
            readable.push(Secret { rel, path, marker: m });
        }
        let bashrc = format!("# the user's bashrc {}\nexport EDITOR=vi\n", rand_hex());
        std::fs::write(home.join(".bashrc"), &bashrc).unwrap();
        if let Some(warm) = warm_cache() {
            let _ = copy_dir(&warm, &data.join("cache/components"));
        }
        let confined = confined::from_env();
        if let Some(mode) = confined {
            confined::chown_tree(&root, mode).expect("chown the attack base dir");
        }
        crate::postgres::register(&data);
        Attack {
            base,
            home,
            ws,
            data,
            secrets,
            name_markers,
            bashrc,
            readable,
            env: Vec::new(),
            path_var: std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
            confined,
        }
    }

    /// A new directory beside HOME, the workspace and the data dir (outside every root).
    pub fn outside_dir(&self, name: &str) -> PathBuf {
        let d = self.base.path().canonicalize().unwrap().join(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Moves the data dir (with its warm component cache) to `to` and uses it from now on.
    pub fn move_data_dir(&mut self, to: &Path) {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        if std::fs::rename(&self.data, to).is_err() {
            copy_dir(&self.data, to).unwrap();
        }
        self.data = to.to_path_buf();
    }

    /// The secret at `rel` under HOME.
    pub fn secret(&self, rel: &str) -> &Secret {
        self.secrets.iter().find(|s| s.rel == rel).unwrap_or_else(|| panic!("no secret {rel}"))
    }

    /// Write `rel` in the workspace (creating parents) from the test, not through toolhost.
    pub fn put(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.ws.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }

    /// A `toolhost` command: environment cleared but PATH and HOME (plus [`Attack::env`]),
    /// `--workspace` and `--data-dir` set, then `global` options; confined when
    /// [`Attack::confined`] says so (what the test made since is given to its uid first).
    pub fn command(&self, global: &[&str]) -> Command {
        let mut cmd = Command::new(self.toolhost());
        cmd.env_clear().env("PATH", &self.path_var).env("HOME", &self.home);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd.arg("--workspace").arg(&self.ws).arg("--data-dir").arg(&self.data).args(global);
        crate::postgres::store_env(&mut cmd, &self.data);
        self.confined_command(cmd)
    }

    /// The `toolhost` binary these runs use: the built one, or its copy that the confined uid
    /// reaches ([`confined::reachable_toolhost`]).
    pub fn toolhost(&self) -> PathBuf {
        match self.confined {
            Some(mode) => confined::reachable_toolhost(mode),
            None => toolhost_bin(),
        }
    }

    /// `cmd` confined as [`Attack::confined`] says (after giving this setup's directories to
    /// its uid), or `cmd` itself when it says nothing.
    pub fn confined_command(&self, cmd: Command) -> Command {
        match self.confined {
            Some(mode) => {
                self.give_to(mode);
                // The test's own directory may be closed to the confined uid (a checkout
                // under /root): start where every uid may be.
                let mut cmd = cmd;
                if cmd.get_current_dir().is_none() {
                    cmd.current_dir("/");
                }
                confined::confine(cmd, mode)
            }
            None => cmd,
        }
    }

    /// Gives the base dir, and HOME, the workspace and the data dir wherever they are now, to
    /// the uid that `mode` runs as; outside the base dir only what lies below /var/tmp or the
    /// system temp dir (never a system directory a test points them at).
    fn give_to(&self, mode: Confinement) {
        let base = self.base.path().canonicalize().unwrap();
        let temp = std::env::temp_dir().canonicalize().unwrap_or_else(|_| "/tmp".into());
        let below = |dir: &Path, top: &Path| dir != top && dir.starts_with(top);
        let elsewhere = |dir: &Path| {
            !dir.starts_with(&base) && (below(dir, Path::new("/var/tmp")) || below(dir, &temp))
        };
        for dir in [&base, &self.home, &self.ws, &self.data] {
            if (*dir == base || elsewhere(dir)) && dir.exists() {
                confined::chown_tree(dir, mode).unwrap_or_else(|e| {
                    panic!("chown {} for the confined run: {e}", dir.display())
                });
                // The directories it lies in (a test's temp dir is private to root).
                for up in dir.ancestors().skip(1).take_while(|up| elsewhere(up)) {
                    let _ = confined::give(up, mode);
                }
            }
        }
    }

    /// Runs `toolhost <global> <args>` to the end (hang guard: panics past [`HANG_GUARD`]).
    pub fn run(&self, global: &[&str], args: &[&str]) -> Out {
        let mut cmd = self.command(global);
        cmd.args(args);
        run_limited(&mut cmd, None, HANG_GUARD).unwrap_or_else(|| panic!("toolhost {args:?} hung"))
    }

    /// `toolhost call TOOL INPUT --json`; [`Attack::call_with`] with no global options.
    pub fn call(&self, tool: &str, input: Value) -> Out {
        self.call_with(&[], tool, input)
    }

    /// `toolhost <global> call TOOL INPUT --json`.
    pub fn call_with(&self, global: &[&str], tool: &str, input: Value) -> Out {
        self.run(global, &["call", tool, &input.to_string(), "--json"])
    }

    /// `toolhost --agent workspace call TOOL INPUT --json`: the ToolResult (panics, with
    /// what the run printed, when it is not one).
    pub fn workspace_call(&self, tool: &str, input: Value) -> Value {
        let out = self.call_with(&["--agent", "workspace"], tool, input);
        let result = out.json();
        assert!(result.is_object(), "not a ToolResult: {}", out.all());
        result
    }

    /// Paths a workspace tool must refuse (docs/workspace-tools.md: every path is relative to the
    /// workspace root), after making what they name: `outside/secret.md` beside the
    /// workspace (holding the marker `7f3a`), a symlink `link` to it, and `docs/in.md` inside.
    /// `../outside/secret.md`, the absolute path outside, the absolute path of `docs/in.md`
    /// (absolute even inside), and `link/secret.md`.
    pub fn paths_outside_the_workspace(&self) -> Vec<String> {
        let outside = self.outside_dir("outside");
        std::fs::write(outside.join("secret.md"), "# Outside marker 7f3a\n").unwrap();
        std::os::unix::fs::symlink(&outside, self.ws.join("link")).unwrap();
        let inside = self.put("docs/in.md", "# Inside\n");
        vec![
            "../outside/secret.md".to_owned(),
            outside.join("secret.md").display().to_string(),
            inside.display().to_string(),
            "link/secret.md".to_owned(),
        ]
    }

    /// Asserts that workspace tool `tool`'s `operation` on `path` was refused as a path
    /// outside the workspace, naming the field, with nothing of what lies outside shown.
    pub fn assert_path_refused(&self, tool: &str, operation: &str, path: &str) {
        let r = self.workspace_call(tool, json!({"operation": operation, "path": path}));
        assert_eq!(r["status"], "failed", "{operation} {path}: {r}");
        let s = &r["structuredContent"];
        assert_eq!(s["error_kind"], "LOCAL_EXECUTOR_PATH_DENIED", "{operation} {path}: {r}");
        assert!(s["error"].as_str().unwrap().starts_with("`path`: "), "{r}");
        assert!(!r.to_string().contains("7f3a"), "{operation} {path} read outside: {r}");
    }

    /// `toolhost call bash` with `command`.
    pub fn bash(&self, command: &str) -> Out {
        self.call("bash", json!({ "command": command }))
    }

    /// Whether bash's sandbox works here (`toolhost doctor` exits 0); prints a skip note if not.
    pub fn sandbox_or_skip(&self, test: &str) -> bool {
        let out = self.run(&[], &["doctor"]);
        if out.code != Some(0) {
            // CI sets this: there a missing sandbox is a failure, not a quiet skip of every
            // attack on bash.
            if std::env::var_os("TOOLHOST_REQUIRE_SANDBOX").is_some_and(|v| v == "1") {
                panic!(
                    "{test}: bash's sandbox is unavailable and TOOLHOST_REQUIRE_SANDBOX=1 (`toolhost doctor`):\n{}",
                    out.all()
                );
            }
            eprintln!(
                "SKIPPED {test}: bash's sandbox is unavailable here (`toolhost doctor`):\n{}",
                out.all()
            );
            return false;
        }
        true
    }

    /// The recorded change ids, oldest first (`toolhost changes --json`).
    pub fn change_ids(&self) -> Vec<String> {
        let out = self.run(&[], &["changes", "--json"]);
        let list: Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("changes --json ({e}): {}", out.all()));
        list.as_array()
            .unwrap()
            .iter()
            .filter_map(|c| {
                c["changeId"].as_str().or_else(|| c["file_change"]["changeId"].as_str())
            })
            .map(String::from)
            .collect()
    }

    /// Starts `toolhost <global> session`.
    pub fn session(&self, global: &[&str]) -> Session {
        let mut cmd = self.command(global);
        cmd.arg("session");
        Session::spawn(cmd)
    }

    /// Starts `toolhost <global> mcp` (stdio) and completes the initialize handshake.
    pub fn mcp(&self, global: &[&str]) -> McpStdio {
        let mut cmd = self.command(global);
        cmd.arg("mcp");
        McpStdio::start(cmd)
    }
}

impl Default for Attack {
    fn default() -> Self {
        Self::new()
    }
}

/// A line-oriented child process (session or MCP stdio) read by a thread, so every wait has
/// a bound; the process group is killed on drop.
pub struct LineProc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl LineProc {
    /// Spawns `cmd` with piped stdio in a process group of its own.
    pub fn spawn(mut cmd: Command) -> Self {
        cmd.process_group(0).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn toolhost");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let log = stderr.clone();
        let mut err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                log.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        LineProc { child, stdin, lines, stderr }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes raw bytes to stdin (a failed write, e.g. the child closed it, is returned).
    pub fn send_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes)?;
        stdin.flush()
    }

    /// Takes stdin, e.g. to write a huge request from another thread.
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// The next stdout line within `limit`; None at end of output or on timeout.
    pub fn next_line(&mut self, limit: Duration) -> Option<String> {
        match self.lines.recv_timeout(limit) {
            Ok(l) => Some(l),
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// What the child wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits up to `limit` for the child to exit; then its exit status (if it did) and all
    /// it wrote to stderr, for failure messages.
    pub fn ending(&mut self, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        let mut status = None;
        while Instant::now() < deadline {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(100));
        format!("exit: {status:?}; stderr:\n{}", self.stderr())
    }
}

impl Drop for LineProc {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child's process group.
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// A running `toolhost session` (JSON Lines).
pub struct Session {
    /// The process.
    pub proc: LineProc,
}

impl Session {
    /// Starts the session command `cmd`.
    pub fn spawn(cmd: Command) -> Self {
        Session { proc: LineProc::spawn(cmd) }
    }

    /// Sends one request line.
    pub fn send(&mut self, request: &Value) {
        self.proc.send_raw(format!("{request}\n").as_bytes()).expect("write a request");
    }

    /// The next event (not progress) within the hang guard; panics if there is none.
    pub fn next_final(&mut self) -> Value {
        loop {
            let line = self.proc.next_line(HANG_GUARD).unwrap_or_else(|| {
                panic!("the session ended or hung; {}", self.proc.ending(Duration::from_secs(5)))
            });
            let ev: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("event is not JSON ({e}): {line}"));
            if ev.get("progress").is_none() {
                return ev;
            }
        }
    }

    /// Sends `request` and returns its final event (result, ok or error).
    pub fn request(&mut self, request: Value) -> Value {
        self.send(&request);
        self.next_final()
    }

    /// A tool call; its final event, or None if the session ended first (it may refuse to
    /// start, e.g. over a data dir it will not use).
    pub fn try_call(&mut self, id: &str, tool: &str, arguments: Value) -> Option<Value> {
        let request = json!({"id": id, "tool": tool, "arguments": arguments});
        self.proc.send_raw(format!("{request}\n").as_bytes()).ok()?;
        loop {
            let ev: Value = serde_json::from_str(&self.proc.next_line(HANG_GUARD)?).ok()?;
            if ev.get("progress").is_none() {
                return Some(ev);
            }
        }
    }

    /// A tool call; returns the ToolResult (panics if the event is not a result).
    pub fn call(&mut self, id: &str, tool: &str, arguments: Value) -> Value {
        let ev = self.request(json!({"id": id, "tool": tool, "arguments": arguments}));
        ev.get("result").cloned().unwrap_or_else(|| panic!("expected a result: {ev}"))
    }
}

/// A running `toolhost mcp` on stdio, initialized.
pub struct McpStdio {
    /// The process.
    pub proc: LineProc,
    next_id: u64,
}

impl McpStdio {
    /// Starts `cmd` and performs the 2025-11-25 initialize handshake.
    pub fn start(cmd: Command) -> Self {
        let mut m = McpStdio { proc: LineProc::spawn(cmd), next_id: 1 };
        let init = m.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "attack", "version": "0"}}),
        );
        assert!(init.get("result").is_some(), "initialize failed: {init}");
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}});
        m.proc.send_raw(format!("{note}\n").as_bytes()).expect("write to mcp");
        m
    }

    /// Sends a request and returns the response with its id (notifications are skipped).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.proc.send_raw(format!("{msg}\n").as_bytes()).expect("write to mcp");
        loop {
            let line = self.proc.next_line(HANG_GUARD).unwrap_or_else(|| {
                panic!("mcp ended or hung; {}", self.proc.ending(Duration::from_secs(5)))
            });
            let v: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// `tools/call`; returns the whole JSON-RPC response.
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
    }
}

#[cfg(test)]
mod soft_tests {
    /// Run in a child with the soft variable set (by [`a_soft_run_is_never_a_pass`]); alone it
    /// checks nothing.
    #[test]
    fn soft_probe() {
        if super::soft() {
            super::leak("a probe leak");
        }
    }

    #[test]
    fn a_soft_run_is_never_a_pass() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "attack::soft_tests::soft_probe",
                "--test-threads",
                "1",
                "--nocapture",
            ])
            .env(super::ATTACK_SOFT_VAR, "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(101), "{stderr}");
        assert!(
            stderr.contains("LEAK a probe leak") && stderr.contains("never a pass"),
            "{stderr}"
        );
    }
}
