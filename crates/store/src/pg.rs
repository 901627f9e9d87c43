//! The PostgreSQL engine: one connection, owned by a thread of its own (the synchronous
//! `postgres` client runs its own small async runtime, which must not be entered from the
//! host's), reached over a channel. A connection found closed is made again before the next
//! transaction, so a session goes on once the server is back; a transaction whose
//! connection is lost fails with [`StoreError::Postgres`] naming the store.

use std::sync::mpsc;

use postgres::types::{ToSql, Type};
use postgres::{Client, NoTls};

use crate::StoreError;
use crate::error::pg_reason;
use crate::location::PgUrl;
use crate::migrations::migrate_postgres;
use crate::sql::{Row, Sql, Value, dollar_placeholders};

type Job = Box<dyn FnOnce(&mut PgConn) + Send>;

/// The PostgreSQL store: a channel to the thread that holds the connection.
pub(crate) struct PgEngine {
    jobs: Option<mpsc::Sender<Job>>,
    shown: String,
}

/// The connection thread's state.
struct PgConn {
    url: PgUrl,
    client: Option<Client>,
}

impl PgEngine {
    /// Connect (running migrations); fails with [`StoreError::Unreachable`] if the server
    /// cannot be reached within the connect timeout.
    pub fn connect(url: &PgUrl) -> Result<PgEngine, StoreError> {
        let (tx, rx) = mpsc::channel::<Job>();
        let conn = PgConn { url: url.clone(), client: None };
        std::thread::Builder::new()
            .name("toolhost-store-pg".into())
            .spawn(move || {
                let mut conn = conn;
                while let Ok(job) = rx.recv() {
                    job(&mut conn);
                }
            })
            .map_err(|e| StoreError::Unreachable {
                store: url.shown().into(),
                reason: format!("cannot start its thread: {e}"),
            })?;
        let engine = PgEngine { jobs: Some(tx), shown: url.shown().into() };
        engine.on_conn(|c| c.client().map(|_| ()))?;
        Ok(engine)
    }

    /// Close the connection; every later operation fails with [`StoreError::Closed`].
    pub fn close(&mut self) {
        self.jobs = None;
    }

    /// The schema version recorded in the database.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        self.transaction(false, |sql| {
            sql.query("SELECT version FROM toolhost_schema", &[])?
                .first()
                .map_or(Ok(0), |r| r.int(0))
        })
    }

    /// Run `f` in one transaction on the connection thread, committed if it returns Ok.
    pub fn transaction<R: Send + 'static>(
        &self,
        _write: bool,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        self.on_conn(move |c| c.transaction(f))
    }

    fn on_conn<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut PgConn) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let jobs = self.jobs.as_ref().ok_or(StoreError::Closed)?;
        let (done, result) = mpsc::sync_channel(1);
        let gone = || StoreError::Postgres {
            store: self.shown.clone(),
            reason: "its connection thread ended".into(),
        };
        jobs.send(Box::new(move |c| {
            let _ = done.send(f(c));
        }))
        .map_err(|_| gone())?;
        result.recv().map_err(|_| gone())?
    }
}

impl PgConn {
    fn shown(&self) -> String {
        self.url.shown().to_string()
    }

    /// The open connection, connecting (and migrating) first if there is none or it closed.
    fn client(&mut self) -> Result<&mut Client, StoreError> {
        if self.client.as_ref().is_some_and(Client::is_closed) {
            self.client = None;
        }
        if self.client.is_none() {
            let unreachable = |e: postgres::Error| StoreError::Unreachable {
                store: self.shown(),
                reason: pg_reason(&e),
            };
            let mut client = self.url.config().connect(NoTls).map_err(unreachable)?;
            let shown = self.shown();
            let mut tx = client.transaction().map_err(unreachable)?;
            migrate_postgres(&mut PgSql { tx: &mut tx, shown: shown.clone() })?;
            tx.commit().map_err(unreachable)?;
            self.client = Some(client);
        }
        self.client.as_mut().ok_or(StoreError::Closed)
    }

    /// `f` in one transaction. A connection on which the transaction cannot begin (the
    /// server restarted since the last call) is made again once: nothing of `f` has run yet.
    fn transaction<R>(
        &mut self,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let shown = self.shown();
        let failed = |e: postgres::Error| StoreError::Postgres {
            store: shown.clone(),
            reason: pg_reason(&e),
        };
        if let Ok(tx) = self.client()?.transaction() {
            return run(tx, &shown, f);
        }
        // BEGIN failed: the connection is gone (the server restarted, or told this backend
        // to end). Connect again, once.
        self.client = None;
        let tx = self.client()?.transaction().map_err(failed)?;
        run(tx, &shown, f)
    }
}

fn run<R>(
    mut tx: postgres::Transaction<'_>,
    shown: &str,
    f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError>,
) -> Result<R, StoreError> {
    let r = f(&mut PgSql { tx: &mut tx, shown: shown.to_string() })?;
    tx.commit()
        .map_err(|e| StoreError::Postgres { store: shown.to_string(), reason: pg_reason(&e) })?;
    Ok(r)
}

/// One PostgreSQL transaction as [`Sql`].
pub(crate) struct PgSql<'a, 'b> {
    pub tx: &'a mut postgres::Transaction<'b>,
    pub shown: String,
}

fn pg_params(params: &[Value]) -> Vec<Box<dyn ToSql + Sync>> {
    params
        .iter()
        .map(|v| -> Box<dyn ToSql + Sync> {
            match v {
                Value::Null => Box::new(None::<String>),
                Value::Int(n) => Box::new(*n),
                Value::Text(s) => Box::new(s.clone()),
                Value::Bytes(b) => Box::new(b.clone()),
            }
        })
        .collect()
}

fn pg_row(row: &postgres::Row) -> Result<Row, postgres::Error> {
    let mut values = Vec::with_capacity(row.len());
    for (i, column) in row.columns().iter().enumerate() {
        let ty = column.type_();
        let value = if *ty == Type::INT8 {
            row.try_get::<_, Option<i64>>(i)?.map(Value::Int)
        } else if *ty == Type::INT4 {
            row.try_get::<_, Option<i32>>(i)?.map(|n| Value::Int(n.into()))
        } else if *ty == Type::BOOL {
            row.try_get::<_, Option<bool>>(i)?.map(|b| Value::Int(b.into()))
        } else if *ty == Type::BYTEA {
            row.try_get::<_, Option<Vec<u8>>>(i)?.map(Value::Bytes)
        } else {
            row.try_get::<_, Option<String>>(i)?.map(Value::Text)
        };
        values.push(value.unwrap_or(Value::Null));
    }
    Ok(Row(values))
}

impl Sql for PgSql<'_, '_> {
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        let params = pg_params(params);
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p.as_ref()).collect();
        self.tx
            .execute(dollar_placeholders(sql).as_str(), &refs)
            .map_err(|e| StoreError::Postgres { store: self.shown.clone(), reason: pg_reason(&e) })
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let params = pg_params(params);
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p.as_ref()).collect();
        let failed = |e: postgres::Error| StoreError::Postgres {
            store: self.shown.clone(),
            reason: pg_reason(&e),
        };
        let rows = self.tx.query(dollar_placeholders(sql).as_str(), &refs).map_err(failed)?;
        rows.iter().map(|r| pg_row(r).map_err(failed)).collect()
    }
}
