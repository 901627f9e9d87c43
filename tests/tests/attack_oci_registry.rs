//! `tool add oci://…` against a registry that lies, through the built binary: a fake registry
//! on loopback (a few lines of HTTP served from memory, every request logged) that redirects a
//! blob to another host, serves a manifest of many layers, a layer whose media type says
//! `application/wasm` over bytes that are no component, an index in place of a manifest, a
//! manifest that does not hash to the digest its tag resolved to, and a tag that moves between
//! resolving it and fetching it. Each is refused with nothing installed, or (the redirect, the
//! moved tag) installs exactly the bytes the digest names, and the registry's credentials never
//! reach another host.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::json;
use toolhost_tests::attack::{Attack, Out};
use toolhost_tests::test_components_dir;

/// The password in the registry's docker credentials: it must reach only the registry.
const PASSWORD: &str = "registry-pw-marker-7d1f";

/// One request a fake server saw: method, path and headers (names lowercased).
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: HashMap<String, String>,
}

/// What a fake server answers: (status, headers, body) by `METHOD path`.
type Routes = HashMap<String, (u16, Vec<(String, String)>, Vec<u8>)>;

/// A tiny HTTP/1.1 server on 127.0.0.1 answering from `routes`, one thread per connection.
struct Fake {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    routes: Arc<Mutex<Routes>>,
}

impl Fake {
    fn start() -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let routes: Arc<Mutex<Routes>> = Arc::default();
        let (s, r) = (seen.clone(), routes.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let (s, r) = (s.clone(), r.clone());
                std::thread::spawn(move || serve(conn, &s, &r));
            }
        });
        Fake { port, seen, routes }
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn route(&self, method: &str, path: &str, status: u16, headers: &[(&str, &str)], body: &[u8]) {
        let headers = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        self.routes
            .lock()
            .unwrap()
            .insert(format!("{method} {path}"), (status, headers, body.to_vec()));
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(conn: TcpStream, seen: &Mutex<Vec<Seen>>, routes: &Mutex<Routes>) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut conn = conn;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, path) =
            (parts.next().unwrap_or("").to_owned(), parts.next().unwrap_or("").to_owned());
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
            }
        }
        let len: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
        let mut body = vec![0; len];
        let _ = reader.read_exact(&mut body);
        seen.lock().unwrap().push(Seen { method: method.clone(), path: path.clone(), headers });
        let key = format!("{method} {}", path.split('?').next().unwrap_or(""));
        let (status, extra, body) = routes.lock().unwrap().get(&key).cloned().unwrap_or((
            404,
            vec![("Content-Type".into(), "application/json".into())],
            br#"{"errors":[{"code":"NOT_FOUND","message":"no"}]}"#.to_vec(),
        ));
        let mut head = format!("HTTP/1.1 {status} X\r\nContent-Length: {}\r\n", body.len());
        for (k, v) in extra {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        if conn.write_all(head.as_bytes()).is_err() {
            return;
        }
        if method != "HEAD" && conn.write_all(&body).is_err() {
            return;
        }
    }
}

fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", toolhost::observations::sha256_hex(bytes))
}

const MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";

/// The registry with its `/v2/` asking for basic auth, and an attack setup whose docker
/// credentials hold [`PASSWORD`] for it.
fn setup(registry: &Fake) -> Attack {
    registry.route("GET", "/v2/", 401, &[("WWW-Authenticate", "Basic realm=\"fake\"")], b"{}");
    let mut a = Attack::new();
    let docker = a.outside_dir("docker");
    std::fs::create_dir_all(&docker).unwrap();
    let auth = base64_encode(format!("user:{PASSWORD}").as_bytes());
    std::fs::write(
        docker.join("config.json"),
        json!({"auths": {registry.host(): {"auth": auth}}}).to_string(),
    )
    .unwrap();
    a.env.push(("DOCKER_CONFIG".into(), docker.into()));
    a
}

fn base64_encode(bytes: &[u8]) -> String {
    const T: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A manifest of `config` and `layers` ((media type, bytes) each); its bytes.
fn manifest(config: &[u8], layers: &[(&str, &[u8])]) -> Vec<u8> {
    let layers: Vec<_> = layers
        .iter()
        .map(|(m, b)| json!({"mediaType": m, "digest": digest(b), "size": b.len()}))
        .collect();
    serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": MANIFEST,
        "config": {"mediaType": "application/vnd.wasm.config.v0+json", "digest": digest(config), "size": config.len()},
        "layers": layers,
    }))
    .unwrap()
}

/// Serve `manifest` under `tag` (HEAD and GET, by tag and by digest) and each blob.
fn publish(registry: &Fake, tag: &str, manifest: &[u8], blobs: &[&[u8]]) -> String {
    let d = digest(manifest);
    let h = [("Content-Type", MANIFEST), ("Docker-Content-Digest", d.as_str())];
    for r in [tag, d.as_str()] {
        for m in ["HEAD", "GET"] {
            registry.route(m, &format!("/v2/tools/x/manifests/{r}"), 200, &h, manifest);
        }
    }
    for b in blobs {
        let bd = digest(b);
        let h =
            [("Content-Type", "application/octet-stream"), ("Docker-Content-Digest", bd.as_str())];
        registry.route("GET", &format!("/v2/tools/x/blobs/{bd}"), 200, &h, b);
    }
    d
}

fn add(a: &Attack, registry: &Fake, tag: &str) -> Out {
    a.run(&[], &["tool", "add", &format!("oci://{}/tools/x:{tag}", registry.host()), "--yes"])
}

