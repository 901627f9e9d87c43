//! File contents stored once: a version is cut into content-defined chunks (FastCDC, so an
//! insertion moves only the chunks around it), each distinct chunk is kept once in `chunks`
//! under (half) its SHA-256, and the version in `contents` under the SHA-256 of the whole content,
//! as the list of its chunks' hashes. A one-line edit of a large file so adds about one
//! chunk and one list; undo and reapply read the whole content back, checked against its
//! hash.

use std::collections::HashMap;

use sha2::{Digest, Sha256};
use toolhost_limits::{STORE_CHUNK_AVG_BYTES, STORE_CHUNK_MAX_BYTES, STORE_CHUNK_MIN_BYTES};

use crate::StoreError;
use crate::sql::Sql;

/// The bytes of a chunk's key: the first half of its SHA-256. A whole content is checked
/// against its full SHA-256 when it is read back, so two chunks sharing a key could only
/// make a read fail, never return other bytes.
const HASH_BYTES: usize = 16;

/// The key of a content: the SHA-256 of it, in hex.
pub(crate) fn key_of(content: &str) -> String {
    hex::encode(Sha256::digest(content.as_bytes()))
}

/// Store `content` once; its key.
pub(crate) fn put(sql: &mut dyn Sql, content: &str) -> Result<String, StoreError> {
    let key = key_of(content);
    if !sql.query("SELECT 1 FROM contents WHERE hash = ?1", &[key.clone().into()])?.is_empty() {
        return Ok(key);
    }
    let bytes = content.as_bytes();
    let chunker = fastcdc::v2020::FastCDC::new(
        bytes,
        STORE_CHUNK_MIN_BYTES as usize,
        STORE_CHUNK_AVG_BYTES as usize,
        STORE_CHUNK_MAX_BYTES as usize,
    );
    let mut list = Vec::new();
    for chunk in chunker {
        let data = &bytes[chunk.offset..chunk.offset + chunk.length];
        let hash = Sha256::digest(data)[..HASH_BYTES].to_vec();
        sql.execute(
            "INSERT INTO chunks (hash, data) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            &[hash.clone().into(), data.to_vec().into()],
        )?;
        list.extend_from_slice(&hash);
    }
    sql.execute(
        "INSERT INTO contents (hash, chunks) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
        &[key.clone().into(), list.into()],
    )?;
    Ok(key)
}

/// The chunks already read by one listing, so versions sharing chunks read each once.
pub(crate) type ChunkCache = HashMap<Vec<u8>, Vec<u8>>;

/// The content stored under `key`, checked against it.
pub(crate) fn get(
    sql: &mut dyn Sql,
    key: &str,
    cache: &mut ChunkCache,
) -> Result<String, StoreError> {
    let rows = sql.query("SELECT chunks FROM contents WHERE hash = ?1", &[key.into()])?;
    let missing = || StoreError::Corrupt(format!("{key} (not stored)"));
    let list = rows.first().ok_or_else(missing)?.bytes(0)?;
    let mut bytes = Vec::new();
    for hash in list.chunks(HASH_BYTES) {
        if !cache.contains_key(hash) {
            let rows =
                sql.query("SELECT data FROM chunks WHERE hash = ?1", &[hash.to_vec().into()])?;
            let data = rows.first().ok_or_else(missing)?.bytes(0)?;
            cache.insert(hash.to_vec(), data);
        }
        bytes.extend_from_slice(&cache[hash]);
    }
    if hex::encode(Sha256::digest(&bytes)) != key {
        return Err(StoreError::Corrupt(key.into()));
    }
    String::from_utf8(bytes).map_err(|_| StoreError::Corrupt(key.into()))
}
