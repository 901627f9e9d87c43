//! Tests of `keys`: keys and signatures made by OpenSSL 3 (`openssl genpkey`, `openssl dgst
//! -sign`, `openssl pkeyutl -sign -rawin`) over [`MESSAGE`] verify, and nothing else does;
//! cosign's encrypted format round-trips through an encryption written here from its
//! description; malformed files are refused with a reason, never a panic.

use super::*;

/// What the OpenSSL signatures below sign.
const MESSAGE: &[u8] = b"payload bytes";

const RSA_PUB: &str = "-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAzRNOC9/kkhPOQR8XRJLh
QH0zET1dMFbTN5jqDMe1fMQZEjgNdUDMaTC9Bixwwx9qTeya4oJhwglwZsu5bmmZ
sJHJCeB5BcqGKjv9kuUZiP8VfbCGfFxFzSW31M/n9I8BofWSpFnEOk7061AFzk+W
ifND7NJH1x3MkqzzNNokwxDdyz/vPWSKIqsazpDp3heEDHzH+nOzJyuc0Wku83zG
utkXcAfPceVIovdciwwhT0+3NHVSWDNYt8m6KmgH0cEBJQjp480UAFukpc1R3xcP
W2SM+qIwwDN3ywG3pHQJ0ltozHBYe/i2yMm6NbQKPSZAfqDUGGeaHnMtPk+5wKgw
SwIDAQAB
-----END PUBLIC KEY-----
";
const RSA_SIG: &str = "Qfp6rPeniwRhtUDaPeOLh6EXTZHLeuXvP6vmQrX3qid0LoH9AI/e9+UUzWLyq9mEAPlQ4OkQXkikjO06nZ5x9zevDR79NagibOF7H/um0NhJ/x9pGhlPdqPaWSKADSj6Nv28h38ifsU1qr7ROQxfWpVja8xy0yyz6CNp8BbVmjI0ssER6VoV+M3qmzId7/MUNbHgSqQO14+EKVJe+VLIiNM2aOLBAv9PdakKcMib9AklOhCJUgbXIy6cpW2dAbx+0ZRNH4oNgOMBJulXF+FIfABrJnTX/UXjYIbKG1ec3HZRuteSkfxNoVHzdN/SJhS9O9E1NdwYBvw9nef3tKYIPg==";
const P384_PUB: &str = "-----BEGIN PUBLIC KEY-----
MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAETV3QnLgqltraNf2KR0tngdK/hvObcOMc
WQGgssM3wPc2c76uERxwrYe8V5/3Y2eo4zKdnGDkRD5Hq9N/0UfSbqyn3VRfjq4N
r65up/q8XEec2U6cA3FFHyy+IzzFjiDC
-----END PUBLIC KEY-----
";
const P384_SIG: &str = "MGYCMQDXq6lh1R9zqBLamItzLR1CpF+0fwIUIVspmOCXw4guLEWTRrCbuNKRm/DBO8wXLtECMQD1b+sdNmoXUpYLWGpcooIRuRtRCtHFrxhaQ3GqjebuuAELyaxjAupEdzFYkGao8d0=";
const ED_PUB: &str = "-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAjQAnWKUUfO2m1NFYKlwHc/2/dvqpI0tefBDukCa+5sc=
-----END PUBLIC KEY-----
";
const ED_SIG: &str =
    "PCKJwK4dMlegHaaJPXYVT0yHK/EO4g6qqLH44UktktEnnwk3HTETBkWlK6lFM7QFb+IgWXuMXuqvubWspUPQAA==";
const P256_PUB: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEhgBU1a5w8GluoBlJtmTaGysyYReu
VVA6pUvye3fPEsvlfPRvEbcEVvJMlBioKEbhRcukH+2F5KZ7iy56bBIJ+g==
-----END PUBLIC KEY-----
";
const P256_SIG: &str = "MEUCIF+Vqhmgo8J0KdYDPriB2umTvs/KO3xdAL6MoHf1UtiXAiEAqSAqdGtlLHyc2B+6QgM9SYRK+0vkN8axDaGWJgBaJuE=";
const P521_PUB: &str = "-----BEGIN PUBLIC KEY-----
MIGbMBAGByqGSM49AgEGBSuBBAAjA4GGAAQBxxDsl68HDaCcwKIpWcs1vFCMwATP
OBzW2VNvHmW9phLQKBhd+Ci9SJU5D4zoq3mehUFlOZH5ZQtrmjf0yywfw/MAPo/m
RmswfU/aLNQy7yn0w13SbXSlSACmC3rObtW/z8sxiOrZ/YvaqHggC+MMBhR1c3XL
eTuIVZ1sUghLYNSwlNA=
-----END PUBLIC KEY-----
";
const P256_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgPqpvIGEavQ4G4yNE
F5KhAUKiqG3yv1BFkiignYLbLtahRANCAASGAFTVrnDwaW6gGUm2ZNobKzJhF65V
UDqlS/J7d88Sy+V89G8RtwRW8kyUGKgoRuFFy6Qf7YXkpnuLLnpsEgn6
-----END PRIVATE KEY-----
";

fn b64(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}

