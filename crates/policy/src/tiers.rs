//! The tier lists: which paths are credentials, which are sensitive, which entries of the
//! data dir are private. One place for every list the fence and the OS sandboxes read.

use std::path::Path;

/// Whether `path` is a process's environment (`/proc/<pid>/environ`, also per task). Values
/// with newlines (PEM keys, say) would otherwise be readable line by line past the NULs.
pub(super) fn is_process_environment(path: &Path) -> bool {
    path.starts_with("/proc") && path.file_name().is_some_and(|n| n == "environ")
}

/// Credential locations under HOME, and under every other user's home ([`OTHER_HOME_PARENTS`],
/// [`OTHER_HOME_DIRS`]): neither readable nor writable without a grant, even inside a readable
/// entry ([`READABLE_HOME_ENTRIES`], `readable_home_entries`): a store's name or place wins
/// over the readable list. HOME-relative; a component `*` (or `name*`) matches one whole
/// component (a name that begins with `name`), and bash's sandbox finds what such an entry
/// names with one `readdir` of each directory a `*` stands in, never a walk of a tree.
pub const CREDENTIAL_HOME_ENTRIES: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".config/gh",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".npmrc",
    ".pypirc",
    // The logins of the agents that drive toolhost.
    ".claude/.credentials.json",
    ".claude.json",
    ".codex/auth.json",
    ".config/github-copilot",
    ".copilot",
    ".gemini",
    // Secret stores, database and tool logins.
    ".vault-token",
    ".pgpass",
    ".my.cnf",
    ".terraform.d/credentials.tfrc.json",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".config/rclone",
    ".gem/credentials",
    ".config/hub",
    ".local/share/keyrings",
    ".password-store",
    ".config/op",
    ".yarnrc",
    ".yarnrc.yml",
    ".bundle/config",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".nuget/NuGet/NuGet.Config",
    ".config/NuGet/NuGet.Config",
    ".s3cfg",
    ".boto",
    ".oci",
    ".config/doctl",
    ".config/hcloud",
    ".pki",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".cache/huggingface/token",
    // Histories: commands typed with a token in them.
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".node_repl_history",
    ".sqlite_history",
    ".lesshst",
    ".viminfo",
    // Stores inside the readable entries below: git's XDG credential store, uv's
    // index logins, fish's universal variables (`set -Ux TOKEN …`), the global `npmrc` of a
    // node that nvm or volta installed (`npm config set --global //registry/:_authToken`),
    // npm's own built-in `npmrc`, the site `pip.conf` of a pyenv, pipenv, pipx or uv prefix
    // (an index URL with a password), and the system `gemrc` of an rbenv ruby.
    ".config/git/credentials",
    ".local/share/uv/credentials",
    ".config/fish/fish_variables",
    ".config/fish/fishd.*",
    ".nvm/versions/*/*/etc/npmrc",
    ".nvm/versions/*/*/lib/node_modules/npm/npmrc",
    ".volta/tools/image/node/*/etc/npmrc",
    ".volta/tools/image/node/*/lib/node_modules/npm/npmrc",
    ".pyenv/versions/*/pip.conf",
    ".pyenv/versions/*/envs/*/pip.conf",
    ".local/share/virtualenvs/*/pip.conf",
    ".local/share/pipx/venvs/*/pip.conf",
    ".local/share/pipx/shared/pip.conf",
    ".local/share/uv/tools/*/pip.conf",
    ".local/share/uv/python/*/pip.conf",
    ".rbenv/versions/*/etc/gemrc",
];

