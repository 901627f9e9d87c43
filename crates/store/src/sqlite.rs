//! The SQLite engine: one connection to `<data-dir>/toolhost.db` (WAL), each
//! [`SqliteEngine::transaction`] a SQLite transaction over [`Sql`].

use std::path::Path;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, Transaction, TransactionBehavior};

use toolhost_limits::STORE_WAL_CHECKPOINT_PAGES;

use crate::StoreError;
use crate::migrations::{DB_FILE, migrate_sqlite};
use crate::sql::{Row, Sql, Value};

/// How long opening the store waits for other processes that hold its lock.
const OPEN_BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// One connection to the SQLite store.
pub(crate) struct SqliteEngine {
    conn: Option<Connection>,
}

impl SqliteEngine {
    /// Open (creating it and running migrations if needed) `<data_dir>/toolhost.db`.
    pub fn open(data_dir: &Path) -> Result<SqliteEngine, StoreError> {
        let path = data_dir.join(DB_FILE);
        let open_err = |source| StoreError::Open { path: path.clone(), source };
        std::fs::create_dir_all(data_dir)
            .map_err(|source| StoreError::DataDir { path: data_dir.to_path_buf(), source })?;
        let mut conn = Connection::open(&path).map_err(open_err)?;
        conn.busy_timeout(OPEN_BUSY_TIMEOUT).map_err(open_err)?;
        // Switching a fresh database to WAL takes an exclusive lock, and SQLite answers
        // SQLITE_BUSY at once (not through the busy handler) while another process is doing
        // the same: retry for as long as the busy timeout allows.
        let started = std::time::Instant::now();
        loop {
            match conn.pragma_update(None, "journal_mode", "WAL") {
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if e.code == rusqlite::ErrorCode::DatabaseBusy
                        && started.elapsed() < OPEN_BUSY_TIMEOUT =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                other => break other.map_err(open_err)?,
            }
        }
        // WAL + NORMAL: a commit survives a crash of toolhost (not a power cut) without an
        // fsync per call, which would cap a session at a few hundred calls per second.
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(open_err)?;
        // Closing the last connection would checkpoint the WAL into the database and delete
        // it, with an fsync or four (~1.5 ms of every one-shot `toolhost call`). Leave the
        // WAL for the next open instead: SQLite checkpoints it when it grows past its
        // autocheckpoint size, and it is as private as the database (`DATA_DIR_PRIVATE`).
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(open_err)?;
        // Keep the WAL small: checkpoint every STORE_WAL_CHECKPOINT_PAGES pages (SQLite's
        // default is 1,000, about 4 MB) and cut the file back to that size after each
        // checkpoint, instead of leaving it at its largest for ever.
        let wal_pages = i64::from(STORE_WAL_CHECKPOINT_PAGES);
        conn.pragma_update(None, "wal_autocheckpoint", wal_pages).map_err(open_err)?;
        let page_size: i64 =
            conn.pragma_query_value(None, "page_size", |r| r.get(0)).map_err(open_err)?;
        conn.pragma_update(None, "journal_size_limit", wal_pages * page_size).map_err(open_err)?;
        conn.pragma_update(None, "foreign_keys", true).map_err(open_err)?;
        migrate_sqlite(&mut conn)?;
        Ok(SqliteEngine { conn: Some(conn) })
    }

    /// Close the database.
    pub fn close(&mut self) {
        self.conn = None;
    }

    fn conn(&self) -> Result<&Connection, StoreError> {
        self.conn.as_ref().ok_or(StoreError::Closed)
    }

    /// The schema version (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(self.conn()?.pragma_query_value(None, "user_version", |r| r.get(0))?)
    }

    /// Run `f` in one transaction (a write transaction when `write`), committed if it
    /// returns Ok.
    pub fn transaction<R>(
        &self,
        write: bool,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let behavior =
            if write { TransactionBehavior::Immediate } else { TransactionBehavior::Deferred };
        let tx = Transaction::new_unchecked(self.conn()?, behavior)?;
        let mut sql = SqliteSql(&tx);
        let r = f(&mut sql)?;
        tx.commit()?;
        Ok(r)
    }
}

struct SqliteSql<'a>(&'a Transaction<'a>);

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(n) => ToSqlOutput::Borrowed(ValueRef::Integer(*n)),
            Value::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Value::Bytes(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

fn value_of(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => Value::Int(n),
        ValueRef::Real(r) => Value::Int(r as i64),
        ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
    }
}

impl Sql for SqliteSql<'_> {
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        let mut stmt = self.0.prepare_cached(sql)?;
        Ok(stmt.execute(rusqlite::params_from_iter(params))? as u64)
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let mut stmt = self.0.prepare_cached(sql)?;
        let columns = stmt.column_count();
        let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let mut values = Vec::with_capacity(columns);
            for i in 0..columns {
                values.push(value_of(row.get_ref(i)?));
            }
            out.push(Row(values));
        }
        Ok(out)
    }
}
