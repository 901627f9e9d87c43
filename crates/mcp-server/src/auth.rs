//! The bearer token of `toolhost mcp --listen`: nothing that can reach the port (another
//! workspace's sandbox, a browser, another user) can use the tools without it.
//!
//! * The token is the data dir's ([`stored`]): the one in `<data-dir>/mcp-token` when that
//!   file is a private regular file holding a valid token, so a client's pasted token survives
//!   restarts and a second listener on the same data dir shares it instead of replacing it;
//!   otherwise a new one (256 bits from the OS RNG, hex) is written there 0600
//!   ([`write_token_file`], atomically). Deleting the file makes the next start choose a new
//!   one. `--token-file FILE` (its trimmed content) or `TOOLHOST_MCP_TOKEN` fixes it instead
//!   ([`fixed`]); a fixed token must be at least [`MIN_TOKEN_CHARS`] visible ASCII characters.
//! * [`Authenticator::check`] runs on every request before anything else answers it: a
//!   missing or wrong `Authorization: Bearer <token>` gets 401 with `WWW-Authenticate: Bearer`
//!   and one line saying where the token is. The comparison is of SHA-256 digests with a
//!   constant-time loop, so response timing tells nothing about the token.

use std::io::Write;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, WWW_AUTHENTICATE};
use sha2::{Digest, Sha256};

/// The token file inside the data dir (one of its private entries: no tool and no bash can
/// read it, `toolhost_policy::DATA_DIR_PRIVATE`).
pub const TOKEN_FILE: &str = "mcp-token";

/// The environment variable that fixes the token.
pub const TOKEN_ENV: &str = "TOOLHOST_MCP_TOKEN";

/// The shortest token accepted from `--token-file` or the environment: 32 characters, as many
/// as 128 random bits in hex, so a fixed token cannot be guessed by trying.
pub const MIN_TOKEN_CHARS: usize = 32;

/// Bytes of OS randomness in a generated token (256 bits).
const TOKEN_RANDOM_BYTES: usize = 32;

/// Why no token could be set up.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// `--token-file` could not be read.
    #[error("cannot read the token file {}: {source}", path.display())]
    Unreadable { path: PathBuf, source: std::io::Error },
    /// A fixed token is shorter than [`MIN_TOKEN_CHARS`] (or empty).
    #[error(
        "the MCP bearer token from {origin} is {chars} characters long; it must be at least {MIN_TOKEN_CHARS} (e.g. `openssl rand -hex 32`)"
    )]
    TooShort { origin: String, chars: usize },
    /// A fixed token has a character an HTTP header cannot carry as a token.
    #[error(
        "the MCP bearer token from {origin} has a space or a character that is not visible ASCII; use e.g. `openssl rand -hex 32`"
    )]
    BadCharacter { origin: String },
    /// The OS random number generator failed.
    #[error("cannot get random bytes for the MCP bearer token: {0}")]
    Random(getrandom::Error),
    /// The token file could not be written.
    #[error("cannot write the MCP bearer token to {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

impl TokenError {
    /// Whether the error is the user's input (exit 2) rather than the machine's.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            TokenError::Unreadable { .. }
                | TokenError::TooShort { .. }
                | TokenError::BadCharacter { .. }
        )
    }
}

/// Where this server's token came from (what a refused client is told).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// The data dir's token file (kept from an earlier start, or written by this one).
    Stored(PathBuf),
    /// `--token-file`.
    File,
    /// [`TOKEN_ENV`].
    Env,
}

/// A fresh token: 256 bits from the OS RNG, as 64 hex digits.
pub fn generate() -> Result<String, TokenError> {
    let mut bytes = [0u8; TOKEN_RANDOM_BYTES];
    getrandom::fill(&mut bytes).map_err(TokenError::Random)?;
    Ok(hex::encode(bytes))
}

/// The largest token file [`stored`] reads back (a token is 64 hex digits and a newline).
const MAX_TOKEN_FILE_BYTES: u64 = 1024;

/// Write `token` to `<data_dir>/mcp-token`, mode 0600 from its creation. With `replace`, an
/// old file (or a symlink: the rename replaces the link, never what it points to) is
/// replaced; without, an existing file is left alone and `Ok(None)` says so.
fn write_token_file(
    data_dir: &Path,
    token: &str,
    replace: bool,
) -> Result<Option<PathBuf>, TokenError> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = data_dir.join(TOKEN_FILE);
    let write_error = |source| TokenError::Write { path: path.clone(), source };
    // Staged inside `cache/`, which no tool or bash can read either, so the token is never
    // readable under another name; same filesystem, so the rename (or link) is atomic.
    let stage_dir = data_dir.join("cache");
    std::fs::create_dir_all(&stage_dir).map_err(write_error)?;
    let staged = stage_dir.join(format!(".{TOKEN_FILE}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&staged);
    let result = (|| {
        let mut file =
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&staged)?;
        file.write_all(format!("{token}\n").as_bytes())?;
        file.sync_all()?;
        if replace {
            std::fs::rename(&staged, &path).map(|()| true)
        } else {
            // Two listeners starting at once: the first link wins, the second reads it.
            let linked = match std::fs::hard_link(&staged, &path) {
                Ok(()) => Ok(true),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
                Err(e) => Err(e),
            };
            let _ = std::fs::remove_file(&staged);
            linked
        }
    })();
    match result {
        Ok(true) => Ok(Some(path)),
        Ok(false) => Ok(None),
        Err(e) => {
            let _ = std::fs::remove_file(&staged);
            Err(write_error(e))
        }
    }
}

