//! A real OCI registry for the suites: Debian's `docker-registry` (CNCF Distribution, the code
//! of the `registry:2` image) started on a free port with its storage in a temp dir, waited
//! for, and killed on drop. A suite that needs it fails (never skips) where it is missing:
//! `.ci/run` installs it.
//!
//! Besides starting it, [`Registry`] reaches under the registry for the attacks: the file a
//! blob is stored in (to tamper with it) and its manifests in plain HTTP/1.1 (to read them
//! independently of toolhost, and to put hand-made ones).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where the registry binary is looked for.
const CANDIDATES: &[&str] = &["/usr/bin/docker-registry", "/usr/local/bin/docker-registry"];

/// The OCI image manifest media type.
pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";

/// A running registry.
pub struct Registry {
    child: Child,
    dir: tempfile::TempDir,
    /// The port it listens on.
    pub port: u16,
    /// The address clients use for it (`IP:PORT`).
    pub host: String,
    /// Whether it serves HTTPS.
    tls: bool,
}

/// A throwaway certificate authority and a server certificate it issued for one IP address,
/// as PEM files made by the `openssl` command (`.ci/run` installs it).
pub struct TestCertificate {
    /// The authority's certificate: what a client must trust (`SSL_CERT_FILE`).
    pub ca: PathBuf,
    /// The server's certificate (its SAN: the IP address only).
    pub certificate: PathBuf,
    /// The server's private key.
    pub key: PathBuf,
}

impl TestCertificate {
    /// A new authority and a certificate for `ip`, in `dir`.
    pub fn new(dir: &Path, ip: &str) -> Self {
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(dir)
                .output()
                .expect("openssl is not installed (`apt-get install openssl`; .ci/run does)");
            assert!(
                out.status.success(),
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
        openssl(
            &[
                &["req", "-x509"][..],
                &ec,
                &[
                    "-keyout",
                    "ca.key",
                    "-out",
                    "ca.pem",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=toolhost test CA",
                    "-addext",
                    "basicConstraints=critical,CA:TRUE",
                    "-addext",
                    "keyUsage=critical,keyCertSign",
                ],
            ]
            .concat(),
        );
        openssl(
            &[
                &["req"][..],
                &ec,
                &["-keyout", "key.pem", "-out", "req.csr", "-subj", "/CN=registry"],
            ]
            .concat(),
        );
        std::fs::write(
            dir.join("ext.cnf"),
            format!(
                "subjectAltName=IP:{ip}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n"
            ),
        )
        .unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "req.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "cert.pem",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ]);
        TestCertificate {
            ca: dir.join("ca.pem"),
            certificate: dir.join("cert.pem"),
            key: dir.join("key.pem"),
        }
    }
}

/// The registry binary; panics (the test fails) when it is not installed.
pub fn registry_binary() -> PathBuf {
    CANDIDATES.iter().map(PathBuf::from).find(|p| p.is_file()).unwrap_or_else(|| {
        panic!(
            "docker-registry is not installed ({CANDIDATES:?}): `apt-get install docker-registry` (.ci/run does)"
        )
    })
}

impl Registry {
    /// A registry on 127.0.0.1.
    pub fn start() -> Self {
        Self::start_on("127.0.0.1", "127.0.0.1")
    }

    /// A registry on 127.0.0.1 that requires HTTP basic authentication against `htpasswd`
    /// (lines of `user:bcrypt-hash`).
    pub fn start_with_htpasswd(htpasswd: &str) -> Self {
        Self::start_with("127.0.0.1", "127.0.0.1", Some(htpasswd), None)
    }

    /// A registry listening on `bind` (an IP), reached by clients at `reach` (an IP).
    pub fn start_on(bind: &str, reach: &str) -> Self {
        Self::start_with(bind, reach, None, None)
    }

    /// A registry serving HTTPS with `tls`'s certificate, listening on `bind`, reached at
    /// `reach` (the certificate's IP). [`Registry::manifest`] and the other plain-HTTP helpers
    /// do not work on it.
    pub fn start_tls(bind: &str, reach: &str, tls: &TestCertificate) -> Self {
        Self::start_with(bind, reach, None, Some(tls))
    }

