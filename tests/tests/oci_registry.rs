//! Tools shipped through an OCI registry, through the built binary against a real registry
//! (`docker-registry`, started per test on a free loopback port): `tool publish` and
//! `tool add oci://…` by tag and by digest, pinned by manifest digest (`tool show`), a tag
//! moved later changing nothing installed, and each refusal — a tampered blob, an unsigned
//! component or one signed by another key or for another digest when a key is required, an
//! oversized blob, plain HTTP to a registry off loopback, a registry whose TLS certificate
//! does not verify. After every refusal nothing is installed. HTTPS is spoken end to end to a
//! registry off loopback whose certificate a throwaway authority issued.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sigstore::crypto::SigningScheme;
use toolhost_tests::attack::{Attack, Out};
use toolhost_tests::registry::{
    Registry, TestCertificate, non_loopback_ipv4, with_custom_section, write,
};
use toolhost_tests::test_components_dir;

const PASSWORD: &str = "correct horse battery staple";

fn component(id: &str) -> PathBuf {
    test_components_dir().join(format!("{id}.wasm"))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// An attack setup whose docker config is a valid empty one (the fake HOME's is not JSON)
/// and whose runs know the test key's password.
fn setup() -> Attack {
    let mut a = Attack::new();
    let docker = a.outside_dir("docker");
    std::fs::create_dir_all(&docker).unwrap();
    std::fs::write(docker.join("config.json"), r#"{"auths":{}}"#).unwrap();
    a.env.push(("DOCKER_CONFIG".into(), docker.into()));
    a.env.push(("COSIGN_PASSWORD".into(), PASSWORD.into()));
    a
}

/// A new ECDSA P-256 key pair in `dir`: cosign's encrypted private key format (or plain
/// PKCS#8 when `encrypted` is false) and the PEM public key.
fn keypair(dir: &Path, name: &str, encrypted: bool) -> (PathBuf, PathBuf) {
    let signer = SigningScheme::ECDSA_P256_SHA256_ASN1.create_signer().unwrap();
    let pair = signer.to_sigstore_keypair().unwrap();
    let private = if encrypted {
        pair.private_key_to_encrypted_pem(PASSWORD.as_bytes()).unwrap().to_string()
    } else {
        pair.private_key_to_pem().unwrap().to_string()
    };
    let key = write(dir, &format!("{name}.key"), private.as_bytes());
    let public = write(dir, &format!("{name}.pub"), pair.public_key_to_pem().unwrap().as_bytes());
    (key, public)
}

/// `tool publish FILE REF [extra]`, asserted to succeed; the manifest digest it printed.
fn publish(a: &Attack, file: &Path, reference: &str, extra: &[&str]) -> String {
    let mut args = vec!["tool", "publish", s(file), reference];
    args.extend_from_slice(extra);
    let out = a.run(&[], &args);
    assert_eq!(out.code, Some(0), "publish {reference}: {}", out.all());
    field(&out.stdout, "manifest:")
}

fn field(text: &str, name: &str) -> String {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(name))
        .unwrap_or_else(|| panic!("no {name} in {text}"))
        .trim()
        .to_string()
}

fn add(a: &Attack, reference: &str, extra: &[&str]) -> Out {
    let mut args = vec!["tool", "add", reference, "--yes"];
    args.extend_from_slice(extra);
    a.run(&[], &args)
}

fn sha256_file(path: &Path) -> String {
    toolhost::observations::sha256_hex(&std::fs::read(path).unwrap())
}

/// Refused with `expect` in its message, and nothing installed or left behind.
fn assert_refused(a: &Attack, out: &Out, expect: &str) {
    assert_eq!(out.code, Some(1), "it was not refused: {}", out.all());
    assert!(out.stderr.contains("not installed") && out.stderr.contains(expect), "{}", out.all());
    let list = a.run(&[], &["tool", "list"]);
    assert!(list.stdout.is_empty(), "something was installed anyway: {}", list.stdout);
    let pulls = a.data.join("cache/oci-pull");
    let left: Vec<_> = std::fs::read_dir(&pulls).map(|d| d.flatten().collect()).unwrap_or_default();
    assert!(left.is_empty(), "the download was left behind: {left:?}");
}

#[test]
fn publish_then_add_by_tag_and_by_digest_pins_the_manifest() {
    let registry = Registry::start();
    let a = setup();
    let file = component("scribe");
    let reference = registry.oci("tools/scribe:1.0");
    let digest = publish(&a, &file, &reference, &[]);

    // The artifact, read independently of toolhost: the wasm layout, the component as its layer.
    let (manifest, served) = registry.manifest("tools/scribe", "1.0");
    assert_eq!(served, digest, "publish printed another digest than the registry serves");
    let m: Value = serde_json::from_slice(&manifest).unwrap();
    assert_eq!(m["config"]["mediaType"], "application/vnd.wasm.config.v0+json");
    assert_eq!(m["layers"].as_array().unwrap().len(), 1);
    assert_eq!(m["layers"][0]["mediaType"], "application/wasm");
    assert_eq!(m["layers"][0]["digest"], format!("sha256:{}", sha256_file(&file)));

    let out = add(&a, &reference, &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(out.stdout.contains(&digest), "the summary does not show the digest: {}", out.stdout);
    let show = a.run(&[], &["tool", "show", "scribe"]);
    assert_eq!(show.code, Some(0), "{}", show.all());
    assert_eq!(field(&show.stdout, "reference:"), reference);
    assert_eq!(field(&show.stdout, "manifest:"), digest);
    assert_eq!(field(&show.stdout, "sha256:"), sha256_file(&file));
    let json = a.run(&[], &["tool", "show", "scribe", "--json"]).json();
    assert_eq!(json["oci"]["manifest_digest"], digest.as_str());
    assert_eq!(json["loaded"], true);

    // By digest: the same pin.
    assert_eq!(a.run(&[], &["tool", "remove", "scribe"]).code, Some(0));
    let by_digest = registry.oci(&format!("tools/scribe@{digest}"));
    let out = add(&a, &by_digest, &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let show = a.run(&[], &["tool", "show", "scribe"]);
    assert_eq!(field(&show.stdout, "manifest:"), digest);
    assert_eq!(field(&show.stdout, "reference:"), by_digest);
    assert!(a.run(&[], &["tools"]).stdout.contains("scribe"));
}

#[test]
fn a_tag_moved_later_changes_nothing_installed_and_a_readd_shows_the_change() {
    let registry = Registry::start();
    let a = setup();
    let v1 = component("scribe");
    let v2 = write(
        &a.outside_dir("v2"),
        "scribe.wasm",
        &with_custom_section(&std::fs::read(&v1).unwrap(), "v2"),
    );
    let reference = registry.oci("tools/scribe:stable");
    let d1 = publish(&a, &v1, &reference, &[]);
    assert_eq!(add(&a, &reference, &[]).code, Some(0));
    let d2 = publish(&a, &v2, &reference, &[]);
    assert_ne!(d1, d2);

    let show = a.run(&[], &["tool", "show", "scribe", "--json"]).json();
    assert_eq!(show["oci"]["manifest_digest"], d1.as_str(), "the installed pin moved with the tag");
    assert_eq!(show["sha256"], sha256_file(&v1).as_str());
    assert_eq!(show["loaded"], true);

    let again = add(&a, &reference, &[]);
    assert_eq!(again.code, Some(0), "{}", again.all());
    assert!(
        again.stdout.contains(&format!("at manifest {d1}")) && again.stdout.contains(&d2),
        "the re-add does not say what changed: {}",
        again.stdout
    );
    assert!(again.stdout.contains("upgraded `scribe`"), "{}", again.stdout);
    let show = a.run(&[], &["tool", "show", "scribe", "--json"]).json();
    assert_eq!(show["oci"]["manifest_digest"], d2.as_str());
    assert_eq!(show["sha256"], sha256_file(&v2).as_str());
}

#[test]
fn a_tampered_blob_is_refused() {
    let registry = Registry::start();
    let a = setup();
    let file = component("scribe");
    let reference = registry.oci("tools/scribe:1");
    publish(&a, &file, &reference, &[]);
    let blob = registry.blob_file(&format!("sha256:{}", sha256_file(&file)));
    let mut bytes = std::fs::read(&blob).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&blob, &bytes).unwrap();
    let out = add(&a, &reference, &[]);
    assert_refused(&a, &out, "does not match its digest");
}

#[test]
fn with_a_key_required_an_unsigned_component_is_refused() {
    let registry = Registry::start();
    let a = setup();
    let (_, public) = keypair(&a.outside_dir("keys"), "acme", true);
    let policy = format!(
        r#"{{"registries": {{"keys": {{"{}/tools": "{}"}}}}}}"#,
        registry.host,
        public.display()
    );
    std::fs::create_dir_all(&a.data).unwrap();
    std::fs::write(a.data.join("policy.json"), policy).unwrap();
    let reference = registry.oci("tools/scribe:1");
    publish(&a, &component("scribe"), &reference, &[]);
    let out = add(&a, &reference, &[]);
    assert_refused(&a, &out, "is not signed");
    // A repository the policy names no key for is not held to it.
    let other = registry.oci("other/scribe:1");
    publish(&a, &component("scribe"), &other, &[]);
    assert_eq!(add(&a, &other, &[]).code, Some(0));
}

#[test]
fn a_signature_by_another_key_is_refused_and_the_right_key_installs() {
    let registry = Registry::start();
    let a = setup();
    let keys = a.outside_dir("keys");
    let (signing, public) = keypair(&keys, "author", true);
    let (_, stranger) = keypair(&keys, "stranger", false);
    let reference = registry.oci("tools/scribe:1");
    let out =
        a.run(&[], &["tool", "publish", s(&component("scribe")), &reference, "--key", s(&signing)]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(out.stdout.contains(".sig"), "{}", out.stdout);

    let refused = add(&a, &reference, &["--key", s(&stranger)]);
    assert_refused(&a, &refused, "not by this key");
    let out = add(&a, &reference, &["--key", s(&public)]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let show = a.run(&[], &["tool", "show", "scribe"]);
    assert_eq!(field(&show.stdout, "signed by:"), public.display().to_string());
}

#[test]
fn a_plain_pkcs8_key_signs_too() {
    let registry = Registry::start();
    let a = setup();
    let (signing, public) = keypair(&a.outside_dir("keys"), "plain", false);
    let reference = registry.oci("tools/scribe:1");
    publish(&a, &component("scribe"), &reference, &["--key", s(&signing)]);
    assert_eq!(add(&a, &reference, &["--key", s(&public)]).code, Some(0));
}

#[test]
fn a_signature_of_another_digest_is_refused() {
    let registry = Registry::start();
    let a = setup();
    let (signing, public) = keypair(&a.outside_dir("keys"), "author", true);
    let v1 = component("scribe");
    let v2 = write(
        &a.outside_dir("v2"),
        "scribe.wasm",
        &with_custom_section(&std::fs::read(&v1).unwrap(), "v2"),
    );
    let d1 = publish(&a, &v1, &registry.oci("tools/scribe:good"), &["--key", s(&signing)]);
    let d2 = publish(&a, &v2, &registry.oci("tools/scribe:other"), &[]);
    // The good digest's genuine signature, put where the other digest's would be.
    let (signature, _) =
        registry.manifest("tools/scribe", &format!("{}.sig", d1.replacen(':', "-", 1)));
    registry.put_manifest("tools/scribe", &format!("{}.sig", d2.replacen(':', "-", 1)), &signature);
    let out = add(&a, &registry.oci("tools/scribe:other"), &["--key", s(&public)]);
    assert_refused(&a, &out, "another manifest");
}

#[test]
fn an_oversized_blob_is_refused() {
    let registry = Registry::start();
    let a = setup();
    let file = component("scribe");
    publish(&a, &file, &registry.oci("tools/scribe:1"), &[]);
    // The same manifest, its layer declared over the limit: refused before any download.
    let (manifest, _) = registry.manifest("tools/scribe", "1");
    let mut m: Value = serde_json::from_slice(&manifest).unwrap();
    m["layers"][0]["size"] = (toolhost_limits::OCI_MAX_COMPONENT_BYTES + 1).into();
    registry.put_manifest("tools/scribe", "huge", &serde_json::to_vec(&m).unwrap());
    let out = add(&a, &registry.oci("tools/scribe:huge"), &[]);
    assert_refused(&a, &out, "over the limit");

    // A blob the registry sends past its declared size: cut off, refused.
    let blob = registry.blob_file(&format!("sha256:{}", sha256_file(&file)));
    let mut bytes = std::fs::read(&blob).unwrap();
    bytes.extend(std::iter::repeat_n(0u8, 1 << 20));
    std::fs::write(&blob, &bytes).unwrap();
    let out = add(&a, &registry.oci("tools/scribe:1"), &[]);
    assert_eq!(out.code, Some(1), "{}", out.all());
    assert!(a.run(&[], &["tool", "list"]).stdout.is_empty());
}

#[test]
fn plain_http_goes_only_to_loopback_unless_insecure_http_is_given() {
    let ip =
        non_loopback_ipv4().expect("this machine has no non-loopback IPv4 address to test with");
    let registry = Registry::start_on("0.0.0.0", &ip);
    let a = setup();
    let reference = registry.oci("tools/scribe:1");
    let out = a.run(&[], &["tool", "publish", s(&component("scribe")), &reference]);
    assert_eq!(out.code, Some(1), "published over plain HTTP to {ip}: {}", out.all());
    assert!(out.stderr.contains("--insecure-http"), "{}", out.all());
    publish(&a, &component("scribe"), &reference, &["--insecure-http"]);
    let out = add(&a, &reference, &[]);
    assert_refused(&a, &out, "--insecure-http");
    assert_eq!(add(&a, &reference, &["--insecure-http"]).code, Some(0));
}

/// HTTPS, with rustls and `ring`'s cryptography: to a registry off loopback serving a
/// certificate for its IP from a throwaway authority, a publish and a signed add succeed once
/// that authority is trusted (`SSL_CERT_FILE`, read with the system's roots), and are refused
/// while it is not.
#[test]
fn https_to_a_registry_off_loopback_verifies_its_certificate() {
    let ip =
        non_loopback_ipv4().expect("this machine has no non-loopback IPv4 address to test with");
    let certs = tempfile::tempdir().unwrap();
    let tls = TestCertificate::new(certs.path(), &ip);
    let registry = Registry::start_tls("0.0.0.0", &ip, &tls);
    let reference = registry.oci("tools/scribe:1");

    let a = setup();
    let out = a.run(&[], &["tool", "publish", s(&component("scribe")), &reference]);
    assert_eq!(out.code, Some(1), "published to an untrusted certificate: {}", out.all());
    assert!(out.stderr.to_lowercase().contains("certificate"), "{}", out.all());

    let mut a = setup();
    a.env.push(("SSL_CERT_FILE".into(), tls.ca.clone().into()));
    let (signing, public) = keypair(&a.outside_dir("keys"), "tls", true);
    let digest = publish(&a, &component("scribe"), &reference, &["--key", s(&signing)]);
    let out = add(&a, &reference, &["--key", s(&public)]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let show = a.run(&[], &["tool", "show", "scribe"]);
    assert_eq!(field(&show.stdout, "manifest:"), digest);
    assert_eq!(field(&show.stdout, "signed by:"), public.display().to_string());

    // The same registry, its authority no longer trusted: refused, nothing installed.
    let b = setup();
    let (_, public) = keypair(&b.outside_dir("keys"), "tls", true);
    assert_refused(&b, &add(&b, &reference, &["--key", s(&public)]), "certificate");
}

#[test]
fn a_docker_config_that_is_not_json_is_named_but_never_printed() {
    let a = Attack::new(); // its HOME/.docker/config.json is a fake secret, not JSON
    let out = add(&a, "oci://127.0.0.1:1/tools/scribe:1", &[]);
    assert_refused(&a, &out, ".docker/config.json");
    out.assert_hidden(&a.secret(".docker/config.json").marker, "the docker config");
}

/// The registry's user and password (a bcrypt hash of it, cost 4, for `htpasswd`), and
/// base64 of `user:password` as `docker login` writes it.
const REGISTRY_USER: &str = "toolhost";
const REGISTRY_PASSWORD: &str = "reg-pass-7f3a9c";
const REGISTRY_HASH: &str = "$2b$04$yrRFPvlMXlJv1013yfIa7.NujIZlqEwi.PTUfK9nHAtA2842Jiv2a";
const REGISTRY_AUTH: &str = "dG9vbGhvc3Q6cmVnLXBhc3MtN2YzYTlj";

#[test]
fn credentials_come_from_the_docker_config_and_are_never_printed() {
    let registry = Registry::start_with_htpasswd(&format!("{REGISTRY_USER}:{REGISTRY_HASH}"));
    let mut a = setup();
    a.env.push(("TOOLHOST_LOG".into(), "trace".into()));
    let reference = registry.oci("tools/scribe:1");
    let out = a.run(&[], &["tool", "publish", s(&component("scribe")), &reference]);
    assert_eq!(out.code, Some(1), "pushed without credentials: {}", out.all());
    assert!(out.stderr.contains("not published"), "{}", out.all());

    let docker = a.outside_dir("docker");
    let config = format!(r#"{{"auths": {{"{}": {{"auth": "{REGISTRY_AUTH}"}}}}}}"#, registry.host);
    std::fs::write(docker.join("config.json"), config).unwrap();
    let out = a.run(&[], &["tool", "publish", s(&component("scribe")), &reference]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let added = add(&a, &reference, &[]);
    assert_eq!(added.code, Some(0), "{}", added.all());
    for run in [&out, &added] {
        for secret in [REGISTRY_PASSWORD, REGISTRY_AUTH] {
            assert!(!run.all().contains(secret), "a credential was printed: {}", run.all());
        }
    }
}

/// An independent client (skopeo) copies the published artifact and its signature tag to
/// another repository, digests preserved: it installs from there, verified, with the same pin.
#[test]
fn an_artifact_copied_by_another_client_installs_with_the_same_pin() {
    let skopeo = ["/usr/bin/skopeo", "/usr/local/bin/skopeo"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("skopeo is not installed (`apt-get install skopeo`; .ci/run does)");
    let registry = Registry::start();
    let a = setup();
    let (signing, public) = keypair(&a.outside_dir("keys"), "author", true);
    let digest =
        publish(&a, &component("scribe"), &registry.oci("tools/scribe:1"), &["--key", s(&signing)]);
    let sig_tag = format!("{}.sig", digest.replacen(':', "-", 1));
    for tag in ["1", sig_tag.as_str()] {
        let out = std::process::Command::new(skopeo)
            .args([
                "copy",
                "--src-tls-verify=false",
                "--dest-tls-verify=false",
                "--preserve-digests",
            ])
            .arg(format!("docker://{}/tools/scribe:{tag}", registry.host))
            .arg(format!("docker://{}/mirror/scribe:{tag}", registry.host))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "skopeo copy {tag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = add(&a, &registry.oci("mirror/scribe:1"), &["--key", s(&public)]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let show = a.run(&[], &["tool", "show", "scribe"]);
    assert_eq!(field(&show.stdout, "manifest:"), digest);
    assert_eq!(field(&show.stdout, "sha256:"), sha256_file(&component("scribe")));
}
