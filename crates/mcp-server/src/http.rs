//! `toolhost mcp --listen`: the MCP server over Streamable HTTP, at `http://ADDR/mcp`.
//!
//! * Bound to loopback unless the address names another interface: `--listen 8080` means
//!   `127.0.0.1:8080`.
//! * Every request must carry the server's bearer token ([`super::auth`]): checked first, so
//!   a refused request learns nothing but 401 (`--no-auth`, loopback only, turns it off).
//! * DNS rebinding: a request whose `Host` is not a loopback name (`localhost`, `127.0.0.1`,
//!   `::1`) or one of the `--allow-host` names is refused with 403 before any MCP handling, and
//!   so is one whose `Origin` is neither a loopback origin nor an allowed host's. An `Origin`
//!   whose port is not a number is refused here first ([`origin_is_well_formed`]): rmcp reads
//!   `http://localhost:80.evil.com` as host `localhost` with no port, which its
//!   `http://localhost:*` pattern accepts.
//! * Bounds: a request body of at most `MAX_REQUEST_BYTES` (413 beyond), a request head
//!   within `MCP_HEADER_READ_TIMEOUT_SECS` of its first byte, `MCP_IDLE_TIMEOUT_SECS` for a
//!   connection with no request in flight ([`super::watch`]), and at most `MCP_MAX_SESSIONS`
//!   live MCP sessions (503 for the next `initialize`: [`super::sessions`]).
//! * Connections ([`super::conns`]): at most `MCP_MAX_CONNECTIONS` open and
//!   `MCP_MAX_UNAUTHENTICATED_CONNECTIONS` of them without a request that carried the token
//!   (both lowered to fit the descriptor limit; a new connection closes the oldest
//!   unauthenticated one), and none stays open `MCP_AUTH_TIMEOUT_SECS` after its accept
//!   without such a request.
//! * One server process is one toolhost session (one observation table, spill dir and store
//!   record): every client of it shares them, and calls take turns in arrival order
//!   (read-only tools' calls side by side), as on stdio. Both the 2025-11-25 revision (an MCP
//!   session per `initialize`, with its `Mcp-Session-Id`) and the stateless 2026-07-28
//!   revision are served.
//! * Any path but `/mcp` and `/metrics` is 404 (once the token has passed); `/healthz` and
//!   `/readyz` answer before it is checked ([`super::probes`]). `DELETE` of an MCP session
//!   answers 204 ([`session_ended`]).
//! * Shutdown: stop accepting, cancel the calls in flight (they end as `cancelled` and are
//!   recorded), and give open connections [`SHUTDOWN_GRACE`] to deliver their last responses.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use toolhost_limits::{
    MAX_REQUEST_BYTES, MCP_HEADER_READ_TIMEOUT_SECS, MCP_IDLE_TIMEOUT_SECS, MCP_MAX_SESSIONS,
};

use super::auth::Authenticator;
use super::conns::Connections;
use super::probes::{self, METRICS_PATH, Readiness};
use super::sessions::{BoundedSessions, too_many_sessions, watch_refusal};
use super::unread::{TrackedBody, close_if_unread};
use super::watch::{ConnWatch, InFlightBody, WatchedIo};
use crate::server::McpServer;

/// A response as rmcp builds them.
type Response = hyper::Response<BoxBody<Bytes, Infallible>>;

/// How long shutdown waits for open connections after cancelling the calls in flight.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// How long shutdown lets the last responses reach their streams before closing sessions.
const RESPONSE_FLUSH: std::time::Duration = std::time::Duration::from_millis(200);

/// The URL path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// Host names every `--listen` server accepts in `Host` (and, with any port, in `Origin`).
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Why a `--listen` address was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ListenAddrError {
    /// Neither `PORT`, `HOST:PORT` nor `[V6]:PORT`.
    #[error(
        "`{0}` is not a listen address: give PORT, IP:PORT or [IPv6]:PORT (e.g. 127.0.0.1:8765)"
    )]
    Malformed(String),
}

