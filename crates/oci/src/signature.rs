//! cosign's key-based signatures, in its tag scheme: the signature of manifest `sha256:<hex>`
//! is an OCI manifest under the tag `sha256-<hex>.sig` of the same repository, each layer a
//! simple-signing payload (`application/vnd.dev.cosign.simplesigning.v1+json`) with its
//! base64 signature in the `dev.cosignproject.cosign/signature` annotation.
//!
//! The cryptography is `ring`'s; [`PublicKey`] and [`SigningKey`] wrap the keys
//! [`crate::keys`] reads from cosign's files (PEM public keys: ECDSA P-256 and P-384, RSA,
//! Ed25519; cosign's encrypted private keys and PKCS#8 ECDSA P-256 ones). A signature counts
//! only when `ring` verifies it over the payload's exact bytes by the key, and the payload, read as the simple-signing type below, names the
//! pinned digest and cosign's signature type. Nothing else of a payload is trusted.

use std::collections::BTreeMap;
use std::path::Path;

use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::EcdsaKeyPair;
use serde::{Deserialize, Serialize};

use crate::error::OciError;
use crate::keys::{self, VerifyingKey};

/// The media type of a simple-signing payload layer.
pub const SIMPLE_SIGNING_MEDIA_TYPE: &str = "application/vnd.dev.cosign.simplesigning.v1+json";
/// The annotation that carries a layer's base64 signature.
pub const SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";
/// The `critical.type` of a cosign signature payload.
pub const COSIGN_SIGNATURE_TYPE: &str = "cosign container image signature";

/// The tag cosign stores the signatures of `digest` under: `sha256-<hex>.sig`.
pub fn signature_tag(digest: &str) -> String {
    format!("{}.sig", digest.replacen(':', "-", 1))
}

/// The simple-signing payload (containers/image's format, as cosign writes it).
#[derive(Debug, Serialize, Deserialize)]
pub struct SimpleSigning {
    /// What the signature binds.
    pub critical: Critical,
    /// Free-form claims; not trusted.
    #[serde(default)]
    pub optional: Option<BTreeMap<String, serde_json::Value>>,
}

/// The bound part of a payload.
#[derive(Debug, Serialize, Deserialize)]
pub struct Critical {
    /// The repository it was signed for (informational: a copy may live elsewhere).
    pub identity: Identity,
    /// The signed manifest.
    pub image: Image,
    /// Always [`COSIGN_SIGNATURE_TYPE`].
    #[serde(rename = "type")]
    pub kind: String,
}

/// `critical.identity`.
#[derive(Debug, Serialize, Deserialize)]
pub struct Identity {
    /// `HOST[:PORT]/REPOSITORY`.
    #[serde(rename = "docker-reference")]
    pub docker_reference: String,
}

/// `critical.image`.
#[derive(Debug, Serialize, Deserialize)]
pub struct Image {
    /// `sha256:<hex>` of the signed manifest.
    #[serde(rename = "docker-manifest-digest")]
    pub docker_manifest_digest: String,
}

/// The payload that signs `digest` for `repository` (`HOST[:PORT]/REPOSITORY`).
pub fn payload(repository: &str, digest: &str) -> Vec<u8> {
    serde_json::to_vec(&SimpleSigning {
        critical: Critical {
            identity: Identity { docker_reference: repository.into() },
            image: Image { docker_manifest_digest: digest.into() },
            kind: COSIGN_SIGNATURE_TYPE.into(),
        },
        optional: None,
    })
    .expect("a payload serializes")
}

/// A public key signatures are verified with (a PEM `PUBLIC KEY`, as `cosign.pub`).
pub struct PublicKey {
    /// Where it was read from (how errors name it).
    pub path: String,
    key: VerifyingKey,
}

impl PublicKey {
    /// Read the PEM public key at `path`.
    pub fn load(path: &Path) -> Result<Self, OciError> {
        let shown = path.display().to_string();
        let bad = |why: String| OciError::Key { path: shown.clone(), why };
        let pem = std::fs::read(path).map_err(|e| bad(format!("cannot read it ({e})")))?;
        let key = VerifyingKey::from_pem(&pem)
            .map_err(|why| bad(format!("not a PEM public key that can verify: {why}")))?;
        Ok(PublicKey { path: shown, key })
    }