fn assert_refused(a: &Attack, out: &Out, expect: &str) {
    assert_eq!(out.code, Some(1), "it was not refused: {}", out.all());
    assert!(out.stderr.contains("not installed") && out.stderr.contains(expect), "{}", out.all());
    assert!(a.run(&[], &["tool", "list"]).stdout.is_empty(), "something was installed");
    assert!(!out.all().contains(PASSWORD), "the password was printed: {}", out.all());
}

fn component() -> Vec<u8> {
    std::fs::read(test_components_dir().join("scribe.wasm")).unwrap()
}

const CONFIG: &[u8] = br#"{"architecture":"wasm","os":"wasip2"}"#;

#[test]
fn a_blob_redirected_to_another_host_is_held_to_its_digest_and_gets_no_credentials() {
    let registry = Fake::start();
    let cdn = Fake::start();
    let a = setup(&registry);
    let wasm = component();
    let m = manifest(CONFIG, &[("application/wasm", &wasm)]);
    publish(&registry, "1", &m, &[CONFIG]);
    let wd = digest(&wasm);
    let location = format!("http://{}/cdn/blob", cdn.host());
    registry.route("GET", &format!("/v2/tools/x/blobs/{wd}"), 307, &[("Location", &location)], b"");
    // The other host serves other bytes first: refused by the digest.
    cdn.route("GET", "/cdn/blob", 200, &[], b"\0asm not the component");
    let out = add(&a, &registry, "1");
    assert_refused(&a, &out, "sha256");
    // Then the right bytes: installed, pinned to the manifest.
    cdn.route("GET", "/cdn/blob", 200, &[], &wasm);
    let out = add(&a, &registry, "1");
    assert_eq!(out.code, Some(0), "{}", out.all());
    let cdn_seen = cdn.seen();
    assert!(!cdn_seen.is_empty(), "the redirect was not followed");
    for s in &cdn_seen {
        assert!(
            !s.headers.contains_key("authorization"),
            "the registry's credentials went to another host: {s:?}"
        );
    }
    assert!(
        registry.seen().iter().any(|s| s.headers.contains_key("authorization")),
        "the registry itself never got the credentials (the test proves nothing)"
    );
}

#[test]
fn many_layers_a_lying_media_type_and_an_index_are_refused() {
    let registry = Fake::start();
    let a = setup(&registry);
    let wasm = component();
    // 300 layers: refused from the manifest, before any blob is fetched.
    let many: Vec<(&str, &[u8])> =
        (0..300).map(|_| ("application/wasm", wasm.as_slice())).collect();
    publish(&registry, "many", &manifest(CONFIG, &many), &[CONFIG, &wasm]);
    assert_refused(&a, &add(&a, &registry, "many"), "300 layers");
    let blobs: Vec<String> = registry
        .seen()
        .iter()
        .filter(|s| s.path.contains("/blobs/"))
        .map(|s| format!("{} {}", s.method, s.path))
        .collect();
    assert!(blobs.is_empty(), "blobs were fetched for a manifest that was refused: {blobs:?}");
    // A layer that says application/wasm over a web page.
    let page = b"<html><body>not a component</body></html>".as_slice();
    publish(&registry, "page", &manifest(CONFIG, &[("application/wasm", page)]), &[CONFIG, page]);
    let out = add(&a, &registry, "page");
    assert_eq!(out.code, Some(1), "{}", out.all());
    assert!(a.run(&[], &["tool", "list"]).stdout.is_empty(), "a web page was installed");
    // An index where a manifest should be.
    let index = serde_json::to_vec(&json!({"schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{"mediaType": MANIFEST, "digest": digest(b"x"), "size": 1}]}))
    .unwrap();
    publish(&registry, "index", &index, &[]);
    assert_eq!(add(&a, &registry, "index").code, Some(1));
    assert!(a.run(&[], &["tool", "list"]).stdout.is_empty());
}

#[test]
fn a_manifest_that_does_not_hash_to_its_digest_is_refused_and_a_moved_tag_is_not_followed() {
    let registry = Fake::start();
    let a = setup(&registry);
    let wasm = component();
    let good = manifest(CONFIG, &[("application/wasm", &wasm)]);
    let d = publish(&registry, "1", &good, &[CONFIG, &wasm]);
    // The digest the tag resolves to serves other bytes.
    let other = manifest(br#"{"os":"other"}"#, &[("application/wasm", &wasm)]);
    let h = [("Content-Type", MANIFEST), ("Docker-Content-Digest", d.as_str())];
    registry.route("GET", &format!("/v2/tools/x/manifests/{d}"), 200, &h, &other);
    assert_refused(&a, &add(&a, &registry, "1"), "digest");
    // Put right; then the tag moves for every request after it was resolved: toolhost asks
    // for the digest it resolved, never the tag again, and installs that.
    let d = publish(&registry, "2", &good, &[CONFIG, &wasm]);
    let moved = manifest(br#"{"os":"moved"}"#, &[("application/wasm", &wasm)]);
    registry.route("GET", "/v2/tools/x/manifests/2", 200, &[("Content-Type", MANIFEST)], &moved);
    let out = add(&a, &registry, "2");
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(out.stdout.contains(&d), "{}", out.all());
    let show = a.run(&[], &["tool", "show", "scribe", "--json"]).json();
    assert_eq!(show["oci"]["manifest_digest"], d.as_str(), "{show}");
}