/// The token in `path` if it is a regular file (not a link) of this user, readable by nobody
/// else, of at most [`MAX_TOKEN_FILE_BYTES`], holding a valid token; `None` otherwise.
fn read_token_file(path: &Path) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if !meta.file_type().is_file() || meta.uid() != me || meta.mode() & 0o077 != 0 {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_TOKEN_FILE_BYTES + 1).read_to_string(&mut text).ok()?;
    if text.len() as u64 > MAX_TOKEN_FILE_BYTES {
        return None;
    }
    validate(&text, TOKEN_FILE).ok()
}

/// A fixed token, checked: trimmed, at least [`MIN_TOKEN_CHARS`], visible ASCII only.
fn validate(text: &str, origin: &str) -> Result<String, TokenError> {
    let token = text.trim();
    if token.chars().count() < MIN_TOKEN_CHARS {
        return Err(TokenError::TooShort { origin: origin.into(), chars: token.chars().count() });
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(TokenError::BadCharacter { origin: origin.into() });
    }
    Ok(token.to_string())
}

/// The token fixed for this start: `--token-file`'s, else `env`'s (the value of
/// [`TOKEN_ENV`]); `None` when neither is given.
pub fn fixed(
    token_file: Option<&Path>,
    env: Option<std::ffi::OsString>,
) -> Result<Option<(String, TokenSource)>, TokenError> {
    if let Some(path) = token_file {
        let text = std::fs::read_to_string(path)
            .map_err(|source| TokenError::Unreadable { path: path.to_path_buf(), source })?;
        return Ok(Some((
            validate(&text, &format!("--token-file {}", path.display()))?,
            TokenSource::File,
        )));
    }
    if let Some(value) = env {
        let text = value
            .into_string()
            .map_err(|_| TokenError::BadCharacter { origin: TOKEN_ENV.into() })?;
        return Ok(Some((validate(&text, TOKEN_ENV)?, TokenSource::Env)));
    }
    Ok(None)
}

/// The data dir's token: kept from `<data_dir>/mcp-token` when that holds a valid private
/// token, else a new one written there (replacing a file that is not a valid private token).
pub fn stored(data_dir: &Path) -> Result<(String, TokenSource), TokenError> {
    let path = data_dir.join(TOKEN_FILE);
    for _ in 0..2 {
        if let Some(token) = read_token_file(&path) {
            return Ok((token, TokenSource::Stored(path)));
        }
        let token = generate()?;
        let replace = std::fs::symlink_metadata(&path).is_ok();
        if let Some(written) = write_token_file(data_dir, &token, replace)? {
            return Ok((token, TokenSource::Stored(written)));
        }
        // Another listener wrote it between our read and our link: read theirs.
    }
    let token = generate()?;
    let written = write_token_file(data_dir, &token, true)?.unwrap_or(path);
    Ok((token, TokenSource::Stored(written)))
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No `Authorization: Bearer …` header.
    Missing,
    /// A bearer token that is not this server's (or a malformed header).
    Wrong,
}

/// Checks every request's bearer token.
#[derive(Clone)]
pub struct Authenticator {
    digest: [u8; 32],
    hint: String,
}

impl std::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator").field("hint", &self.hint).finish_non_exhaustive()
    }
}

impl Authenticator {
    /// An authenticator for `token`; `source` says where a refused client can find it.
    pub fn new(token: &str, source: &TokenSource) -> Self {
        let hint = match source {
            TokenSource::Stored(path) => format!(
                "the token is in {} (kept across restarts; delete the file for a new one)",
                path.display()
            ),
            TokenSource::File => {
                "the token is the content of the file the server was given with --token-file".into()
            }
            TokenSource::Env => format!("the token is the {TOKEN_ENV} the server was started with"),
        };
        Authenticator { digest: Sha256::digest(token.as_bytes()).into(), hint }
    }

    /// `Ok` if `headers` carry this server's token as `Authorization: Bearer <token>`.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(value) = headers.get(AUTHORIZATION) else { return Err(Refusal::Missing) };
        let Ok(value) = value.to_str() else { return Err(Refusal::Wrong) };
        let Some((scheme, presented)) = value.trim().split_once(' ') else {
            return Err(Refusal::Wrong);
        };
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(Refusal::Missing);
        }
        let presented: [u8; 32] = Sha256::digest(presented.trim().as_bytes()).into();
        if digests_equal(&presented, &self.digest) { Ok(()) } else { Err(Refusal::Wrong) }
    }

    /// The 401 answer to a refused request.
    pub fn unauthorized(
        &self,
        refusal: Refusal,
    ) -> hyper::Response<BoxBody<Bytes, std::convert::Infallible>> {
        let (challenge, what) = match refusal {
            Refusal::Missing => {
                ("Bearer realm=\"toolhost\"", "this endpoint needs `Authorization: Bearer <token>`")
            }
            Refusal::Wrong => (
                "Bearer realm=\"toolhost\", error=\"invalid_token\"",
                "the bearer token is not this server's; send `Authorization: Bearer <token>`",
            ),
        };
        let body = format!("Unauthorized: {what}; {}\n", self.hint);
        let mut res = hyper::Response::new(
            Full::new(Bytes::from(body)).map_err(|never| match never {}).boxed(),
        );
        *res.status_mut() = hyper::StatusCode::UNAUTHORIZED;
        res.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
        res.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
        res
    }
}