    fn start_with(
        bind: &str,
        reach: &str,
        htpasswd: Option<&str>,
        tls: Option<&TestCertificate>,
    ) -> Self {
        let binary = registry_binary();
        let dir = tempfile::tempdir().expect("a temp dir");
        let port = TcpListener::bind((bind, 0)).unwrap().local_addr().unwrap().port();
        let storage = dir.path().join("storage");
        std::fs::create_dir_all(&storage).unwrap();
        let config = dir.path().join("config.yml");
        let mut yaml = format!(
            "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: {bind}:{port}\n",
            storage.display()
        );
        if let Some(tls) = tls {
            yaml.push_str(&format!(
                "  tls:\n    certificate: {}\n    key: {}\n",
                tls.certificate.display(),
                tls.key.display()
            ));
        }
        if let Some(lines) = htpasswd {
            let file = dir.path().join("htpasswd");
            std::fs::write(&file, format!("{lines}\n")).unwrap();
            yaml.push_str(&format!(
                "auth:\n  htpasswd:\n    realm: toolhost-test\n    path: {}\n",
                file.display()
            ));
        }
        std::fs::write(&config, yaml).unwrap();
        let log = std::fs::File::create(dir.path().join("registry.log")).unwrap();
        let child = Command::new(&binary)
            .arg("serve")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let registry =
            Registry { child, dir, port, host: format!("{reach}:{port}"), tls: tls.is_some() };
        registry.wait_ready();
        registry
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            // 401: up, and asking for credentials.
            match self.request("GET", "/v2/", &[], None) {
                Ok(Response(200 | 401, _, _)) => return,
                // Go's answer to plain HTTP on its TLS port: up.
                Ok(Response(400, _, body))
                    if self.tls && String::from_utf8_lossy(&body).contains("HTTPS server") =>
                {
                    return;
                }
                _ => {}
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("docker-registry did not answer on {} within 30 s: {}", self.host, self.log());
    }

    /// What the registry logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("registry.log")).unwrap_or_default()
    }

    /// `oci://HOST:PORT/REPO_AND_TAG`.
    pub fn oci(&self, rest: &str) -> String {
        format!("oci://{}/{rest}", self.host)
    }

    /// The file the registry stores blob `digest` (`sha256:<hex>`) in.
    pub fn blob_file(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").expect("a sha256 digest");
        self.dir
            .path()
            .join("storage/docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }

    /// The manifest `reference` (tag or digest) of `repo`, and its digest as the registry
    /// says (`Docker-Content-Digest`).
    pub fn manifest(&self, repo: &str, reference: &str) -> (Vec<u8>, String) {
        let path = format!("/v2/{repo}/manifests/{reference}");
        let Response(status, headers, body) =
            self.request("GET", &path, &[("Accept", OCI_MANIFEST)], None).unwrap();
        assert_eq!(status, 200, "GET {path}: {}", String::from_utf8_lossy(&body));
        let digest = header(&headers, "docker-content-digest").unwrap_or_default();
        (body, digest)
    }

    /// Put `manifest` at `reference` of `repo` (its blobs must be there).
    pub fn put_manifest(&self, repo: &str, reference: &str, manifest: &[u8]) {
        let path = format!("/v2/{repo}/manifests/{reference}");
        let Response(status, _, body) =
            self.request("PUT", &path, &[("Content-Type", OCI_MANIFEST)], Some(manifest)).unwrap();
        assert_eq!(status, 201, "PUT {path}: {}", String::from_utf8_lossy(&body));
    }

    /// One HTTP/1.1 request to the registry: status, headers, body.
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> std::io::Result<Response> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        let mut head =
            format!("{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n", self.host);
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        if let Some(b) = body {
            head.push_str(&format!("Content-Length: {}\r\n", b.len()));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes())?;
        if let Some(b) = body {
            stream.write_all(b)?;
        }
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw)?;
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or_else(|| std::io::Error::other("no end of headers"))?;
        let text = String::from_utf8_lossy(&raw[..split]).to_string();
        let mut lines = text.lines();
        let status = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| std::io::Error::other("no status"))?;
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let mut body = raw[split + 4..].to_vec();
        if header(&headers, "transfer-encoding").is_some_and(|t| t.contains("chunked")) {
            body = dechunk(&body);
        }
        Ok(Response(status, headers, body))
    }
}

/// An HTTP response: status, headers (names lowercased), body.
struct Response(u16, Vec<(String, String)>, Vec<u8>);

fn header(headers: &[(String, String)], name: &str) -> Option<String> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&body[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&body[end + 2..end + 2 + size]);
        body = &body[end + 4 + size..];
    }
    out
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An IPv4 address of this machine that is not loopback (for the plain-HTTP rule), if any.
pub fn non_loopback_ipv4() -> Option<String> {
    // No packet is sent: connecting a UDP socket only picks the route's source address.
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    for probe in ["10.255.255.255:9", "192.0.2.1:9", "198.51.100.1:9"] {
        if socket.connect(probe).is_ok()
            && let Ok(addr) = socket.local_addr()
            && !addr.ip().is_loopback()
            && !addr.ip().is_unspecified()
        {
            return Some(addr.ip().to_string());
        }
    }
    None
}

/// A copy of component `bytes` with a custom section appended: the same tool, other bytes
/// (another sha256, another manifest digest).
pub fn with_custom_section(bytes: &[u8], note: &str) -> Vec<u8> {
    let name = b"toolhost-test-note";
    let mut payload = vec![name.len() as u8];
    payload.extend_from_slice(name);
    payload.extend_from_slice(note.as_bytes());
    assert!(payload.len() < 128, "a one-byte LEB128 size");
    let mut out = bytes.to_vec();
    out.push(0);
    out.push(payload.len() as u8);
    out.extend_from_slice(&payload);
    out
}

/// Write `bytes` to `dir/name`; its path.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}
