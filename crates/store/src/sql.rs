//! The little SQL both engines share: [`Value`]s in and out, [`Sql`] (one transaction's
//! statements), so that what the store records is written once ([`crate::store`],
//! [`crate::contents`]) and each engine only carries statements to its database.
//!
//! Statements use `?1`, `?2`, … placeholders, each first used in order; the PostgreSQL
//! engine turns them into `$1`, `$2`, …. Integers are 64-bit on both engines (`BIGINT` on
//! PostgreSQL), booleans are integers 0 and 1, `NULL` parameters are text only.

use crate::StoreError;

/// One parameter or column value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(s)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Int(i64::from(b))
    }
}

impl From<Vec<u8>> for Value {
    fn from(b: Vec<u8>) -> Value {
        Value::Bytes(b)
    }
}

impl From<Option<String>> for Value {
    fn from(s: Option<String>) -> Value {
        s.map_or(Value::Null, Value::Text)
    }
}

/// One result row.
#[derive(Debug, Clone)]
pub(crate) struct Row(pub Vec<Value>);

impl Row {
    fn get(&self, i: usize) -> Result<&Value, StoreError> {
        self.0.get(i).ok_or_else(|| StoreError::Corrupt(format!("a row has no column {i}")))
    }

    /// Column `i` as text (NULL: none).
    pub fn opt_text(&self, i: usize) -> Result<Option<String>, StoreError> {
        match self.get(i)? {
            Value::Null => Ok(None),
            Value::Text(s) => Ok(Some(s.clone())),
            other => Err(StoreError::Corrupt(format!("column {i} is not text: {other:?}"))),
        }
    }

    /// Column `i` as text.
    pub fn text(&self, i: usize) -> Result<String, StoreError> {
        self.opt_text(i)?.ok_or_else(|| StoreError::Corrupt(format!("column {i} is NULL")))
    }

    /// Column `i` as an integer.
    pub fn int(&self, i: usize) -> Result<i64, StoreError> {
        match self.get(i)? {
            Value::Int(n) => Ok(*n),
            other => Err(StoreError::Corrupt(format!("column {i} is not an integer: {other:?}"))),
        }
    }

    /// Column `i` as bytes.
    pub fn bytes(&self, i: usize) -> Result<Vec<u8>, StoreError> {
        match self.get(i)? {
            Value::Bytes(b) => Ok(b.clone()),
            other => Err(StoreError::Corrupt(format!("column {i} is not bytes: {other:?}"))),
        }
    }
}

/// The statements of one transaction.
pub(crate) trait Sql {
    /// Run a statement; how many rows it changed.
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, StoreError>;
    /// Run a query; its rows.
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError>;
}

/// `?N` placeholders as PostgreSQL's `$N`.
pub(crate) fn dollar_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn placeholders_become_dollars() {
        assert_eq!(
            super::dollar_placeholders("SELECT a FROM t WHERE b = ?1 AND c = ?12 AND d = '?'"),
            "SELECT a FROM t WHERE b = $1 AND c = $12 AND d = '?'"
        );
    }
}
