//! cosign's key-based signatures, in its tag scheme: the signature of manifest `sha256:<hex>`
//! is an OCI manifest under the tag `sha256-<hex>.sig` of the same repository, each layer a
//! simple-signing payload (`application/vnd.dev.cosign.simplesigning.v1+json`) with its
//! base64 signature in the `dev.cosignproject.cosign/signature` annotation.
//!
//! The cryptography is `sigstore`'s ([`PublicKey`] and [`SigningKey`] wrap its key types:
//! PEM public keys of any scheme it knows; cosign's encrypted private keys and PKCS#8 ECDSA
//! P-256 ones). A signature counts only when `sigstore` verifies it over the payload's exact
//! bytes by the key, and the payload, read as the simple-signing type below, names the
//! pinned digest and cosign's signature type. Nothing else of a payload is trusted.

use std::collections::BTreeMap;
use std::path::Path;

use base64::Engine;
use serde::{Deserialize, Serialize};
use sigstore::crypto::signing_key::SigStoreKeyPair;
use sigstore::crypto::{CosignVerificationKey, SigStoreSigner, Signature, SigningScheme};

use crate::error::OciError;

/// The media type of a simple-signing payload layer.
pub const SIMPLE_SIGNING_MEDIA_TYPE: &str = "application/vnd.dev.cosign.simplesigning.v1+json";
/// The annotation that carries a layer's base64 signature.
pub const SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";
/// The `critical.type` of a cosign signature payload.
pub const COSIGN_SIGNATURE_TYPE: &str = "cosign container image signature";
/// The environment variable an encrypted private key's password is read from (as cosign).
pub const PASSWORD_ENV: &str = "COSIGN_PASSWORD";

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
    key: CosignVerificationKey,
}

impl PublicKey {
    /// Read the PEM public key at `path`.
    pub fn load(path: &Path) -> Result<Self, OciError> {
        let shown = path.display().to_string();
        let bad = |why: String| OciError::Key { path: shown.clone(), why };
        let pem = std::fs::read(path).map_err(|e| bad(format!("cannot read it ({e})")))?;
        let key = CosignVerificationKey::try_from_pem(&pem)
            .map_err(|e| bad(format!("not a PEM public key sigstore accepts ({e})")))?;
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
        self.key
            .verify_signature(Signature::Base64Encoded(signature_b64.as_bytes()), payload_bytes)
            .map_err(|_| "a signature is there but not by this key".to_string())?;
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
    signer: SigStoreSigner,
}

impl SigningKey {
    /// Read the private key at `path`, with `password` for an encrypted one.
    pub fn load(path: &Path, password: Option<&[u8]>) -> Result<Self, OciError> {
        let shown = path.display().to_string();
        let bad = |why: String| OciError::Key { path: shown.clone(), why };
        let pem = std::fs::read(path).map_err(|e| bad(format!("cannot read it ({e})")))?;
        let first = pem.split(|b| *b == b'\n').next().unwrap_or_default();
        let encrypted = first.windows(9).any(|w| w == b"ENCRYPTED");
        let pair = if encrypted {
            let password = password.ok_or_else(|| {
                bad(format!("it is encrypted: set {PASSWORD_ENV} to its password"))
            })?;
            SigStoreKeyPair::from_encrypted_pem(&pem, password)
                .map_err(|e| bad(format!("cannot decrypt it ({e})")))?
        } else {
            SigStoreKeyPair::from_pem(&pem)
                .map_err(|e| bad(format!("not a PKCS#8 PEM private key ({e})")))?
        };
        let signer = pair
            .to_sigstore_signer(&SigningScheme::ECDSA_P256_SHA256_ASN1)
            .map_err(|e| bad(format!("only ECDSA P-256 keys sign ({e})")))?;
        Ok(SigningKey { signer })
    }

    /// The base64 signature of `bytes`.
    pub fn sign(&self, bytes: &[u8]) -> Result<String, OciError> {
        let raw = self
            .signer
            .sign(bytes)
            .map_err(|e| OciError::Key { path: "(signing key)".into(), why: e.to_string() })?;
        Ok(base64::engine::general_purpose::STANDARD.encode(raw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(dir: &Path) -> (SigningKey, PublicKey) {
        let signer = SigningScheme::ECDSA_P256_SHA256_ASN1.create_signer().unwrap();
        let pair = signer.to_sigstore_keypair().unwrap();
        std::fs::write(
            dir.join("k.key"),
            pair.private_key_to_encrypted_pem(b"pw").unwrap().as_bytes(),
        )
        .unwrap();
        std::fs::write(dir.join("k.pub"), pair.public_key_to_pem().unwrap()).unwrap();
        (
            SigningKey::load(&dir.join("k.key"), Some(b"pw")).unwrap(),
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
        assert!(SigningKey::load(&dir.path().join("k.key"), None).is_err());
        assert!(SigningKey::load(&dir.path().join("k.key"), Some(b"wrong")).is_err());
        assert_eq!(signature_tag(&d), format!("sha256-{}.sig", "a".repeat(64)));
    }
}