    /// Whether `signature_b64` is this key's over `payload_bytes` and the payload signs
    /// `digest`; the reason when not.
    pub fn verify(
        &self,
        payload_bytes: &[u8],
        signature_b64: &str,
        digest: &str,
    ) -> Result<(), String> {
        let signature = base64::engine::general_purpose::STANDARD.decode(signature_b64);
        if !signature.is_ok_and(|signature| self.key.verifies(payload_bytes, &signature)) {
            return Err("a signature is there but not by this key".to_string());
        }
        let signed: SimpleSigning = serde_json::from_slice(payload_bytes)
            .map_err(|e| format!("its signed payload is not a simple-signing payload ({e})"))?;
        if signed.critical.kind != COSIGN_SIGNATURE_TYPE {
            return Err(format!("its signed payload is of type {:?}", signed.critical.kind));
        }
        if signed.critical.image.docker_manifest_digest != digest {
            return Err(format!(
                "the signature is of another manifest, {}",
                signed.critical.image.docker_manifest_digest
            ));
        }
        Ok(())
    }
}

/// A private key that signs on `tool publish --key`: cosign's encrypted format (password in
/// `COSIGN_PASSWORD`) or an unencrypted PKCS#8 PEM, ECDSA P-256 (cosign's default).
pub struct SigningKey {
    key: EcdsaKeyPair,
}

impl SigningKey {
    /// Read the private key at `path`, with `password` for an encrypted one.
    pub fn load(path: &Path, password: Option<&[u8]>) -> Result<Self, OciError> {
        let shown = path.display().to_string();
        let bad = |why: String| OciError::Key { path: shown.clone(), why };
        let pem = std::fs::read(path).map_err(|e| bad(format!("cannot read it ({e})")))?;
        Ok(SigningKey { key: keys::signing_key(&pem, password).map_err(bad)? })
    }

    /// The base64 signature of `bytes`.
    pub fn sign(&self, bytes: &[u8]) -> Result<String, OciError> {
        let raw = self.key.sign(&SystemRandom::new(), bytes).map_err(|_| OciError::Key {
            path: "(signing key)".into(),
            why: "the system's random source failed".into(),
        })?;
        Ok(base64::engine::general_purpose::STANDARD.encode(raw.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new P-256 key pair in `dir`, made by `ring`: the PKCS#8 key and its public key, as
    /// PEM files.
    fn keys(dir: &Path) -> (SigningKey, PublicKey) {
        let pem = |label: &str, der: &[u8]| {
            let body = base64::engine::general_purpose::STANDARD.encode(der);
            format!("-----BEGIN {label}-----\n{body}\n-----END {label}-----\n")
        };
        let alg = &ring::signature::ECDSA_P256_SHA256_ASN1_SIGNING;
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(alg, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).unwrap();
        // SubjectPublicKeyInfo of id-ecPublicKey on prime256v1, then the 65-byte point.
        let spki_head = b"\x30\x59\x30\x13\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\x03\x42\x00";
        use ring::signature::KeyPair;
        let spki = [&spki_head[..], pair.public_key().as_ref()].concat();
        std::fs::write(dir.join("k.key"), pem("PRIVATE KEY", pkcs8.as_ref())).unwrap();
        std::fs::write(dir.join("k.pub"), pem("PUBLIC KEY", &spki)).unwrap();
        (
            SigningKey::load(&dir.join("k.key"), None).unwrap(),
            PublicKey::load(&dir.join("k.pub")).unwrap(),
        )
    }

    #[test]
    fn a_signature_verifies_only_for_its_key_and_digest() {
        let dir = tempfile::tempdir().unwrap();
        let (key, public) = keys(dir.path());
        let d = format!("sha256:{}", "a".repeat(64));
        let p = payload("127.0.0.1:5000/t", &d);
        let sig = key.sign(&p).unwrap();
        public.verify(&p, &sig, &d).unwrap();
        let other = format!("sha256:{}", "b".repeat(64));
        assert!(public.verify(&p, &sig, &other).unwrap_err().contains("another manifest"));
        let other_dir = tempfile::tempdir().unwrap();
        let (_, stranger) = keys(other_dir.path());
        assert!(stranger.verify(&p, &sig, &d).unwrap_err().contains("not by this key"));
        assert!(public.verify(&p, "not base64!", &d).unwrap_err().contains("not by this key"));
        assert!(SigningKey::load(&dir.path().join("k.pub"), None).is_err());
        assert_eq!(signature_tag(&d), format!("sha256-{}.sig", "a".repeat(64)));
    }
}
