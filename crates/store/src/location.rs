//! [`StoreLocation`]: where the record lives, parsed from `--store`, `TOOLHOST_STORE` or
//! policy.json's `"store"`: `sqlite` (the default, `<data-dir>/toolhost.db`) or a
//! `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` URL ([`PgUrl`]), shown everywhere without its
//! password.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::StoreError;

/// Where the session store is.
#[derive(Debug, Clone)]
pub enum StoreLocation {
    /// `<data-dir>/toolhost.db` (the default).
    Sqlite(PathBuf),
    /// A PostgreSQL database.
    Postgres(Box<PgUrl>),
}

impl StoreLocation {
    /// `sqlite` (in `data_dir`) or a `postgres://` / `postgresql://` URL; anything else is
    /// refused with a line that says what is accepted (and never echoes a password).
    pub fn parse(text: &str, data_dir: &Path) -> Result<StoreLocation, StoreError> {
        let text = text.trim();
        if text.is_empty() || text == "sqlite" {
            return Ok(StoreLocation::Sqlite(data_dir.to_path_buf()));
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return PgUrl::parse(text).map(|url| StoreLocation::Postgres(Box::new(url)));
        }
        Err(StoreError::BadLocation(format!(
            "the session store `{}` is neither `sqlite` nor a postgres://USER@HOST:PORT/DB URL",
            redact(text)
        )))
    }

    /// The location as shown in messages: the database file, or the URL without password.
    pub fn shown(&self) -> String {
        match self {
            StoreLocation::Sqlite(dir) => dir.join(crate::DB_FILE).display().to_string(),
            StoreLocation::Postgres(url) => url.shown().to_string(),
        }
    }
}

/// A PostgreSQL URL: the driver's configuration and the URL as it may be shown.
#[derive(Clone)]
pub struct PgUrl {
    config: postgres::Config,
    shown: String,
}

impl std::fmt::Debug for PgUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl PgUrl {
    /// Parse `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?options]`; it must name a user, a
    /// host and a database.
    pub fn parse(text: &str) -> Result<PgUrl, StoreError> {
        let shown = redact(text);
        let bad = |why: String| StoreError::BadLocation(format!("--store {shown}: {why}"));
        let mut config = postgres::Config::from_str(text).map_err(|e| bad(e.to_string()))?;
        if config.get_user().is_none_or(str::is_empty) {
            return Err(bad("the URL names no user (postgres://USER@HOST:PORT/DB)".into()));
        }
        if config.get_hosts().is_empty() {
            return Err(bad("the URL names no host (postgres://USER@HOST:PORT/DB)".into()));
        }
        if config.get_dbname().is_none_or(str::is_empty) {
            return Err(bad("the URL names no database (postgres://USER@HOST:PORT/DB)".into()));
        }
        let timeout = std::time::Duration::from_secs(toolhost_limits::STORE_CONNECT_TIMEOUT_SECS);
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(timeout);
        }
        config.keepalives(true).keepalives_idle(timeout);
        config.application_name("toolhost");
        Ok(PgUrl { config, shown })
    }

    /// The URL without its password (and without query options, which may hold one).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The driver's configuration.
    pub(crate) fn config(&self) -> &postgres::Config {
        &self.config
    }
}

/// `text` with the password of its user info replaced by `***` and its query dropped.
pub fn redact(text: &str) -> String {
    let text = text.split(['?', '#']).next().unwrap_or_default();
    let Some((scheme, rest)) = text.split_once("://") else {
        // Not a URL: it may still be a secret (a key=value string with password=…).
        return if text.contains('@') || text.contains('=') {
            "(not shown)".into()
        } else {
            text.to_string()
        };
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((user_info, host)) => match user_info.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => format!("{user_info}@{host}"),
        },
        None => authority.to_string(),
    };
    format!("{scheme}://{authority}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_and_query_options_are_never_shown() {
        assert_eq!(redact("postgres://u:s3cret@h:5432/db"), "postgres://u:***@h:5432/db");
        assert_eq!(redact("postgres://u@h/db?password=s3cret"), "postgres://u@h/db");
        assert_eq!(redact("host=h password=s3cret"), "(not shown)");
        let url = PgUrl::parse("postgres://u:s3cret@127.0.0.1:5/db").unwrap();
        assert_eq!(url.shown(), "postgres://u:***@127.0.0.1:5/db");
        assert!(!format!("{url:?}").contains("s3cret"));
        let e = PgUrl::parse("postgres://u:s3cret@h:notaport/db").unwrap_err().to_string();
        assert!(!e.contains("s3cret") && e.contains("postgres://u:***@h:notaport/db"), "{e}");
    }

    #[test]
    fn a_url_without_user_host_or_database_is_refused() {
        let dir = Path::new("/d");
        assert!(matches!(StoreLocation::parse("sqlite", dir), Ok(StoreLocation::Sqlite(_))));
        for bad in ["postgres://h/db", "postgres://u@h", "mysql://u@h/db", "postgres://u@/db"] {
            let e = StoreLocation::parse(bad, dir).unwrap_err();
            assert!(matches!(e, StoreError::BadLocation(_)), "{bad}: {e}");
        }
    }
}
