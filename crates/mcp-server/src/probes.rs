//! The paths an orchestrator probes and scrapes on `toolhost mcp --listen`
//! (`docs/deployment.md`):
//!
//! * `GET /healthz` — the process answers: `200 ok`. No token needed.
//! * `GET /readyz` — the session store answers and bash's sandbox is available: `200 ready`,
//!   else `503` naming which (never why in detail: that goes to stderr). No token needed.
//! * `GET /metrics` — [`crate::metrics`] in the OpenMetrics text format, behind the bearer
//!   token like `/mcp`.
//!
//! The two probes answer before the token is checked and say nothing a request could use:
//! no path, no tool, no reason beyond "store" or "sandbox".

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use toolhost_limits::READY_CHECK_TIMEOUT_MS;
use toolhost_sandbox::{Availability, SandboxBackend};

use crate::metrics::{METRICS_CONTENT_TYPE, metrics};
use crate::server::McpServer;

/// A response as the HTTP transport sends them.
type Response = hyper::Response<BoxBody<Bytes, Infallible>>;

/// The liveness probe's path.
pub const HEALTHZ_PATH: &str = "/healthz";
/// The readiness probe's path.
pub const READYZ_PATH: &str = "/readyz";
/// The metrics path (behind the token).
pub const METRICS_PATH: &str = "/metrics";

/// What `/readyz` checks besides the store: bash's sandbox (none: not checked).
#[derive(Clone, Default)]
pub struct Readiness {
    /// The sandbox bash runs in; its availability is checked once and then remembered.
    pub sandbox: Option<Arc<dyn SandboxBackend>>,
}

/// A plain-text response.
pub(crate) fn text(status: hyper::StatusCode, content_type: &str, body: String) -> Response {
    let body = Full::new(Bytes::from(body)).map_err(|never: Infallible| match never {}).boxed();
    let mut res = hyper::Response::new(body);
    *res.status_mut() = status;
    if let Ok(value) = hyper::header::HeaderValue::from_str(content_type) {
        res.headers_mut().insert(hyper::header::CONTENT_TYPE, value);
    }
    res.headers_mut()
        .insert(hyper::header::CACHE_CONTROL, hyper::header::HeaderValue::from_static("no-store"));
    res
}

impl std::fmt::Debug for Readiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sandbox = self.sandbox.as_ref().map(|s| s.describe());
        f.debug_struct("Readiness").field("sandbox", &sandbox).finish()
    }
}

fn plain(status: hyper::StatusCode, body: &str) -> Response {
    text(status, "text/plain; charset=utf-8", format!("{body}\n"))
}

/// Whether `path` is a probe answered without the token.
pub(crate) fn is_probe(path: &str) -> bool {
    path == HEALTHZ_PATH || path == READYZ_PATH
}

/// The answer to a probe (`/healthz`, `/readyz`), given before the token is checked.
pub(crate) async fn probe(
    method: &hyper::Method,
    path: &str,
    server: &McpServer,
    readiness: &Readiness,
) -> Response {
    if method != hyper::Method::GET && method != hyper::Method::HEAD {
        return plain(hyper::StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed: use GET");
    }
    if path == HEALTHZ_PATH {
        return plain(hyper::StatusCode::OK, "ok");
    }
    let mut not_ready = Vec::new();
    if !store_answers(server).await {
        not_ready.push("store unreachable");
    }
    if !sandbox_available(readiness).await {
        not_ready.push("sandbox unavailable");
    }
    if not_ready.is_empty() {
        plain(hyper::StatusCode::OK, "ready")
    } else {
        plain(
            hyper::StatusCode::SERVICE_UNAVAILABLE,
            &format!("not ready: {}", not_ready.join(", ")),
        )
    }
}

/// `/metrics`, once the token has passed.
pub(crate) fn metrics_response(method: &hyper::Method) -> Response {
    if method != hyper::Method::GET && method != hyper::Method::HEAD {
        return plain(hyper::StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed: use GET");
    }
    text(hyper::StatusCode::OK, METRICS_CONTENT_TYPE, metrics().render())
}

fn check_timeout() -> Duration {
    Duration::from_millis(READY_CHECK_TIMEOUT_MS)
}

/// Whether the session store answers within the check's time (off the async runtime: a
/// store across the network may block).
async fn store_answers(server: &McpServer) -> bool {
    let runtime = server.runtime().clone();
    let check = tokio::task::spawn_blocking(move || runtime.store_reachable());
    match tokio::time::timeout(check_timeout(), check).await {
        Ok(Ok(Ok(()))) => true,
        Ok(Ok(Err(e))) => {
            tracing::warn!("readiness: the session store does not answer: {e}");
            false
        }
        Ok(Err(e)) => {
            tracing::warn!("readiness: the store check failed: {e}");
            false
        }
        Err(_) => {
            tracing::warn!(
                "readiness: the session store did not answer within {READY_CHECK_TIMEOUT_MS} ms"
            );
            false
        }
    }
}

/// Whether bash's sandbox is available (its first check starts a process: off the runtime).
async fn sandbox_available(readiness: &Readiness) -> bool {
    let Some(sandbox) = readiness.sandbox.clone() else { return true };
    let check = tokio::task::spawn_blocking(move || sandbox.available());
    match tokio::time::timeout(check_timeout(), check).await {
        Ok(Ok(Availability::Available)) => true,
        Ok(Ok(Availability::Unavailable { reason })) => {
            tracing::warn!("readiness: the sandbox is unavailable: {reason}");
            false
        }
        Ok(Err(_)) | Err(_) => false,
    }
}