/// Parses `--listen`: a bare port binds loopback (`127.0.0.1`); `localhost` means `127.0.0.1`.
pub fn parse_listen_addr(text: &str) -> Result<SocketAddr, ListenAddrError> {
    let text = text.trim();
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    if let Some(port) = text.strip_prefix("localhost:").and_then(|p| p.parse::<u16>().ok()) {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    Err(ListenAddrError::Malformed(text.to_string()))
}

/// Whether an `Origin` header value is `scheme://host[:port]` with a numeric port (or `null`),
/// as browsers send it; anything else is refused before rmcp's allow-list sees it.
pub fn origin_is_well_formed(origin: &str) -> bool {
    if origin == "null" {
        return true;
    }
    let Some((scheme, authority)) = origin.split_once("://") else { return false };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok || authority.contains(['/', '?', '#', '@', '\\', ' ']) {
        return false;
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let Some((addr, rest)) = v6.split_once(']') else { return false };
        if !rest.is_empty() && !rest.starts_with(':') {
            return false;
        }
        (addr, rest.strip_prefix(':'))
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port_ok = port.is_none_or(|p| {
        !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok()
    });
    !host.is_empty() && port_ok
}

fn forbidden_origin() -> Response {
    let body = Full::new(Bytes::from("Forbidden: Origin header is not allowed\n"))
        .map_err(|never: Infallible| match never {})
        .boxed();
    let mut res = hyper::Response::new(body);
    *res.status_mut() = hyper::StatusCode::FORBIDDEN;
    res
}

/// A session ended by `DELETE` answers 204 No Content: rmcp answers 202 Accepted, which
/// clients (the official Python SDK among them) log as a failure to end the session.
fn session_ended(res: &mut Response) {
    if res.status() == hyper::StatusCode::ACCEPTED {
        *res.status_mut() = hyper::StatusCode::NO_CONTENT;
        *res.body_mut() = Full::new(Bytes::new()).boxed();
        res.headers_mut().remove(hyper::header::CONTENT_LENGTH);
        res.headers_mut().remove(hyper::header::CONTENT_TYPE);
    }
}

fn not_found() -> Response {
    let body = Full::new(Bytes::from(format!("Not Found: the MCP endpoint is {MCP_PATH}\n")))
        .map_err(|never: Infallible| match never {})
        .boxed();
    let mut res = hyper::Response::new(body);
    *res.status_mut() = hyper::StatusCode::NOT_FOUND;
    res
}

/// How the HTTP endpoint is exposed: where it listens, which extra host names it answers to,
/// and the token every request must carry.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The socket address to bind.
    pub addr: SocketAddr,
    /// Host names accepted in `Host`/`Origin` besides the loopback ones (`--allow-host`).
    pub allowed_hosts: Vec<String>,
    /// The bearer token check; `None` only with `--no-auth` on a loopback address.
    pub auth: Option<Authenticator>,
    /// What `/readyz` checks besides the session store.
    pub readiness: Readiness,
}

impl HttpOptions {
    /// What answers a request whose token passed (checked first, in the connection's
    /// handler: 401 without it) before rmcp sees it, if anything: the metrics at
    /// [`METRICS_PATH`], 404 off [`MCP_PATH`], 403 for a malformed `Origin`.
    fn after_auth(&self, req: &hyper::Request<hyper::body::Incoming>) -> Option<Response> {
        if req.uri().path() == METRICS_PATH {
            return Some(probes::metrics_response(req.method()));
        }
        if req.uri().path() != MCP_PATH {
            return Some(not_found());
        }
        let origin = req.headers().get(hyper::header::ORIGIN);
        if origin.is_some_and(|o| !o.to_str().is_ok_and(origin_is_well_formed)) {
            return Some(forbidden_origin());
        }
        None
    }
}

impl HttpOptions {
    /// The rmcp configuration: the Host allow-list, the Origin allow-list, and the shutdown token.
    pub fn config(&self, shutdown: CancellationToken) -> StreamableHttpServerConfig {
        let hosts: Vec<String> = LOOPBACK_HOSTS
            .iter()
            .map(|h| h.to_string())
            .chain(self.allowed_hosts.iter().cloned())
            .collect();
        let origins: Vec<String> = hosts
            .iter()
            .flat_map(|h| {
                let h = if h.contains(':') && !h.starts_with('[') {
                    format!("[{h}]")
                } else {
                    h.clone()
                };
                [format!("http://{h}:*"), format!("https://{h}:*")]
            })
            .collect();
        StreamableHttpServerConfig::default()
            .with_max_request_body_bytes(MAX_REQUEST_BYTES)
            .with_allowed_hosts(hosts)
            .with_allowed_origins(origins)
            .enforce_origin_validation()
            // A stateless request whose handler sends nothing before its result is answered
            // with plain JSON, not an SSE stream (one write, no stream framing); a call that
            // reports progress still gets a stream.
            .with_json_response(true)
            .with_cancellation_token(shutdown)
    }
}

/// A bound, not yet serving, HTTP endpoint (binding first lets the caller print the real port).
pub struct HttpEndpoint {
    listener: TcpListener,
    options: HttpOptions,
}

impl HttpEndpoint {
    /// Binds `options.addr`.
    pub async fn bind(options: HttpOptions) -> std::io::Result<Self> {
        let listener = TcpListener::bind(options.addr).await?;
        Ok(HttpEndpoint { listener, options })
    }

    /// The same endpoint checking requests with `auth` (set once the token is known).
    pub fn with_auth(mut self, auth: Option<Authenticator>) -> Self {
        self.options.auth = auth;
        self
    }

    /// The address actually bound (port 0 becomes the port the OS picked).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The endpoint's URL, e.g. `http://127.0.0.1:8765/mcp`.
    pub fn url(&self) -> std::io::Result<String> {
        Ok(format!("http://{}{MCP_PATH}", self.local_addr()?))
    }

    /// Serves `server` until `shutdown` is cancelled; connections are served concurrently.
    pub async fn serve(
        self,
        server: McpServer,
        shutdown: CancellationToken,
    ) -> std::io::Result<()> {
        // The MCP sessions end only after the calls in flight have answered.
        let sessions = CancellationToken::new();
        let config = self.options.config(sessions.clone());
        let calls = server.clone();
        let probed = server.clone();
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            BoundedSessions::new(MCP_MAX_SESSIONS),
            config,
        );
        // Open connections, and a signal when the last one closes.
        let open = Arc::new((std::sync::atomic::AtomicUsize::new(0), tokio::sync::Notify::new()));
        let result = self.accept_loop(service, probed, &open, &shutdown, &sessions).await;
        calls.cancel_calls();
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, calls.idle()).await;
        // The cancelled call's result is on its way to the client's stream: let it go out.
        tokio::time::sleep(RESPONSE_FLUSH).await;
        sessions.cancel();
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, async {
            loop {
                // Registered before the count is read, so the last close cannot be missed.
                let closed = open.1.notified();
                tokio::pin!(closed);
                closed.as_mut().enable();
                if open.0.load(std::sync::atomic::Ordering::SeqCst) == 0 {
                    return;
                }
                closed.await;
            }
        })
        .await;
        result
    }

    async fn accept_loop(
        &self,
        service: StreamableHttpService<McpServer, BoundedSessions>,
        server: McpServer,
        open: &Arc<(std::sync::atomic::AtomicUsize, tokio::sync::Notify)>,
        shutdown: &CancellationToken,
        sessions: &CancellationToken,
    ) -> std::io::Result<()> {
        let ctx = ConnContext {
            service,
            server,
            options: Arc::new(self.options.clone()),
            closing: sessions.clone(),
            open: open.clone(),
        };
        let conns = Connections::for_this_process();
        let (max_total, max_unauthenticated) = conns.bounds();
        tracing::debug!(
            "at most {max_total} connections, {max_unauthenticated} of them unauthenticated"
        );
        loop {
            let Some((stream, peer)) = self.accept(&conns, shutdown).await else { return Ok(()) };
            // Responses are small and written whole: do not hold them back for an ACK
            // (Nagle's algorithm with delayed ACKs cost one client ~40 ms per request).
            let _ = stream.set_nodelay(true);
            let Some(slot) = conns.admit() else {
                // Every open connection has authenticated and there is no room: close this one.
                tracing::debug!("connection from {peer} refused: {max_total} connections are open");
                drop(stream);
                continue;
            };
            ctx.open.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::spawn(serve_connection(stream, peer, Arc::new(slot), ctx.clone()));
        }
    }

    /// The next connection, or none once `shutdown` is cancelled. A failed accept waits a
    /// moment and tries again; out of descriptors, the oldest unauthenticated connection
    /// makes room first.
    async fn accept(
        &self,
        conns: &Connections,
        shutdown: &CancellationToken,
    ) -> Option<(tokio::net::TcpStream, SocketAddr)> {
        loop {
            tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok(accepted) => return Some(accepted),
                    Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
                        && conns.evict_oldest_unauthenticated() =>
                    {
                        // Out of descriptors: the oldest unauthenticated connection made room
                        // once its task has closed it.
                        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
                    }
                    Err(e) => {
                        // EMFILE and the like: wait a moment rather than spin or stop serving.
                        tracing::warn!("accept failed: {e}");
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                },
                _ = shutdown.cancelled() => return None,
            }
        }
    }
}