/// Equality of two digests in time independent of where they differ.
fn digests_equal(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(auth: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(a) = auth {
            h.insert(AUTHORIZATION, HeaderValue::from_str(a).unwrap());
        }
        h
    }

    #[test]
    fn only_the_right_bearer_token_passes() {
        let token = generate().unwrap();
        assert_eq!(token.len(), 64);
        assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(token, generate().unwrap());
        let auth = Authenticator::new(&token, &TokenSource::Env);
        assert_eq!(auth.check(&headers(Some(&format!("Bearer {token}")))), Ok(()));
        assert_eq!(auth.check(&headers(Some(&format!("bearer  {token} ")))), Ok(()));
        assert_eq!(auth.check(&headers(None)), Err(Refusal::Missing));
        assert_eq!(auth.check(&headers(Some(&format!("Basic {token}")))), Err(Refusal::Missing));
        assert_eq!(auth.check(&headers(Some("Bearer"))), Err(Refusal::Wrong));
        assert_eq!(
            auth.check(&headers(Some(&format!("Bearer {}", &token[1..])))),
            Err(Refusal::Wrong)
        );
        assert_eq!(auth.check(&headers(Some(&format!("Bearer {token}x")))), Err(Refusal::Wrong));
    }

    #[test]
    fn the_401_says_how_and_where() {
        let auth = Authenticator::new("t", &TokenSource::Stored("/d/mcp-token".into()));
        let res = auth.unauthorized(Refusal::Missing);
        assert_eq!(res.status(), 401);
        assert!(res.headers()[WWW_AUTHENTICATE].to_str().unwrap().starts_with("Bearer"));
    }

    #[test]
    fn fixed_tokens_are_trimmed_and_must_be_long_and_visible_ascii() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t");
        std::fs::write(&file, format!("  {}\n", "a".repeat(32))).unwrap();
        let env = Some(std::ffi::OsString::from("e".repeat(40)));
        assert_eq!(
            fixed(Some(&file), env.clone()).unwrap(),
            Some(("a".repeat(32), TokenSource::File))
        );
        assert_eq!(fixed(None, env).unwrap(), Some(("e".repeat(40), TokenSource::Env)));
        assert_eq!(fixed(None, None).unwrap(), None);
        std::fs::write(&file, "short\n").unwrap();
        assert!(matches!(fixed(Some(&file), None), Err(TokenError::TooShort { chars: 5, .. })));
        std::fs::write(&file, "\n").unwrap();
        assert!(
            matches!(fixed(Some(&file), None), Err(e @ TokenError::TooShort { .. }) if e.is_usage())
        );
        let spaced = format!("{} {}", "a".repeat(20), "b".repeat(20));
        assert!(matches!(fixed(None, Some(spaced.into())), Err(TokenError::BadCharacter { .. })));
        assert!(matches!(
            fixed(Some(&dir.path().join("none")), None),
            Err(TokenError::Unreadable { .. })
        ));
    }

    #[test]
    fn the_token_file_is_a_private_entry_of_the_data_dir() {
        assert!(toolhost_policy::DATA_DIR_PRIVATE.contains(&TOKEN_FILE));
        assert!(
            toolhost_policy::DATA_DIR_PRIVATE.contains(&"cache"),
            "the token is staged in cache/"
        );
    }

    #[test]
    fn the_stored_token_is_kept_and_a_bad_file_is_replaced_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let target = dir.path().join("elsewhere");
        std::fs::create_dir_all(&data).unwrap();
        // A symlink is never followed: it is replaced, what it points to is untouched.
        std::fs::write(&target, "t".repeat(64)).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&target, data.join(TOKEN_FILE)).unwrap();
        let (token, source) = stored(&data).unwrap();
        let path = data.join(TOKEN_FILE);
        assert_ne!(token, "t".repeat(64));
        assert_eq!(source, TokenSource::Stored(path.clone()));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{token}\n"));
        assert_eq!(std::fs::symlink_metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "t".repeat(64));
        // Kept at the next start.
        assert_eq!(stored(&data).unwrap().0, token);
        // A file others can read, or one not holding a valid token, is replaced.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let (again, _) = stored(&data).unwrap();
        assert_ne!(again, token);
        std::fs::write(&path, "short\n").unwrap();
        assert_ne!(stored(&data).unwrap().0, again);
        assert_eq!(std::fs::symlink_metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
}