/// What stays readable of HOME's hidden entries (HOME-relative, a trailing `*` in a component
/// names a prefix): every other path whose first component below HOME begins with `.` is a
/// credential (neither readable nor writable without a grant), so a store nobody listed is
/// closed too. These are the shell's and git's own configuration (bash, git and editors read
/// them; they are also sensitive: writable only with a grant), and the package caches and
/// toolchains an agent's builds read. `policy.json` `"readable_home_entries"` adds more; the
/// [`CREDENTIAL_HOME_ENTRIES`] stay closed whatever this list says.
pub const READABLE_HOME_ENTRIES: &[&str] = &[
    // Shells, readline, editors, git (identity, aliases; tokens belong in a credential helper).
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".inputrc",
    ".vimrc",
    ".exrc",
    ".editorconfig",
    ".tmux.conf",
    ".gitconfig",
    ".gitignore_global",
    ".config/git",
    ".config/fish",
    ".config/nvim",
    // Rust.
    ".cargo/bin",
    ".cargo/registry",
    ".cargo/git",
    ".rustup",
    // JVM.
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    ".ivy2/cache",
    ".sdkman/candidates",
    // JavaScript.
    ".npm",
    ".nvm/versions",
    ".nvm/nvm.sh",
    ".yarn/berry/cache",
    ".bun/bin",
    ".bun/install/cache",
    ".deno",
    ".volta/tools",
    // Python.
    ".pyenv/versions",
    ".pyenv/shims",
    // What a pyenv shim runs (`libexec/pyenv exec`, its plugins and hooks, the global
    // `version` file): a `python3` on PATH is often one.
    ".pyenv/bin",
    ".pyenv/libexec",
    ".pyenv/plugins",
    ".pyenv/pyenv.d",
    ".pyenv/version",
    ".local/lib/python*",
    ".local/bin",
    ".local/share/uv",
    ".local/share/pipx",
    ".local/share/virtualenvs",
    ".local/share/pnpm",
    // Other toolchains.
    ".rbenv/versions",
    ".nuget/packages",
    ".dotnet/tools",
    ".ghcup/bin",
    ".cabal/packages",
    ".elan/toolchains",
    ".julia/packages",
    // Caches of package managers and build tools.
    ".cache/pip",
    ".cache/uv",
    ".cache/pypoetry",
    ".cache/go-build",
    ".cache/yarn",
    ".cache/pnpm",
    ".cache/node-gyp",
    ".cache/ms-playwright",
    ".cache/pre-commit",
    ".cache/sccache",
    ".cache/bazel",
    ".cache/deno",
    ".cache/typescript",
    ".cache/coursier",
];

/// Whether the HOME-relative pattern `pattern` (components, a trailing `*` a prefix) covers
/// the HOME-relative path `rest` (is it or lies below it).
pub(super) fn home_pattern_covers(pattern: &str, rest: &Path) -> bool {
    let mut comps = rest.iter();
    for part in pattern.split('/').filter(|p| !p.is_empty()) {
        match comps.next() {
            Some(c) if name_matches(part, c) => {}
            _ => return false,
        }
    }
    true
}

/// Whether the HOME-relative pattern `pattern` may name a path at or below the HOME-relative
/// path `rest`: it covers `rest`, or `rest` is a directory on the way to what it names.
pub(super) fn pattern_may_reach(pattern: &str, rest: &Path) -> bool {
    let mut comps = rest.iter();
    for part in pattern.split('/').filter(|p| !p.is_empty()) {
        match comps.next() {
            None => return true,
            Some(c) if name_matches(part, c) => {}
            _ => return false,
        }
    }
    true
}

/// The file toolhost creates in every data dir it opens. It makes nothing a data dir by itself
/// (a repository could ship one): a data dir is one because the host's own record, the
/// registry of data dirs, names it; the marker only tells that a listed directory is still
/// one (a registry entry whose directory lost it is dropped).
pub const DATA_DIR_MARKER: &str = ".toolhost-data-dir";

/// System files that hold credentials, listed by name: neither readable nor writable (a host
/// running as root, as CI and most containers do, could otherwise read them; bash's sandbox
/// masks them). `/etc/ssh/*_key` is matched too, and other users' homes are closed by
/// [`OTHER_HOME_PARENTS`] and [`OTHER_HOME_DIRS`].
pub const SYSTEM_CREDENTIAL_PATHS: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/security/opasswd",
    // TLS private keys (Debian's snakeoil key, Red Hat's, certbot's), Kerberos' host keytab,
    // VPN, PPP and Wi-Fi secrets, the Debian MySQL maintenance login.
    "/etc/ssl/private",
    "/etc/pki/tls/private",
    "/etc/letsencrypt/live",
    "/etc/letsencrypt/archive",
    "/etc/krb5.keytab",
    "/etc/ipsec.secrets",
    "/etc/ppp/chap-secrets",
    "/etc/ppp/pap-secrets",
    "/etc/NetworkManager/system-connections",
    "/etc/wpa_supplicant",
    "/etc/mysql/debian.cnf",
    // Secrets mounted into containers and pods (a Kubernetes service-account token, Docker
    // and Compose secrets); `/var/run` is usually a symlink to `/run`.
    "/run/secrets",
    "/var/run/secrets",
];

/// Directories whose every entry is a user's home (`/home/alice`; macOS's `/Users/alice`).
/// Each one but the home that holds HOME (or lies in it) is another user's: closed like
/// one of HOME's hidden entries, whole — only the readable entries inside it
/// ([`READABLE_HOME_ENTRIES`], less [`CREDENTIAL_HOME_ENTRIES`]: the toolchains a build
/// runs from there), writable roots and the data dir inside it, and grants stay open.
pub const OTHER_HOME_PARENTS: &[&str] = &["/home", "/Users"];