/// What every connection's task is given: the MCP service, the server (the probes ask it),
/// the options, the MCP sessions' end and the count of open connections.
#[derive(Clone)]
struct ConnContext {
    service: StreamableHttpService<McpServer, BoundedSessions>,
    server: McpServer,
    options: Arc<HttpOptions>,
    closing: CancellationToken,
    open: Arc<(std::sync::atomic::AtomicUsize, tokio::sync::Notify)>,
}

/// Serves one connection (`slot`: its place among the open ones) until it ends, times out,
/// is closed to make room, or the sessions end (then after the response in progress).
async fn serve_connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    slot: Arc<crate::conns::Conn>,
    ctx: ConnContext,
) {
    let watch = ConnWatch::new(
        std::time::Duration::from_secs(MCP_HEADER_READ_TIMEOUT_SECS),
        std::time::Duration::from_secs(MCP_IDLE_TIMEOUT_SECS),
    );
    let io = TokioIo::new(WatchedIo::new(stream, watch.clone()));
    let handler = {
        let (requests, authenticates, ctx) = (watch.clone(), slot.clone(), ctx.clone());
        service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
            handle(req, &requests, &authenticates, &ctx)
        })
    };
    let conn = hyper::server::conn::http1::Builder::new().serve_connection(io, handler);
    tokio::pin!(conn);
    let result = tokio::select! {
        r = conn.as_mut() => r,
        why = watch.expired() => {
            // Dropping the connection closes it.
            tracing::debug!("connection from {peer} closed: {why:?} timeout");
            Ok(())
        }
        why = slot.closed() => {
            tracing::debug!("connection from {peer} closed: {why:?}");
            Ok(())
        }
        _ = ctx.closing.cancelled() => {
            // Finish the response in progress, then close.
            conn.as_mut().graceful_shutdown();
            conn.as_mut().await
        }
    };
    if let Err(e) = result {
        tracing::debug!("connection from {peer}: {e}");
    }
    if ctx.open.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst) == 1 {
        ctx.open.1.notify_waiters();
    }
}

