//! A real PostgreSQL for the suites, started by the tests themselves (no mock): [`Postgres`]
//! finds `initdb`, `pg_ctl` and `createdb` (`pg_config --bindir`, else
//! `/usr/lib/postgresql/*/bin`), runs `initdb` into a temp dir owned by an unprivileged user
//! (PostgreSQL refuses to run as root: the `postgres` user the Debian package makes), starts
//! the server on a free loopback port with its socket in that dir, and stops it
//! (`pg_ctl stop -m immediate`) when dropped. A suite that needs it and cannot start it
//! fails; it never skips.
//!
//! A test binary whose name starts with `postgres_` (or any, with
//! `TOOLHOST_TEST_STORE=postgres`) runs its fixtures on PostgreSQL: each [`crate::Fixture`]
//! and [`crate::attack::Attack`] gets a database of its own on one shared server, and every
//! `toolhost` command the helpers build for that data dir gets it as `TOOLHOST_STORE`
//! ([`store_env`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The superuser `initdb` creates (trust authentication on loopback).
pub const USER: &str = "toolhost";

/// A running PostgreSQL server.
pub struct Postgres {
    bindir: PathBuf,
    dir: tempfile::TempDir,
    port: u16,
    owner: Option<(u32, u32)>,
}

fn bindir() -> PathBuf {
    let from_pg_config = Command::new("pg_config").arg("--bindir").output().ok().and_then(|o| {
        let dir = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
        dir.join("initdb").is_file().then_some(dir)
    });
    if let Some(dir) = from_pg_config {
        return dir;
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("initdb").is_file() && b.join("pg_ctl").is_file())
        .collect();
    found.sort();
    found.pop().unwrap_or_else(|| {
        panic!(
            "PostgreSQL's initdb and pg_ctl were not found (pg_config --bindir, /usr/lib/postgresql/*/bin): install the Debian package `postgresql` (.ci/run does)"
        )
    })
}

/// The uid and gid the server runs as: none when the tests do not run as root, else the
/// `postgres` user's.
fn server_owner() -> Option<(u32, u32)> {
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let line = passwd.lines().find(|l| l.starts_with("postgres:")).unwrap_or_else(|| {
        panic!("the tests run as root and there is no `postgres` user to run PostgreSQL as (the Debian package `postgresql` makes one)")
    });
    let fields: Vec<&str> = line.split(':').collect();
    Some((fields[2].parse().unwrap(), fields[3].parse().unwrap()))
}

fn chown(path: &Path, (uid, gid): (u32, u32)) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    let rc = unsafe { libc::chown(c.as_ptr(), uid, gid) };
    assert_eq!(rc, 0, "chown {}: {}", path.display(), std::io::Error::last_os_error());
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Postgres {
    /// Initialize and start a fresh server (panics with the reason if it cannot).
    pub fn start() -> Postgres {
        let bindir = bindir();
        let dir = tempfile::Builder::new().prefix("toolhost-pg-").tempdir().unwrap();
        let owner = server_owner();
        if let Some(owner) = owner {
            chown(dir.path(), owner);
        }
        let pg = Postgres { bindir, dir, port: free_port(), owner };
        let data = pg.data_dir();
        pg.run_checked(
            pg.as_owner("initdb")
                .args(["-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync", "-D"])
                .arg(&data),
        );
        pg.start_server();
        pg
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// A server program, run as the server's owner.
    fn as_owner(&self, program: &str) -> Command {
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(self.bindir.join(program));
        if let Some((uid, gid)) = self.owner {
            cmd.uid(uid).gid(gid).env("HOME", self.dir.path());
        }
        cmd.current_dir(self.dir.path());
        cmd
    }

    fn run_checked(&self, cmd: &mut Command) -> Output {
        let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
        assert!(
            out.status.success(),
            "{cmd:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Start (or start again) the server on its port.
    pub fn start_server(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -F -c max_connections=200",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("server.log");
        self.run_checked(
            self.as_owner("pg_ctl")
                .arg("-D")
                .arg(self.data_dir())
                .arg("-l")
                .arg(&log)
                .args(["-o", &options, "-w", "start"]),
        );
    }

    /// Stop the server at once (`-m immediate`: as if it crashed or the network went).
    pub fn stop(&self) {
        let _ = self
            .as_owner("pg_ctl")
            .arg("-D")
            .arg(self.data_dir())
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A new, empty database: its URL.
    pub fn create_db(&self) -> String {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!("t{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::SeqCst));
        let port = self.port.to_string();
        self.run_checked(Command::new(self.bindir.join("createdb")).args([
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-U",
            USER,
            &name,
        ]));
        self.url(&name)
    }

    /// The URL of database `db`.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{db}", self.port)
    }

    /// Run `sql` on database `db` with psql; its output.
    pub fn psql(&self, db_url: &str, sql: &str) -> String {
        let out = self.run_checked(
            Command::new(self.bindir.join("psql")).args([db_url, "-X", "-A", "-t", "-c", sql]),
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Whether this test binary runs its fixtures on PostgreSQL (see the module doc).
pub fn on_postgres() -> bool {
    let by_name = std::env::current_exe()
        .ok()
        .and_then(|e| e.file_name().map(|n| n.to_string_lossy().starts_with("postgres_")))
        .unwrap_or(false);
    by_name || std::env::var("TOOLHOST_TEST_STORE").is_ok_and(|v| v == "postgres")
}

static SHARED: OnceLock<Mutex<Option<Postgres>>> = OnceLock::new();
static STORES: Mutex<Option<HashMap<PathBuf, String>>> = Mutex::new(None);

extern "C" fn stop_shared() {
    if let Some(shared) = SHARED.get() {
        drop(shared.lock().unwrap_or_else(|e| e.into_inner()).take());
    }
}

/// The server the fixtures of this test binary share, started on first use and stopped
/// when the process exits.
pub fn shared() -> std::sync::MutexGuard<'static, Option<Postgres>> {
    let shared = SHARED.get_or_init(|| {
        // SAFETY: registering a plain function to run at exit.
        unsafe { libc::atexit(stop_shared) };
        Mutex::new(Some(Postgres::start()))
    });
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

/// On a PostgreSQL test binary: give `data_dir` a database of its own.
pub fn register(data_dir: &Path) {
    if !on_postgres() {
        return;
    }
    let url = shared().as_ref().expect("the shared PostgreSQL").create_db();
    STORES.lock().unwrap().get_or_insert_default().insert(data_dir.to_path_buf(), url);
}

/// `TOOLHOST_STORE` for a command over `data_dir`, when its fixture has a database.
pub fn store_env(cmd: &mut Command, data_dir: &Path) {
    let stores = STORES.lock().unwrap();
    if let Some(url) = stores.as_ref().and_then(|s| s.get(data_dir)) {
        cmd.env("TOOLHOST_STORE", url);
    }
}