#[test]
fn openssl_signatures_verify_by_their_key_only() {
    let cases = [(P256_PUB, P256_SIG), (P384_PUB, P384_SIG), (RSA_PUB, RSA_SIG), (ED_PUB, ED_SIG)];
    for (i, (public, sig)) in cases.iter().enumerate() {
        let key = VerifyingKey::from_pem(public.as_bytes()).unwrap();
        assert!(key.verifies(MESSAGE, &b64(sig)), "case {i}");
        assert!(!key.verifies(b"payload bytez", &b64(sig)), "case {i}: another message");
        for (j, (_, other)) in cases.iter().enumerate() {
            if i != j {
                assert!(!key.verifies(MESSAGE, &b64(other)), "case {i}: signature {j}");
            }
        }
        assert!(!key.verifies(MESSAGE, b""), "case {i}: empty signature");
    }
}

#[test]
fn unsupported_and_malformed_public_keys_are_refused_with_a_reason() {
    let p521 = VerifyingKey::from_pem(P521_PUB.as_bytes()).err().unwrap();
    assert!(p521.contains("P-521"), "{p521}");
    let private = VerifyingKey::from_pem(P256_KEY.as_bytes()).err().unwrap();
    assert!(private.contains("PRIVATE KEY"), "{private}");
    assert!(VerifyingKey::from_pem(b"not a key").is_err());
    // Every truncation of a real SubjectPublicKeyInfo, and one with a byte appended.
    let (_, spki) = der::pem_block(P256_PUB.as_bytes()).unwrap();
    for len in 0..spki.len() {
        assert!(VerifyingKey::from_spki(&spki[..len]).is_err(), "truncated to {len}");
    }
    assert!(VerifyingKey::from_spki(&[spki.as_slice(), &[0]].concat()).is_err());
}

#[test]
fn an_openssl_pkcs8_p256_key_signs_what_its_public_key_verifies() {
    let key = signing_key(P256_KEY.as_bytes(), None).unwrap();
    let sig = key.sign(&SystemRandom::new(), MESSAGE).unwrap();
    assert!(VerifyingKey::from_pem(P256_PUB.as_bytes()).unwrap().verifies(MESSAGE, sig.as_ref()));
    // A password given for an unencrypted key is not needed, and not an error (as before).
    assert!(signing_key(P256_KEY.as_bytes(), Some(b"pw")).is_ok());
}

/// `pkcs8` sealed by `password` as cosign writes it (PEM, JSON, scrypt, secretbox).
fn seal(pkcs8: &[u8], password: &[u8], n: u32) -> String {
    let salt = [7u8; 32];
    let nonce = [9u8; 24];
    let params = scrypt::Params::new(n.trailing_zeros() as u8, 8, 1).unwrap();
    let mut key = [0u8; 32];
    scrypt::scrypt(password, &salt, &params, &mut key).unwrap();
    let sealed =
        crypto_secretbox::XSalsa20Poly1305::new(&key.into()).encrypt(&nonce.into(), pkcs8).unwrap();
    let e = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let json = serde_json::json!({
        "kdf": {"name": "scrypt", "params": {"N": n, "r": 8, "p": 1}, "salt": e(&salt)},
        "cipher": {"name": "nacl/secretbox", "nonce": e(&nonce)},
        "ciphertext": e(&sealed),
    });
    let body = e(json.to_string().as_bytes());
    format!(
        "-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\n{body}\n-----END ENCRYPTED SIGSTORE PRIVATE KEY-----\n"
    )
}

#[test]
fn an_encrypted_key_opens_only_with_its_password_and_cosign_parameters() {
    let (_, pkcs8) = der::pem_block(P256_KEY.as_bytes()).unwrap();
    let pem = seal(&pkcs8, b"pw", 32_768);
    let key = signing_key(pem.as_bytes(), Some(b"pw")).unwrap();
    let sig = key.sign(&SystemRandom::new(), MESSAGE).unwrap();
    assert!(VerifyingKey::from_pem(P256_PUB.as_bytes()).unwrap().verifies(MESSAGE, sig.as_ref()));
    let wrong = signing_key(pem.as_bytes(), Some(b"pW")).err().unwrap();
    assert!(wrong.contains("wrong password"), "{wrong}");
    let none = signing_key(pem.as_bytes(), None).err().unwrap();
    assert!(none.contains("COSIGN_PASSWORD"), "{none}");
    // A work factor other than cosign's is refused before any scrypt is run.
    let costly = signing_key(seal(&pkcs8, b"pw", 1 << 4).as_bytes(), Some(b"pw")).err().unwrap();
    assert!(costly.contains("not cosign's parameters"), "{costly}");
    let cosign = pem.replace("SIGSTORE", "COSIGN");
    assert!(signing_key(cosign.as_bytes(), Some(b"pw")).is_ok());
}

#[test]
fn only_p256_private_keys_sign() {
    let ed = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIE8U1jvMk6i+oH2kyfoSjNbqbxW/ogRU1y3ArLj7prxo\n-----END PRIVATE KEY-----\n";
    let why = signing_key(ed.as_bytes(), None).err().unwrap();
    assert!(why.contains("only ECDSA P-256"), "{why}");
    let why = signing_key(P256_PUB.as_bytes(), None).err().unwrap();
    assert!(why.contains("PUBLIC KEY"), "{why}");
    let (_, pkcs8) = der::pem_block(P256_KEY.as_bytes()).unwrap();
    assert!(is_p256_pkcs8(&pkcs8));
    for len in 0..pkcs8.len() {
        assert!(!is_p256_pkcs8(&pkcs8[..len]), "truncated to {len}");
    }
}