/// Homes of their own (root's; macOS's `/var/root`), closed like an entry of
/// [`OTHER_HOME_PARENTS`] when they are not HOME: a test or a service run with another HOME
/// as root keeps its toolchains readable in `/root/.cargo/bin`, `/root/.rustup`, … and
/// nothing else there.
pub const OTHER_HOME_DIRS: &[&str] = &["/root", "/var/root"];

/// Entries of toolhost's data dir that no tool and no bash may read or write, not even with a
/// grant: the session store (every call's arguments and text), the policy config, the
/// component cache (native code the host loads), the MCP bearer token and the journals of
/// multi-file changes in progress (the files' earlier contents, and what the next start puts
/// back). The spill dir stays readable (docs/contract.md#spill-files).
pub const DATA_DIR_PRIVATE: &[&str] = &[
    "toolhost.db",
    "toolhost.db-wal",
    "toolhost.db-shm",
    "toolhost.db-journal",
    "policy.json",
    "data-dirs",
    "cache",
    "mcp-token",
    "tools",
    "tools.json",
    "locks",
    "journal",
];

/// Entries under HOME that run code at the user's next login, shell, editor or git command:
/// sensitive (writable only with a grant), matched as HOME-relative prefixes.
pub const HOME_SENSITIVE_ENTRIES: &[&str] = &[
    ".bash_login",
    ".bash_logout",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".xprofile",
    ".xsession",
    ".xsessionrc",
    ".xinitrc",
    ".pam_environment",
    ".vimrc",
    ".exrc",
    ".inputrc",
    ".tmux.conf",
    ".config/git",
    ".config/autostart",
    ".config/systemd",
    ".config/fish",
    ".config/environment.d",
    ".config/nvim",
    ".local/bin",
    // Programs on the user's PATH and what they load, which the user's own later commands run
    // unchecked: a toolchain's bin dirs, rustup's toolchains and settings, Python's user
    // site-packages (a `.pth` file there runs at every Python start).
    ".cargo/bin",
    ".rustup",
    ".pyenv/shims",
    ".pyenv/bin",
    ".bun/bin",
    ".deno/bin",
    ".dotnet/tools",
    ".ghcup/bin",
    ".local/lib",
    ".ssh/authorized_keys",
    ".ssh/rc",
];

/// Sensitive file names (a `/` names trailing components, a trailing `*` a prefix): readable,
/// writable only with a grant, matched anywhere in a writable root or under HOME.
pub const SENSITIVE_NAMES: &[&str] = &[
    ".git/config",
    ".gitmodules",
    ".env",
    ".env.*",
    ".bashrc",
    ".zshrc",
    ".profile",
    ".bash_profile",
    ".gitconfig",
];

/// `/etc/ssh/*_key`: the SSH host private keys (a name of at least one character before
/// `_key`, as the Seatbelt profile's `^/etc/ssh/[^/]+_key$` matches).
pub fn is_ssh_host_key(path: &Path) -> bool {
    path.parent() == Some(Path::new("/etc/ssh"))
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.len() > "_key".len() && n.ends_with("_key"))
}

pub(super) fn name_matches(pattern: &str, name: &std::ffi::OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix) && name.len() > prefix.len(),
        None => name == pattern,
    }
}

/// When the operator confines reads (`policy.json` `"reads": {"confine": true}`,
/// `--confine-reads`, `--read-root`): the system directories programs need to run, which stay
/// readable (real paths, so `/private/etc` on macOS). Everything else is users' data — HOME,
/// every home, `/tmp`, `/srv`, `/mnt`, `/media`, any other top-level directory (`/work`,
/// `/data`) — and is readable only inside the workspace, the writable roots, the read roots,
/// the data dir's spill files, a grant, or a home's readable entries
/// ([`READABLE_HOME_ENTRIES`]: the toolchains). Less [`USER_DATA_IN_SYSTEM`] and every home.
/// The credential tier applies as always.
pub const SYSTEM_READ_DIRS: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/nix",
    "/snap",
    "/var",
    "/run",
    "/proc",
    "/sys",
    "/dev",
    "/boot",
    "/System",
    "/Library",
    "/Applications",
    "/private/etc",
    "/private/var",
];

/// Users' data inside [`SYSTEM_READ_DIRS`] (the shared temp dirs, mail, web sites, the
/// session's runtime dir): closed like any users' data when reads are confined.
pub const USER_DATA_IN_SYSTEM: &[&str] = &[
    "/var/tmp",
    "/var/mail",
    "/var/spool/mail",
    "/var/www",
    "/run/user",
    "/dev/shm",
    "/private/var/tmp",
    "/private/var/folders",
    "/private/var/mail",
];
