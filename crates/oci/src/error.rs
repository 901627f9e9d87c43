//! [`OciError`]: why a reference cannot be pulled, published or trusted. Each message is
//! written here once.

/// Why an OCI add or publish stopped. Nothing is installed after any of these.
#[derive(Debug, thiserror::Error)]
pub enum OciError {
    #[error(
        "`{text}` is not an OCI reference ({why}): write oci://HOST[:PORT]/REPOSITORY:TAG or oci://HOST[:PORT]/REPOSITORY@sha256:DIGEST"
    )]
    Reference { text: String, why: String },
    #[error("{what}: registry {registry} answered: {message}{hint}")]
    Registry { what: &'static str, registry: String, message: String, hint: &'static str },
    #[error("{reference}: the registry has no such {what}")]
    NotFound { reference: String, what: &'static str },
    #[error("{what} from {registry} did not finish within {secs} s; stopped")]
    Timeout { what: &'static str, registry: String, secs: u64 },
    #[error("{what} is {size} bytes, over the limit of {limit} bytes (docs/limits.md)")]
    TooLarge { what: String, size: u64, limit: u64 },
    #[error(
        "{what} does not match its digest (expected {expected}, got {found}): tampered with or corrupted"
    )]
    DigestMismatch { what: String, expected: String, found: String },
    #[error(
        "{reference} is not a tool component artifact: {why} (expected config application/vnd.wasm.config.v0+json and one application/wasm layer)"
    )]
    NotAComponent { reference: String, why: String },
    #[error(
        "{reference} ({digest}) is not signed: there is no cosign signature under the tag {tag}, and a key is required for it ({keys})"
    )]
    Unsigned { reference: String, digest: String, tag: String, keys: String },
    #[error("{reference} ({digest}) has no valid signature by the key {key}: {why}")]
    BadSignature { reference: String, digest: String, key: String, why: String },
    #[error("key {path}: {why}")]
    Key { path: String, why: String },
    #[error("docker config {path}: {why}")]
    Credentials { path: String, why: String },
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
}

/// What a registry error adds when HTTPS could not be spoken: how plain HTTP is allowed.
pub const HTTPS_HINT: &str = " (toolhost speaks HTTPS to a registry; plain HTTP only to a loopback registry, or to another with --insecure-http)";