/// One request of a connection: a probe, a refusal (the token, the host, the path), or the
/// MCP service's answer; its body is tracked so the connection closes when it went unread.
fn handle(
    req: hyper::Request<hyper::body::Incoming>,
    requests: &Arc<ConnWatch>,
    authenticates: &crate::conns::Conn,
    ctx: &ConnContext,
) -> impl std::future::Future<
    Output = Result<hyper::Response<InFlightBody<BoxBody<Bytes, Infallible>>>, Infallible>,
> + Send
+ use<> {
    let in_flight = requests.request_started();
    let mut service = ctx.service.clone();
    let options = ctx.options.clone();
    let server = ctx.server.clone();
    // The probes answer before the token is checked (they tell nothing).
    let probe = probes::is_probe(req.uri().path())
        .then(|| (req.method().clone(), req.uri().path().to_string()));
    let refused = match &options.auth {
        Some(auth) => auth.check(req.headers()).err().map(|refusal| auth.unauthorized(refusal)),
        None => None,
    };
    if refused.is_none() && probe.is_none() {
        authenticates.authenticated();
    }
    let early = refused.or_else(|| options.after_auth(&req));
    let ends_session = req.method() == hyper::Method::DELETE;
    let (req, body_ended) = {
        let (parts, body) = req.into_parts();
        let (body, ended) = TrackedBody::new(body);
        (hyper::Request::from_parts(parts, body), ended)
    };
    async move {
        let mut res = match (probe, early) {
            (Some((method, path)), _) => {
                probes::probe(&method, &path, &server, &options.readiness).await
            }
            (None, Some(res)) => res,
            (None, None) => {
                match watch_refusal(tower_service::Service::call(&mut service, req)).await {
                    (_, true) => too_many_sessions(MCP_MAX_SESSIONS),
                    (Ok(res), false) => res,
                    (Err(never), false) => match never {},
                }
            }
        };
        if ends_session {
            session_ended(&mut res);
        }
        close_if_unread(&mut res, &body_ended);
        Ok::<_, Infallible>(res.map(|body| InFlightBody::new(body, in_flight)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_port_binds_loopback() {
        assert_eq!(parse_listen_addr("8765").unwrap(), "127.0.0.1:8765".parse().unwrap());
        assert_eq!(parse_listen_addr("localhost:0").unwrap(), "127.0.0.1:0".parse().unwrap());
        assert_eq!(parse_listen_addr("[::1]:9").unwrap(), "[::1]:9".parse().unwrap());
        assert_eq!(parse_listen_addr("0.0.0.0:80").unwrap(), "0.0.0.0:80".parse().unwrap());
        assert!(matches!(parse_listen_addr("example.com:80"), Err(ListenAddrError::Malformed(_))));
        assert!(parse_listen_addr("127.0.0.1").is_err());
    }

    #[test]
    fn only_loopback_and_allowed_hosts_pass() {
        let options = HttpOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            allowed_hosts: vec!["box.lan".into()],
            auth: None,
            readiness: Readiness::default(),
        };
        let config = options.config(CancellationToken::new());
        assert_eq!(config.allowed_hosts, ["localhost", "127.0.0.1", "::1", "box.lan"]);
        assert!(config.allowed_origins.contains(&"http://[::1]:*".to_string()));
        assert!(config.allowed_origins.contains(&"https://box.lan:*".to_string()));
        assert!(!config.allowed_origins.iter().any(|o| o.contains("evil")));
    }

    #[test]
    fn an_origin_port_must_be_a_number() {
        for ok in [
            "http://localhost:8765",
            "http://localhost",
            "https://box.lan:443",
            "http://[::1]:9",
            "http://[::1]",
            "null",
        ] {
            assert!(origin_is_well_formed(ok), "{ok}");
        }
        for bad in [
            "http://localhost:80.evil.com",
            "http://localhost:80@evil.com",
            "http://localhost:",
            "http://localhost:99999",
            "http://localhost:8/x",
            "http://[::1]:80.evil.com",
            "http://[::1]x",
            "http://a:b:80",
            "localhost:80",
            "http://",
            "",
        ] {
            assert!(!origin_is_well_formed(bad), "{bad}");
        }
    }
}
