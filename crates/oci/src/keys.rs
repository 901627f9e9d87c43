//! cosign's key files, read into `ring`'s keys: the cryptography is `ring`'s, only the file
//! formats are read here.
//!
//! * [`VerifyingKey`] — a PEM `PUBLIC KEY` (SubjectPublicKeyInfo): ECDSA P-256 with SHA-256,
//!   ECDSA P-384 with SHA-384, RSA (PKCS#1 v1.5, SHA-256, 2048 to 8192 bits) or Ed25519 —
//!   what cosign verifies with, but P-521, which `ring` does not implement.
//! * [`signing_key`] — cosign's encrypted private key (`ENCRYPTED COSIGN PRIVATE KEY` or
//!   `ENCRYPTED SIGSTORE PRIVATE KEY`: JSON naming scrypt and NaCl secretbox around a PKCS#8
//!   key, as `cosign generate-key-pair` writes it; only cosign's scrypt parameters are
//!   accepted, so a key file cannot ask for unbounded work) or an unencrypted PKCS#8
//!   `PRIVATE KEY`; ECDSA P-256 only, cosign's default.

use base64::Engine;
use crypto_secretbox::aead::{Aead, KeyInit};
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, UnparsedPublicKey, VerificationAlgorithm};
use serde::Deserialize;
use zeroize::Zeroizing;

use crate::der::{self, BIT_STRING, INTEGER, OCTET_STRING, OID, SEQUENCE};

/// The environment variable an encrypted private key's password is read from (as cosign).
pub const PASSWORD_ENV: &str = "COSIGN_PASSWORD";

const ID_EC_PUBLIC_KEY: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const SECP256R1: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const SECP384R1: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
const SECP521R1: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x23];
const RSA_ENCRYPTION: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const ED25519: &[u8] = &[0x2b, 0x65, 0x70];
/// The DER of ASN.1 NULL, RSA's algorithm parameters.
const NULL: &[u8] = &[0x05, 0x00];

/// The PEM labels of cosign's encrypted private keys.
const ENCRYPTED_LABELS: [&str; 2] =
    ["ENCRYPTED COSIGN PRIVATE KEY", "ENCRYPTED SIGSTORE PRIVATE KEY"];
/// cosign's scrypt work factors (N); r and p are fixed.
const SCRYPT_N: [u32; 2] = [32_768, 65_536];
const SCRYPT_R: u32 = 8;
const SCRYPT_P: u32 = 1;

/// A public key signatures are checked with.
pub struct VerifyingKey {
    algorithm: &'static dyn VerificationAlgorithm,
    key: Vec<u8>,
}

impl VerifyingKey {
    /// The key in a PEM `PUBLIC KEY` file's text; why not when it is not one.
    pub fn from_pem(text: &[u8]) -> Result<Self, String> {
        match der::pem_block(text) {
            Some((label, spki)) if label == "PUBLIC KEY" => Self::from_spki(&spki),
            Some((label, _)) => Err(format!("its PEM label is {label:?}, not \"PUBLIC KEY\"")),
            None => Err("no PEM block in it".into()),
        }
    }

    /// The key in a DER SubjectPublicKeyInfo.
    fn from_spki(spki: &[u8]) -> Result<Self, String> {
        let malformed = || "not a DER SubjectPublicKeyInfo".to_string();
        let body = der::only(spki, SEQUENCE).ok_or_else(malformed)?;
        let (algorithm, rest) = der::next(body, SEQUENCE).ok_or_else(malformed)?;
        let bits = der::only(rest, BIT_STRING).ok_or_else(malformed)?;
        let Some((0, key)) = bits.split_first() else { return Err(malformed()) };
        let (oid, parameters) = der::next(algorithm, OID).ok_or_else(malformed)?;
        let algorithm: &'static dyn VerificationAlgorithm = match oid {
            ID_EC_PUBLIC_KEY => {
                match der::only(parameters, OID) {
                    Some(SECP256R1) => &signature::ECDSA_P256_SHA256_ASN1,
                    Some(SECP384R1) => &signature::ECDSA_P384_SHA384_ASN1,
                    Some(SECP521R1) => {
                        return Err("ECDSA P-521 keys are not supported (P-256, P-384, RSA and Ed25519 are)".into());
                    }
                    _ => return Err("an EC key on a curve that is not P-256 or P-384".into()),
                }
            }
            RSA_ENCRYPTION if parameters.is_empty() || parameters == NULL => {
                &signature::RSA_PKCS1_2048_8192_SHA256
            }
            ED25519 if parameters.is_empty() => &signature::ED25519,
            _ => return Err("a key of an algorithm that is not ECDSA, RSA or Ed25519".into()),
        };
        Ok(VerifyingKey { algorithm, key: key.to_vec() })
    }

    /// Whether `signature` is this key's over exactly `message`.
    pub fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        UnparsedPublicKey::new(self.algorithm, &self.key).verify(message, signature).is_ok()
    }
}

