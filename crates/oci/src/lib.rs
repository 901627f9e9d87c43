//! Tool components in OCI registries: `toolhost tool add oci://…` and `toolhost tool publish`.
//!
//! Flow of an add ([`pull::pull`]): the [`reference::OciReference`] is resolved **once** to a
//! manifest digest (a tag's digest is asked for once; a digest reference is taken as given);
//! that digest is pulled, its bytes hashed and compared, its layout checked
//! ([`artifact`]: config `application/vnd.wasm.config.v0+json`, one `application/wasm`
//! layer); when keys are required, a cosign signature of that digest by each key is verified
//! ([`signature`]) before any blob is downloaded; then the config and the component are
//! downloaded, each bounded by its declared size and the limits, and checked against its
//! digest; the component lands in a temp file the caller installs as it installs a file.
//!
//! Flow of a publish ([`push::publish`]): config, component and manifest are pushed under the
//! tag; with a signing key, cosign's simple-signing payload naming the manifest digest is
//! signed and pushed under the `sha256-<hex>.sig` tag (cosign's tag scheme).
//!
//! * [`reference`] — `oci://HOST[:PORT]/REPOSITORY(:TAG|@sha256:HEX)`.
//! * [`transport`] — the client: HTTPS (rustls with `ring`, the provider installed before the
//!   first client), plain HTTP only for loopback or `--insecure-http`, time bounds.
//! * [`credentials`] — the docker config's `auths` (never logged).
//! * [`artifact`] — the wasm artifact layout, built and checked.
//! * [`blob`] — one blob downloaded bounded and digest-checked.
//! * [`signature`] — the simple-signing payload, signing and verifying.
//! * [`keys`] — cosign's key files read into `ring`'s keys ([`der`]: the PEM and DER of them).
//! * [`pull`] / [`push`] — the two flows above.
//! * [`error`] — [`OciError`]: every refusal, with its message.

pub mod artifact;
pub mod blob;
pub mod credentials;
pub mod der;
pub mod error;
pub mod keys;
pub mod pull;
pub mod push;
pub mod reference;
pub mod signature;
pub mod transport;

pub use error::OciError;
pub use pull::{PullOptions, Pulled, pull};
pub use push::{Published, publish};
pub use reference::OciReference;
pub use signature::{PublicKey, SigningKey};
pub use transport::Transport;

/// `sha256:<hex>` of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
}

/// Whether `digest` is `sha256:` and 64 lowercase hex digits (the only digests accepted).
pub fn is_sha256_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}