/// The ECDSA P-256 key in a private key file's text, decrypted with `password` when it is
/// cosign's encrypted format; why not when it cannot be.
pub fn signing_key(text: &[u8], password: Option<&[u8]>) -> Result<EcdsaKeyPair, String> {
    let Some((label, bytes)) = der::pem_block(text) else {
        return Err("not a PEM private key (no PEM block in it)".into());
    };
    let bytes = Zeroizing::new(bytes);
    let pkcs8 = if ENCRYPTED_LABELS.contains(&label.as_str()) {
        let password = password
            .ok_or_else(|| format!("it is encrypted: set {} to its password", PASSWORD_ENV))?;
        decrypt(&bytes, password).map_err(|why| format!("cannot decrypt it ({why})"))?
    } else if label == "PRIVATE KEY" {
        bytes
    } else {
        return Err(format!("not a PKCS#8 PEM private key (its PEM label is {label:?})"));
    };
    if !is_p256_pkcs8(&pkcs8) {
        return Err("only ECDSA P-256 keys sign (this one is another kind)".into());
    }
    EcdsaKeyPair::from_pkcs8(
        &signature::ECDSA_P256_SHA256_ASN1_SIGNING,
        &pkcs8,
        &SystemRandom::new(),
    )
    .map_err(|e| format!("not a PKCS#8 ECDSA P-256 key with its public key ({e})"))
}

/// Whether the PKCS#8 `PrivateKeyInfo` is of an EC key on P-256.
fn is_p256_pkcs8(pkcs8: &[u8]) -> bool {
    let algorithm = der::only(pkcs8, SEQUENCE)
        .and_then(|body| der::next(body, INTEGER))
        .and_then(|(_, rest)| der::next(rest, SEQUENCE))
        .filter(|(_, rest)| der::next(rest, OCTET_STRING).is_some())
        .map(|(algorithm, _)| algorithm);
    let Some((oid, parameters)) = algorithm.and_then(|a| der::next(a, OID)) else {
        return false;
    };
    oid == ID_EC_PUBLIC_KEY && der::only(parameters, OID) == Some(SECP256R1)
}

/// cosign's encrypted key: scrypt derives a NaCl secretbox key from the password.
#[derive(Deserialize)]
struct Sealed {
    kdf: Kdf,
    cipher: Cipher,
    ciphertext: String,
}

#[derive(Deserialize)]
struct Kdf {
    name: String,
    params: ScryptParams,
    salt: String,
}

#[derive(Deserialize)]
struct ScryptParams {
    #[serde(rename = "N")]
    n: u32,
    r: u32,
    p: u32,
}

#[derive(Deserialize)]
struct Cipher {
    name: String,
    nonce: String,
}

/// The PKCS#8 key sealed in `sealed` (cosign's JSON) by `password`.
fn decrypt(sealed: &[u8], password: &[u8]) -> Result<Zeroizing<Vec<u8>>, String> {
    let sealed: Sealed =
        serde_json::from_slice(sealed).map_err(|e| format!("not cosign's key format: {e}"))?;
    if sealed.kdf.name != "scrypt" || sealed.cipher.name != "nacl/secretbox" {
        return Err(format!(
            "it names {} and {}, not scrypt and nacl/secretbox",
            sealed.kdf.name, sealed.cipher.name
        ));
    }
    let ScryptParams { n, r, p } = sealed.kdf.params;
    if !SCRYPT_N.contains(&n) || r != SCRYPT_R || p != SCRYPT_P {
        return Err(format!("scrypt N={n} r={r} p={p} are not cosign's parameters"));
    }
    let b64 = |what: &str, text: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| format!("its {what} is not base64 ({e})"))
    };
    let salt = b64("salt", &sealed.kdf.salt)?;
    let nonce = b64("nonce", &sealed.cipher.nonce)?;
    let ciphertext = b64("ciphertext", &sealed.ciphertext)?;
    let nonce = <[u8; 24]>::try_from(nonce.as_slice())
        .map_err(|_| format!("its nonce is {} bytes, not 24", nonce.len()))?;
    let params = scrypt::Params::new(n.trailing_zeros() as u8, r, p)
        .map_err(|e| format!("scrypt parameters: {e}"))?;
    let mut key = Zeroizing::new([0u8; 32]);
    scrypt::scrypt(password, &salt, &params, key.as_mut()).map_err(|e| format!("scrypt: {e}"))?;
    let cipher = crypto_secretbox::XSalsa20Poly1305::new(&(*key).into());
    cipher
        .decrypt(&nonce.into(), ciphertext.as_slice())
        .map(Zeroizing::new)
        .map_err(|_| "wrong password, or the file was altered".to_string())
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
